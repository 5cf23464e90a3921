"""The conflict scan of an import (docs/import.md): what each line of an export would
collide with, found before anything of it is stored.

A line is a *statement* when its memory is live (active, unexpired, valid now) and of a
kind the write path matches (not a turn, a summary or the graph: reads/related.py). Each
statement is compared with the live memories of its user (and agent; every session) and
with the statements before it in the batch, using the matching the write path uses: the
same slot (reads/records.py), the same topic key, the semantic match of the gate
(reads/related.py, understand/relate.py: a restatement is a duplicate, a change is a
conflict) and the clashes the slot vocabulary declares (clashes.py). Its text is read by
the gate's screens: instruction-like or command-like (safety/instructions.py) and
sensitive data under the strategy's PII policy (gate.screen). Every line, statement or
not, is checked for an id or a revision op id the store already has.

A statement with a finding is staged for review (importreview.py); a history line (not a
statement) that collides is skipped; a line already in the store as it is (the same
export imported again) is skipped as `already_stored`. The scan reads, never writes.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any

from . import gate
from .clashes import declared_conflicts
from .engine import Engine
from .ids import memory_hash
from .model import Memory, Revision, Scope
from .portability import Line
from .reads import records
from .reads.related import NOT_MATCHED
from .safety.instructions import scan as instruction_scan
from .safety.pii import find_pii, keyed_kinds, redact
from .understand.relate import Match, Relation, relate
from .understand.saidagain import restates
from .understand.stance import polarity
from .understand.topics import topic_of
from .writepath import gate_policy
from .writes import versioncap

# Every kind of finding, with what it means (docs/import.md has the table).
FINDINGS: dict[str, str] = {
    "duplicate": "the same statement is already a live memory of the user",
    "duplicate_in_batch": "the same statement is on an earlier line",
    "slot_conflict": "a live memory (or an earlier line) holds another value of the slot",
    "topic_conflict": "a live memory (or an earlier line) says something else about the "
                      "same topic, or the statement changes a memory found by meaning",
    "clash": "a value the slot vocabulary declares to clash with another slot's value",
    "frozen_target": "the memory it duplicates or conflicts with is frozen",
    "version_cap": "the memory it would change is at the version cap (write.max_versions)",
    "instruction": "the text reads like an instruction or a memory command",
    "pii": "sensitive data (phone, ID or card number, e-mail) under the PII policy",
    "id_in_use": "the store has a memory or history with this id",
    "op_in_use": "the store already has a revision of this line's history",
    "already_stored": "the store holds this memory as the line has it",
}
ACTIONS = ("import", "stage", "skip")


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing found about a line: its `kind` (FINDINGS), what it concerns (a stored
    memory's id, or the number of an earlier line of the batch) and a message."""

    kind: str
    message: str
    memory_id: str | None = None
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "memory_id": self.memory_id,
                "line": self.line}


@dataclass(slots=True)
class LineReport:
    """What the scan found on one line and what the import does with it: `import` (as it
    was exported), `stage` (a pending candidate in the review queue, `staged_id`; with
    `target_id`, approving it changes that memory) or `skip`."""

    line: int
    id: str
    action: str
    findings: list[Finding] = field(default_factory=list)
    content: str | None = None   # the statement as it would be stored (PII redacted)
    target_id: str | None = None
    staged_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "id": self.id, "action": self.action,
                "findings": [f.to_dict() for f in self.findings], "content": self.content,
                "target_id": self.target_id, "staged_id": self.staged_id}


@dataclass(slots=True)
class ImportReport:
    """The scan of a whole import, line by line; `dry_run`: nothing was stored."""

    dry_run: bool
    lines: list[LineReport] = field(default_factory=list)

    def count(self, action: str) -> int:
        return sum(1 for r in self.lines if r.action == action)

    @property
    def imported(self) -> int:
        return self.count("import")

    @property
    def staged(self) -> int:
        return self.count("stage")

    @property
    def skipped(self) -> int:
        return self.count("skip")

    def to_dict(self) -> dict[str, Any]:
        return {"dry_run": self.dry_run, "imported": self.imported, "staged": self.staged,
                "skipped": self.skipped, "lines": [r.to_dict() for r in self.lines]}


@dataclass(slots=True)
class Planned:
    """A scanned line and what the commit needs to stage it."""

    line: Line
    report: LineReport
    screened: gate.Screened | None = None
    links: list[str] = field(default_factory=list)


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _same(a: Memory, b: Memory) -> bool:
    """The same statement: the same words (normalised), value and kind."""
    return _norm(a.content) == _norm(b.content) and a.value == b.value and a.kind == b.kind


def _says_same(a: Memory, b: Memory) -> bool:
    """The same statement, or one restating the other with the same stance ("I love
    quiet cafes" does not restate "I hate quiet cafes")."""
    return _same(a, b) or (restates(a.content, b.content)
                           and polarity(a.content) == polarity(b.content))


def _topic(m: Memory) -> str | None:
    return m.topic or (topic_of(m.content) if m.slot is None else None)


def _user(sc: Scope) -> Scope:
    return Scope(sc.tenant, sc.user, sc.agent)


def _holds_slot(m: Memory) -> bool:
    return m.slot is not None and m.status == "active"


def is_statement(m: Memory | None, now: int) -> bool:
    return m is not None and m.kind not in NOT_MATCHED and m.is_live(now)


class _Scan:
    def __init__(self, eng: Engine, now: int) -> None:
        self.eng, self.now = eng, now
        self.policy = gate_policy(eng)
        self.slotted: dict[str, list[Memory]] = {}  # user -> live slotted memories

    def live(self, user: Scope, **flt: Any) -> list[Memory]:
        return [m for m in records.list_memories(self.eng.core, user, status="active",
                                                 limit=1000, **flt)
                if m.is_live(self.now)]

    def against_store(self, m: Memory, vectors: dict[str, Any], out: Planned) -> None:
        """Findings against the live memories of the line's user."""
        user = _user(m.scope)
        add = self.finder(out)
        seen: set[str] = set()
        if m.slot is not None:
            for h in self.live(user, slot=m.slot):
                if h.id == m.id:
                    continue
                seen.add(h.id)
                if h.value == m.value:
                    add("duplicate", f"memory {h.id} already holds {m.slot} = {h.value!r}", h)
                else:
                    add("slot_conflict", f"memory {h.id} holds {m.slot} = {h.value!r}", h,
                        target=h.scope == m.scope)
        topic = _topic(m)
        if m.slot is None and topic:
            for h in self.live(user, topic=topic):
                if h.id == m.id or h.id in seen:
                    continue
                seen.add(h.id)
                if _says_same(m, h):
                    add("duplicate", f"memory {h.id} says the same: {h.content!r}", h)
                else:
                    add("topic_conflict", f"memory {h.id} is about {topic!r} too: "
                        f"{h.content!r}", h, target=True)
        found = self.eng.reads.related(m.scope, m.content, vectors, topic=topic, slot=m.slot)
        found = [r for r in found if r.memory.id != m.id]
        for r in found:
            if r.memory.id not in seen and _same(r.memory, m):
                seen.add(r.memory.id)
                add("duplicate", f"memory {r.memory.id} says the same", r.memory)
        rel = relate(m.content, [Match(r.memory.id, r.memory.content, r.score, r.dense)
                                 for r in found], thresholds=self.policy.thresholds)
        hit = next((r.memory for r in found if r.memory.id == rel.target_id), None)
        if hit is not None and hit.id not in seen:
            if rel.relation == Relation.SAME:
                add("duplicate", f"memory {hit.id} says the same: {hit.content!r}", hit)
            elif rel.relation == Relation.UPDATE:
                add("topic_conflict", f"it changes memory {hit.id}: {hit.content!r}", hit,
                    target=True)
        if m.slot is not None:
            if user.key() not in self.slotted:
                self.slotted[user.key()] = self.live(user, slotted=True)
            for h in self.slotted[user.key()]:
                if h.id != m.id and h.slot != m.slot and declared_conflicts([m, h]):
                    add("clash", f"{m.slot} / {h.slot} is a declared clash with memory "
                        f"{h.id} ({h.slot} = {h.value!r})", h)

    def against_batch(self, m: Memory, n: int, earlier: list[tuple[int, Memory]],
                      out: Planned) -> None:
        """Findings against the statements on earlier lines of the same user."""
        add = self.finder(out)
        user = _user(m.scope).key()
        for k, e in earlier:
            if _user(e.scope).key() != user:
                continue
            if _same(e, m):
                add("duplicate_in_batch", f"line {k} says the same", None, line=k)
            elif m.slot is not None and e.slot == m.slot:
                if e.value == m.value:
                    add("duplicate_in_batch", f"line {k} holds {m.slot} = {e.value!r} too",
                        None, line=k)
                else:
                    add("slot_conflict", f"line {k} holds {m.slot} = {e.value!r}", None,
                        line=k, target_id=e.id if e.scope == m.scope else None)
            elif m.slot is None and e.slot is None and _topic(m) and _topic(e) == _topic(m):
                if _says_same(m, e):
                    add("duplicate_in_batch", f"line {k} says the same", None, line=k)
                else:
                    add("topic_conflict", f"line {k} is about {_topic(m)!r} too", None,
                        line=k, target_id=e.id)
            elif m.slot and e.slot and declared_conflicts([e, m]):
                add("clash", f"{e.slot} / {m.slot} is a declared clash with line {k}", None,
                    line=k)

    def finder(self, out: Planned) -> Any:
        def add(kind: str, message: str, about: Memory | None, *, target: bool = False,
                memory_id: str | None = None, line: int | None = None,
                target_id: str | None = None) -> None:
            mid = about.id if about is not None else memory_id
            out.report.findings.append(Finding(kind, message, mid, line))
            if mid is not None and mid not in out.links:
                out.links.append(mid)
            if target and about is not None and out.report.target_id is None:
                out.report.target_id = about.id
            if target_id is not None and out.report.target_id is None:
                out.report.target_id = target_id
            if about is not None and about.frozen:
                out.report.findings.append(Finding(
                    "frozen_target", f"memory {about.id} is frozen", about.id))
            if about is not None and target and versioncap.capped(self.eng.core, about):
                out.report.findings.append(Finding(
                    "version_cap", versioncap.message(about, versioncap.cap(self.eng.core)),
                    about.id))
        return add

    def screens(self, m: Memory, out: Planned) -> None:
        """Instruction-like text and sensitive data, read as the gate reads them."""
        hits = instruction_scan(m.content)
        if hits:
            codes = ", ".join(sorted({h.code for h in hits}))
            out.report.findings.append(Finding("instruction", f"reads like an instruction "
                                               f"({codes})"))
        cand = gate.Candidate(content=m.content, slot=m.slot, value=m.value, kind=m.kind,
                              source=m.source, confidence=m.confidence,
                              source_text=m.source_text)
        screened = gate.screen(cand, self.policy)
        self.sensitive(m, out, staged=True)
        out.screened = screened
        out.report.content = self.shown(screened.content)

    def sensitive(self, m: Memory, out: Planned, *, staged: bool) -> None:
        """A `pii` finding for sensitive data the policy does not `allow`. A statement is
        staged with it redacted; a line loaded as it was (a turn, a summary) is skipped:
        it would carry the value into the store verbatim."""
        texts = [m.content, m.source_text or "", *(t for t in [m.value] if isinstance(t, str)),
                 m.topic or ""]
        # Tags, the reference and metadata are fields: a one-token value there is an
        # identifier unless a label, or its key, says otherwise (safety.pii.scrub).
        fields = [*m.tags, m.source_ref or "", *_strings(m.metadata)]
        kinds = sorted({f.kind for t in texts for f in find_pii(t)}
                       | {f.kind for t in fields for f in find_pii(t, field=True)}
                       | set(keyed_kinds(m.metadata)))
        flagged = [k for k in kinds if self.policy.pii_action(k) != "allow"]
        if flagged:
            redacted = staged and any(self.policy.pii_action(k) == "redact" for k in flagged)
            out.report.findings.append(Finding(
                "pii", f"sensitive data: {', '.join(flagged)}"
                + (" (redacted in the staged candidate)" if redacted else "")))

    def shown(self, text: str | None) -> str | None:
        """`text` as a report may show it: every sensitive span the policy does not
        `allow` replaced by its placeholder, whatever the line's action (a skipped line,
        a history line and a `stage` policy's verbatim candidate included)."""
        if not text:
            return text
        kinds = {f.kind for f in find_pii(text) if self.policy.pii_action(f.kind) != "allow"}
        return redact(text, kinds)[0] if kinds else text


def _strings(value: Any) -> list[str]:
    """Every string in `value` (metadata: mappings and lists of text), keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, x in value.items() for t in (*_strings(k), *_strings(x))]
    if isinstance(value, list | tuple):
        return [t for x in value for t in _strings(x)]
    return []


def staged_before(eng: Engine, users: set[Scope]) -> dict[str, str]:
    """Line id -> the memory an earlier reviewed import staged it as (its review record's
    `import.id`, pending or since reviewed): such a line is not staged twice."""
    out: dict[str, str] = {}
    for user in sorted(users, key=lambda u: u.key()):
        for m in records.list_memories(eng.core, user, limit=10_000):
            for key in ("review", "reviewed"):
                rec = m.metadata.get(key)
                imp = rec.get("import") if isinstance(rec, dict) else None
                if isinstance(imp, dict) and isinstance(imp.get("id"), str):
                    out.setdefault(imp["id"], m.id)
    return out


def _id_checks(tx: Any, m: Memory | None, revs: list[Revision], out: Planned,
               before: dict[str, str]) -> None:
    mid = m.id if m is not None else revs[0].memory_id
    if m is not None and mid in before:
        out.report.findings.append(Finding("already_stored", f"an earlier import staged "
                                           f"this line as {before[mid]}", before[mid]))
        return
    if tx.id_in_use(mid):
        owner = revs[0].scope
        stored = tx.get(Scope(owner.tenant, owner.user), mid)
        if m is None and tx.purged(Scope(owner.tenant, owner.user), mid):
            same = True
        elif stored is not None and m is not None:
            same = (stored.version == m.version and stored.status == m.status
                    and memory_hash(stored) == memory_hash(m))
        else:
            same = False
        if same:
            out.report.findings.append(Finding("already_stored", f"memory {mid} is stored "
                                               "as this line has it", mid))
            return
        out.report.findings.append(Finding("id_in_use", f"the store has a memory {mid}",
                                           mid))
    taken = tx.ops_in_use([r.op_id for r in revs])
    if taken:
        out.report.findings.append(Finding(
            "op_in_use", f"revision {sorted(taken)[0]} of its history is in the store"))


def scan(eng: Engine, numbered: list[tuple[int, Line]], *,
         dry_run: bool) -> tuple[ImportReport, list[Planned]]:
    """Scan every line; nothing is written. The plans say what the commit does."""
    now = eng.core.clock()
    s = _Scan(eng, now)
    plans: list[Planned] = []
    statements = [(n, m) for n, (m, _) in numbered if m is not None and is_statement(m, now)]
    vectors = dict(zip((n for n, _ in statements),
                       eng.core.vectors([m.content for _, m in statements]), strict=True))
    before = staged_before(eng, {Scope(r[0].scope.tenant, r[0].scope.user)
                                 for _, (_, r) in numbered})
    with eng.core.store.transaction() as tx:  # reads only
        for n, (m, revs) in numbered:
            mid = m.id if m is not None else revs[0].memory_id
            plan = Planned((m, revs), LineReport(n, mid, "import",
                                                 content=s.shown(m.content if m else None)))
            _id_checks(tx, m, revs, plan, before)
            if m is not None and n not in vectors and _holds_slot(m):
                # History that is still the active value of a slot (an expired one, say):
                # loaded beside the store's active value it would break the slot's rule.
                holder = tx.find_slot(m.scope, m.slot)
                if holder is not None and holder.id != m.id and _holds_slot(holder):
                    plan.report.findings.append(Finding(
                        "slot_conflict", f"memory {holder.id} is the active value of "
                        f"{m.slot} in {m.scope}", holder.id))
            plans.append(plan)
    earlier: list[tuple[int, Memory]] = []
    seen_ops: set[str] = set()
    landing: dict[tuple[str, str], int] = {}  # (exact scope, slot) -> the line loading it
    for plan in plans:
        m, revs = plan.line
        rep = plan.report
        ops = {r.op_id for r in revs}
        if ops & seen_ops:
            rep.findings.append(Finding("op_in_use", "an earlier line has a revision of "
                                        "the same op id"))
        seen_ops |= ops
        if any(f.kind == "already_stored" for f in rep.findings):
            rep.action = "skip"
            continue
        key = (m.scope.key(), m.slot or "") if m is not None and _holds_slot(m) else None
        if key is not None and key in landing and m is not None and not any(
                f.line == landing[key] for f in rep.findings):
            rep.findings.append(Finding("slot_conflict", f"line {landing[key]} is the active "
                                        f"value of {m.slot} in {m.scope}", line=landing[key]))
        if m is None or rep.line not in vectors:
            if m is not None:
                s.sensitive(m, plan, staged=False)
            rep.action = "skip" if rep.findings else "import"
        else:
            s.against_store(m, vectors[rep.line], plan)
            s.against_batch(m, rep.line, earlier, plan)
            s.screens(m, plan)
            rep.action = "stage" if rep.findings else "import"
            earlier.append((rep.line, m))
        if key is not None and rep.action == "import":
            landing[key] = rep.line
    report = ImportReport(dry_run=dry_run, lines=[p.report for p in plans])
    return report, plans


__all__ = ["ACTIONS", "FINDINGS", "Finding", "ImportReport", "LineReport", "Planned", "scan"]

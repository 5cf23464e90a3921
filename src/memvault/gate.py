"""The write gate: what a candidate memory may become, decided as a pure function.

`decide(candidate, state, policy) -> Decision`. No I/O and no clock: the caller looks up
the state (the slot's current memory, same-subject memories, a duplicate, the time),
calls `decide`, and commits what the decision says, inside the transaction that did the
lookup so the state cannot change in between. The same inputs always give the same
decision, which is what makes the table in tests/test_gate.py a specification.

Rules, in the order they run (the first three end the decision):

1. shape -> REJECT: empty, too long, unknown source/kind, confidence outside 0..1, an
   expiry already past, `admin_manual` claimed by a caller without an operator role.
   Then BLOCK `scope_mismatch` if the state was read for another scope.
2. sensitive data, before anything else about storage: per kind, `redact` (placeholders in
   content, value and source_text; continue), `stage`, or `allow`.
3. duplicate -> NOOP (the caller may reinforce): an identical active memory; or the slot
   already holds the same value and the candidate is not an explicit, newer user statement
   (`same_value`).
4. the remaining checks all run and their reasons are collected:
   frozen target (slot or conflicting same-subject memory) -> BLOCK;
   instruction-like text -> stage; command-like text -> stage unless it is a complete
   update from the user themself (explicit, user source, slot and value);
   policy-untrusted source -> stage; confidence (inferred facts discounted) below the
   threshold -> stage; a different value for the slot or the same subject -> UPDATE only
   when explicit, from the user and not older, else stage with both sides linked.
5. BLOCK if anything frozen was hit (its reasons also list every other concern found, for
   the record of the attempt), else STAGE if any stage reason, else UPDATE (the slot has
   a current memory) or ADD. Informational reasons (pii_redacted, command_complete,
   restated, target_expired, supersedes, pii_allowed) never change the action.

Source legitimacy: user_explicit > admin_manual (operator role required) > document, tool,
import > system_inferred. Contradictions between different slots are not the gate's
business: both are kept and the context builder shows them as a conflict.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .model import Kind, Memory, Source
from .safety.instructions import InstructionFinding, scan
from .safety.pii import PLACEHOLDERS, PiiFinding, find_pii, redact
from .validate import MAX_CONTENT_CHARS

__all__ = ["SOURCE_RANK", "STAGE_REASONS", "Action", "Candidate", "Decision", "GatePolicy",
           "GateState", "MemoryView", "Reason", "Screened", "decide", "screen"]


class Action(StrEnum):
    ADD = "add"          # store as a new active memory
    UPDATE = "update"    # new version of Decision.target_id (the slot's current memory)
    NOOP = "noop"        # already known; the caller may reinforce Decision.target_id
    STAGE = "stage"      # store as pending for review, with reasons and links
    BLOCK = "block"      # refused because of what it would touch; the caller records it
    REJECT = "reject"    # invalid input; nothing is stored


class Reason(StrEnum):
    # reject
    EMPTY = "empty"
    TOO_LONG = "too_long"
    BAD_SOURCE = "bad_source"
    BAD_KIND = "bad_kind"
    BAD_CONFIDENCE = "bad_confidence"
    ALREADY_EXPIRED = "already_expired"
    ADMIN_WITHOUT_OPERATOR = "admin_without_operator"
    # block
    SCOPE_MISMATCH = "scope_mismatch"
    FROZEN_TARGET = "frozen_target"
    # noop
    DUPLICATE = "duplicate"
    SAME_VALUE = "same_value"
    # stage
    PII_STAGED = "pii_staged"
    INJECTION_LIKE = "injection_like"
    COMMAND_LIKE = "command_like"
    INCOMPLETE_UPDATE = "incomplete_update"
    SOURCE_UNTRUSTED = "source_untrusted"
    INFERRED_LOW_CONFIDENCE = "inferred_low_confidence"
    LOW_CONFIDENCE = "low_confidence"
    CONFLICT_NOT_EXPLICIT = "conflict_not_explicit"
    CONFLICT_OLDER = "conflict_older"
    SOURCE_OUTRANKED = "source_outranked"
    # informational (recorded, do not change the action)
    PII_REDACTED = "pii_redacted"
    PII_ALLOWED = "pii_allowed"
    COMMAND_COMPLETE = "command_complete"
    TARGET_EXPIRED = "target_expired"
    RESTATED = "restated"
    SUPERSEDES = "supersedes"


STAGE_REASONS = frozenset({
    Reason.PII_STAGED, Reason.INJECTION_LIKE, Reason.COMMAND_LIKE, Reason.INCOMPLETE_UPDATE,
    Reason.SOURCE_UNTRUSTED, Reason.INFERRED_LOW_CONFIDENCE, Reason.LOW_CONFIDENCE,
    Reason.CONFLICT_NOT_EXPLICIT, Reason.CONFLICT_OLDER, Reason.SOURCE_OUTRANKED})

_MESSAGES: dict[Reason, str] = {
    Reason.EMPTY: "the content is empty",
    Reason.TOO_LONG: "the content is longer than the policy allows",
    Reason.BAD_SOURCE: "the source is not a known source",
    Reason.BAD_KIND: "the kind is not a known kind",
    Reason.BAD_CONFIDENCE: "confidence must be a number in 0..1",
    Reason.ALREADY_EXPIRED: "the memory would already be expired",
    Reason.ADMIN_WITHOUT_OPERATOR: "source admin_manual requires an operator role",
    Reason.SCOPE_MISMATCH: "the state was read for another scope",
    Reason.FROZEN_TARGET: "it would change a frozen memory",
    Reason.DUPLICATE: "an identical active memory exists",
    Reason.SAME_VALUE: "the slot already holds this value",
    Reason.PII_STAGED: "it contains sensitive data the policy sends to review",
    Reason.INJECTION_LIKE: "the text reads like instructions to a model",
    Reason.COMMAND_LIKE: "the text reads like a memory command, which is never executed",
    Reason.INCOMPLETE_UPDATE: "an update must name both the slot and the new value",
    Reason.SOURCE_UNTRUSTED: "the policy reviews everything from this source",
    Reason.INFERRED_LOW_CONFIDENCE: "inferred, and below the confidence threshold after "
                                    "the inference discount",
    Reason.LOW_CONFIDENCE: "below the confidence threshold",
    Reason.CONFLICT_NOT_EXPLICIT: "it contradicts an active memory and is not an explicit "
                                  "statement of the user",
    Reason.CONFLICT_OLDER: "it contradicts a newer active memory",
    Reason.SOURCE_OUTRANKED: "the memory it contradicts comes from a more legitimate source",
    Reason.PII_REDACTED: "sensitive data was replaced by placeholders",
    Reason.PII_ALLOWED: "sensitive data kept as the policy allows",
    Reason.COMMAND_COMPLETE: "command-like, accepted as a complete explicit statement of "
                             "the user",
    Reason.TARGET_EXPIRED: "the current value had expired",
    Reason.RESTATED: "the same value, restated by the user",
    Reason.SUPERSEDES: "it replaces a contradicting memory of the same subject",
}

# Higher wins. import is a restore of exported data; through the gate it is treated like
# any other document.
SOURCE_RANK: dict[str, int] = {
    Source.USER_EXPLICIT: 3, Source.ADMIN_MANUAL: 2, Source.DOCUMENT: 1, Source.TOOL: 1,
    Source.IMPORT: 1, Source.SYSTEM_INFERRED: 0,
}

_PII_ACTIONS = ("redact", "stage", "allow")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory someone wants stored. Times are epoch ms.

    explicit: the user stated it directly (not paraphrased, guessed or quoted).
    observed_at: when the statement was made; None means now (newer than anything stored).
    subject: what the statement is about ("medication"), for same-subject conflicts
    between memories without a common slot.
    """

    content: str
    slot: str | None = None
    value: Any = None
    kind: str | None = None            # None: preference with a slot, fact without
    source: str = Source.USER_EXPLICIT.value
    confidence: float = 1.0
    source_text: str | None = None
    actor: str = ""
    actor_role: str = "user"
    explicit: bool = False
    scope_key: str = ""                # Scope.key() of the write
    subject: str | None = None
    expires_at: int | None = None
    observed_at: int | None = None


@dataclass(frozen=True, slots=True)
class MemoryView:
    """The parts of a stored memory the gate looks at."""

    id: str
    content: str
    value: Any = None
    slot: str | None = None
    kind: str | None = None
    subject: str | None = None
    version: int = 1
    frozen: bool = False
    source: str = Source.USER_EXPLICIT.value
    recorded_at: int = 0
    updated_at: int = 0
    expires_at: int | None = None
    # When the stored statement was made, if known (a replayed conversation's message
    # time): "newer" compares what was said when, not when it reached the store.
    said_at: int | None = None

    @classmethod
    def of(cls, m: Memory, subject: str | None = None) -> MemoryView:
        """From a Memory; the subject defaults to metadata["subject"]."""
        subj = subject if subject is not None else m.metadata.get("subject")
        return cls(id=m.id, content=m.content, value=m.value, slot=m.slot, kind=m.kind,
                   subject=subj if isinstance(subj, str) else None, version=m.version,
                   frozen=m.frozen, source=m.source, recorded_at=m.recorded_at,
                   updated_at=m.updated_at, expires_at=m.expires_at,
                   said_at=said if isinstance(said := m.metadata.get("said_at"), int)
                   and not isinstance(said, bool) else None)


@dataclass(frozen=True, slots=True)
class GateState:
    """What the store holds that the candidate could touch, read in the write transaction.

    current: the active memory of the candidate's slot, if any.
    same_subject: other active memories whose subject is the candidate's subject.
    duplicate_id: an active memory identical to the candidate AS IT WILL BE STORED (look it
    up with the content `screen()` returns, or a redacted candidate never matches).
    now: the time of the write, epoch ms (expiry checks are skipped when None).
    scope_key: Scope.key() the state was read for; "" skips the check.
    """

    current: MemoryView | None = None
    same_subject: tuple[MemoryView, ...] = ()
    duplicate_id: str | None = None
    now: int | None = None
    scope_key: str = ""


@dataclass(frozen=True, slots=True)
class GatePolicy:
    """The gate's knobs. Defaults follow the seed article: inferred facts count half, and
    with a 0.6 threshold that means no inferred fact is activated without review.

    inferred_confidence_discount: multiplier for system_inferred confidence (models
      overrate themselves: "the user likes coffee" at 0.98 from a shared article).
    stage_below_confidence: effective confidence below this is staged, for every source.
    pii: per kind (phone, id_number, card, email): "redact" (default), "stage" or "allow".
    max_content_chars: longer content is rejected.
    operator_roles: actor roles allowed to write source admin_manual.
    stage_sources: sources whose candidates always go to review (e.g. {"tool"}).
    """

    inferred_confidence_discount: float = 0.5
    stage_below_confidence: float = 0.6
    pii: Mapping[str, str] = field(default_factory=lambda: dict.fromkeys(PLACEHOLDERS,
                                                                          "redact"))
    max_content_chars: int = MAX_CONTENT_CHARS
    operator_roles: frozenset[str] = frozenset({"admin", "operator"})
    stage_sources: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        for name in ("inferred_confidence_discount", "stage_below_confidence"):
            x = getattr(self, name)
            if not isinstance(x, int | float) or isinstance(x, bool) or not 0.0 <= x <= 1.0:
                raise ValueError(f"GatePolicy.{name}: expected a number in 0..1, got {x!r}")
        unknown = set(self.pii) - set(PLACEHOLDERS)
        if unknown:
            raise ValueError(f"GatePolicy.pii: unknown kind(s) {sorted(unknown)}")
        bad = {k: a for k, a in self.pii.items() if a not in _PII_ACTIONS}
        if bad:
            raise ValueError(f"GatePolicy.pii: actions must be one of {_PII_ACTIONS}, got {bad}")
        if self.max_content_chars < 1:
            raise ValueError("GatePolicy.max_content_chars: must be >= 1")

    def pii_action(self, kind: str) -> str:
        return self.pii.get(kind, "redact")


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with a candidate, and why.

    content, value, source_text: what to store (redacted when the policy says so); store
      these, never the candidate's originals.
    confidence: the effective confidence (after the inference discount) to store.
    target_id: the memory to update (update, and stage on a slot that has a value), the
      duplicate (noop), or the frozen memory (block).
    links: memories a staged conflict contradicts (the reviewer sees both sides).
    supersedes: memories without the candidate's slot that an accepted candidate replaces
      (mark them superseded in the same transaction).
    pii: sensitive spans found in the ORIGINAL content (kinds only, never the values).
    flags: (field, finding) for command/injection matches; field is content, source_text
      or value, and the span indexes that field as stored (after redaction).
    """

    action: Action
    reasons: tuple[Reason, ...]
    content: str
    value: Any
    source_text: str | None
    confidence: float
    target_id: str | None = None
    links: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    message: str = ""
    pii: tuple[PiiFinding, ...] = ()
    flags: tuple[tuple[str, InstructionFinding], ...] = ()

    @property
    def status(self) -> str | None:
        """The status to store the candidate with, or None when nothing is stored."""
        return {Action.ADD: "active", Action.UPDATE: "active",
                Action.STAGE: "pending"}.get(self.action)

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action.value, "reasons": [r.value for r in self.reasons],
                "content": self.content, "value": self.value, "source_text": self.source_text,
                "confidence": self.confidence, "target_id": self.target_id,
                "links": list(self.links), "supersedes": list(self.supersedes),
                "message": self.message,
                "pii": [{"kind": f.kind, "start": f.start, "end": f.end} for f in self.pii],
                "flags": [{"field": name, "kind": f.kind, "code": f.code, "start": f.start,
                           "end": f.end} for name, f in self.flags]}


# --- helpers -------------------------------------------------------------------------------

def _norm(text: str) -> str:
    # The same equivalence as vault.content_hash: NFKC, casefold, whitespace collapsed.
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return _norm(a) == _norm(b)
    return bool(a == b) and type(a) is type(b)


def _claims_equal(content: str, value: Any, view: MemoryView) -> bool:
    """Do candidate and view say the same thing? By value when both have one."""
    if value is not None and view.value is not None:
        return _same_value(value, view.value)
    return _norm(content) == _norm(view.content)


def _identical(content: str, value: Any, kind: str | None, view: MemoryView) -> bool:
    if _norm(content) != _norm(view.content):
        return False
    if kind is not None and view.kind is not None and kind != view.kind:
        return False
    return (value is None and view.value is None) or _same_value(value, view.value)


def _strings(value: Any) -> list[str]:
    """Every string inside a JSON-like value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _strings(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _strings(v)]
    return []


def _redact_value(value: Any, kinds: frozenset[str]) -> Any:
    if isinstance(value, str):
        return redact(value, kinds)[0]
    if isinstance(value, list | tuple):
        return [_redact_value(v, kinds) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v, kinds) for k, v in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class Screened:
    """A candidate's text after the sensitive-data policy, and what was found."""

    content: str
    value: Any
    source_text: str | None
    findings: tuple[PiiFinding, ...]   # in the original content (value/source_text: kinds
    reasons: tuple[Reason, ...]        # count in `reasons`, spans are not kept)


def screen(candidate: Candidate, policy: GatePolicy | None = None) -> Screened:
    """Apply the sensitive-data policy to content, value and source_text (source_text ends
    up in revisions as trigger text, so it is redacted too). Callers use the returned
    content to look up duplicates before calling `decide`."""
    policy = policy or GatePolicy()
    in_content = find_pii(candidate.content)
    texts = [*_strings(candidate.value)]
    if candidate.source_text is not None:
        texts.append(candidate.source_text)
    kinds = {f.kind for f in in_content} | {f.kind for t in texts for f in find_pii(t)}
    actions = {policy.pii_action(k) for k in kinds}
    redact_kinds = frozenset(k for k in kinds if policy.pii_action(k) == "redact")
    reasons: list[Reason] = []
    for action, reason in (("redact", Reason.PII_REDACTED), ("stage", Reason.PII_STAGED),
                           ("allow", Reason.PII_ALLOWED)):
        if action in actions:
            reasons.append(reason)
    if not redact_kinds:
        return Screened(candidate.content, candidate.value, candidate.source_text,
                        tuple(in_content), tuple(reasons))
    source_text = (redact(candidate.source_text, redact_kinds)[0]
                   if candidate.source_text is not None else None)
    return Screened(redact(candidate.content, redact_kinds)[0],
                    _redact_value(candidate.value, redact_kinds), source_text,
                    tuple(in_content), tuple(reasons))


def _shape(c: Candidate, state: GateState, policy: GatePolicy) -> list[Reason]:
    out: list[Reason] = []
    if not isinstance(c.content, str) or not "".join(
            ch for ch in c.content if unicodedata.category(ch) != "Cf").strip():
        out.append(Reason.EMPTY)
    elif len(c.content) > policy.max_content_chars:
        out.append(Reason.TOO_LONG)
    if c.source not in SOURCE_RANK:
        out.append(Reason.BAD_SOURCE)
    if c.kind is not None and c.kind not in {k.value for k in Kind}:
        out.append(Reason.BAD_KIND)
    conf = c.confidence
    if (isinstance(conf, bool) or not isinstance(conf, int | float) or math.isnan(conf)
            or not 0.0 <= conf <= 1.0):
        out.append(Reason.BAD_CONFIDENCE)
    if c.expires_at is not None and state.now is not None and c.expires_at <= state.now:
        out.append(Reason.ALREADY_EXPIRED)
    if c.source == Source.ADMIN_MANUAL and c.actor_role not in policy.operator_roles:
        # A claim of operator provenance from someone who is not an operator is refused,
        # not queued: a reviewer could fix the content, never the identity.
        out.append(Reason.ADMIN_WITHOUT_OPERATOR)
    return out


def _expired(view: MemoryView, now: int | None) -> bool:
    return now is not None and view.expires_at is not None and view.expires_at <= now


def _message(action: Action, reasons: list[Reason]) -> str:
    if not reasons:
        return f"{action.value}: passed every check"
    return f"{action.value}: " + "; ".join(f"{_MESSAGES[r]} ({r.value})" for r in reasons)


def _add(reasons: list[Reason], *new: Reason) -> None:
    for r in new:
        if r not in reasons:
            reasons.append(r)


# --- the decision --------------------------------------------------------------------------

def decide(candidate: Candidate, state: GateState | None = None,
           policy: GatePolicy | None = None) -> Decision:
    """The gate. Pure: reads its arguments, returns a Decision, changes nothing."""
    c, state, policy = candidate, state or GateState(), policy or GatePolicy()

    def done(action: Action, reasons: list[Reason], *, content: str | None = None,
             value: Any = None, source_text: str | None = None, confidence: float = 0.0,
             target_id: str | None = None, links: list[str] | None = None,
             supersedes: list[str] | None = None, pii: tuple[PiiFinding, ...] = (),
             flags: tuple[tuple[str, InstructionFinding], ...] = ()) -> Decision:
        return Decision(action, tuple(reasons),
                        content if content is not None else (c.content or ""), value,
                        source_text, confidence, target_id, tuple(links or ()),
                        tuple(supersedes or ()), _message(action, reasons), pii, flags)

    # 1. shape: nothing else is meaningful for an invalid candidate.
    bad = _shape(c, state, policy)
    if bad:
        conf = c.confidence if Reason.BAD_CONFIDENCE not in bad else 0.0
        return done(Action.REJECT, bad, value=c.value, source_text=c.source_text,
                    confidence=float(conf))
    if state.scope_key and c.scope_key and state.scope_key != c.scope_key:
        return done(Action.BLOCK, [Reason.SCOPE_MISMATCH], value=c.value,
                    source_text=c.source_text, confidence=float(c.confidence))

    # 2. sensitive data first: every later rule sees the text as it would be stored.
    s = screen(c, policy)
    reasons: list[Reason] = list(s.reasons)
    confidence = float(c.confidence)
    if c.source == Source.SYSTEM_INFERRED:
        confidence *= policy.inferred_confidence_discount
    user_stated = c.explicit and c.source == Source.USER_EXPLICIT
    # The slot's current memory; a state read for another slot is ignored, not trusted.
    cur = state.current if (c.slot is not None and state.current is not None
                            and state.current.slot in (None, c.slot)) else None

    def older_than(view: MemoryView) -> bool:
        seen = view.said_at or view.recorded_at or view.updated_at
        return c.observed_at is not None and c.observed_at < seen

    def out(action: Action, rs: list[Reason], **kw: Any) -> Decision:
        return done(action, rs, content=s.content, value=s.value, source_text=s.source_text,
                    confidence=confidence, pii=s.findings, **kw)

    # 3. duplicates: nothing new to store.
    if state.duplicate_id is not None:
        return out(Action.NOOP, [*reasons, Reason.DUPLICATE], target_id=state.duplicate_id)
    if cur is not None and _identical(s.content, s.value, c.kind, cur):
        return out(Action.NOOP, [*reasons, Reason.DUPLICATE], target_id=cur.id)
    restated = False
    if cur is not None and s.value is not None and cur.value is not None \
            and _same_value(s.value, cur.value):
        if not user_stated or older_than(cur):
            return out(Action.NOOP, [*reasons, Reason.SAME_VALUE], target_id=cur.id)
        restated = True

    # 4. everything else, reasons collected in rule order.
    frozen_id: str | None = None
    if cur is not None and cur.frozen:
        frozen_id = cur.id
    # source_text too: an extractor that turns "update: X" into the content "X" must not
    # launder the command.
    fields = [("content", s.content), ("source_text", s.source_text or ""),
              *(("value", t) for t in _strings(s.value))]
    flags = tuple((name, f) for name, text in fields for f in scan(text))
    if any(f.kind == "injection" for _, f in flags):
        _add(reasons, Reason.INJECTION_LIKE)
    if any(f.kind == "command" for _, f in flags):
        complete = c.slot is not None and s.value is not None
        if user_stated and complete:
            _add(reasons, Reason.COMMAND_COMPLETE)
        else:
            _add(reasons, Reason.COMMAND_LIKE)
            if not complete:
                _add(reasons, Reason.INCOMPLETE_UPDATE)
    if c.source in policy.stage_sources:
        _add(reasons, Reason.SOURCE_UNTRUSTED)
    if confidence < policy.stage_below_confidence:
        _add(reasons, Reason.INFERRED_LOW_CONFIDENCE if c.source == Source.SYSTEM_INFERRED
             else Reason.LOW_CONFIDENCE)

    links: list[str] = []
    supersedes: list[str] = []

    def conflict(view: MemoryView) -> bool:
        """Record a contradiction with `view`; True if the candidate may override it."""
        rs: list[Reason] = []
        if not user_stated:
            rs.append(Reason.CONFLICT_NOT_EXPLICIT)
        if older_than(view):
            rs.append(Reason.CONFLICT_OLDER)
        if SOURCE_RANK[c.source] < SOURCE_RANK.get(view.source, 0):
            rs.append(Reason.SOURCE_OUTRANKED)
        if rs:
            _add(reasons, *rs)
            links.append(view.id)
        return not rs

    if cur is not None and frozen_id is None:
        if _expired(cur, state.now):
            # An expired value has lost its authority: replacing it is not a contradiction.
            _add(reasons, Reason.TARGET_EXPIRED)
        elif restated:
            _add(reasons, Reason.RESTATED)
        elif s.value is None:
            # Changing a slot needs the object AND the value (the seed's "对象 + 期望值").
            _add(reasons, Reason.INCOMPLETE_UPDATE)
            links.append(cur.id)
        elif not _claims_equal(s.content, s.value, cur):
            conflict(cur)

    if c.subject is not None:
        for view in state.same_subject:
            if cur is not None and view.id == cur.id:
                continue
            if view.subject != c.subject or _expired(view, state.now):
                continue
            if c.slot is not None and view.slot is not None and view.slot != c.slot:
                continue  # different slots: not the gate's business
            if s.value is None or view.value is None or _same_value(s.value, view.value):
                continue  # no structured disagreement the gate can see
            if view.frozen:
                frozen_id = frozen_id or view.id
            elif conflict(view):
                supersedes.append(view.id)
    staged = any(r in STAGE_REASONS for r in reasons)
    if supersedes and staged:
        links += supersedes  # the reviewer sees what approving it would replace
        supersedes = []
    elif supersedes:
        _add(reasons, Reason.SUPERSEDES)

    # 5. the action.
    kw: dict[str, Any] = {"flags": flags}
    if frozen_id is not None:
        rs = [r for r in reasons if r not in s.reasons]
        return out(Action.BLOCK, [*s.reasons, Reason.FROZEN_TARGET, *rs],
                   target_id=frozen_id, **kw)
    if staged:
        return out(Action.STAGE, reasons, target_id=cur.id if cur else None, links=links, **kw)
    if cur is not None:
        return out(Action.UPDATE, reasons, target_id=cur.id, supersedes=supersedes, **kw)
    return out(Action.ADD, reasons, supersedes=supersedes, **kw)

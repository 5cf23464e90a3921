"""Consolidation: find near-duplicate memories in a user's scope and merge them.

Two memories are near-duplicates when they are in the same scope, under the same topic
key (their topic, else their slot, or both none) and say the same thing:

- their normalised statements are equal (casefold, punctuation and whitespace dropped:
  "Rita likes green tea" and "rita likes green tea."), or
- they differ only by intensifiers ("really", "very", "a lot", …: "Rita really likes
  green tea"), or
- the embeddings of the normalised statements are nearly identical (cosine at or above
  `consolidate.threshold`, 0.98 by default) and they name the same numbers in the same
  order ("thread 0 item 1" is not "thread 1 item 0", cosine 0.99).

The threshold is high on purpose. With the bundled embedder (use-m3), on normalised text,
"Rita likes green tea" scores 0.85 against "Rita likes black tea", 0.89 against "Rita
dislikes green tea", 0.66 against "Sam likes green tea", 0.97 against "Rita liked green
tea" and 0.94 against "Rita really likes green tea" — which is why intensifiers are a rule
of their own and not left to the cosine. A group is formed by complete linkage: a memory
joins a group only if it is a near-duplicate of every member.

Each group becomes a proposal staged for review (a pending candidate whose
`metadata.review.merge` lists the ids; approving it performs the merge, review.py), or,
when `apply` is true (the strategy's `consolidate.apply`), is merged at once.

The memories are the record of what was asked (`asked`): a group that shares a memory
with a proposal still pending is not proposed again (after the decision, the merged
memory or a new member makes a new question), and a group whose exact set of memories a
person kept apart — a reviewer rejected its proposal (the rejected candidate keeps its
`metadata.review.merge`), or someone unmerged it (the forgotten merged memory keeps its
`merged_from`) — is neither proposed again nor merged by `apply`. The lifecycle sweep
runs this pass on a schedule (lifecycle.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import validate as v
from .engine import Engine
from .errors import ConflictError, FrozenError, NotFoundError, ValidationError
from .ids import memory_hash, new_id
from .model import Kind, Memory, Op, Source, Status
from .reads import records
from .review import review_approve
from .writes import merging

KINDS = frozenset({Kind.FACT.value, Kind.PREFERENCE.value, Kind.PROFILE.value,
                   Kind.NOTE.value, Kind.EPISODE.value})
FILLERS = frozenset({"really", "very", "truly", "so", "quite", "definitely", "absolutely",
                     "actually", "indeed", "much", "still", "also", "a", "lot", "totally"})
SCAN_LIMIT = 10_000


def normalise(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def _core_words(norm: str) -> list[str]:
    return [w for w in norm.split() if w not in FILLERS]


@dataclass
class Group:
    members: list[Memory]
    norms: list[str] = field(default_factory=list)
    vecs: list[np.ndarray] = field(default_factory=list)


def _numbers(words: list[str]) -> list[str]:
    return [w for w in words if any(ch.isdigit() for ch in w)]


def near(a: str, b: str, va: np.ndarray, vb: np.ndarray, threshold: float) -> bool:
    wa, wb = _core_words(a), _core_words(b)
    if a == b or wa == wb:
        return True
    # Different numbers are different statements however alike they read ("room 101"),
    # and so are the same numbers in other roles ("thread 0 item 1", "thread 1 item 0").
    return _numbers(wa) == _numbers(wb) and float(va @ vb) >= threshold


def find_groups(eng: Engine, mems: list[Memory], threshold: float) -> list[list[Memory]]:
    """The near-duplicate groups (two or more members) among `mems`."""
    keyed: dict[tuple[str, str | None], list[Memory]] = {}
    for m in sorted(mems, key=lambda m: (m.created_at, m.id)):
        if m.kind in KINDS and m.status == Status.ACTIVE and not m.frozen:
            keyed.setdefault((m.scope.key(), m.topic or m.slot), []).append(m)
    out: list[list[Memory]] = []
    emb = eng.core.embedders[0]
    for batch in keyed.values():
        if len(batch) < 2:
            continue
        norms = [normalise(m.content) for m in batch]
        matrix = np.asarray(emb.embed_documents(norms), dtype=np.float32)
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        groups: list[Group] = []
        for m, n, vec in zip(batch, norms, matrix, strict=True):
            for g in groups:
                if all(near(n, gn, vec, gv, threshold)
                       for gn, gv in zip(g.norms, g.vecs, strict=True)):
                    g.members.append(m)
                    g.norms.append(n)
                    g.vecs.append(vec)
                    break
            else:
                groups.append(Group([m], [n], [vec]))
        out += [g.members for g in groups if len(g.members) > 1]
    return out


@dataclass
class Asked:
    """What people already decided or are deciding: the id sets of the merges still
    pending review (with the proposal's id), and the sets kept apart (why: a rejected
    proposal, an unmerge)."""
    pending: dict[frozenset[str], str] = field(default_factory=dict)
    settled: dict[frozenset[str], str] = field(default_factory=dict)

    def waiting(self, ids: frozenset[str]) -> bool:
        # Overlap, not equality: two proposals sharing a memory cannot both be approved.
        return any(ids & p for p in self.pending)


def asked(eng: Engine, scope: Any) -> Asked:
    """Read from the memories themselves, no table of its own: a pending or rejected
    candidate's `metadata.review.merge`, and a forgotten merged memory's `merged_from`
    (while its sources are active again, someone undid that merge)."""
    out = Asked()
    for status in (Status.PENDING.value, Status.REJECTED.value, Status.DELETED.value):
        for m in records.list_memories(eng.core, scope, status=status, limit=SCAN_LIMIT):
            rec, refs = m.metadata.get("review"), m.metadata.get("merged_from")
            if status == Status.DELETED.value:
                if isinstance(refs, list) and refs:
                    ids = frozenset(str(r).split("@")[0] for r in refs)
                    out.settled.setdefault(ids, f"unmerged ({m.id})")
            elif isinstance(rec, dict) and isinstance(rec.get("merge"), list):
                ids = frozenset(str(i) for i in rec["merge"])
                if status == Status.PENDING.value:
                    out.pending.setdefault(ids, m.id)
                else:
                    out.settled.setdefault(ids, f"rejected in review ({m.id})")
    return out


def _stage(eng: Engine, group: list[Memory], *, actor: str | None) -> Memory:
    best = merging.best_of(group)
    ids = [m.id for m in group]
    now = eng.core.clock()
    cand = Memory(
        id=new_id("m"), scope=best.scope, kind=best.kind, content=best.content,
        tags=list(best.tags), source=Source.SYSTEM_INFERRED.value,
        metadata={"review": {"reasons": ["consolidate"], "links": ids, "target_id": None,
                             "merge": ids}},
        confidence=best.confidence, status=Status.PENDING.value, version=1,
        recorded_at=now, created_at=now, updated_at=now, topic=best.topic,
        embedding_model=eng.core.embedding_model)
    vec = eng.core.vectors([cand.content])[0]
    with eng.core.store.transaction() as tx:
        tx.insert(cand, memory_hash(cand), eng.writes.terms(cand), vec)
        tx.append_revision(eng.writes.revision(
            cand, Op.CREATE, None, actor=actor,
            reason="consolidation proposes merging " + ", ".join(ids), trigger_text=None,
            trace_id=None))
    return cand


def consolidate(eng: Engine, scope: Any, *, apply: bool | None = None,
                actor: str | None = None) -> list[dict[str, Any]]:
    """Propose (or, with `apply`, perform) the merges of near-duplicates in `scope`.
    One entry per group: its ids, the statement kept, and the proposal's or the merged
    memory's id."""
    sc = v.scope(scope)
    if apply is not None and not isinstance(apply, bool):
        raise ValidationError("apply: expected true or false")
    conf = eng.core.strategy.consolidate
    do_apply = conf.apply if apply is None else apply
    mems = records.list_memories(eng.core, sc, status="active", limit=SCAN_LIMIT)
    groups = find_groups(eng, mems, conf.threshold)
    queue = asked(eng, sc) if groups else Asked()
    out: list[dict[str, Any]] = []
    for group in groups:
        ids = [m.id for m in group]
        entry: dict[str, Any] = {"ids": ids, "content": merging.best_of(group).content,
                                 "topic": group[0].topic or group[0].slot,
                                 "proposal": None, "merged": None}
        if (why := queue.settled.get(frozenset(ids))) is not None:
            # A person kept exactly these apart: neither asked again nor merged.
            entry["status"] = why
        elif do_apply:
            try:
                if (proposal := queue.pending.get(frozenset(ids))) is not None:
                    # Proposed earlier and still pending: applying it is approving that
                    # proposal, which then leaves the review queue (not a second merge
                    # beside a proposal nobody can approve any more).
                    entry["proposal"] = proposal
                    entry["merged"] = review_approve(eng, sc, proposal, actor=actor,
                                                     reason="consolidated").id
                else:
                    entry["merged"] = merging.merge(eng.writes, sc, ids, actor=actor,
                                                    reason="consolidated").id
            except (ConflictError, FrozenError, NotFoundError) as e:
                # Changed since it was read (forgotten, frozen): this group is left as it
                # is and said so; the others are merged.
                entry["status"] = f"skipped: {e}"
        elif not queue.waiting(frozenset(ids)):
            entry["proposal"] = _stage(eng, group, actor=actor).id
        else:
            entry["status"] = "already proposed"
        out.append(entry)
    return out

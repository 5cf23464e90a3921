"""The review queue: what the gate staged waits here for a person.

`review_list` and `review_show` read it (the candidate, the gate's reasons, the memories
it contradicts or would change); `review_approve` applies a candidate through the write
core where it belongs (the slot's current memory, or the memory the gate matched by
meaning, as that memory's next version; a staged retraction forgets its target);
`review_reject` keeps it with status `rejected` and the reason.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import validate as v
from .derived import facts_from
from .engine import Engine
from .errors import ConflictError, FrozenError, NotFoundError
from .ids import memory_hash
from .model import Memory, Op, Scope, Status
from .reads import records
from .turnnotes import turn_id, with_turn
from .writes import merging


def review_list(eng: Engine, scope: Any, *, limit: int = 100) -> list[Memory]:
    return records.list_memories(eng.core, scope, status="pending", limit=limit)


def review_show(eng: Engine, scope: Any, memory_id: str) -> dict[str, Any]:
    m = records.get(eng.core, scope, memory_id)
    if m.status != Status.PENDING:
        raise NotFoundError(f"memory {memory_id} is not waiting for review ({m.status})")
    links = []
    user = Scope(m.scope.tenant, m.scope.user, m.scope.agent)  # matches span sessions
    for lid in (m.metadata.get("review") or {}).get("links", []):
        try:
            links.append(records.get(eng.core, user, lid).to_dict())
        except NotFoundError:
            continue
    return {"memory": m.to_dict(), "review": m.metadata.get("review") or {},
            "linked": links}


def review_approve(eng: Engine, scope: Any, memory_id: str, *, actor: str | None = None,
                   reason: str | None = None) -> Memory:
    """Apply a pending candidate. With an active value of its slot, or with a memory the
    gate matched by meaning (review.target_id), that memory gets the candidate as its
    next version and the candidate is marked superseded; so it is when the same
    statement was stored meanwhile (that memory is confirmed). A staged retraction
    forgets its target (or, when ambiguous, every linked memory) and adds nothing."""
    sc = v.scope(scope)
    mid = v.memory_id(memory_id)
    why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
    with eng.core.store.transaction() as tx:
        cand = tx.get(sc, mid, for_update=True)
        if cand is None:
            raise NotFoundError(f"no memory {mid} in scope {sc}")
        if cand.status != Status.PENDING:
            raise ConflictError(f"memory {mid} is {cand.status}, not pending review")
        if cand.frozen:
            raise FrozenError(f"memory {mid} is frozen; unfreeze it before approving it")
        now = eng.core.clock()
        rec = cand.metadata.get("review") or {}
        user = Scope(cand.scope.tenant, cand.scope.user, cand.scope.agent)
        if rec.get("retract"):
            return _approve_retraction(eng, tx, cand, rec, user, now, actor=actor, why=why)
        if rec.get("merge"):
            # A consolidation proposal (consolidate.py): approving it performs the merge.
            merged = merging.merge_in(eng.writes, tx, cand.scope, list(rec["merge"]),
                                      content=cand.content, actor=actor,
                                      reason=why or None)
            _supersede(eng, tx, cand, now, actor=actor,
                       reason=why or f"merged as {merged.id}")
            return merged
        target = tx.find_slot(cand.scope, cand.slot) if cand.slot else None
        if (target is None or target.status != Status.ACTIVE) and rec.get("target_id"):
            # The memory the gate matched by meaning: the change goes there, not beside it.
            target = tx.get(user, rec["target_id"], for_update=True)
        if target is not None and target.id != cand.id and target.status == Status.ACTIVE:
            if target.frozen:
                what = f"slot {target.slot}" if target.slot else f"topic {target.topic}"
                raise FrozenError(f"memory {target.id} ({what}) is frozen; "
                                  "unfreeze it before approving a change to it")
            if target.slot != cand.slot:
                # Matched by meaning, not by slot: the candidate's statement becomes the
                # memory's next version (writes/commit.py, update_in).
                req = {"content": cand.content, "slot": cand.slot, "value": cand.value,
                       "kind": cand.kind, "topic": cand.topic, "tags": None,
                       "metadata": _carried(target, cand), "source": cand.source,
                       "source_text": cand.source_text, "source_ref": cand.source_ref,
                       "confidence": cand.confidence, "valid_from": target.valid_from,
                       "valid_to": target.valid_to, "expires_at": cand.expires_at}
                new = eng.writes.update_in(tx, target, req, eng.core.vectors([cand.content])[0],
                                           actor=actor,
                                           reason=why or f"approved candidate {cand.id}",
                                           trigger_text=cand.source_text, op=Op.APPROVE)
                _supersede(eng, tx, cand, now, actor=actor,
                           reason=why or f"applied to {target.id}")
                return new
            new = replace(target, content=cand.content, value=cand.value, kind=cand.kind,
                          metadata=_carried(target, cand), source=cand.source,
                          source_text=cand.source_text,
                          source_ref=cand.source_ref, confidence=cand.confidence,
                          version=target.version + 1, recorded_at=now,
                          updated_at=max(now, target.updated_at),
                          expires_at=cand.expires_at)
            eng.writes.write_version(tx, new, Op.APPROVE, target.version,
                                     terms=eng.writes.terms(new),
                                     vectors=eng.core.vectors([new.content])[0], actor=actor,
                                     reason=why or f"approved candidate {cand.id}",
                                     trigger_text=cand.source_text)
            _supersede(eng, tx, cand, now, actor=actor,
                       reason=why or f"applied to {target.id}")
            return new
        dup = tx.find_duplicate(cand.scope, memory_hash(cand), cand.kind)
        if dup is not None and dup.id != cand.id and dup.status == Status.ACTIVE:
            # Said again since it was staged: the stored memory is confirmed (as a
            # duplicate write would confirm it), never doubled.
            kept = eng.writes.reinforce_in(
                tx, dup, actor=actor, trigger_text=cand.source_text,
                reason=with_turn(why or f"approved candidate {cand.id}", turn_id(cand)))
            _supersede(eng, tx, cand, now, actor=actor,
                       reason=why or f"already stored as {dup.id}")
            return kept
        # Approved, it is an ordinary memory: the gate's record moves to `reviewed`, so a
        # later expiry demotes it like any other (and writing the slot revives it).
        meta = {k: x for k, x in cand.metadata.items() if k != "review"}
        meta["reviewed"] = cand.metadata.get("review")
        done = replace(cand, status=Status.ACTIVE.value, version=cand.version + 1,
                       metadata=meta, recorded_at=now, updated_at=max(now, cand.updated_at))
        return eng.writes.write_version(tx, done, Op.APPROVE, cand.version, terms=None,
                                        vectors=None, actor=actor, reason=why,
                                        trigger_text=None)


def _supersede(eng: Engine, tx: Any, cand: Memory, now: int, *, actor: str | None,
               reason: str) -> None:
    """An approved candidate that went into another memory: superseded, never served."""
    done = replace(cand, status=Status.SUPERSEDED.value, version=cand.version + 1,
                   updated_at=max(now, cand.updated_at))
    eng.writes.write_version(tx, done, Op.APPROVE, cand.version, terms=None, vectors=None,
                             actor=actor, reason=reason, trigger_text=None)


def review_reject(eng: Engine, scope: Any, memory_id: str, *, actor: str | None = None,
                  reason: str | None = None) -> Memory:
    def change(m: Memory) -> Memory:
        if m.status != Status.PENDING:
            raise ConflictError(f"memory {m.id} is {m.status}, not pending review")
        return replace(m, status=Status.REJECTED.value, version=m.version + 1)
    return eng.writes.mutate(scope, memory_id, Op.REJECT, change, actor=actor, reason=reason)




def _carried(target: Memory, cand: Memory) -> dict[str, Any]:
    """The metadata of a target's next version made from a reviewed candidate: it links
    to the candidate's turn, if any, and no longer to the one the old value was read
    from (purge follows the link)."""
    meta = {k: x for k, x in target.metadata.items() if k != "turn_id"}
    if (t := turn_id(cand)) is not None:
        meta["turn_id"] = t
    return meta


def _approve_retraction(eng: Engine, tx: Any, cand: Memory, rec: dict[str, Any],
                        user: Scope, now: int, *, actor: str | None,
                        why: str | None) -> Memory:
    """A staged retraction, approved: its target (or, when the gate could not tell,
    every memory it linked) is forgotten; nothing is added."""
    ids = [rec["target_id"]] if rec.get("target_id") else list(rec.get("links") or [])
    gone: Memory | None = None
    for mid in ids:
        m = tx.get(user, mid, for_update=True)
        if m is None or m.status != Status.ACTIVE:
            continue
        if m.frozen:
            raise FrozenError(f"memory {m.id} is frozen; unfreeze it before approving its "
                              "retraction")
        gone = eng.writes.forget_in(tx, m, actor=actor,
                                    reason=why or f"approved retraction {cand.id}",
                                    trigger_text=cand.source_text)
        # What was read from it goes with it, as when the retraction is applied at once.
        eng.writes.forget_made_from(tx, user, m.id, facts_from(eng.reads, user, [m]).get(
            m.id, []), actor=actor, trigger_text=cand.source_text)
    _supersede(eng, tx, cand, now, actor=actor,
               reason=why or "retraction applied" if gone else "nothing left to forget")
    return gone or cand

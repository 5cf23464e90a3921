"""The governance verbs as changes to one memory: edit, forget, freeze, unfreeze,
expire, rollback. Each is a `change(current) -> new` committed by Writer.mutate, so it
is one transaction with its revision; the arguments were validated by the caller.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .. import agentpolicy, turnctx
from .. import validate as v
from ..changes import rollback_trigger
from ..errors import ConflictError, FrozenError, ValidationError, VersionError
from ..model import (
    AGENT_KINDS,
    Memory,
    Op,
    Scope,
    Source,
    Status,
    with_state,
)
from ..reads.records import states
from .commit import Writer


def edit(w: Writer, scope: Any, memory_id: Any, updates: dict[str, Any], *,
         actor: str | None, reason: str | None, expected_version: int | None) -> Memory:
    """Fields changed by hand (`updates`, validated): a new version, source admin_manual."""
    def change(m: Memory) -> Memory:
        if m.status == Status.DELETED:
            raise ConflictError(f"memory {m.id} is forgotten; roll it back before editing it")
        new = dict(updates)
        v.slot_value(m.slot, new.get("value"))
        vf, vt = new.get("valid_from", m.valid_from), new.get("valid_to", m.valid_to)
        if vf is not None and vt is not None and vt <= vf:
            raise ValidationError("valid_to must be after valid_from")
        if "metadata" in new and "turn_id" in m.metadata and "turn_id" not in new["metadata"]:
            # The version still quotes that turn (source_text): purge must find it.
            new["metadata"] = {**new["metadata"], "turn_id": m.metadata["turn_id"]}
        if "metadata" in new and turnctx.SEQ in m.metadata:
            # A turn keeps its place in its session (turnctx.turn_order).
            new["metadata"] = {**new["metadata"], turnctx.SEQ: m.metadata[turnctx.SEQ]}
        if "metadata" in new:
            # The gate's review record stays as the gate wrote it (an edit of a staged
            # candidate may send it back unchanged, or leave it out).
            rec = m.metadata.get("review")
            if new["metadata"].get("review", rec) != rec:
                raise ValidationError("metadata.review is written by the gate, not by "
                                      "callers")
            if rec is not None:
                new["metadata"] = {**new["metadata"], "review": rec}
        keeps_source = agentpolicy.check_edit(w.core.strategy.agents, m, new)
        source = m.source if keeps_source else Source.ADMIN_MANUAL.value
        return replace(m, **new, version=m.version + 1, source=source,
                       recorded_at=w.core.clock())
    return w.mutate(scope, memory_id, Op.UPDATE, change, actor=actor, reason=reason,
                    expected_version=expected_version)


def forget(w: Writer, scope: Any, memory_id: Any, *, actor: str | None,
           reason: str | None, trigger_text: str | None = None) -> Memory:
    """Soft delete: the memory stops being served; history keeps it; rollback undoes it."""
    def change(m: Memory) -> Memory:
        if m.status == Status.DELETED:
            raise ConflictError(f"memory {m.id} is already forgotten")
        return replace(m, status=Status.DELETED.value, version=m.version + 1)
    return w.mutate(scope, memory_id, Op.DELETE, change, actor=actor, reason=reason,
                    trigger_text=trigger_text)


def freeze(w: Writer, scope: Any, memory_id: Any, *, actor: str | None,
           reason: str | None) -> Memory:
    """Lock a memory: no verb but unfreeze may change it."""
    def change(m: Memory) -> Memory:
        if m.frozen:
            raise FrozenError(f"memory {m.id} is already frozen")
        return replace(m, frozen=True)
    return w.mutate(scope, memory_id, Op.FREEZE, change, actor=actor, reason=reason,
                    allow_frozen=True)


def unfreeze(w: Writer, scope: Any, memory_id: Any, *, actor: str | None,
             reason: str | None) -> Memory:
    def change(m: Memory) -> Memory:
        if not m.frozen:
            raise ConflictError(f"memory {m.id} is not frozen")
        return replace(m, frozen=False)
    return w.mutate(scope, memory_id, Op.UNFREEZE, change, actor=actor, reason=reason,
                    allow_frozen=True)


def expire(w: Writer, scope: Any, memory_id: Any, *, actor: str | None,
           reason: str | None) -> Memory:
    """Stop serving a memory whose shelf life is over: demoted to a candidate (pending)
    or expired, as the Vault's `on_expire` says; an agent kind's memory is expired."""
    target = (Status.PENDING.value if w.core.on_expire == "demote"
              else Status.EXPIRED.value)

    def change(m: Memory) -> Memory:
        if m.status != Status.ACTIVE:
            raise ConflictError(f"memory {m.id} is {m.status}, not active")
        now = w.core.clock()
        exp = now if m.expires_at is None else min(m.expires_at, now)
        # An agent memory's shelf life is its kind's policy: it ends, it is not demoted
        # to a candidate (a day's tool results would fill the review queue).
        status = Status.EXPIRED.value if m.kind in AGENT_KINDS else target
        return replace(m, status=status, expires_at=exp, version=m.version + 1)
    return w.mutate(scope, memory_id, Op.EXPIRE, change, actor=actor,
                    reason=reason or "expired")


def promote(w: Writer, scope: Any, memory_id: Any, *, actor: str | None,
            reason: str | None) -> Memory:
    """Keep a memory past its shelf life (a tool result worth keeping): its expiry is
    cleared in a new version; who wrote it (the source) stays as it was."""
    def change(m: Memory) -> Memory:
        if m.status != Status.ACTIVE or not m.is_live(w.core.clock()):
            raise ConflictError(f"memory {m.id} is not live ({m.status}); only a served "
                                "memory can be promoted")
        if m.expires_at is None:
            raise ConflictError(f"memory {m.id} has no expiry to clear")
        return replace(m, expires_at=None, version=m.version + 1)
    return w.mutate(scope, memory_id, Op.UPDATE, change, actor=actor,
                    reason=reason or "promoted: kept past its shelf life")


def evict(w: Writer, m: Memory, *, actor: str, reason: str) -> Memory:
    """A cap's eviction (lifecycle.py): an `expire` to status expired, undoable."""
    def change(x: Memory) -> Memory:
        if x.status != Status.ACTIVE.value:
            raise ConflictError(f"memory {x.id} is {x.status}, not active")
        now = w.core.clock()
        return replace(x, status=Status.EXPIRED.value, version=x.version + 1,
                       expires_at=now if x.expires_at is None else min(x.expires_at, now))
    return w.mutate(m.scope, m.id, Op.EXPIRE, change, actor=actor, reason=reason)


def rollback(w: Writer, scope: Scope, memory_id: str, target: int, *, actor: str | None,
             reason: str | None) -> Memory:
    """Restore the state of version `target` as a new version (undoable the same way)."""
    known = states(w.core, scope, memory_id)

    def change(m: Memory) -> Memory:
        if target >= m.version and m.version == 1:
            raise VersionError(f"memory {m.id} has only version 1; nothing to roll back to")
        if target >= m.version:
            earlier = "1" if m.version == 2 else f"1..{m.version - 1}"
            raise VersionError(f"memory {m.id} is at version {m.version}; roll back to an "
                               f"earlier version ({earlier})")
        state = known.get(target)
        if state is None:
            raise VersionError(f"memory {m.id} has no version {target}" + (
                " left: its content was erased with a purged source"
                if 1 <= target < m.version else ""))
        return with_state(m, state, version=m.version + 1, recorded_at=w.core.clock())
    return w.mutate(scope, memory_id, Op.ROLLBACK, change, actor=actor, reason=reason,
                    trigger_text=rollback_trigger(target))

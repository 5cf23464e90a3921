"""Writes of named snapshots (docs/snapshots.md): take one, drop one, and restore a scope
(a user, or a whole tenant) to one.

A restore is one operation: one transaction, one operation id, and every revision it
writes says so in its reason ("snapshot:<name> restore <op>"). It first takes a snapshot
of the scope as it is ("before-restore-<op>"), so restoring that one undoes it — the same
verb. Per memory of the scope:

- changed since the snapshot: a new version with its state at the snapshot (`rollback`);
- created since: forgotten (`delete`);
- forgotten since: brought back with its state at the snapshot (`rollback`);
- purged (now or since): left alone — a purge wins over every snapshot;
- frozen: left alone and reported (freezing means no change but by unfreeze);
- its content at the snapshot erased (a purged source redacted it): left alone, reported;
- its slot held now by another active memory the restore does not change (a frozen one):
  left alone, reported.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .. import turnctx
from .. import validate as v
from ..changes import rollback_trigger
from ..errors import ConflictError
from ..ids import new_id
from ..model import STATE_FIELDS, Memory, Op, Scope, Status, with_state
from ..reads import snapshots as reads
from . import turnkeys
from .commit import Writer

KINDS = ("manual", "scheduled", "before-restore")


def create(w: Writer, tenant: Any, name: Any, *, user: Any = None, reason: Any = None,
           actor: str | None = None, kind: str = "manual") -> dict[str, Any]:
    """A named point in the revision time of the tenant (user None) or of one user."""
    t, u = reads.snapshot_scope(tenant, user)
    return w.core.store.add_snapshot({
        "snapshot_id": new_id("snap"), "tenant": t, "user": u, "name": reads.snapshot_name(name),
        "kind": kind, "taken_at": w.core.clock(), "created_by": w.core.actor_for(actor),
        "reason": v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)})


def drop(w: Writer, tenant: Any, name: Any, *, user: Any = None) -> dict[str, Any]:
    """Forget a snapshot (not the memories): the dropped row."""
    snap = reads.get(w.core, tenant, name, user=user)
    w.core.store.drop_snapshot(snap["tenant"], snap["user"], snap["name"])
    return snap


def _plan(tx: Any, t: str, usr: str, then: dict[str, reads.Point],
          now: dict[str, reads.Point], out: dict[str, Any]
          ) -> list[tuple[Memory, Memory, int | None]]:
    """(current, as it should be, its version at the snapshot) for every memory of the
    user the restore changes; the ones it may not change are reported in out["skipped"]."""
    changes: list[tuple[Memory, Memory, int | None]] = []
    for mid in sorted(set(then) | set(now)):
        cur = tx.get(Scope(t, usr), mid, for_update=True)
        if cur is None:  # purged: a purge wins over every snapshot
            continue
        pt = then.get(mid)
        if pt is None:  # created since
            if cur.status == Status.DELETED.value:
                continue
            new = replace(cur, status=Status.DELETED.value)
        elif pt.state is None:
            if pt.version != cur.version:
                out["skipped"].append({"memory_id": mid, "user": usr,
                                       "reason": "its state at the snapshot was erased "
                                                 "(a purged source)"})
            continue
        else:
            new = with_state(cur, pt.state)
            if all(getattr(new, f) == getattr(cur, f) for f in STATE_FIELDS):
                continue
        if cur.frozen:
            out["skipped"].append({"memory_id": mid, "user": usr, "reason": "frozen"})
            continue
        changes.append((cur, new, None if pt is None else pt.version))
    return changes


def restore(w: Writer, tenant: Any, name: Any, *, user: Any = None, reason: Any = None,
            actor: str | None = None) -> dict[str, Any]:
    """Bring the scope back to snapshot `name` as one recorded operation (module doc).
    Returns the operation: its id, the snapshot, the undo snapshot's name, and the ids
    restored (changed or brought back), forgotten, and skipped (with why)."""
    snap = reads.get(w.core, tenant, name, user=user)
    why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS - 200, required=False)
    op = new_id("restore")
    note = f"snapshot:{snap['name']} restore {op}" + (f": {why}" if why else "")
    t = snap["tenant"]
    users = reads.users_of(w.core, t, snap["user"])
    out: dict[str, Any] = {"operation": op, "snapshot": snap["name"], "tenant": t,
                           "user": snap["user"], "undo": f"before-restore-{op}",
                           "restored": [], "forgotten": [], "skipped": []}
    written: list[Memory] = []
    with w.core.store.transaction() as tx:
        undo = create(w, t, out["undo"], user=snap["user"], actor=actor,
                      kind="before-restore",
                      reason=f"taken by restore {op} of snapshot {snap['name']}")
        # "Now" is the undo snapshot's point: what the restore changes is what undoing it
        # brings back.
        changes = [c for usr in users for c in _plan(
            tx, t, usr, reads.points(w.core, t, usr, snap["through_seq"]),
            reads.points(w.core, t, usr, undo["through_seq"]), out)]
        # Those that stop holding a slot first, so a slot changes hands inside the op.
        changes.sort(key=lambda c: c[1].status == Status.ACTIVE.value)
        texts = [new.content for cur, new, _ in changes if new.content != cur.content]
        vecs = iter(w.core.vectors(texts)) if texts else iter(())
        for cur, new, then in changes:
            vec = next(vecs) if new.content != cur.content else None
            if not _fits(w, tx, cur, new, out):
                continue
            now = w.core.clock()
            new = replace(new, version=cur.version + 1, recorded_at=now,
                          updated_at=max(now, cur.updated_at))
            reindex = vec is not None or new.valid_from != cur.valid_from
            gone = new.status == Status.DELETED.value
            w.write_version(tx, new, Op.DELETE if gone else Op.ROLLBACK, cur.version,
                            terms=w.terms(new) if reindex else None, vectors=vec,
                            actor=actor, reason=note, trigger_text=None if gone or then is None
                            else rollback_trigger(then))
            out["forgotten" if gone else "restored"].append(new.id)
            written.append(new)
    for new in written:
        if new.kind == turnctx.TURN_KIND:
            turnkeys.rekey_around(w.core, new)
    return out


def _fits(w: Writer, tx: Any, cur: Memory, new: Memory, out: dict[str, Any]) -> bool:
    """Whether `new` may be written: its slot free in its scope, its sources not purged;
    else it is reported in out["skipped"]."""
    why = None
    if new.slot is not None and new.status == Status.ACTIVE.value and (
            cur.status != Status.ACTIVE.value or cur.slot != new.slot):
        holder = tx.find_slot(new.scope, new.slot)
        if holder is not None and holder.id != new.id and holder.status == Status.ACTIVE:
            why = f"slot {new.slot} is held by {holder.id}"
    if why is None and new.metadata != cur.metadata:
        try:
            w.check_sources(tx, new.scope, new.metadata, cur.metadata)
        except ConflictError:
            why = "made from a memory that was purged"
    if why is not None:
        out["skipped"].append({"memory_id": new.id, "user": new.scope.user, "reason": why})
    return why is None

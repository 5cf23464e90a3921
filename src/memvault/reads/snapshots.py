"""Reads of named snapshots (docs/snapshots.md): one, the list, a memory's state at a
snapshot, and the diff between two snapshots (or a snapshot and now).

A snapshot is a point in revision time (`through_seq`), not a copy: the state of a memory
at a snapshot is its last revision up to that point. A purge blanks every revision of the
memory it erases, so a purged memory has no state at any snapshot: a purge wins over
every snapshot, in a diff and in a restore."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import validate as v
from ..core import Core
from ..errors import NotFoundError, ValidationError
from ..model import STATE_FIELDS, Op, Status

# What a diff shows of a memory that was there (added or removed).
SHOWN = ("kind", "content", "slot", "value", "status", "version", "frozen")


def snapshot_scope(tenant: Any, user: Any = None) -> tuple[str, str | None]:
    """(tenant, user or None: the whole tenant), checked like a scope."""
    sc = v.scope({"tenant": tenant, "user": "-" if user is None else user})
    return sc.tenant, None if user is None else sc.user


def snapshot_name(name: Any) -> str:
    """A snapshot's name: one printable line, at most 128 characters, no "/" (it is a
    segment of the REST path)."""
    out = v.actor(name, "name")
    if "/" in out:
        raise ValidationError(f"name: {out!r} contains '/'; a snapshot name is one path "
                              "segment")
    return out


def get(core: Core, tenant: Any, name: Any, *, user: Any = None) -> dict[str, Any]:
    t, u = snapshot_scope(tenant, user)
    n = snapshot_name(name)
    snap = core.store.get_snapshot(t, u, n)
    if snap is None:
        where = f"tenant {t}" if u is None else f"tenant {t}, user {u}"
        raise NotFoundError(f"no snapshot {n!r} in {where}")
    return snap


def list_snapshots(core: Core, tenant: Any, *, user: Any = None) -> list[dict[str, Any]]:
    t, u = snapshot_scope(tenant, user)
    return core.store.list_snapshots(t, u)


@dataclass(slots=True)
class Point:
    """A memory at one point of revision time: its state then (None: it had none —
    not written yet, or its content was erased by a purge) and the op of its last
    revision up to then (None: it had no revision yet)."""

    state: dict[str, Any] | None
    op: str | None
    version: int = 0

    @property
    def present(self) -> bool:
        return self.state is not None and self.state.get("status") != Status.DELETED.value


def users_of(core: Core, tenant: str, user: str | None) -> list[str]:
    return [user] if user is not None else core.store.users(tenant)


def points(core: Core, tenant: str, user: str, through_seq: int | None
           ) -> dict[str, Point]:
    """memory id -> its Point for every memory the user had up to `through_seq`
    (None: now)."""
    return {r.memory_id: Point(r.state, r.op, r.to_version)
            for r in core.store.revisions_through(tenant, user, through_seq)}


def _shown(state: dict[str, Any], mid: str, user: str) -> dict[str, Any]:
    return {"memory_id": mid, "user": user, **{f: state.get(f) for f in SHOWN}}


def diff(core: Core, tenant: Any, name: Any, to: Any = None, *,
         user: Any = None) -> dict[str, Any]:
    """What changed from snapshot `name` to snapshot `to` (None: now): memories added
    (present at `to` only), removed (present at `name` only: forgotten, or purged — a
    purged one is listed by id alone, never with its content) and changed (present at
    both, another version: the fields that differ, before and after)."""
    a = get(core, tenant, name, user=user)
    b = None if to is None else get(core, tenant, to, user=user)
    if b is not None and b["snapshot_id"] == a["snapshot_id"]:
        raise ValidationError("diff: name a second snapshot, or none to compare with now")
    t, u = a["tenant"], a["user"]
    out: dict[str, Any] = {"from": a["name"], "to": None if b is None else b["name"],
                           "added": [], "removed": [], "changed": []}
    for usr in users_of(core, t, u):
        pa = points(core, t, usr, a["through_seq"])
        pb = points(core, t, usr, None if b is None else b["through_seq"])
        for mid in sorted(set(pa) | set(pb)):
            x, y = pa.get(mid, Point(None, None)), pb.get(mid, Point(None, None))
            if x.present and y.present:
                assert x.state is not None and y.state is not None
                fields = {f: {"from": x.state.get(f), "to": y.state.get(f)}
                          for f in (*STATE_FIELDS, "frozen")
                          if x.state.get(f) != y.state.get(f)}
                if fields or x.state["version"] != y.state["version"]:
                    out["changed"].append({"memory_id": mid, "user": usr,
                                           "from_version": x.state["version"],
                                           "to_version": y.state["version"],
                                           "fields": fields})
            elif y.present:
                assert y.state is not None
                out["added"].append(_shown(y.state, mid, usr))
            elif x.present:
                assert x.state is not None
                out["removed"].append(_shown(x.state, mid, usr))
            elif y.op == Op.PURGE.value and x.op not in (None, Op.PURGE.value):
                # Purged since: its id, nothing of what it said.
                out["removed"].append({"memory_id": mid, "user": usr, "purged": True})
    return out

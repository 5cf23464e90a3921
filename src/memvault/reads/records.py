"""Reads of stored records: one memory, a filtered list, both as of a time; history,
diff, the audit log, the profile, traces. Every read names its scope."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import validate as v
from ..core import Core
from ..errors import NotFoundError, ValidationError, VersionError
from ..model import STATE_FIELDS, Memory, Revision, Scope, Status
from ..store import ListFilter
from ..timeutil import TimeLike, to_ms
from ..validtime import ValidWindow
from .retrieve import time_range


def states(core: Core, scope: Scope, memory_id: str) -> dict[int, dict[str, Any]]:
    """version -> state of that version (the last revision that produced it)."""
    out: dict[int, dict[str, Any]] = {}
    for rev in core.store.revisions(scope, memory_id):
        if rev.state is not None:
            out[rev.to_version] = rev.state
    return out


def get(core: Core, scope: Any, memory_id: Any, *, as_of: TimeLike = None) -> Memory:
    sc, mid = v.scope(scope), v.memory_id(memory_id)
    if as_of is not None:
        at = to_ms(as_of, field="as_of")
        revs = [r for r in core.store.revisions(sc, mid) if r.at <= at]  # type: ignore[operator]
        if not revs or revs[-1].state is None:
            raise NotFoundError(f"no memory {mid} in scope {sc} as of {as_of}")
        return Memory.from_dict(revs[-1].state)
    m = core.store.get(sc, mid)
    if m is None:
        raise NotFoundError(f"no memory {mid} in scope {sc}")
    return m


def list_memories(core: Core, scope: Any, *, kind: str | None = None,
                  status: str | None = None, slot: str | None = None,
                  tags: Iterable[str] | None = None, since: TimeLike = None,
                  until: TimeLike = None, as_of: TimeLike = None, limit: int = 100,
                  offset: int = 0, source: str | None = None, frozen: bool | None = None,
                  expiring_before: TimeLike = None, q: str | None = None,
                  slotted: bool | None = None, topic: str | None = None,
                  valid: ValidWindow | None = None) -> list[Memory]:
    """Newest first; the filters of Vault.list. `valid`: only memories valid at some
    point of that valid-time window (validtime.py), whatever their validity now."""
    sc = v.scope(scope)
    if frozen is not None and not isinstance(frozen, bool):
        raise ValidationError("frozen: expected true or false")
    if slotted is not None and not isinstance(slotted, bool):
        raise ValidationError("slotted: expected true or false")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_000:
        raise ValidationError("limit: expected a whole number in 1..10000")
    if isinstance(offset, bool) or not isinstance(offset, int) or not \
            0 <= offset <= 1_000_000_000:  # beyond, SQLite's integers overflow
        raise ValidationError("offset: expected a whole number in 0..1000000000")
    lo, hi = time_range(since, until)
    flt = ListFilter(kind=v.kind(kind) if kind is not None else None,
                     status=v.status(status) if status is not None else None,
                     slot=v.slot(slot),
                     tags=v.tags(tags), since=lo, until=hi, limit=limit, offset=offset,
                     source=v.source(source) if source is not None else None,
                     frozen=frozen,
                     expires_before=to_ms(expiring_before, field="expiring_before"),
                     q=v.text(q, "q", max_chars=v.MAX_CONTENT_CHARS, required=False) or None,
                     slotted=slotted, topic=v.topic(topic), valid=valid)
    if as_of is None:
        return core.store.list(sc, flt)
    at = to_ms(as_of, field="as_of")
    assert at is not None
    out = [m for rev in core.store.revisions_as_of(sc, at) if rev.state is not None
           if matches(m := Memory.from_dict(rev.state), flt)]
    out.sort(key=lambda m: (-m.updated_at, m.id))
    return out[offset:offset + limit]


def matches(m: Memory, flt: ListFilter) -> bool:
    """What the store's list filter keeps, for a memory read from history (as of)."""
    return not ((flt.kind and m.kind != flt.kind) or (flt.status and m.status != flt.status)
                or (flt.slot and m.slot != flt.slot)
                or (flt.topic and m.topic != flt.topic)
                or any(t not in m.tags for t in flt.tags)
                or (flt.since is not None and m.updated_at < flt.since)
                or (flt.until is not None and m.updated_at >= flt.until)
                or (flt.source and m.source != flt.source)
                or (flt.frozen is not None and m.frozen != flt.frozen)
                or (flt.expires_before is not None and (
                    m.expires_at is None or m.expires_at >= flt.expires_before))
                or (flt.q and flt.q.casefold() not in m.content.casefold())
                or (flt.slotted is not None and (m.slot is not None) != flt.slotted)
                or (flt.topicked is not None and (m.topic is not None) != flt.topicked)
                or (flt.valid is not None and not flt.valid.holds(m.valid_from, m.valid_to)))


def profile(core: Core, scope: Any, *, as_of: TimeLike = None) -> dict[str, dict[str, Any]]:
    """The user's active slots: {slot: {value, content, since, source, memory_id,
    version, frozen}}."""
    sc = v.scope(scope)
    now = core.clock() if as_of is None else to_ms(as_of, field="as_of")
    assert now is not None
    out: dict[str, dict[str, Any]] = {}
    # Slotted memories only: a long history of turns must not crowd slots out.
    for m in list_memories(core, sc, status=Status.ACTIVE.value, slotted=True, limit=10_000,
                           as_of=as_of):
        if m.slot is None or not m.is_live(now):
            continue
        seen = out.get(m.slot)
        # Several scopes (agent/session) may hold the same slot: the newest wins here.
        if seen is not None and seen["since"] >= m.updated_at:
            continue
        out[m.slot] = {"value": m.value if m.value is not None else m.content,
                       "content": m.content, "since": m.updated_at, "source": m.source,
                       "memory_id": m.id, "version": m.version, "frozen": m.frozen}
    return dict(sorted(out.items()))


def audit(core: Core, scope: Any, *, since: TimeLike = None,
          limit: int = 100) -> list[Revision]:
    """Every recorded change in the scope (who, what, why), newest first."""
    sc = v.scope(scope)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_000:
        raise ValidationError("limit: expected a whole number in 1..10000")
    after = to_ms(since, field="since")
    revs = [r for _, rs in core.store.scope_revisions(sc) for r in rs
            if after is None or r.at >= after]
    revs.sort(key=lambda r: (-r.at, r.memory_id, -r.to_version))
    return revs[:limit]


def history(core: Core, scope: Any, memory_id: Any) -> list[Revision]:
    sc, mid = v.scope(scope), v.memory_id(memory_id)
    revs = core.store.revisions(sc, mid)
    if not revs:
        raise NotFoundError(f"no memory {mid} in scope {sc}")
    return revs


def diff(core: Core, scope: Any, memory_id: Any, from_version: Any,
         to_version: Any) -> dict[str, dict[str, Any]]:
    """Fields that differ between two versions: {field: {"from": a, "to": b}}."""
    sc, mid = v.scope(scope), v.memory_id(memory_id)
    a, b = v.version(from_version, "from_version"), v.version(to_version, "to_version")
    known = states(core, sc, mid)
    if not known and not core.store.revisions(sc, mid):
        raise NotFoundError(f"no memory {mid} in scope {sc}")
    for n in (a, b):
        if n not in known:
            raise VersionError(f"memory {mid} has no version {n} "
                               f"(known: {', '.join(map(str, sorted(known))) or 'none'})")
    sa, sb = known[a], known[b]
    return {f: {"from": sa.get(f), "to": sb.get(f)} for f in (*STATE_FIELDS, "frozen")
            if sa.get(f) != sb.get(f)}


def trace(core: Core, scope: Any, trace_id: Any) -> dict[str, Any]:
    """The trace of one recall or context build: candidates, score parts, filters."""
    sc = v.scope(scope)
    tid = v.text(trace_id, "trace_id", max_chars=v.MAX_ID_CHARS)
    assert tid is not None
    t = core.store.get_trace(Scope(sc.tenant, sc.user), tid, not_before=_kept_after(core))
    if t is None:
        raise NotFoundError(f"no trace {tid} in scope {sc}")
    return t


def traces(core: Core, scope: Any, *, limit: int = 20) -> list[dict[str, Any]]:
    sc = v.scope(scope)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
        raise ValidationError("limit: expected a whole number in 1..1000")
    return core.store.list_traces(Scope(sc.tenant, sc.user), limit,
                                  not_before=_kept_after(core))


def _kept_after(core: Core) -> int:
    """The oldest a trace may be and still be served (strategy traces.retention_days):
    retention by age holds on a read too, not only when the next trace is written."""
    return core.clock() - int(core.strategy.traces.retention_days * 86_400_000)


def users(core: Core, tenant: Any) -> list[str]:
    """The user ids of a tenant that have any recorded change, sorted. Read from the
    revisions, so purged and deleted memories still count."""
    t = v.scope({"tenant": tenant, "user": "-"}).tenant  # the same id rules as a scope
    # A query that names the tenant, like every scoped read. A team's shared scope
    # (team:<name>) is no user: the teams verbs list those.
    return [u for u in core.store.users(t) if v.team_of(u) is None]

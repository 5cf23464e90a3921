"""Replay: the same queries against the store as of two system times, and what changed.

For each query, recall is run as of `from` and as of `to` (retrieve's `as_of`: the
store's state as recorded then), and the two rankings are compared: which memories
entered the top k, which left it, which moved (rank before -> after). Each memory that
entered or left is charged to the revision that caused it: its own last revision in
(from, to] (an add, an edit, a forget, a rollback…), with the op id, actor and reason.
A memory that left without a revision of its own was pushed out by those that entered.

"Around" a revision (its op id, or ``MEMORY_ID@VERSION``) is the pair (its time - 1 ms,
its time): just before and just after it. Time resolution is the millisecond, so a
revision recorded in the same millisecond counts as part of the change.

Nothing is written: no trace, no revision. The queries are given, or taken from the
scope's stored traces (the most recent distinct ones).
"""

from __future__ import annotations

from typing import Any

from .. import validate as v
from ..core import Core
from ..errors import NotFoundError, ValidationError
from ..model import Hit, Revision, Scope
from ..timeutil import TimeLike, iso, to_ms
from . import records
from .retrieve import Reader

MAX_QUERIES = 100


def _rev(r: Revision) -> dict[str, Any]:
    return {"op_id": r.op_id, "memory_id": r.memory_id, "op": r.op,
            "from_version": r.from_version, "to_version": r.to_version, "actor": r.actor,
            "actor_role": r.actor_role, "reason": r.reason, "at": r.at, "at_iso": iso(r.at)}


def find_revision(core: Core, scope: Scope, ref: Any) -> list[Revision]:
    """The revisions `ref` names in the scope: every revision of an op id (an operation
    may change several memories), or the one that made ``MEMORY_ID@VERSION``."""
    name = v.text(ref, "around", max_chars=v.MAX_ID_CHARS)
    assert name is not None
    mid, _, ver = name.partition("@")
    every = [r for _, rs in core.store.scope_revisions(scope) for r in rs]
    if ver:
        if not ver.isdigit():
            raise ValidationError(f"around: expected an op id or MEMORY_ID@VERSION, got "
                                  f"{name!r}")
        found = [r for r in every if r.memory_id == mid and r.to_version == int(ver)][:1]
    else:
        found = [r for r in every if r.op_id == name]
    if not found:
        raise NotFoundError(f"no revision {name} in scope {scope}")
    return found


def trace_queries(core: Core, scope: Scope, limit: int) -> list[str]:
    """The scope's most recent distinct queries, newest first, from its stored traces."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_QUERIES:
        raise ValidationError(f"traces: expected a whole number in 1..{MAX_QUERIES}")
    seen: dict[str, None] = {}
    for t in records.traces(core, scope, limit=1000):
        q = t.get("query")
        if isinstance(q, str) and q.strip():
            seen.setdefault(q, None)
        if len(seen) >= limit:
            break
    if not seen:
        raise NotFoundError(f"no stored traces to take queries from in scope {scope}")
    return list(seen)


def _entry(h: Hit, rank: int) -> dict[str, Any]:
    return {"memory_id": h.memory.id, "rank": rank, "score": round(float(h.score), 6),
            "content": h.memory.content}


def _compare(before: list[Hit], after: list[Hit],
             cause: dict[str, dict[str, Any]]) -> dict[str, Any]:
    rb = {h.memory.id: i for i, h in enumerate(before, start=1)}
    ra = {h.memory.id: i for i, h in enumerate(after, start=1)}
    entered = [{**_entry(h, ra[h.memory.id]), "cause": cause.get(h.memory.id)}
               for h in after if h.memory.id not in rb]
    pushers = [e["memory_id"] for e in entered]
    left = []
    for h in before:
        if h.memory.id in ra:
            continue
        own = cause.get(h.memory.id)
        left.append({**_entry(h, rb[h.memory.id]), "cause": own,
                     **({} if own else {"pushed_out_by": pushers})})
    moved = [{"memory_id": h.memory.id, "content": h.memory.content,
              "from": rb[h.memory.id], "to": ra[h.memory.id],
              "cause": cause.get(h.memory.id)}
             for h in after if h.memory.id in rb and rb[h.memory.id] != ra[h.memory.id]]
    # A memory's own revision that moved it (an edit) changed the results too.
    changed_by = list(dict.fromkeys(
        x["cause"]["op_id"] for x in [*entered, *left, *moved] if x["cause"]))
    return {"before": [_entry(h, i) for i, h in enumerate(before, start=1)],
            "after": [_entry(h, i) for i, h in enumerate(after, start=1)],
            "entered": entered, "left": left, "moved": moved, "changed_by": changed_by}


def window(core: Core, scope: Scope, *, from_time: TimeLike, to_time: TimeLike,
           around: Any) -> tuple[int, int, list[Revision]]:
    """(from, to) in epoch ms and the revisions `around` names (empty without it)."""
    if around is not None:
        if from_time is not None or to_time is not None:
            raise ValidationError("around: give either a revision or from/to, not both")
        revs = find_revision(core, scope, around)
        at = revs[0].at
        return at - 1, at, revs
    lo, hi = to_ms(from_time, field="from"), to_ms(to_time, field="to")
    if lo is None:
        raise ValidationError("from: required (or around: a revision)")
    hi = core.clock() if hi is None else hi
    if lo >= hi:
        raise ValidationError("from: must be before to")
    return lo, hi, []


def replay(core: Core, scope: Any, queries: Any = None, *, from_time: TimeLike = None,
           to_time: TimeLike = None, around: Any = None, traces: int | None = None,
           top_k: int | None = None) -> dict[str, Any]:
    """What the change between two times (or one revision) did to each query's results."""
    sc = v.scope(scope)
    user_scope = Scope(sc.tenant, sc.user)
    if queries is not None and traces is not None:
        raise ValidationError("queries: give queries or traces, not both")
    if queries is None:
        qs = trace_queries(core, user_scope, 20 if traces is None else traces)
    else:
        if isinstance(queries, str) or not isinstance(queries, list | tuple) or not queries:
            raise ValidationError("queries: expected a non-empty list of texts")
        if len(queries) > MAX_QUERIES:
            raise ValidationError(f"queries: at most {MAX_QUERIES}")
        qs = [q for q in (v.text(x, "queries", max_chars=v.MAX_CONTENT_CHARS)
                          for x in queries) if q is not None]
    lo, hi, named = window(core, sc, from_time=from_time, to_time=to_time, around=around)
    k = core.strategy.retrieval.top_k if top_k is None else top_k
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 100:
        raise ValidationError("top_k: expected a whole number in 1..100")
    in_window = [r for _, rs in core.store.scope_revisions(sc) for r in rs
                 if lo < r.at <= hi]
    cause: dict[str, dict[str, Any]] = {}
    for r in sorted(in_window, key=lambda r: r.at):  # the last revision of each memory
        cause[r.memory_id] = _rev(r)
    reader = Reader(core)
    out = []
    for q in qs:
        before = reader.retrieve(sc, q, top_k=k, kind=None, tags=None, since=None,
                                 until=None, as_of=lo, min_score=None).hits
        after = reader.retrieve(sc, q, top_k=k, kind=None, tags=None, since=None,
                                until=None, as_of=hi, min_score=None).hits
        out.append({"query": q, **_compare(before, after, cause)})
    return {"scope": sc.as_dict(), "from": lo, "to": hi, "from_iso": iso(lo),
            "to_iso": iso(hi), "top_k": k, "around": [_rev(r) for r in named] or None,
            "revisions": [_rev(r) for r in sorted(in_window, key=lambda r: r.at)],
            "queries": out}

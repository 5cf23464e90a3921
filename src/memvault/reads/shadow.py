"""A shadow run: what a candidate strategy would change before it is switched on.

The queries of a scope's most recent stored traces are retrieved again, now, under the
strategy in force and under the candidate, over the same store; per query the report
names the memories that would enter or leave the top k and those that would move in it,
and a summary counts the queries that change and the mean overlap of the two top-k sets.

Read-only: the candidate runs on a copy of the Core (same store, embedders, reranker and
clock, another strategy) through `Reader.retrieve` only, so no trace is written, no
strategy is noted as served, and nothing stored changes. A trace keeps the query, its
scope, `as_of` and valid-time filter, not the caller's kind/tag/since/until filters or
top_k: the replay runs the query alone, each strategy with its own `top_k` unless one is
given.
"""

from __future__ import annotations

import copy
from typing import Any

from .. import validate as v
from ..config import Strategy
from ..core import Core
from ..errors import MemvaultError, ValidationError
from ..model import Hit
from ..validtime import valid_window
from . import records
from .retrieve import Reader
from .snapshots import snapshot_scope, users_of


def _top(reader: Reader, trace: dict[str, Any], top_k: int | None) -> list[Hit]:
    valid = trace.get("valid_time")
    out = reader.retrieve(trace["scope"], trace["query"], top_k=top_k, kind=None, tags=None,
                          since=None, until=None, as_of=trace.get("as_of"), min_score=None,
                          valid=valid_window(**valid) if valid else None)
    return out.hits


def _entry(h: Hit, rank: int) -> dict[str, Any]:
    return {"id": h.memory.id, "rank": rank, "content": h.memory.content}


def compare(current: list[Hit], candidate: list[Hit]) -> dict[str, Any]:
    """What the candidate's top k does to the current one: entered, left, moved (ranks
    from 1) and the overlap |both| / max(|current|, |candidate|) (1 when both are empty)."""
    cur = {h.memory.id: i for i, h in enumerate(current, 1)}
    cand = {h.memory.id: i for i, h in enumerate(candidate, 1)}
    entered = [_entry(h, cand[h.memory.id]) for h in candidate if h.memory.id not in cur]
    left = [_entry(h, cur[h.memory.id]) for h in current if h.memory.id not in cand]
    moved = [{"id": h.memory.id, "from": cur[h.memory.id], "to": cand[h.memory.id],
              "content": h.memory.content}
             for h in candidate if h.memory.id in cur and cur[h.memory.id] != cand[h.memory.id]]
    size = max(len(cur), len(cand))
    return {"changed": bool(entered or left or moved), "entered": entered, "left": left,
            "moved": moved, "overlap": 1.0 if size == 0 else len(cur.keys() & cand) / size,
            "current": list(cur), "candidate": list(cand)}


def recent_traces(core: Core, tenant: str, user: str | None, n: int) -> list[dict[str, Any]]:
    """The `n` most recent stored traces of the user (None: of every user of the tenant),
    newest first."""
    found: list[dict[str, Any]] = []
    for usr in users_of(core, tenant, user):
        found += records.traces(core, {"tenant": tenant, "user": usr}, limit=n)
    found.sort(key=lambda t: (t["at"], t["trace_id"]), reverse=True)  # ids sort by time
    return found[:n]


def shadow(core: Core, tenant: Any, candidate: Strategy, *, user: Any = None,
           traces: Any = 20, top_k: Any = None) -> dict[str, Any]:
    """Replay the queries of the scope's `traces` most recent traces under the strategy in
    force and under `candidate`; per query what would change, and a summary."""
    t, u = snapshot_scope(tenant, user)
    if isinstance(traces, bool) or not isinstance(traces, int) or not 1 <= traces <= 1000:
        raise ValidationError("traces: expected a whole number in 1..1000")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int)
                              or not 1 <= top_k <= 1000):
        raise ValidationError("top_k: expected a whole number in 1..1000")
    if not isinstance(candidate, Strategy):
        raise ValidationError("candidate: expected a Strategy")
    shadow_core = copy.copy(core)  # same store and models, another strategy; never noted
    shadow_core.strategy = candidate
    now_reader, cand_reader = Reader(core), Reader(shadow_core)
    rows = recent_traces(core, t, u, traces)
    seen: set[tuple[str, str, Any, str]] = set()
    queries: list[dict[str, Any]] = []
    for tr in rows:
        sc = v.scope(tr["scope"])
        key = (sc.key(), tr["query"], tr.get("as_of"), repr(tr.get("valid_time")))
        if key in seen:  # the same question asked again replays the same way
            continue
        seen.add(key)
        row: dict[str, Any] = {"trace_id": tr["trace_id"], "at": tr["at"], "user": sc.user,
                               "query": tr["query"], "strategy_hash": tr["strategy_hash"]}
        try:
            row.update(compare(_top(now_reader, tr, top_k), _top(cand_reader, tr, top_k)))
        except MemvaultError as e:  # one query that no longer runs spoils no report
            row.update({"changed": False, "error": f"{e.code}: {e.message}"})
        queries.append(row)
    ran = [q for q in queries if "error" not in q]
    changed = sum(q["changed"] for q in ran)
    return {
        "tenant": t, "user": u, "current_hash": core.strategy.hash,
        "candidate_hash": candidate.hash, "identical": candidate.hash == core.strategy.hash,
        "summary": {"traces": len(rows), "queries": len(queries), "changed": changed,
                    "unchanged": len(ran) - changed, "errors": len(queries) - len(ran),
                    "mean_overlap": (sum(q["overlap"] for q in ran) / len(ran)) if ran
                    else None},
        "queries": queries}

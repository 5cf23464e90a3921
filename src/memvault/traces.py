"""Traces: why a recall or a context build returned what it did.

A trace records the query, the scope, the strategy hash, every candidate with its score
parts and what happened to it (returned, or filtered and why), and for a context build
what was injected. Filters applied inside the store query (scope, status, expiry,
validity) are named in `store_filters`: such memories are never candidates.
"""

from __future__ import annotations

from typing import Any

from .model import Hit
from .recall import RetrievalOutcome

STORE_FILTERS = ["scope", "status=active", "not_expired", "valid_now"]


def _candidate(h: Hit, outcome: str, rank: int | None) -> dict[str, Any]:
    return {"id": h.memory.id, "version": h.memory.version, "slot": h.memory.slot,
            "topic": h.memory.topic, "kind": h.memory.kind, "score": h.score,
            "parts": h.parts.to_dict(), "outcome": outcome, "rank": rank}


def build_trace(trace_id: str, kind: str, outcome: RetrievalOutcome, *, strategy_hash: str,
                at: int, injected: dict[str, Any] | None = None) -> dict[str, Any]:
    candidates = [_candidate(h, "returned", i) for i, h in enumerate(outcome.hits, 1)]
    candidates += [_candidate(h, reason, None) for h, reason in outcome.filtered]
    # Every memory whose text the trace may hold: the candidates, and whatever the context
    # section rendered from another layer (recent turns, profile, graph). Purge deletes
    # the traces that name a memory here.
    ids = sorted({c["id"] for c in candidates}
                 | set((injected or {}).get("included") or []))
    trace: dict[str, Any] = {
        "trace_id": trace_id, "kind": kind, "at": at, "strategy_hash": strategy_hash,
        "scope": outcome.scope.as_dict(), "query": outcome.query,
        "as_of": outcome.now if outcome.as_of else None,
        "time_range": list(outcome.time_range) if outcome.time_range else None,
        "time_range_ignored": outcome.time_range_ignored,
        "valid_time": outcome.valid.to_dict() if outcome.valid else None,
        "store_filters": STORE_FILTERS if outcome.valid is None
        else [*STORE_FILTERS[:-1], "valid_in_window"], "reranked": outcome.reranked,
        "rerank": outcome.rerank, "candidates": candidates, "memory_ids": ids,
    }
    if injected is not None:
        trace["injected"] = injected
    return trace

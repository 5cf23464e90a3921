"""The Vault's replay verb (reads/replay.py), mixed into Vault: the same queries against
the store as of two times, or just before and after one revision, and which memory
entered, left or moved, charged to the revision that caused it."""

from __future__ import annotations

from typing import Any

from .engine import Engine
from .reads import access
from .reads import replay as replaying
from .timeutil import TimeLike


class ReplayVerbs:
    engine: Engine

    def replay(self, scope: Any, queries: list[str] | None = None, *,
               from_time: TimeLike = None, to_time: TimeLike = None, around: str | None = None,
               traces: int | None = None, top_k: int | None = None) -> dict[str, Any]:
        """Recall each query as of `from_time` and as of `to_time` (default: now), or
        around one revision (an op id or MEMORY_ID@VERSION), and compare. Without
        `queries`, the scope's `traces` (default 20) most recent distinct stored queries.
        Read-only: records no trace."""
        out = replaying.replay(self.engine.core, scope, queries, from_time=from_time,
                               to_time=to_time, around=around, traces=traces, top_k=top_k)
        seen = {h["memory_id"] for q in out["queries"] for side in ("before", "after")
                for h in q[side]}
        access.record(self.engine.core, scope, "replay", sorted(seen))
        return out

"""The Client's replay verb (REST: server/replayroutes.py), mixed into Client: Vault.replay
over POST /v1/replay, with the same arguments and return value."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import clientwire as wire
from .timeutil import TimeLike


class ClientReplayVerbs:
    # Provided by Client (client.py): one JSON request in a scope.
    _json: Callable[..., Any]

    def replay(self, scope: Any, queries: list[str] | None = None, *,
               from_time: TimeLike = None, to_time: TimeLike = None, around: str | None = None,
               traces: int | None = None, top_k: int | None = None) -> dict[str, Any]:
        """Vault.replay: each query as of two times (or around one revision), and which
        memory entered, left or moved, with the revision that caused it."""
        body = {k: val for k, val in (
            ("queries", list(queries) if isinstance(queries, list | tuple) else queries),
            ("from", wire.as_time(from_time, "from")), ("to", wire.as_time(to_time, "to")),
            ("around", around), ("traces", traces), ("top_k", top_k)) if val is not None}
        return dict(self._json("POST", "/v1/replay", scope, json=body))

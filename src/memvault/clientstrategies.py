"""The Client's strategy-version verbs (docs/retrieval.md, "Strategy versions"), mixed
into Client: Vault.strategy_history, strategy_version and shadow_run over
/v1/strategies, with the same arguments and return values. A candidate given as a file
or a Strategy is checked here and sent as its mapping; the tenant is the key's."""

from __future__ import annotations

import os
from typing import Any

from . import clientwire as wire
from .config import Strategy, as_strategy
from .errors import ScopeError


class StrategyCalls:
    def _json(self, method: str, path: str, scope: Any = ..., *,
              params: dict[str, Any] | None = None, json: Any = None) -> Any:
        raise NotImplementedError

    def whoami(self) -> dict[str, Any]:
        raise NotImplementedError

    def strategy_history(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self._json("GET", "/v1/strategies")]

    def strategy_version(self, hash: str) -> dict[str, Any]:
        return dict(self._json("GET", f"/v1/strategies/{wire.segment(hash)}"))

    def shadow_run(self, tenant: str, candidate: Strategy | str | os.PathLike[str]
                   | dict[str, Any], *, user: str | None = None, traces: int = 20,
                   top_k: int | None = None) -> dict[str, Any]:
        mine = self.whoami()["tenant"]
        if tenant != mine:
            raise ScopeError(f"tenant {tenant!r} is not this key's tenant {mine!r}")
        body = {"strategy": as_strategy(candidate, "candidate").model_dump(mode="json"),
                "traces": traces, "top_k": top_k}
        return dict(self._json("POST", "/v1/strategies/shadow", params={"user": user},
                               json=body))

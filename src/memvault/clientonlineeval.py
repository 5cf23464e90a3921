"""The Client's online-evaluation verbs (docs/evaluation.md), mixed into Client:
Vault.record_answer over POST /v1/answers and Vault.online_eval_report over
GET /v1/eval/online, with the same arguments and return values. Judging is the server's
(its sweep timer), so the Client has no judge_online."""

from __future__ import annotations

from typing import Any

from .errors import ScopeError


class OnlineEvalCalls:
    def _json(self, method: str, path: str, scope: Any = ..., *,
              params: dict[str, Any] | None = None, json: Any = None) -> Any:
        raise NotImplementedError

    def whoami(self) -> dict[str, Any]:
        raise NotImplementedError

    def record_answer(self, scope: Any, trace_id: str, answer: str) -> dict[str, Any]:
        """The answer produced with context build `trace_id` (Vault.record_answer)."""
        return dict(self._json("POST", "/v1/answers", scope,
                               json={"trace_id": trace_id, "answer": answer}))

    def online_eval_report(self, tenant: str, *, since: str = "7d",
                           window: str = "1d") -> dict[str, Any]:
        mine = self.whoami()["tenant"]
        if tenant != mine:
            raise ScopeError(f"tenant {tenant!r} is not this key's tenant {mine!r}")
        return dict(self._json("GET", "/v1/eval/online",
                               params={"since": since, "window": window}))

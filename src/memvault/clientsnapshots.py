"""The Client's snapshot verbs (docs/snapshots.md), mixed into Client: Vault.snapshot &
co. over /v1/snapshots, with the same arguments and return values. The tenant is the
key's: another one is refused with ScopeError before anything is sent."""

from __future__ import annotations

from typing import Any

from . import clientwire as wire
from .errors import ScopeError


class SnapshotCalls:
    def _json(self, method: str, path: str, scope: Any = ..., *,
              params: dict[str, Any] | None = None, json: Any = None) -> Any:
        raise NotImplementedError

    def whoami(self) -> dict[str, Any]:
        raise NotImplementedError

    def _snap(self, tenant: str, name: str | None = None) -> str:
        mine = self.whoami()["tenant"]
        if tenant != mine:
            raise ScopeError(f"tenant {tenant!r} is not this key's tenant {mine!r}")
        return "/v1/snapshots" + ("" if name is None else f"/{wire.segment(name)}")

    def snapshot(self, tenant: str, name: str, *, user: str | None = None,
                 reason: str | None = None, actor: str | None = None) -> dict[str, Any]:
        """Vault.snapshot (`actor`: the key's, whatever is given)."""
        return dict(self._json("POST", self._snap(tenant), params={"user": user},
                               json={"name": name, "reason": reason}))

    def snapshots(self, tenant: str, *, user: str | None = None) -> list[dict[str, Any]]:
        return [dict(s) for s in self._json("GET", self._snap(tenant),
                                            params={"user": user})]

    def snapshot_diff(self, tenant: str, name: str, to: str | None = None, *,
                      user: str | None = None) -> dict[str, Any]:
        return dict(self._json("GET", self._snap(tenant, name) + "/diff",
                               params={"user": user, "to": to}))

    def restore_snapshot(self, tenant: str, name: str, *, user: str | None = None,
                         reason: str | None = None, actor: str | None = None
                         ) -> dict[str, Any]:
        return dict(self._json("POST", self._snap(tenant, name) + "/restore",
                               params={"user": user}, json={"reason": reason}))

    def drop_snapshot(self, tenant: str, name: str, *,
                      user: str | None = None) -> dict[str, Any]:
        return dict(self._json("DELETE", self._snap(tenant, name), params={"user": user}))

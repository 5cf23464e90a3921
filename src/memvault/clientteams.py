"""The Client's team verbs (docs/teams.md), mixed into Client: Vault.create_team & co.
over /v1/teams, with the same arguments and return values. `team_scope` gives the scope
a member passes to every ordinary verb; the Client sends it as `team=<name>` (the server
checks the key's user's team role, never trusting a user id sent as "team:...")."""

from __future__ import annotations

from typing import Any

from . import clientwire as wire
from . import validate as v
from .errors import ScopeError, ValidationError
from .model import Scope


class TeamCalls:
    def _json(self, method: str, path: str, scope: Any = ..., *,
              params: dict[str, Any] | None = None, json: Any = None) -> Any:
        raise NotImplementedError

    def whoami(self) -> dict[str, Any]:
        raise NotImplementedError

    def _teams(self, tenant: str, name: str | None = None) -> str:
        mine = self.whoami()["tenant"]
        if tenant != mine:
            raise ScopeError(f"tenant {tenant!r} is not this key's tenant {mine!r}")
        return "/v1/teams" + ("" if name is None else f"/{wire.segment(v.team_name(name))}")

    def create_team(self, tenant: str, name: str, *, description: str | None = None,
                    actor: str | None = None) -> dict[str, Any]:
        """Vault.create_team (`actor`: the key's, whatever is given)."""
        return dict(self._json("POST", self._teams(tenant),
                               json={"name": v.team_name(name, "name"),
                                     "description": description}))

    def drop_team(self, tenant: str, name: str) -> dict[str, Any]:
        return dict(self._json("DELETE", self._teams(tenant, name)))

    def teams(self, tenant: str, *, user: str | None = None) -> list[dict[str, Any]]:
        return [dict(t) for t in self._json("GET", self._teams(tenant),
                                            params={"user": user})]

    def team_members(self, tenant: str, team: str) -> list[dict[str, Any]]:
        return [dict(m) for m in self._json("GET", self._teams(tenant, team) + "/members")]

    def add_member(self, tenant: str, team: str, user: str, role: str = "reader", *,
                   actor: str | None = None) -> dict[str, Any]:
        return dict(self._json("POST", self._teams(tenant, team) + "/members",
                               json={"user": user, "role": role}))

    def remove_member(self, tenant: str, team: str, user: str) -> dict[str, Any]:
        return dict(self._json("DELETE", self._teams(tenant, team) + "/members/"
                               + wire.segment(user)))

    def team_scope(self, tenant: str, team: str, *, member: str | None = None,
                   need: str = "read") -> Scope:
        """The team's scope for the ordinary verbs, sent as `team=<name>`. The server
        checks the role on every call (a bound key's user's; an unbound key acts
        tenant-wide, as its role allows), so `member` and `need` are not sent."""
        if need not in ("read", "write", "govern", "policy", "manage"):
            raise ValidationError("need: expected read, write, govern, policy or manage")
        return v.scope({"tenant": tenant, "user": v.TEAM_PREFIX + v.team_name(team)})

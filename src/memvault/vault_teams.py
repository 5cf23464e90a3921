"""The Vault's team verbs (teams.py, docs/teams.md), mixed into Vault: create, list and
drop teams, add and remove members, and `team_scope`, the scope through which a member
reads, writes and governs the team's memories with every ordinary verb."""

from __future__ import annotations

from typing import Any

from . import teams
from .core import Core
from .errors import ValidationError
from .model import Scope


class TeamVerbs:
    core: Core

    def create_team(self, tenant: str, name: str, *, description: str | None = None,
                    actor: str | None = None) -> dict[str, Any]:
        """A shared scope under the tenant (ConflictError if the name is taken)."""
        return teams.create(self.core.store, tenant, name, description=description,
                            actor=self.core.actor_for(actor), now=self.core.clock())

    def drop_team(self, tenant: str, name: str) -> dict[str, Any]:
        """Remove a team and its members, revoke its project keys; its memories stay in
        the store, read by no one."""
        return teams.drop(self.core.store, tenant, name, now=self.core.clock())

    def teams(self, tenant: str, *, user: str | None = None) -> list[dict[str, Any]]:
        """The tenant's teams; with `user`, those the user belongs to, with the role."""
        return teams.list_teams(self.core.store, tenant, user=user)

    def team_members(self, tenant: str, team: str) -> list[dict[str, Any]]:
        return teams.members(self.core.store, tenant, team)

    def add_member(self, tenant: str, team: str, user: str, role: str = "reader", *,
                   actor: str | None = None) -> dict[str, Any]:
        """Add `user` as reader, writer or admin of the team (or change the role). It takes
        effect at the next read."""
        return teams.add_member(self.core.store, tenant, team, user, role,
                                actor=self.core.actor_for(actor), now=self.core.clock())

    def remove_member(self, tenant: str, team: str, user: str) -> dict[str, Any]:
        return teams.remove_member(self.core.store, tenant, team, user)

    def team_scope(self, tenant: str, team: str, *, member: str | None = None,
                   need: str = "read") -> Scope:
        """The team's shared scope, to pass to any verb (remember, recall, forget, freeze,
        rollback, ...). With `member`: PermissionDeniedError unless that user's team role
        allows `need` (read, write, govern, policy, manage: docs/teams.md)."""
        if need not in teams.NEEDS:
            raise ValidationError(f"need: expected one of {', '.join(teams.NEEDS)}")
        return teams.require(self.core.store, tenant, team, member, need)

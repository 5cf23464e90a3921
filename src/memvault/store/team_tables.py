"""Teams in the store (migration 10/12), written once for both backends and mixed into
SQLStore: the teams of a tenant, their members with a role each, and the keys bound to a
team. The rules (names, roles, who may do what) are memvault.teams; this is storage."""

from __future__ import annotations

from typing import Any

from ..errors import ConflictError
from .tablebase import TableAccess

_TEAM_COLS = "tenant, name, created_at, created_by, description"
_MEMBER_COLS = "tenant, team, user_id, role, added_at, added_by"


def _team(r: Any) -> dict[str, Any]:
    return {"tenant": r["tenant"], "name": r["name"], "created_at": int(r["created_at"]),
            "created_by": r["created_by"], "description": r["description"]}


def _member(r: Any) -> dict[str, Any]:
    return {"tenant": r["tenant"], "team": r["team"], "user": r["user_id"],
            "role": r["role"], "added_at": int(r["added_at"]), "added_by": r["added_by"]}


class TeamTables(TableAccess):
    _IntegrityError: type[Exception]

    def add_team(self, team: dict[str, Any]) -> None:
        """Insert a team (tenant, name, created_at, created_by, description);
        ConflictError when the tenant has one of that name."""
        ph = self._ph
        try:
            self._execute(
                f"INSERT INTO teams ({_TEAM_COLS}) VALUES ({ph('tenant')}, {ph('name')}, "
                f"{ph('created_at')}, {ph('created_by')}, {ph('description')})",
                {"tenant": team["tenant"], "name": team["name"],
                 "created_at": team["created_at"], "created_by": team.get("created_by") or "",
                 "description": team.get("description") or ""})
        except self._IntegrityError:
            raise ConflictError(f"tenant {team['tenant']} already has a team named "
                                f"{team['name']!r}") from None

    def get_team(self, tenant: str, name: str) -> dict[str, Any] | None:
        ph = self._ph
        rows = self._q(f"SELECT {_TEAM_COLS} FROM teams WHERE tenant = {ph('t')} AND "
                       f"name = {ph('n')}", {"t": tenant, "n": name})
        return _team(rows[0]) if rows else None

    def list_teams(self, tenant: str) -> list[dict[str, Any]]:
        ph = self._ph
        rows = self._q(f"SELECT {_TEAM_COLS} FROM teams WHERE tenant = {ph('t')} "
                       "ORDER BY name", {"t": tenant})
        return [_team(r) for r in rows]

    def drop_team(self, tenant: str, name: str, *, at: int) -> bool:
        """Remove a team, its members and its key bindings (its memories stay, unread).
        The keys bound to it are revoked at `at`: unbound, a project key would become a
        plain user key reaching past the project it was made for."""
        ph = self._ph
        params = {"t": tenant, "n": name}
        with self.transaction():
            self._execute(f"UPDATE api_keys SET revoked_at = {ph('at')} WHERE tenant = "
                          f"{ph('t')} AND revoked_at IS NULL AND key_id IN (SELECT key_id "
                          f"FROM team_keys WHERE tenant = {ph('t')} AND team = {ph('n')})",
                          {**params, "at": at})
            self._execute(f"DELETE FROM team_members WHERE tenant = {ph('t')} AND "
                          f"team = {ph('n')}", params)
            self._execute(f"DELETE FROM team_keys WHERE tenant = {ph('t')} AND "
                          f"team = {ph('n')}", params)
            return self._execute(f"DELETE FROM teams WHERE tenant = {ph('t')} AND "
                                 f"name = {ph('n')}", params) == 1

    def set_member(self, member: dict[str, Any]) -> None:
        """Add a member (tenant, team, user, role, added_at, added_by) or change the role
        of one already there."""
        ph = self._ph
        params = {"t": member["tenant"], "n": member["team"], "u": member["user"],
                  "r": member["role"], "at": member["added_at"],
                  "by": member.get("added_by") or ""}
        with self.transaction():
            if self._execute(f"UPDATE team_members SET role = {ph('r')} WHERE tenant = "
                             f"{ph('t')} AND team = {ph('n')} AND user_id = {ph('u')}",
                             params) == 0:
                self._execute(f"INSERT INTO team_members ({_MEMBER_COLS}) VALUES "
                              f"({ph('t')}, {ph('n')}, {ph('u')}, {ph('r')}, {ph('at')}, "
                              f"{ph('by')})", params)

    def remove_member(self, tenant: str, team: str, user: str) -> bool:
        ph = self._ph
        return self._execute(f"DELETE FROM team_members WHERE tenant = {ph('t')} AND "
                             f"team = {ph('n')} AND user_id = {ph('u')}",
                             {"t": tenant, "n": team, "u": user}) == 1

    def team_members(self, tenant: str, team: str) -> list[dict[str, Any]]:
        ph = self._ph
        rows = self._q(f"SELECT {_MEMBER_COLS} FROM team_members WHERE tenant = {ph('t')} "
                       f"AND team = {ph('n')} ORDER BY user_id", {"t": tenant, "n": team})
        return [_member(r) for r in rows]

    def memberships(self, tenant: str, user: str) -> list[dict[str, Any]]:
        """The teams `user` belongs to in `tenant`, by team name."""
        ph = self._ph
        rows = self._q(f"SELECT {_MEMBER_COLS} FROM team_members WHERE tenant = {ph('t')} "
                       f"AND user_id = {ph('u')} ORDER BY team", {"t": tenant, "u": user})
        return [_member(r) for r in rows]

    def bind_key_team(self, key_id: str, tenant: str, team: str) -> None:
        ph = self._ph
        self._execute(f"INSERT INTO team_keys (key_id, tenant, team) VALUES ({ph('k')}, "
                      f"{ph('t')}, {ph('n')})", {"k": key_id, "t": tenant, "n": team})

    def key_team(self, key_id: str) -> str | None:
        """The team a key is bound to, if any."""
        ph = self._ph
        rows = self._q(f"SELECT team FROM team_keys WHERE key_id = {ph('k')}", {"k": key_id})
        return rows[0]["team"] if rows else None

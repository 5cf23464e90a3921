"""Shared scopes under a tenant (docs/teams.md): a team (or project) whose memories its
members read beside their own, and write per role. The rules live here once; the Vault,
the REST routes, the CLI and the MCP server are adapters over them.

A team's memories are ordinary memories under the scope (tenant, "team:<name>"): every
read and write path, revision, event and index applies to them unchanged, and no personal
user id can take that form (validate.personal_user). Membership is a row per (tenant,
team, user) with a role:

  reader   reads the team's memories beside the user's own
  writer   also writes into the team (remember, observe, propose, edit) and governs its
           memories (forget, rollback, merge)
  admin    also freezes a team memory as policy (freeze, unfreeze), expires and purges,
           and manages the members
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import validate as v
from .errors import ConflictError, NotFoundError, PermissionDeniedError, ValidationError
from .model import Scope
from .store import ListFilter, Store

TEAM_ROLES = ("reader", "writer", "admin")
_RANK = {r: n for n, r in enumerate(TEAM_ROLES)}
# What a verb on a team memory needs (the team role table in docs/teams.md).
NEEDS = {"read": "reader", "write": "writer", "govern": "writer", "policy": "admin",
         "manage": "admin"}


# What each CLI command needs in a team's scope (`memvault --team T <command>`); a
# command not named reads.
COMMAND_NEEDS = {
    **dict.fromkeys(("remember", "propose", "observe", "edit", "lesson", "tool-result",
                     "task"), "write"),
    **dict.fromkeys(("forget", "rollback", "merge", "split", "unmerge", "unsplit"), "govern"),
    **dict.fromkeys(("freeze", "unfreeze", "expire", "purge", "promote", "sweep",
                     "consolidate", "summarize", "import", "review"), "policy"),
}


def team_scope(tenant: str, team: str) -> Scope:
    """The shared scope whose memories a team's members read."""
    return v.scope({"tenant": tenant, "user": v.TEAM_PREFIX + v.team_name(team)})


def role(value: Any) -> str:
    if value not in TEAM_ROLES:
        raise ValidationError(f"role: expected one of {', '.join(TEAM_ROLES)}, got {value!r}")
    return str(value)


def _tenant(tenant: Any) -> str:
    return v.scope({"tenant": tenant, "user": "-"}).tenant


def get(store: Store, tenant: str, team: str) -> dict[str, Any]:
    found = store.get_team(_tenant(tenant), v.team_name(team))
    if found is None:
        raise NotFoundError(f"no team {team!r} in tenant {tenant}")
    return found


def create(store: Store, tenant: str, name: str, *, description: str | None = None,
           actor: str = "", now: int) -> dict[str, Any]:
    """A new team; ConflictError if the tenant has one of that name, or had one whose
    memories are still stored: the scope is the name, so a new team would hand them
    (frozen policies included) to its members."""
    tenant, name = _tenant(tenant), v.team_name(name, "name")
    exists = store.get_team(tenant, name) is not None
    if not exists and store.list(team_scope(tenant, name), ListFilter(limit=1)):
        raise ConflictError(
            f"team {name!r}: a dropped team of that name left memories under "
            f"{v.TEAM_PREFIX}{name}; a new team would read them. Purge them "
            "first, or choose another name")
    team = {"tenant": tenant, "name": name, "created_at": now, "created_by": actor,
            "description": v.label(description, "description", max_chars=500)
            if description else ""}
    store.add_team(team)
    return {**team, "members": []}


def drop(store: Store, tenant: str, name: str, *, now: int) -> dict[str, Any]:
    """Remove a team and its members, and revoke its project keys (its memories stay in
    the store, read by nobody; purge them first to erase them)."""
    team = get(store, tenant, name)
    store.drop_team(team["tenant"], team["name"], at=now)
    return team


def list_teams(store: Store, tenant: str, *, user: str | None = None) -> list[dict[str, Any]]:
    """The tenant's teams by name; with `user`, only those the user belongs to, each with
    that user's `role`."""
    tenant = _tenant(tenant)
    if user is None:
        return store.list_teams(tenant)
    roles = {m["team"]: m["role"] for m in store.memberships(tenant, v.personal_user(user))}
    return [{**t, "role": roles[t["name"]]} for t in store.list_teams(tenant)
            if t["name"] in roles]


def members(store: Store, tenant: str, team: str) -> list[dict[str, Any]]:
    t = get(store, tenant, team)
    return store.team_members(t["tenant"], t["name"])


def add_member(store: Store, tenant: str, team: str, user: str, member_role: str, *,
               actor: str = "", now: int) -> dict[str, Any]:
    """Add `user` to the team in `member_role`, or change the role of a member."""
    t = get(store, tenant, team)
    row = {"tenant": t["tenant"], "team": t["name"], "user": v.personal_user(user),
           "role": role(member_role), "added_at": now, "added_by": actor}
    store.set_member(row)
    return row


def remove_member(store: Store, tenant: str, team: str, user: str) -> dict[str, Any]:
    t = get(store, tenant, team)
    who = v.personal_user(user)
    if not store.remove_member(t["tenant"], t["name"], who):
        raise NotFoundError(f"{who!r} is not a member of team {t['name']!r}")
    return {"tenant": t["tenant"], "team": t["name"], "user": who, "removed": True}


def role_of(store: Store, tenant: str, team: str, user: str) -> str | None:
    for m in store.memberships(tenant, user):
        if m["team"] == team:
            return str(m["role"])
    return None


def require(store: Store, tenant: str, team: str, member: str | None, need: str) -> Scope:
    """The team's scope, once the team exists and `member` (None: a tenant-wide caller,
    such as the Python Vault or an admin key, which needs no membership) holds a role
    that allows `need` (a key of NEEDS). PermissionDeniedError otherwise."""
    t = get(store, tenant, team)
    if member is not None:
        who = v.personal_user(member, "member")
        has = role_of(store, t["tenant"], t["name"], who)
        want = NEEDS[need]
        if has is None:
            raise PermissionDeniedError(f"{who!r} is not a member of team {t['name']!r}")
        if _RANK[has] < _RANK[want]:
            raise PermissionDeniedError(
                f"{who!r} has the {has} role in team {t['name']!r}; this needs {want} or above")
    return team_scope(t["tenant"], t["name"])


def reading_teams(store: Store, scope: Scope, teams: bool | Iterable[str]) -> list[Scope]:
    """The team scopes a read of `scope` adds: every team of the user (teams=True), none
    (False), or the named ones, each of which the user must belong to. A read of a team
    scope itself adds none."""
    if teams is False or v.team_of(scope.user) is not None:
        return []
    mine = {m["team"] for m in store.memberships(scope.tenant, scope.user)}
    if teams is True:
        names = sorted(mine)
    elif isinstance(teams, str) or not isinstance(teams, Iterable):
        raise ValidationError("teams: expected true, false or a list of team names")
    else:
        names = [v.team_name(t, "teams") for t in teams]
        missing = [t for t in names if t not in mine]
        if missing:
            raise PermissionDeniedError(f"{scope.user!r} is not a member of team "
                                        f"{missing[0]!r}")
    return [Scope(scope.tenant, v.TEAM_PREFIX + t) for t in dict.fromkeys(names)]


def bind_key(store: Store, key_id: str, tenant: str, team: str) -> None:
    """Bind an API key to a team (a project key): it then acts in that team only, plus its
    own user when it is bound to one."""
    t = get(store, tenant, team)
    store.bind_key_team(key_id, t["tenant"], t["name"])

"""How a request reaches a team's scope (docs/teams.md): `team=` on a memory route, the
acting member's team role checked against the second permission table (TEAM_NEEDS), and
a project key (a key bound to a team) kept inside its team and its own user."""

from __future__ import annotations

from collections.abc import Iterable

from .. import teams
from .. import validate as v
from ..model import Scope
from ..store import Store
from .auth import Principal
from .errors import ApiError
from .permissions import PROJECT_KEY_ACTIONS, TEAM_NEEDS


def project_guard(p: Principal, action: str) -> None:
    """A project key calls only what stays inside its team (PROJECT_KEY_ACTIONS)."""
    if p.team is not None and action not in PROJECT_KEY_ACTIONS:
        raise ApiError(403, "scope_denied", f"this key is bound to team {p.team!r}; it "
                       f"may not {action}")


def member_of(p: Principal, user: str | None) -> str | None:
    """Who acts in the team: a bound key's user; else the user an unbound key names (an
    application acting for that member); else nobody (tenant-wide, as the role allows)."""
    if p.user is not None:
        if user is not None and user != p.user:
            raise ApiError(403, "scope_denied", f"this key is bound to user {p.user!r}; it "
                           f"cannot act for {user!r}")
        return p.user
    return v.personal_user(user) if user else None


def team_scope_for(store: Store, p: Principal, team: str, user: str | None, action: str,
                   agent: str | None = None, session: str | None = None) -> Scope:
    """The team's scope for this request, or 403/404."""
    name = v.team_name(team)
    if p.team is not None and name != p.team:
        raise ApiError(403, "scope_denied", f"this key is bound to team {p.team!r}; it "
                       f"cannot act in team {name!r}")
    need = TEAM_NEEDS.get(action)
    if need is None:
        raise ApiError(422, "invalid_input", f"team: {action} has no team form")
    sc = teams.require(store, p.tenant, name, member_of(p, user), need)
    return v.scope({**sc.as_dict(), "agent": agent, "session": session})


def read_teams(store: Store, p: Principal, scope: Scope,
               asked: bool | Iterable[str] | None) -> bool | list[str]:
    """The teams a read of `scope` may add: as asked (default all of the user's), and for
    a project key only its own team, when the user belongs to it."""
    want: bool | list[str] = True if asked is None else (
        asked if isinstance(asked, bool) else list(asked))
    if p.team is None or want is False:
        return want
    if want is not True:
        outside = [t for t in want if t != p.team]
        if outside:
            raise ApiError(403, "scope_denied", f"this key is bound to team {p.team!r}; it "
                           f"cannot read team {outside[0]!r}")
        return want
    mine = {m["team"] for m in store.memberships(scope.tenant, scope.user)}
    return [p.team] if p.team in mine else False

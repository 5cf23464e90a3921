"""The team routes (docs/teams.md): create, list and drop the tenant's teams, list their
members, add and remove members. Memories of a team are reached with `team=` on the
ordinary memory routes (server/teamaccess.py), not here."""

# No `from __future__ import annotations`: FastAPI reads these annotations at runtime.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request

from .. import teams
from ..reads import access
from . import schemas as s
from .auth import Principal
from .deps import principal_for, server
from .errors import ERROR_RESPONSES, ApiError
from .permissions import TEAM_NEEDS
from .teamaccess import member_of

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES,  # type: ignore[arg-type]
                   tags=["teams"])

Name = Annotated[str, Path(min_length=1, max_length=63)]
UserId = Annotated[str, Path(min_length=1, max_length=128)]


def _team(request: Request, p: Principal, name: str, action: str) -> str:
    """The team, once the caller may do `action` there: a project key only in its own
    team; a user key as its user's team role allows (TEAM_NEEDS)."""
    if p.team is not None and name != p.team:
        raise ApiError(403, "scope_denied", f"this key is bound to team {p.team!r}; it "
                       f"cannot act in team {name!r}")
    access.bind(access.Accessor(p.key_id, p.role))
    member = member_of(p, None)
    teams.require(server(request).vault.store, p.tenant, name, member, TEAM_NEEDS[action])
    return name


@router.post("/teams", response_model=dict[str, Any], status_code=201)
def create(request: Request, p: Annotated[Principal, Depends(principal_for("teams.create"))],
           body: s.TeamIn) -> Any:
    """A new team (a shared scope) in the key's tenant; 409 if the name is taken."""
    return server(request).vault.create_team(p.tenant, body.name,
                                             description=body.description, actor=p.actor)


@router.get("/teams", response_model=list[dict[str, Any]])
def list_(request: Request, p: Annotated[Principal, Depends(principal_for("teams.list"))],
          user: Annotated[str | None, Query(description="only the teams this user belongs "
                                            "to, with the role (a bound key: its own)")
                          ] = None) -> Any:
    """The tenant's teams; a bound key sees its user's, a project key its own team."""
    who = member_of(p, user)
    out = server(request).vault.teams(p.tenant, user=who)
    return [t for t in out if p.team is None or t["name"] == p.team]


@router.delete("/teams/{name}", response_model=dict[str, Any])
def drop(request: Request, name: Name,
         p: Annotated[Principal, Depends(principal_for("teams.drop"))]) -> Any:
    """Remove a team and its members (its memories stay, read by no one)."""
    return server(request).vault.drop_team(p.tenant, name)


@router.get("/teams/{name}/members", response_model=list[dict[str, Any]])
def members(request: Request, name: Name,
            p: Annotated[Principal, Depends(principal_for("teams.members"))]) -> Any:
    """The team's members and their roles (a user key: of a team its user belongs to)."""
    return server(request).vault.team_members(p.tenant,
                                              _team(request, p, name, "teams.members"))


@router.post("/teams/{name}/members", response_model=dict[str, Any])
def add_member(request: Request, name: Name, body: s.MemberIn,
               p: Annotated[Principal, Depends(principal_for("teams.add_member"))]) -> Any:
    """Add a member as reader, writer or admin, or change a member's role (a user key:
    its user must be the team's admin). Takes effect at the next read."""
    return server(request).vault.add_member(
        p.tenant, _team(request, p, name, "teams.add_member"), body.user, body.role,
        actor=p.actor)


@router.delete("/teams/{name}/members/{user}", response_model=dict[str, Any])
def remove_member(request: Request, name: Name, user: UserId,
                  p: Annotated[Principal, Depends(principal_for("teams.remove_member"))]
                  ) -> Any:
    """Remove a member; from the next read on, the team's memories are not theirs."""
    return server(request).vault.remove_member(
        p.tenant, _team(request, p, name, "teams.remove_member"), user)

"""Request dependencies: the caller's principal (401), its permission for the action
(403), and the scope of the call — the tenant always from the key, the user from the key
when the key is bound to one, else from the `user` query parameter. Nothing in a body can
name a scope: request models refuse unknown fields. The caller's key is named to the read
path (reads/access.py), so every read of the request leaves an access-log row."""

# No `from __future__ import annotations`: FastAPI reads these annotations at runtime,
# and some close over local variables (the action of a dependency).
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Query, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ..model import Scope
from ..reads import access
from ..wording import a_or_an
from .auth import Principal, authenticate, named_user, scope_for
from .errors import ApiError
from .permissions import allowed
from .teamaccess import project_guard, team_scope_for

__all__ = ["Caller", "caller_for", "named_user", "principal_for", "server"]

# Declared for the OpenAPI schema (the Authorize button); authenticate() reads the header.
bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer mvk_<id>_<secret>")


@dataclass(frozen=True, slots=True)
class Caller:
    principal: Principal
    scope: Scope


def server(request: Request) -> Any:
    return request.app.state.server


def principal_for(action: str) -> Callable[..., Principal]:
    def dep(request: Request,
            _: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)] = None
            ) -> Principal:
        p = authenticate(server(request).vault.store, request.headers.get("authorization"))
        request.state.key_id = p.key_id
        if not allowed(p.role, action):
            raise ApiError(403, "forbidden", f"{a_or_an(p.role)} key may not {action}")
        project_guard(p, action)
        return p
    return dep


def caller_for(action: str) -> Callable[..., Any]:
    # async: it runs in the request's own task, so the accessor it names is in the context
    # the route's worker thread copies (a sync dependency runs in a copy of its own).
    async def dep(p: Annotated[Principal, Depends(principal_for(action))], request: Request,
                  user: Annotated[str | None, Query(
                      description="the user the call is about; required for admin, service "
                      "and unbound reader keys, must match (or be omitted) for bound keys")
                                  ] = None,
                  agent: Annotated[str | None, Query(description="narrows to one agent")
                                   ] = None,
                  session: Annotated[str | None, Query(description="narrows to one session")
                                     ] = None,
                  team: Annotated[str | None, Query(
                      description="act in this team's shared scope (docs/teams.md): the "
                      "acting member's team role must allow the action")] = None) -> Caller:
        if team is not None:
            sc = team_scope_for(server(request).vault.store, p, team, user, action, agent,
                                session)
        else:
            sc = scope_for(p, user, agent, session)
        caller = Caller(p, sc)
        access.bind(access.Accessor(p.key_id, p.role))
        return caller
    return dep

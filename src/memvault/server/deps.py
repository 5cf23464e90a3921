"""Request dependencies: the caller's principal (401), its permission for the action
(403), and the scope of the call — the tenant always from the key, the user from the key
when the key is bound to one, else from the `user` query parameter. Nothing in a body can
name a scope: request models refuse unknown fields."""

# No `from __future__ import annotations`: FastAPI reads these annotations at runtime,
# and some close over local variables (the action of a dependency).
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Query, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .. import validate as v
from ..model import Scope
from ..timeutil import now_ms
from .auth import Principal, authenticate
from .errors import ApiError
from .permissions import allowed

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
            raise ApiError(403, "forbidden", f"a {p.role} key may not {action}")
        return p
    return dep


def named_user(p: Principal, user: str | None) -> str | None:
    """The user a request names where naming one is optional (jobs, users): a bound key's
    own user; naming another is refused like on every other route."""
    if p.user is not None:
        if user is not None and user != p.user:
            raise ApiError(403, "scope_denied",
                           f"this key is bound to user {p.user!r}; it cannot act for {user!r}")
        return p.user
    return user or None


def caller_for(action: str) -> Callable[..., Caller]:
    def dep(p: Annotated[Principal, Depends(principal_for(action))],
            user: Annotated[str | None, Query(
                description="the user the call is about; required for admin, service and "
                "unbound reader keys, must match (or be omitted) for bound keys")] = None,
            agent: Annotated[str | None, Query(description="narrows to one agent")] = None,
            session: Annotated[str | None, Query(description="narrows to one session")
                               ] = None) -> Caller:
        user = named_user(p, user)
        if not user:
            raise ApiError(422, "invalid_input", f"user: required for a {p.role} key "
                           "(query parameter)")
        return Caller(p, v.scope({"tenant": p.tenant, "user": user, "agent": agent,
                                  "session": session}))
    return dep


def record_read(request: Request, c: Caller, action: str, memory_ids: list[str],
                trace_id: str | None = None) -> None:
    """Who read what, when, through which trace: a row of the store's access log."""
    server(request).vault.store.log_access([{
        "at": now_ms(), "tenant": c.scope.tenant, "user": c.scope.user,
        "key_id": c.principal.key_id, "role": c.principal.role, "action": action,
        "memory_ids": list(dict.fromkeys(memory_ids)), "trace_id": trace_id}])

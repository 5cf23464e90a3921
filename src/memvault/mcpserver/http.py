"""MCP over streamable HTTP, authenticated with the REST API keys.

Every HTTP request (the POSTs, the GET stream, the DELETE that ends a session) must carry
`Authorization: Bearer mvk_...`, checked against the store's key table by the REST
server's own code (server/auth.py). As in REST, the tenant is always the key's; a key
bound to a user acts for that user only, and any other key names the user with `?user=`
on the endpoint URL (optionally `&agent=` and `&session=`). The caller is resolved per
request, never per MCP session, so a session id does not carry one key's rights to
another. Refusals are REST's JSON body {code, message}: 401 without a valid key, 403 for
another user, 422 for a missing user.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio.to_thread
import uvicorn
from starlette.datastructures import Headers, QueryParams
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Send
from starlette.types import Scope as AsgiScope

from ..errors import MemvaultError
from ..reads.access import Accessor
from ..server.app import MiB
from ..server.auth import Principal, authenticate, scope_for
from ..server.errors import ApiError
from ..server.middleware import BodyLimit
from ..server.permissions import PROJECT_KEY_ACTIONS, allowed
from ..server.teamaccess import read_teams
from ..store import Store
from ..vault import Vault
from .tools import CALLER_STATE, Caller, build_server


class KeyAuth:
    """ASGI middleware: a request passes with the Caller of its key in its state, or is
    answered here with the refusal."""

    def __init__(self, app: ASGIApp, store: Store) -> None:
        self.app, self.store = app, store

    async def __call__(self, scope: AsgiScope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan: the SDK's session manager starts here
            await self.app(scope, receive, send)
            return
        query = QueryParams(scope.get("query_string", b""))
        try:
            # The key lookup is a store query: off the event loop.
            caller = await anyio.to_thread.run_sync(
                self.caller, Headers(scope=scope).get("authorization"), query)
        except (ApiError, MemvaultError) as e:
            status = e.status if isinstance(e, ApiError) else 422
            headers = {"WWW-Authenticate": 'Bearer realm="memvault"'} if status == 401 else {}
            await JSONResponse({"code": e.code, "message": e.message}, status_code=status,
                               headers=headers)(scope, receive, send)
            return
        scope.setdefault("state", {})[CALLER_STATE] = caller
        await self.app(scope, receive, send)

    def caller(self, authorization: str | None, query: QueryParams) -> Caller:
        p = authenticate(self.store, authorization)
        sc = scope_for(p, query.get("user"), query.get("agent"), query.get("session"))
        return Caller(sc, Accessor(p.key_id, p.role), actor=p.actor, may=_role_gate(p),
                      teams=read_teams(self.store, p, sc, None))


def _role_gate(p: Principal) -> Any:
    # A project key (docs/teams.md) calls only what stays inside its team and its user.
    return lambda action: allowed(p.role, action) and (
        p.team is None or action in PROJECT_KEY_ACTIONS)


def http_app(vault: Vault, *, path: str = "/mcp", host: str = "127.0.0.1",
             keys: bool = True, scope: Any = None) -> ASGIApp:
    """The MCP endpoint at `path`: callers authenticated by API key, or (keys=False, for
    loopback only) every caller acting in the fixed `scope`."""
    server = build_server(vault, None if keys else scope)
    # `host` lets the SDK guard a loopback server against DNS rebinding.
    app = server.streamable_http_app(streamable_http_path=path, host=host)
    # Outermost, as in REST: the probe answers without a key, and a body over the limit
    # gets REST's JSON 413 (read to its end first) before anything else reads it.
    return BodyLimit(Health(KeyAuth(app, vault.store) if keys else app), max_bytes=MiB)


class Health:
    """GET /healthz answers {"status": "ok"} without a key, like REST's liveness probe."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: AsgiScope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/healthz" and \
                scope["method"] in ("GET", "HEAD"):
            await JSONResponse({"status": "ok"})(scope, receive, send)
            return
        await self.app(scope, receive, send)


@contextmanager
def _quiet_stop() -> Iterator[None]:
    """uvicorn stops gracefully on SIGTERM/SIGINT, then raises the signal again for the
    handler it found; a no-op one lets serve() return and close the store."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signals = (signal.SIGTERM, signal.SIGINT)
    previous = {s: signal.signal(s, lambda *_: None) for s in signals}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def run(app: ASGIApp, *, host: str, port: int) -> None:
    """Serve until SIGTERM or SIGINT; returns once the server has shut down."""
    # A client's open event stream would hold a graceful shutdown forever.
    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=5)
    with _quiet_stop():
        uvicorn.Server(config).run()

"""The MCP server: memvault's verbs as tools for any MCP client (docs/mcp.md).

On stdio the scope (tenant, user, optional agent/session) is fixed when the server starts
and no tool takes one, so a client can never name another user's memory. Over streamable
HTTP every request must carry a REST API key, which names the tenant and, for a bound
key, the user (`?user=` otherwise); `--no-auth` keeps the fixed scope, on loopback only.

    memvault --db memory.db --tenant acme --user alice mcp                    # stdio
    memvault --db memory.db mcp --transport http                              # /mcp, keys
    memvault --db memory.db --tenant acme --user alice mcp --transport http --no-auth
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .. import validate as v
from ..errors import ValidationError
from ..model import Scope
from ..vault import Vault
from . import http, stdio
from .http import http_app
from .tools import PROFILE_URI, SCOPE_URI, build_server

__all__ = ["LOOPBACK", "PROFILE_URI", "SCOPE_URI", "build_server", "http_app", "serve",
           "server_scope"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def server_scope(scope: Scope | dict[str, str]) -> Scope:
    """The server's fixed scope: the given fields, with agent and session also read from
    MEMVAULT_AGENT / MEMVAULT_SESSION (MCP clients configure servers through env)."""
    given = scope.as_dict() if isinstance(scope, Scope) else dict(scope)
    for field, env in (("agent", "MEMVAULT_AGENT"), ("session", "MEMVAULT_SESSION")):
        if not given.get(field) and os.environ.get(env):
            given[field] = os.environ[env]
    if given.get("user"):
        v.personal_user(given["user"])  # a team is no MCP server's user (docs/teams.md)
    return v.scope({k: val for k, val in given.items() if val})


def serve(vault: Vault | Callable[[], Vault], scope: Scope | dict[str, str] | None, *,
          transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765,
          path: str = "/mcp", auth: bool = True) -> None:
    """Run until the client disconnects (stdio: EOF) or the process is stopped (http:
    SIGTERM or SIGINT); a vault made here from a factory is closed on the way out.
    `vault` may be a factory, called only once the options are known to be good.
    `scope` is the fixed scope of stdio and of HTTP with auth=False; HTTP with keys
    ignores it."""
    if transport not in ("stdio", "http"):
        raise ValidationError(f"transport: expected 'stdio' or 'http', not {transport!r}")
    if transport == "http":
        v.port(port)
        v.host(host)
        if not auth and host not in LOOPBACK:
            raise ValidationError(
                f"host: refusing to serve {host} with --no-auth: anyone who reaches the "
                "port could read and change the memory. Without keys, bind a loopback "
                f"address ({', '.join(LOOPBACK)}); elsewhere, drop --no-auth and give "
                "clients API keys.")
    if transport == "stdio" or not auth:
        if scope is None:
            raise ValidationError("scope: a server without API keys needs --tenant and "
                                  "--user")
        scope = v.scope(scope)
    owned = not isinstance(vault, Vault)
    vault_ = vault() if owned else vault  # type: ignore[operator]
    try:
        _serve(vault_, scope, transport=transport, host=host, port=port, path=path,
               auth=auth)
    finally:
        if owned:
            vault_.close()  # folds SQLite's write-ahead log into the .db file


def _serve(vault: Vault, scope: Any, *, transport: str, host: str, port: int,
           path: str, auth: bool) -> None:
    # What an MCP client writes, its revisions say an agent wrote (not the local admin).
    vault.actor_role = "agent"
    if transport == "stdio":
        stdio.run(build_server(vault, scope))
        return
    if auth and vault.store.count_api_keys() == 0:
        raise ValidationError(
            "no API keys in this store, so no MCP client could authenticate. Create "
            "one (`memvault keys create --tenant T --role service` on this store, or "
            "`memvault --tenant T serve`, which prints an admin key on a store without "
            "keys), or serve a loopback address with --no-auth.")
    http.run(http_app(vault, path=path, host=host, keys=auth, scope=scope), host=host,
             port=port)

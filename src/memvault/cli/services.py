"""Commands that run the vault for others: demo, MCP server, REST server."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import MemvaultError, ValidationError
from ..vault import default_db_path
from .render import err, story_console
from .session import Ctx, fail, run_verb


def demo(ctx: typer.Context) -> None:
    """Walk through the stale-preference story: CSV→XLSX, email→SMS, history, rollback."""
    from ..demo import run_demo

    c: Ctx = ctx.obj
    try:
        run_demo(c.db if c.db != str(default_db_path()) else None, embedder=c.embedder,
                 console=story_console())
    except MemvaultError as e:
        fail(e, c)


def mcp(ctx: typer.Context,
        transport: Annotated[str, typer.Option(
            help="stdio, or http (streamable HTTP at /mcp).")] = "stdio",
        host: Annotated[str, typer.Option(help="http: address to bind.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="http: port.")] = 8765,
        no_auth: Annotated[bool, typer.Option(
            "--no-auth", help="http: serve the --tenant/--user scope without API keys "
            "(loopback addresses only).")] = False) -> None:
    """Serve the verbs to MCP clients (docs/mcp.md): on stdio in the one scope given by
    --tenant/--user; over http to clients with REST API keys (Authorization: Bearer), the
    key naming the scope."""
    from ..mcpserver import serve, server_scope  # the MCP SDK loads only for this command

    def go(c: Ctx) -> None:
        keyed = transport == "http" and not no_auth
        if keyed and (c.tenant or c.user):
            err.print("note: over http the API key names the tenant and user; "
                      "--tenant/--user are not used", highlight=False)
        # Checked before the store is opened.
        scope = None if keyed else server_scope(c.scope())
        if c.actor == "cli":  # the global default; revisions should say who wrote
            c.actor = "mcp"
        serve(c.vault, scope, transport=transport, host=host, port=port, auth=not no_auth)
    run_verb(ctx, go)


def serve_rest(ctx: typer.Context,
               host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
               port: Annotated[int, typer.Option(help="Port.")] = 8765,
               sweep_interval: Annotated[float, typer.Option(
                   help="Seconds between TTL sweeps; 0 disables the timer.")] = 60.0,
               max_body: Annotated[int, typer.Option(
                   help="Largest request body in bytes (413 above).")] = 1024 * 1024,
               no_worker: Annotated[bool, typer.Option(
                   "--no-worker", help="Queue async writes but do not run them here.")
                   ] = False,
               tenant: Annotated[str | None, typer.Option(
                   "--tenant", show_default=False,
                   help="Tenant of the first admin key, made only on a store without "
                   "keys (the same as the global --tenant).")] = None,
               read_db: Annotated[str | None, typer.Option(
                   "--read-db", show_default=False,
                   help="postgresql:// URI of a read replica of --db: recall, context and "
                   "list read there, a caller's own writes stay visible (the same as the "
                   "global --read-db; env MEMVAULT_READ_DB).")] = None,
               workers: Annotated[int, typer.Option(
                   help="Server processes on the port, each with its own store "
                   "connections and embedder (one uses one core; see docs/server.md).")
                   ] = 1,
               metrics_token: Annotated[str | None, typer.Option(
                   envvar="MEMVAULT_METRICS_TOKEN", show_default=False,
                   help="Require this bearer token on GET /metrics (prefer the env "
                   "var: a command line is visible to other users).")] = None,
               no_webhooks: Annotated[bool, typer.Option(
                   "--no-webhooks", help="Do not deliver webhooks from this server.")
                   ] = False,
               webhook_attempts: Annotated[int, typer.Option(
                   help="Attempts before a webhook delivery is a dead letter.")] = 8,
               webhook_backoff_ms: Annotated[int, typer.Option(
                   help="Wait before the first retry; doubled after each failure.")
                   ] = 1000,
               webhook_timeout: Annotated[float, typer.Option(
                   help="Seconds a webhook receiver has to answer.")] = 10.0) -> None:
    """The REST API on the store (--db); OpenAPI docs at /docs (docs/server.md). On a
    store without API keys, creates an admin key for --tenant (default: "default") and
    prints it once; on a store with keys it makes none (`memvault keys create` does)."""
    from ..server import Settings, serve  # FastAPI and uvicorn load only for this command
    from ..webhooks import Policy

    def go(c: Ctx) -> None:
        policy = Policy(max_attempts=webhook_attempts, backoff_ms=webhook_backoff_ms,
                        timeout=webhook_timeout)  # checked before the store is opened
        if tenant is not None and c.tenant and tenant != c.tenant:
            raise ValidationError(f"tenant: the global --tenant {c.tenant!r} and serve's "
                                  f"--tenant {tenant!r} differ; give one")
        if read_db is not None and c.read_db and read_db != c.read_db:
            raise ValidationError("read_db: the global --read-db (or MEMVAULT_READ_DB) and "
                                  "serve's --read-db differ; give one")
        serve(c.db, host=host, port=port, embedder=c.embedder, config=c.config,
              read_db=read_db or c.read_db,
              bootstrap_tenant=tenant or c.tenant or "default",
              settings=Settings(max_body_bytes=max_body, sweep_interval=sweep_interval,
                                worker=not no_worker, metrics_token=metrics_token or None,
                                webhooks=not no_webhooks, webhook_policy=policy),
              workers=workers)
    run_verb(ctx, go)

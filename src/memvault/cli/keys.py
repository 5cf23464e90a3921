"""The `keys` group: API keys of the REST and MCP-over-HTTP servers, made, listed and
revoked on the store itself. Local access to the store file (or the database) is the
authority, so this is also how an admin key is replaced when the first one is lost. The
rules are memvault.apikeys, the same the REST routes under /v1/keys use."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from .. import apikeys
from ..errors import ValidationError
from ..timeutil import iso, now_ms
from .render import out
from .session import Ctx, emit, run_verb

keys_app = typer.Typer(help="API keys for the REST and MCP servers: create, list, revoke.",
                       no_args_is_help=True)

TenantOpt = Annotated[str | None, typer.Option(
    "--tenant", help="The key's tenant (default: the global --tenant / MEMVAULT_TENANT).",
    show_default=False)]


def _tenant(c: Ctx, tenant: str | None) -> str | None:
    return tenant if tenant is not None else c.tenant


def day(ms: int | None) -> str:
    """The table's dates (UTC); --json has the milliseconds."""
    return (iso(ms) or "")[:10]


def status(k: dict[str, Any]) -> str:
    if k["revoked_at"] is not None:
        return "revoked"
    if k["expires_at"] is not None and k["expires_at"] <= now_ms():
        return "expired"
    return "active"


@keys_app.command("create")
def keys_create(
        ctx: typer.Context,
        role: Annotated[str, typer.Option(
            help=f"One of {', '.join(apikeys.ROLES)} (docs/server.md, Roles).")],
        tenant: TenantOpt = None,
        user: Annotated[str | None, typer.Option(
            help="The user a user key (or a bound reader key) acts for.")] = None,
        expires: Annotated[str | None, typer.Option(
            help="When the key stops working: ISO-8601 or epoch milliseconds.")] = None,
        name: Annotated[str, typer.Option(help="A label for listings.")] = "",
        team: Annotated[str | None, typer.Option(
            help="Bind the key to this team (a project key: docs/teams.md).")] = None
        ) -> None:
    """Create a key and print it once (only its hash is stored), with its key id."""
    def go(c: Ctx) -> None:
        t = _tenant(c, tenant)
        if not t:
            raise ValidationError("tenant: required (--tenant T)")
        key, record = apikeys.new_key(c.vault(check_models=False).store, tenant=t,
                                      role=role, user=user, name=name, expires_at=expires,
                                      created_by=c.actor, team=team)
        bound = f", user {record['user']!r}" if record["user"] else ""
        bound += f", team {team!r}" if team else ""
        emit(c, {**apikeys.public(record), "key": key}, lambda: out.print(
            f"created key {record['key_id']} for tenant {t!r}, role {role}{bound} "
            f"(shown once; only its hash is stored):\n{key}", soft_wrap=True))
    run_verb(ctx, go)


@keys_app.command("list")
def keys_list(ctx: typer.Context, tenant: TenantOpt = None) -> None:
    """The keys of a tenant, or of every tenant; never their secrets."""
    def go(c: Ctx) -> None:
        keys = apikeys.list_keys(c.vault(check_models=False).store, _tenant(c, tenant))

        def human() -> None:
            t = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), header_style="bold")
            for col in ("key id", "tenant", "role", "user", "status", "created", "expires",
                        "name"):
                t.add_column(col, no_wrap=col != "name", overflow="fold")
            for k in keys:
                t.add_row(k["key_id"], k["tenant"], k["role"], k["user"] or "", status(k),
                          day(k["created_at"]), day(k["expires_at"]), k["name"])
            out.print(t)
        emit(c, [{**k, "status": status(k)} for k in keys], human)
    run_verb(ctx, go)


@keys_app.command("revoke")
def keys_revoke(ctx: typer.Context, key_id: str) -> None:
    """Revoke a key: every request with it gets 401 key_revoked from then on."""
    def go(c: Ctx) -> None:
        k = apikeys.revoke_key(c.vault(check_models=False).store, key_id)
        emit(c, {**k, "status": status(k)}, lambda: out.print(
            f"revoked key {k['key_id']} (tenant {k['tenant']!r}, role {k['role']})",
            soft_wrap=True))
    run_verb(ctx, go)

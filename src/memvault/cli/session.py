"""One invocation's context: the global options (Ctx), running a verb in it, and
printing its result or its error."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, NoReturn

import typer
from rich.markup import escape

from .. import validate as v
from ..errors import MemvaultError
from ..model import Memory, Scope
from ..teams import COMMAND_NEEDS
from ..vault import Vault, default_db_path
from .render import err, memory_table, out, show


@dataclass
class Ctx:
    db: str
    tenant: str | None
    user: str | None
    agent: str | None
    session: str | None
    embedder: str | None
    actor: str
    json: bool
    config: str | None = None
    team: str | None = None
    command: str | None = None  # the command invoked: what --team needs (teams.py)
    read_db: str | None = None  # a PostgreSQL read replica of db (store/replica.py)
    _vault: Vault | None = None

    def vault(self, *, check_models: bool = True) -> Vault:
        if self._vault is None:
            self._vault = Vault(self.db, embedder=self.embedder, actor=self.actor,
                                strategy=self.config, check_models=check_models,
                                read_db=self.read_db)
        return self._vault

    def scope(self) -> Scope | dict[str, Any]:
        if self.team is not None:
            # The team's shared scope; --user, when given, is the acting member, whose
            # team role must allow the command (docs/teams.md).
            return self.vault().team_scope(
                str(self.tenant or ""), self.team, member=self.user,
                need=COMMAND_NEEDS.get(self.command or "", "read"))
        if self.user:
            v.personal_user(self.user)  # a team's scope is reached with --team
        # validate.scope() turns a missing tenant/user into a typed ScopeError.
        return {k: val for k, val in (("tenant", self.tenant), ("user", self.user),
                                      ("agent", self.agent), ("session", self.session))
                if val}


def print_error(code: str, message: str, *, as_json: bool) -> None:
    """An error on stderr: with --json one JSON object {"code", "message"} on one line,
    else "error [code] message"."""
    if as_json:
        sys.stderr.write(json.dumps({"code": code, "message": message},
                                    ensure_ascii=False) + "\n")
        sys.stderr.flush()
    else:
        err.print(f"[bold red]error[/] {escape(f'[{code}]')} {escape(message)}",
                  highlight=False)


def fail(e: MemvaultError, c: Ctx | None = None) -> NoReturn:
    print_error(e.code, e.message, as_json=bool(c and c.json))
    raise typer.Exit(1)


def run_verb(ctx: typer.Context, fn: Callable[[Ctx], Any]) -> Any:
    c: Ctx = ctx.obj
    try:
        return fn(c)
    except MemvaultError as e:
        fail(e, c)


def emit(c: Ctx, data: Any, human: Callable[[], None]) -> None:
    if c.json:
        out.print_json(json.dumps(data, ensure_ascii=False, default=str))
    else:
        human()


def emit_memories(ctx: typer.Context, fn: Callable[[Ctx], list[Memory]]) -> None:
    """Run a verb that returns memories; print them as JSON or as a table."""
    def go(c: Ctx) -> None:
        mems = fn(c)
        emit(c, [m.to_dict() for m in mems], lambda: show(memory_table(mems)))
    run_verb(ctx, go)


def emit_mutation(ctx: typer.Context, fn: Callable[[Ctx], Memory]) -> None:
    def go(c: Ctx) -> None:
        m = fn(c)
        emit(c, m.to_dict(), lambda: out.print(
            f"{m.id} v{m.version} {m.status}{' frozen' if m.frozen else ''}"))
    run_verb(ctx, go)


def main_options(
    ctx: typer.Context,
    db: Annotated[str | None, typer.Option(help="SQLite file or postgresql:// DSN (default: "
                                           "a file in the user data dir; env MEMVAULT_DB).")
                  ] = None,
    read_db: Annotated[str | None, typer.Option(
        help="postgresql:// URI of a read replica (a streaming standby) of --db: recall, "
             "context and list read there (env MEMVAULT_READ_DB; docs/scaling.md).",
        envvar="MEMVAULT_READ_DB")] = None,
    tenant: Annotated[str | None, typer.Option(envvar="MEMVAULT_TENANT")] = None,
    user: Annotated[str | None, typer.Option(envvar="MEMVAULT_USER")] = None,
    agent: Annotated[str | None, typer.Option()] = None,
    session: Annotated[str | None, typer.Option()] = None,
    embedder: Annotated[str | None, typer.Option(
        help="Embedder spec, e.g. use-m3 or use-m3+e5-small (env MEMVAULT_EMBEDDER).")] = None,
    actor: Annotated[str, typer.Option(help="Principal recorded in revisions.",
                                       envvar="MEMVAULT_ACTOR")] = "cli",
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    config: Annotated[str | None, typer.Option(
        help="Strategy YAML (env MEMVAULT_CONFIG; default: built-in).")] = None,
    team: Annotated[str | None, typer.Option(
        help="Act in this team's shared scope (docs/teams.md); --user is the acting "
             "member, whose team role must allow the command.")] = None,
) -> None:
    # An empty --db is an error (open_store), not the default store.
    ctx.obj = Ctx(db=db if db is not None else str(default_db_path()), tenant=tenant,
                  user=user, agent=agent, session=session, embedder=embedder, actor=actor,
                  json=as_json, config=config, team=team,
                  command=ctx.invoked_subcommand, read_db=read_db)
    ctx.call_on_close(lambda: ctx.obj._vault.close() if ctx.obj._vault else None)

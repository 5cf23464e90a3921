"""The `team` group (docs/teams.md): shared scopes under the --tenant and their members.
A member acts in a team with the global `--team NAME` (and `--user` as the member) on the
ordinary commands. A thin adapter over Vault.create_team & co."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..errors import ValidationError
from ..teams import TEAM_ROLES
from .render import out
from .session import Ctx, emit, run_verb

team_app = typer.Typer(help="Teams: shared scopes whose memories members read beside "
                       "their own.", no_args_is_help=True)

Role = Annotated[str, typer.Option(help=f"One of {', '.join(TEAM_ROLES)}.")]


def _tenant(c: Ctx) -> str:
    if not c.tenant:
        raise ValidationError("tenant: required (--tenant T)")
    return c.tenant


def _rows(rows: list[dict[str, Any]], cols: tuple[str, ...]) -> Table:
    t = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), header_style="bold")
    for col in cols:
        t.add_column(col, overflow="fold")
    for r in rows:
        t.add_row(*(escape(str(r.get(col) or "")) for col in cols))
    return t


@team_app.command("create")
def team_create(ctx: typer.Context, name: str,
                description: Annotated[str | None, typer.Option()] = None) -> None:
    """A new team under the --tenant."""
    def go(c: Ctx) -> None:
        t = c.vault().create_team(_tenant(c), name, description=description)
        emit(c, t, lambda: out.print(f"team {escape(t['name'])} created"))
    run_verb(ctx, go)


@team_app.command("list")
def team_list(ctx: typer.Context) -> None:
    """The --tenant's teams (the --user's, with the role, when given)."""
    def go(c: Ctx) -> None:
        ts = c.vault().teams(_tenant(c), user=c.user)
        cols = ("name", "role", "description") if c.user else ("name", "description")
        emit(c, ts, lambda: out.print(_rows(ts, cols) if ts else "(no teams)"))
    run_verb(ctx, go)


@team_app.command("drop")
def team_drop(ctx: typer.Context, name: str) -> None:
    """Remove a team and its members (its memories stay, read by no one)."""
    def go(c: Ctx) -> None:
        t = c.vault().drop_team(_tenant(c), name)
        emit(c, t, lambda: out.print(f"team {escape(t['name'])} dropped"))
    run_verb(ctx, go)


@team_app.command("members")
def team_members(ctx: typer.Context, name: str) -> None:
    """A team's members and their roles."""
    def go(c: Ctx) -> None:
        ms = c.vault().team_members(_tenant(c), name)
        emit(c, ms, lambda: out.print(_rows(ms, ("user", "role", "added_by"))
                                      if ms else "(no members)"))
    run_verb(ctx, go)


@team_app.command("add")
def team_add(ctx: typer.Context, name: str, user: str, role: Role = "reader") -> None:
    """Add USER to the team (or change the member's role)."""
    def go(c: Ctx) -> None:
        m = c.vault().add_member(_tenant(c), name, user, role)
        emit(c, m, lambda: out.print(f"{escape(m['user'])} is {m['role']} of team "
                                     f"{escape(m['team'])}"))
    run_verb(ctx, go)


@team_app.command("remove")
def team_remove(ctx: typer.Context, name: str, user: str) -> None:
    """Remove USER from the team: their next read no longer includes it."""
    def go(c: Ctx) -> None:
        m = c.vault().remove_member(_tenant(c), name, user)
        emit(c, m, lambda: out.print(f"{escape(m['user'])} left team {escape(m['team'])}"))
    run_verb(ctx, go)

"""Verbs of the memory layers: recent turns, summaries, and the knowledge graph."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from ..timeutil import iso
from .options import ValidAt, ValidSince, ValidUntil
from .render import show, show_memory
from .session import Ctx, emit, emit_memories, run_verb


def recent(ctx: typer.Context,
           n: Annotated[int | None, typer.Option("--n", help="How many turns.")] = None,
           max_tokens: Annotated[int | None, typer.Option()] = None,
           exact: Annotated[bool, typer.Option(
               "--exact", help="Turns of exactly this scope: no --agent means the "
                               "agent-less conversation, not any agent's.")] = False) -> None:
    """The session's last turns, verbatim (short-term layer)."""
    emit_memories(ctx, lambda c: c.vault().recent(c.scope(), n=n, max_tokens=max_tokens,
                                                  exact=exact))


def summarize(ctx: typer.Context,
              due_only: Annotated[bool, typer.Option(
                  "--due-only", help="Only what the triggers call for.")] = False) -> None:
    """Summarise the session's (or every session's) uncovered turns."""
    emit_memories(ctx, lambda c: c.vault().summarize(c.scope(), force=not due_only))


def expand(ctx: typer.Context, summary_id: str) -> None:
    """The raw turns a summary covers."""
    emit_memories(ctx, lambda c: c.vault().expand(c.scope(), summary_id))


graph_app = typer.Typer(no_args_is_help=True, help="The knowledge graph: entities and "
                        "relations with validity (docs/layers.md).")


@graph_app.command("ingest")
def graph_ingest(ctx: typer.Context) -> None:
    """Read facts from memories not read yet."""
    emit_memories(ctx, lambda c: c.vault().graph_ingest(c.scope()))


def _facts_table(rows: list[dict[str, Any]]) -> Table:
    t = Table()
    for col in ("subject", "relation", "object", "valid_from", "valid_to"):
        t.add_column(col)
    for f in rows:
        t.add_row(str(f.get("subject", f.get("entity"))), str(f["relation"]),
                  str(f.get("object", f.get("direction"))), iso(f["valid_from"]) or "",
                  iso(f["valid_to"]) or "")
    return t


GraphAsOf = Annotated[str | None, typer.Option(
    "--as-of", help="System time: the graph as the store knew it then (ISO 8601).")]
GraphHistory = Annotated[bool, typer.Option("--history", help="Closed facts too.")]


@graph_app.command("entity")
def graph_entity(ctx: typer.Context, name: str) -> None:
    """The entity a name, alias or id resolves to."""
    def go(c: Ctx) -> None:
        m = c.vault().graph_entity(c.scope(), name)
        emit(c, m.to_dict(), lambda: show_memory(m))
    run_verb(ctx, go)


@graph_app.command("facts")
def graph_facts(ctx: typer.Context, entity: str, as_of: GraphAsOf = None,
                history: GraphHistory = False, valid_at: ValidAt = None,
                since: ValidSince = None, until: ValidUntil = None) -> None:
    """Facts about an entity that held at --valid-at or during --since/--until (default
    now)."""
    def go(c: Ctx) -> None:
        rows = c.vault().graph_facts(c.scope(), entity, as_of=as_of, history=history,
                                     valid_at=valid_at, valid_since=since, valid_until=until)
        emit(c, rows, lambda: show(_facts_table(rows)))
    run_verb(ctx, go)


@graph_app.command("neighbours")
def graph_neighbours(ctx: typer.Context, entity: str, as_of: GraphAsOf = None,
                     history: GraphHistory = False, valid_at: ValidAt = None,
                     since: ValidSince = None, until: ValidUntil = None) -> None:
    """Entities one relation away (times as in `graph facts`)."""
    def go(c: Ctx) -> None:
        rows = c.vault().graph_neighbours(c.scope(), entity, as_of=as_of, history=history,
                                          valid_at=valid_at, valid_since=since,
                                          valid_until=until)
        emit(c, rows, lambda: show(_facts_table(rows)))
    run_verb(ctx, go)

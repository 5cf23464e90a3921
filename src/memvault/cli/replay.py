"""`memvault replay`: the same queries against the store as of two times, or around one
revision, and which memory entered, left or moved and why (Vault.replay)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from .render import out, show
from .session import Ctx, emit, run_verb

_STYLE = {"entered": "green", "left": "red", "moved": "yellow"}


def _cause(c: dict[str, Any] | None, pushed: list[str] | None = None) -> str:
    if c is None:
        return f"pushed out by {', '.join(pushed)}" if pushed else ""
    why = f" ({c['reason']})" if c.get("reason") else ""
    return f"{c['op']} {c['op_id']} by {c['actor']}{why} at {c['at_iso']}"


def query_table(q: dict[str, Any]) -> Table:
    t = Table(title=Text(f"query: {q['query']}"), title_justify="left", box=None,
              pad_edge=False, padding=(0, 2, 0, 0), header_style="bold")
    for col in ("change", "rank", "memory", "content", "caused by"):
        t.add_column(col, overflow="fold")
    for kind in ("entered", "left", "moved"):
        for x in q[kind]:
            rank = (f"{x['from']}→{x['to']}" if kind == "moved" else
                    f"→{x['rank']}" if kind == "entered" else f"{x['rank']}→")
            t.add_row(Text(kind, style=_STYLE[kind]), rank, x["memory_id"],
                      Text(" ".join(x["content"].split())),
                      Text(_cause(x["cause"], x.get("pushed_out_by"))))
    if not (q["entered"] or q["left"] or q["moved"]):
        t.add_row("unchanged", "", "", "", "")
    return t


def replay(ctx: typer.Context,
           query: Annotated[list[str] | None, typer.Option(
               "--query", "-q", help="A query to replay (repeatable). Default: the "
               "scope's most recent stored queries (--traces).")] = None,
           traces: Annotated[int | None, typer.Option(
               help="Take this many recent distinct queries from the scope's traces "
               "(default 20 when no --query).")] = None,
           from_: Annotated[str | None, typer.Option(
               "--from", help="Earlier system time (ISO-8601 or epoch ms).")] = None,
           to: Annotated[str | None, typer.Option(
               help="Later system time (default: now).")] = None,
           around: Annotated[str | None, typer.Option(
               help="A revision: its op id or MEMORY_ID@VERSION; replays just before and "
               "just after it (instead of --from/--to).")] = None,
           top_k: Annotated[int | None, typer.Option(help="Depth compared per query.")
                            ] = None) -> None:
    """What a change did to each query's results: memories that entered, left or moved,
    and the revision (op id, actor, reason) that caused it. Read-only."""
    def go(c: Ctx) -> None:
        res = c.vault().replay(c.scope(), query, from_time=from_, to_time=to,
                               around=around, traces=traces, top_k=top_k)

        def human() -> None:
            out.print(f"replay {res['from_iso']} → {res['to_iso']}, top {res['top_k']}, "
                      f"{len(res['revisions'])} revision(s) between")
            show(*(query_table(q) for q in res["queries"]))
        emit(c, res, human)
    run_verb(ctx, go)

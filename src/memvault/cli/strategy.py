"""The `config` group: the strategy in force, a file checked, the strategies the store
has served with (history, show HASH), and a shadow run of a candidate over recent traces.
Thin adapters over load_strategy and Vault.strategy_history / strategy_version /
shadow_run (docs/retrieval.md, "Strategy versions")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.markup import escape
from rich.table import Table

from ..errors import ValidationError
from ..timeutil import iso
from .render import out, short
from .session import Ctx, emit, run_verb

config_app = typer.Typer(help="The strategy: the one in force, a file checked, the ones "
                         "the store served with, a shadow run.", no_args_is_help=True)


@config_app.command("show")
def config_show(ctx: typer.Context, hash_: Annotated[str | None, typer.Argument(
        metavar="[HASH]", help="A strategy the store served with (a trace's strategy_hash, "
        "`config history`); default: the one in force.", show_default=False)] = None
                ) -> None:
    """Print the strategy in force (YAML) and its hash, or the one with HASH."""
    from ..config import load_strategy

    def go(c: Ctx) -> None:
        if hash_ is not None:
            row = c.vault().strategy_version(hash_)
            used = f"first used {iso(row['first_used_at'])}, last {iso(row['last_used_at'])}"
            emit(c, row, lambda: out.print(
                f"# strategy hash {row['hash']} ({used})\n"
                + yaml.safe_dump(row["strategy"], sort_keys=False, allow_unicode=True),
                highlight=False, markup=False))
            return
        s = load_strategy(c.config)
        emit(c, {"hash": s.hash, "strategy": s.model_dump(mode="json")},
             lambda: out.print(f"# strategy hash {s.hash}\n{s.to_yaml()}", highlight=False,
                               markup=False))
    run_verb(ctx, go)


@config_app.command("check")
def config_check(ctx: typer.Context, path: Path) -> None:
    """Validate a strategy file; exit non-zero with the problems if it is invalid."""
    from ..config import load_strategy

    def go(c: Ctx) -> None:
        s = load_strategy(path)
        emit(c, {"ok": True, "hash": s.hash}, lambda: out.print(f"ok: {path} (hash {s.hash})"))
    run_verb(ctx, go)


@config_app.command("history")
def config_history(ctx: typer.Context) -> None:
    """Every strategy the store has served with, first used first (* the one in force)."""
    def go(c: Ctx) -> None:
        rows = c.vault().strategy_history()

        def human() -> None:
            t = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), header_style="bold")
            for col in ("", "hash", "name", "first used", "last used"):
                t.add_column(col)
            for r in rows:
                t.add_row("*" if r["current"] else "", r["hash"], escape(r["name"]),
                          (iso(r["first_used_at"]) or "")[:19],
                          (iso(r["last_used_at"]) or "")[:19])
            out.print(t)
        emit(c, rows, human)
    run_verb(ctx, go)


def _shadow_lines(report: dict[str, Any]) -> list[str]:
    lines = []
    for q in report["queries"]:
        if "error" in q:
            lines.append(f"! {short(q['query'])}  ({q['error']})")
            continue
        if not q["changed"]:
            continue
        lines.append(f"? {short(q['query'])}  (overlap {q['overlap']:.2f}, {q['trace_id']})")
        lines += [f"  + #{e['rank']} {e['id']}  {short(e['content'], 60)}" for e in q["entered"]]
        lines += [f"  - #{e['rank']} {e['id']}  {short(e['content'], 60)}" for e in q["left"]]
        lines += [f"  ~ #{e['from']}→#{e['to']} {e['id']}  {short(e['content'], 60)}"
                  for e in q["moved"]]
    s = report["summary"]
    mean = "–" if s["mean_overlap"] is None else f"{s['mean_overlap']:.2f}"
    head = (f"candidate {report['candidate_hash']} vs current {report['current_hash']}"
            + (" (identical)" if report["identical"] else ""))
    verdict = ("no change" if s["changed"] == 0 else f"{s['changed']} changed")
    return [head, *lines, f"{verdict}: {s['queries']} queries replayed from {s['traces']} "
            f"traces, {s['unchanged']} unchanged, {s['errors']} errors, mean overlap {mean}"]


@config_app.command("shadow")
def config_shadow(
        ctx: typer.Context,
        candidate: Annotated[Path, typer.Argument(help="The candidate strategy (YAML).")],
        traces: Annotated[int, typer.Option("--traces", help="How many of the most recent "
                                            "traces to replay.")] = 20,
        top_k: Annotated[int | None, typer.Option(
            "--top-k", help="Compare this many (default: each strategy's own top_k).",
            show_default=False)] = None,
        tenant: Annotated[str | None, typer.Option(
            "--tenant", help="Default: the global --tenant.", show_default=False)] = None,
        user: Annotated[str | None, typer.Option(
            "--user", help="One user's traces (default: the global --user, else every "
            "user of the tenant).", show_default=False)] = None) -> None:
    """Replay the queries of recent traces under CANDIDATE and under the strategy in
    force, writing nothing: which memories would enter, leave or move in the top k."""
    def go(c: Ctx) -> None:
        t = tenant or c.tenant
        if not t:
            raise ValidationError("tenant: required (--tenant T)")
        report = c.vault().shadow_run(t, candidate, user=user or c.user, traces=traces,
                                      top_k=top_k)
        emit(c, report, lambda: out.print(escape("\n".join(_shadow_lines(report))),
                                          soft_wrap=True, highlight=False))
    run_verb(ctx, go)

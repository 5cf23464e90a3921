"""The `config` group: show the strategy in force, or check a strategy file."""

from __future__ import annotations

from pathlib import Path

import typer

from .render import out
from .session import Ctx, emit, run_verb

config_app = typer.Typer(help="The strategy: show the one in force, or check a file.",
                         no_args_is_help=True)


@config_app.command("show")
def config_show(ctx: typer.Context) -> None:
    """Print the strategy in force (YAML) and its hash."""
    from ..config import load_strategy

    def go(c: Ctx) -> None:
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

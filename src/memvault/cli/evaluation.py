"""The `eval` group: retrieval benchmarks; the logic lives in memvault.eval."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..errors import ValidationError
from ..eval.datasets import Lang, Split
from .render import err, progress_bar, show
from .session import Ctx, emit, fail, run_verb

eval_app = typer.Typer(no_args_is_help=True, help="Retrieval evaluation on LoCoMo, "
                       "MADial-Bench or your own cases, in a fresh temporary store "
                       "(docs/evaluation.md).")

EvalData = Annotated[Path | None, typer.Option(
    "--data", help="Datasets folder (holding locomo/ and madial-bench/), or the dataset's "
    "own folder or file. Default: ../shared/datasets relative to the current directory, "
    "if it exists.")]
EvalSplit = Annotated[Split, typer.Option(help="Queries to run: tune (LoCoMo conversations "
                                          "1-5, MADial even dialogues), holdout, or all "
                                          "(reports tune, holdout and all).")]
EvalOut = Annotated[Path, typer.Option("--out", help="Folder for the snapshot JSON and the "
                                       "score histogram PNG.")]


def _eval_run(ctx: typer.Context, name: str, data: Path | None, lang: str | None,
              split: Split, out_dir: Path) -> None:
    from ..eval import report, runner

    def go(c: Ctx) -> None:
        report.ready_out_dir(out_dir)
        with progress_bar() as p:
            tasks: dict[str, Any] = {}

            def step(phase: str, done: int, total: int) -> None:
                if phase not in tasks:
                    tasks[phase] = p.add_task(phase, total=total)
                p.update(tasks[phase], completed=done)
            # The strategy in force (--config / MEMVAULT_CONFIG), as for every other verb.
            run = runner.evaluate(name, data, lang=lang, split=split, embedder=c.embedder,
                                  vault_kwargs={"strategy": c.config}, progress=step)
        snap = report.build_snapshot(run)
        path, png = report.write_snapshot(snap, out_dir)
        emit(c, snap, lambda: show(*report.metrics_tables(snap)))
        err.print(escape(f"snapshot {path}" + (f", histogram {png}" if png else
                                               f" ({snap['score_distribution']['note']})")))
    run_verb(ctx, go)


@eval_app.command("locomo")
def eval_locomo(ctx: typer.Context, data: EvalData = None, split: EvalSplit = Split.ALL,
                out_dir: EvalOut = Path("eval-results"),
                mode: Annotated[str, typer.Option(
                    help="recall: rank turns (metrics per category); layered: evidence in "
                    "the context section, turn-only vs layered memory at one budget "
                    "(docs/evaluation.md).")] = "recall",
                budget: Annotated[int, typer.Option(help="layered: context budget in "
                                                    "tokens.")] = 800,
                conversations: Annotated[int | None, typer.Option(
                    help="layered: only the first N conversations.")] = None) -> None:
    """LoCoMo: a memory per turn, a user per conversation; metrics per category."""
    if mode == "layered":
        _eval_layered(ctx, data, split, out_dir, budget, conversations)
    elif mode == "recall":
        _eval_run(ctx, "locomo", data, None, split, out_dir)
    else:
        fail(ValidationError(f"--mode: expected recall or layered, got {mode!r}"), ctx.obj)


def _eval_layered(ctx: typer.Context, data: Path | None, split: Split, out_dir: Path,
                  budget: int, conversations: int | None) -> None:
    from ..eval import layered, report
    from ..eval.datasets import load_dataset

    def go(c: Ctx) -> None:
        report.ready_out_dir(out_dir)
        ds = load_dataset("locomo", data).select(split)
        with progress_bar() as p:
            tasks: dict[str, Any] = {}

            def step(phase: str, done: int, total: int) -> None:
                if phase not in tasks:
                    tasks[phase] = p.add_task(phase, total=total)
                p.update(tasks[phase], completed=done)
            res = layered.run_context_eval(ds, budget=budget, groups=conversations,
                                           embedder=c.embedder,
                                           vault_kwargs={"strategy": c.config},
                                           progress=step)
        res["split"] = split.value
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"locomo-layered-{split.value}-b{budget}.json"
        path.write_text(json.dumps(res, indent=1, ensure_ascii=False), encoding="utf-8")

        def human() -> None:
            t = Table(title=f"LoCoMo evidence in context ({split.value}, budget {budget}, "
                      f"{len(res['conversations'])} conversations)")
            for col in layered.COLUMNS:
                t.add_column(col)
            for row in layered.rows(res):
                t.add_row(*row)
            show(t)
        emit(c, res, human)
        err.print(escape(f"snapshot {path}"))
    run_verb(ctx, go)


@eval_app.command("madial")
def eval_madial(ctx: typer.Context,
                lang: Annotated[Lang, typer.Option(help="Which half of MADial-Bench.")],
                data: EvalData = None, split: EvalSplit = Split.ALL,
                out_dir: EvalOut = Path("eval-results")) -> None:
    """MADial-Bench: a memory per event, a user per user-id, the dialogue as query."""
    _eval_run(ctx, "madial", data, lang.value, split, out_dir)


@eval_app.command("cases")
def eval_cases(ctx: typer.Context,
               file: Annotated[Path, typer.Argument(help="Cases, JSONL or YAML (.yaml/.yml).")],
               live: Annotated[bool, typer.Option(
                   "--live", help="Ask the store's scope (--tenant/--user) as it is, "
                   "read-only: no history in the cases, nothing written, no traces.")
                               ] = False,
               out_dir: EvalOut = Path("eval-results")) -> None:
    """Your own cases: recall@k, precision@k, MRR, nDCG, facts in the context and
    must-not-appear violations; a snapshot `eval compare` diffs."""
    from ..eval import casefile, casereport, cases, report

    def go(c: Ctx) -> None:
        loaded = casefile.load_cases(file, live=live)
        report.ready_out_dir(out_dir)
        with progress_bar() as p:
            task = p.add_task("cases", total=len(loaded))

            def step(done: int, total: int) -> None:
                p.update(task, completed=done)
            if live:
                run = cases.run_live(c.vault(), c.scope(), loaded, source=str(file),
                                     progress=step)
            else:
                run = cases.run_cases(loaded, source=str(file), embedder=c.embedder,
                                      vault_kwargs={"strategy": c.config}, progress=step)
        snap = casereport.build_case_snapshot(run)
        files = casereport.write_case_report(snap, out_dir)
        emit(c, snap, lambda: show(*casereport.case_tables(snap)))
        err.print(escape(f"snapshot {files['json']}, report {files['html']}"
                         + (f", histogram {files['png']}" if files["png"] else "")))
    run_verb(ctx, go)


@eval_app.command("shapes")
def eval_shapes(ctx: typer.Context,
                data: Annotated[Path | None, typer.Option(
                    "--data", help="The set's file or folder. Default: "
                    "benchmarks/shapes/shapes.jsonl relative to the current directory.")]
                = None,
                split: EvalSplit = Split.ALL,
                out_dir: EvalOut = Path("eval-results")) -> None:
    """memvault's own set: independent statements, sessions that cross midnight, informative
    turns that end with a question (English and Chinese)."""
    _eval_run(ctx, "shapes", data, None, split, out_dir)


@eval_app.command("compare")
def eval_compare(ctx: typer.Context, a: Path, b: Path) -> None:
    """Metric differences B − A of two snapshots, per split and category (and, for case
    snapshots, per case: expected memories moved, violations, facts)."""
    from ..eval import casediff, report

    def go(c: Ctx) -> None:
        cmp = report.compare(report.load_snapshot(a), report.load_snapshot(b))

        def human() -> None:
            for w in cmp["warnings"]:
                err.print(f"note: {escape(w)}")
            show(*report.compare_tables(cmp, str(a), str(b)))
            if "cases" in cmp:
                show(casediff.case_change_table(cmp["cases"]))
        emit(c, cmp, human)
    run_verb(ctx, go)

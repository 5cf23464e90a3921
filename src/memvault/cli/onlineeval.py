"""`memvault eval online`, `eval answer`, `eval sample` (docs/evaluation.md, "Online
evaluation"): judge the answered samples now, print the rates over time windows, report an
answer for a context build, show one sample. Thin adapters over the Vault's verbs."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..errors import ValidationError
from ..timeutil import iso
from .render import out, show
from .session import Ctx, emit, run_verb

FIGURES = (("judged", "judged"), ("failed", "failed"), ("pending", "pending"),
           ("memories", "memories"), ("use rate", "memory_use_rate"),
           ("contamination", "contamination_rate"),
           ("answers using memory", "answers_using_memory"),
           ("prompt tok", "prompt_tokens"), ("completion tok", "completion_tokens"),
           ("latency mean ms", "latency_ms_mean"), ("latency p95 ms", "latency_ms_p95"))


def _cell(value: Any) -> str:
    return "–" if value is None else str(value)


def report_table(rep: dict[str, Any]) -> Table:
    t = Table(title=f"online evaluation of {escape(rep['tenant'])} "
              f"({'on' if rep['enabled'] else 'off'}, sample {rep['sample']}, "
              f"judge {escape(rep['judge'])})")
    t.add_column("window")
    for name, _ in FIGURES:
        t.add_column(name, justify="right")
    for w in rep["windows"]:
        t.add_row(f"{(iso(w['from']) or '')[:16]} …", *(_cell(w[k]) for _, k in FIGURES))
    t.add_row("total", *(_cell(rep["total"][k]) for _, k in FIGURES), style="bold")
    return t


def eval_online(ctx: typer.Context,
                run: Annotated[bool, typer.Option(
                    "--run", help="Judge the answered samples now (every tenant's), with "
                    "the strategy's judge; the server's sweep timer does this on its own.")
                               ] = False,
                report: Annotated[bool, typer.Option(
                    "--report", help="Print the --tenant's rates (the default).")] = False,
                since: Annotated[str, typer.Option(help="Report the last … (1h, 1d, 7d).")
                                 ] = "7d",
                window: Annotated[str, typer.Option(help="One report row per … .")] = "1d",
                limit: Annotated[int | None, typer.Option(
                    help="--run: judge at most this many (default: the strategy's batch).")
                                 ] = None) -> None:
    """Online evaluation: the LLM judge's memory-use and contamination rates of sampled
    context builds (strategy `online_eval`, off by default)."""
    def go(c: Ctx) -> None:
        vault = c.vault()
        result: dict[str, Any] = {}
        if run:
            result["run"] = vault.judge_online(limit=limit).to_dict()
        if report or not run:
            if not c.tenant:
                raise ValidationError("tenant: required for the report (--tenant T)")
            result["report"] = vault.online_eval_report(c.tenant, since=since, window=window)

        def human() -> None:
            if "run" in result:
                r = result["run"]
                out.print(f"judged {r['judged']}, failed {r['failed']}, deferred "
                          f"{r['deferred']}, dropped {r['dropped']}", highlight=False)
                for e in r["errors"]:
                    out.print(f"  {e['trace_id']}: {e['code']}: {e['message']}",
                              markup=False, highlight=False)
            if "report" in result:
                show(report_table(result["report"]))
        emit(c, result, human)
    run_verb(ctx, go)


def eval_answer(ctx: typer.Context, trace_id: str, answer: str) -> None:
    """Report the answer the application produced with context build TRACE_ID (kept for
    the judge if that build was sampled)."""
    def go(c: Ctx) -> None:
        r = c.vault().record_answer(c.scope(), trace_id, answer)
        emit(c, r, lambda: out.print(
            f"{trace_id}: " + ("sampled, the answer waits for the judge" if r["sampled"]
                               else "not sampled, nothing stored"),
            markup=False, highlight=False))
    run_verb(ctx, go)


def eval_sample(ctx: typer.Context, trace_id: str) -> None:
    """One online-evaluation sample: question, injected memories with their verdicts,
    answer, status, the judge's tokens and latency."""
    def go(c: Ctx) -> None:
        s = c.vault().online_eval_sample(c.scope(), trace_id)

        def human() -> None:
            out.print(f"{s['trace_id']}: {s['status']}"
                      + (f" by {s['judge']}, {s['prompt_tokens']}+{s['completion_tokens']} "
                         f"tokens, {s['latency_ms']} ms" if s["status"] == "judged" else "")
                      + (f" ({s['error']})" if s["error"] else ""),
                      markup=False, highlight=False)
            out.print(f"question: {s['question']}", markup=False, highlight=False)
            t = Table()
            for col in ("memory", "used", "wrong", "content"):
                t.add_column(col, overflow="fold")
            for m in s["memories"]:
                t.add_row(m["id"], _cell(m["used"]), _cell(m["wrong"]), escape(m["content"]))
            show(t)
            out.print(f"answer: {s['answer'] or '–'}", markup=False, highlight=False)
        emit(c, s, human)
    run_verb(ctx, go)

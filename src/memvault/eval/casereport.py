"""The snapshot of a case run (cases.py) and its tables.

A case snapshot is an eval snapshot (report.py: same format, `dataset: "cases"`), so
`memvault eval compare` diffs its metrics like a benchmark's; it adds per case the
ranking it got, the facts found and the must-not-appear violations, which compare
diffs case by case (casediff.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from .. import __version__
from .casediff import CASE_METRICS
from .cases import TOP_SHOWN, CaseRun
from .htmlreport import case_html
from .metrics import Ranked, Scored, score_samples, summarise
from .report import histogram, write_snapshot


def _case_entry(r: Any) -> dict[str, Any]:
    found, missing = r.facts()
    m = r.metrics()
    return {
        "id": r.case.id, "line": r.case.line, "query": r.case.query, "k": r.case.k,
        "expected": sorted(r.gold), "must_not": list(r.case.must_not),
        "ranked": [{"item": i, "score": round(s, 6), "gold": i in r.gold,
                    "text": r.texts.get(i, "")}
                   for i, s in zip(r.ranked[:TOP_SHOWN], r.scores[:TOP_SHOWN], strict=True)],
        "gold_ranks": {g: (r.ranked.index(g) + 1 if g in r.ranked else None)
                       for g in sorted(r.gold)},
        "metrics": m, "in_context": r.in_context,
        "facts_found": found, "facts_missing": missing,
        "violations": r.violations(),
        **({"not_in_store": r.missing_expected} if r.missing_expected else {}),
    }


def build_case_snapshot(run: CaseRun) -> dict[str, Any]:
    entries = [_case_entry(r) for r in run.results]
    scored = [Scored("all", "", True, e["metrics"]) for e in entries if e["metrics"]]
    n_facts = sum(len(r.case.expected_facts) for r in run.results)
    n_found = sum(len(e["facts_found"]) for e in entries)
    samples = score_samples(Ranked(r.scores, [i in r.gold for i in r.ranked])
                            for r in run.results if r.gold)
    return {
        "format": "memvault-eval", "format_version": 1, "dataset": "cases", "lang": None,
        "data_path": run.source, "split": "live" if run.live else "all", "live": run.live,
        "scope": run.scope, "created_at": run.started_at, "memvault_version": __version__,
        "embedding_model": run.strategy.get("embedding_model"),
        "strategy": {k: v for k, v in run.strategy.items() if k != "strategy_hash"},
        "strategy_hash": run.strategy.get("strategy_hash"),
        "n_queries": len(entries), "n_docs": sum(len(r.case.items) for r in run.results),
        "queries_without_hits": sum(1 for r in run.results if not r.ranked),
        "wall_time_s": round(run.timings.get("wall_s", 0.0), 3),
        "timings": {k: round(v, 3) for k, v in run.timings.items()},
        "metrics": summarise(scored, ["all"], []) if scored else {},
        "facts": {"expected": n_facts, "found": n_found,
                  "rate": n_found / n_facts if n_facts else None},
        "violations": sum(len(e["violations"]) for e in entries),
        "cases_with_violations": [e["id"] for e in entries if e["violations"]],
        "cases": entries,
        "score_distribution": {
            "what": "fused recall score of the cases with expected memories. top1_hit/"
                    "top1_miss: top-1 score when it is / is not expected; gold_topk/"
                    "nongold_topk: scores of expected / other items in the top 10.",
            "png": None, **histogram(samples)},
    }


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}".removeprefix("0")


def case_tables(snap: dict[str, Any]) -> list[Table]:
    """Per case: its ranking figures, facts, violations; then each violation by name."""
    overall = snap["metrics"].get("all", {}).get("overall", {})
    facts = snap["facts"]
    head = (f"{snap['n_queries']} cases · {snap['embedding_model']} · strategy "
            f"{str(snap['strategy_hash'])[:12]} · facts found {facts['found']}/"
            f"{facts['expected']} · must-not-appear violations {snap['violations']}")
    t = Table(title=Text(head), title_justify="left", box=box.SIMPLE_HEAD)
    for col in ("case", "line", *CASE_METRICS, "facts", "violations"):
        t.add_column(col, justify="left" if col == "case" else "right")
    for e in snap["cases"]:
        m = e["metrics"] or {}
        n_facts = len(e["facts_found"]) + len(e["facts_missing"])
        t.add_row(Text(e["id"]), str(e["line"]), *(_f(m.get(k)) for k in CASE_METRICS),
                  f"{len(e['facts_found'])}/{n_facts}" if n_facts else "—",
                  Text(str(len(e["violations"])), style="bold red" if e["violations"]
                       else ""))
    if overall:
        t.add_section()
        t.add_row(Text("mean", style="bold"), "", *(_f(overall.get(k)) for k in CASE_METRICS),
                  "", "")
    tables = [t]
    if snap["violations"]:
        v = Table(title=Text("must-not-appear violations"), title_justify="left",
                  box=box.SIMPLE_HEAD)
        for col in ("case", "kind", "item", "where", "rank", "text"):
            v.add_column(col)
        for e in snap["cases"]:
            for x in e["violations"]:
                v.add_row(Text(e["id"]), x["kind"], Text(x["item"] or ""),
                          ", ".join(x["where"]), str(x["rank"] or "—"), Text(x["text"]))
        tables.append(v)
    return tables


def write_case_report(snap: dict[str, Any], out_dir: Path) -> dict[str, Path | None]:
    """The snapshot JSON, the histogram PNG (with matplotlib) and the HTML page (always,
    its plot inline) side by side in `out_dir`."""
    path, png = write_snapshot(snap, out_dir)
    html = path.with_suffix(".html")
    html.write_text(case_html(snap), encoding="utf-8")
    return {"json": path, "png": png, "html": html}

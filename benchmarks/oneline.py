"""One-line queries against MADial-Bench's memories, with and without coverage.

No dataset here pairs one-line Chinese queries with gold memories (LoCoMo is English;
MADial's queries are conversations). As a proxy, this keeps only the last user line of
each MADial query and ranks the same per-user memories with `weights.coverage` at 0 and
at the default, printing R@5 / R@10 / MRR per split.

Usage (from the project root)::

    python benchmarks/oneline.py [--data ../shared/datasets] [--lang zh en]
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from pathlib import Path

from rich.console import Console
from rich.table import Table

from memvault.config import Strategy
from memvault.eval.datasets import load_dataset
from memvault.eval.report import run_metrics
from memvault.eval.runner import run_eval

_TAG = re.compile(r"^<[^<>]*>:\s*")


def last_user_line(query: str) -> str:
    lines = [ln for ln in query.splitlines() if ln.strip() and not ln.startswith("<Assistant>")]
    return _TAG.sub("", lines[-1]).strip().strip('"') if lines else query


def strategy(coverage: float) -> Strategy:
    base = Strategy().model_dump()
    base["retrieval"]["weights"]["coverage"] = coverage
    return Strategy.model_validate(base)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/datasets"))
    ap.add_argument("--lang", nargs="+", default=["zh", "en"], choices=["zh", "en"])
    args = ap.parse_args()
    default = Strategy().retrieval.weights.coverage
    table = Table(title="MADial, last user line as the query: R@5 / R@10 / MRR")
    for col in ("lang", "coverage", "tune", "holdout", "all"):
        table.add_column(col)
    for lang in args.lang:
        ds = load_dataset("madial", args.data, lang)
        ds.queries[:] = [dataclasses.replace(q, text=last_user_line(q.text))
                         for q in ds.queries]
        for weight in (0.0, default):
            m = run_metrics(run_eval(ds, "all", vault_kwargs={"strategy": strategy(weight)}))
            table.add_row(lang, f"{weight:g}", *(
                "/".join(f"{m[s]['overall'][k]:.3f}" for k in ("R@5", "R@10", "MRR"))
                for s in ("tune", "holdout", "all")))
    Console().print(table)


if __name__ == "__main__":
    main()

"""Recall precision (issue 20): does a question on one topic get the memory about it first,
and does a question about something nothing stored is about get nothing?

Two strategies, the relevance floor off (`retrieval.floor.enabled: false`, what recall did
before) and the default, on:

- the precision set (benchmarks/data/precision.jsonl): small per-user memory sets in
  English and Chinese; an on-topic query names the memory that must come first (P@1),
  an off-topic one must get no hit (false-hit rate = share that got any). Split by set
  number: even = dev (the floor was tuned on it), odd = held-out.
- LoCoMo and MADial (zh, en) through the eval runner (src/memvault/eval), R@5 / R@10 /
  MRR per split, to show what the floor costs in recall.

Usage (from the project root)::

    python benchmarks/precision.py [--data ../shared/datasets] [--no-datasets]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from memvault import Vault
from memvault.config import Strategy
from memvault.eval.report import run_metrics
from memvault.eval.runner import evaluate

SET = Path(__file__).resolve().parent / "data" / "precision.jsonl"
DATASETS = (("locomo", None), ("madial", "zh"), ("madial", "en"))


def strategy(floor: bool) -> Strategy:
    base = Strategy().model_dump()
    if not floor:
        base["retrieval"]["floor"]["enabled"] = False
    return Strategy.model_validate(base)


STRATEGIES = {"floor off (before)": strategy(False), "default (after)": strategy(True)}


def load_set(path: Path = SET) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def split_of(memory_set: dict[str, Any]) -> str:
    """The fixed rule: the set's number (en07 -> 7), even = dev, odd = held-out."""
    return "dev" if int(memory_set["id"][2:]) % 2 == 0 else "held-out"


@dataclass
class Tally:
    on: int = 0
    first_right: int = 0
    off: int = 0
    false_hit: int = 0
    misses: list[str] = field(default_factory=list)  # query ids answered wrong


def run_set(sets: list[dict[str, Any]], strat: Strategy) -> dict[tuple[str, str], Tally]:
    """{(split, lang): Tally}; every set is one user of one fresh vault, recall at the
    strategy's own top_k and min_score (the defaults a caller gets)."""
    out: dict[tuple[str, str], Tally] = {}
    with tempfile.TemporaryDirectory(prefix="memvault-precision-") as tmp:
        vault = Vault(Path(tmp) / "p.db", strategy=strat, actor="bench")
        try:
            for s in sets:
                scope = {"tenant": "precision", "user": s["id"]}
                ids = {vault.remember(scope, m["content"], kind="fact").id: m["id"]
                       for m in s["memories"]}
                t = out.setdefault((split_of(s), s["lang"]), Tally())
                for q in s["queries"]:
                    hits = [ids[h.memory.id] for h in vault.recall(scope, q["text"])]
                    if q["expect"] is None:
                        t.off += 1
                        wrong = bool(hits)
                        t.false_hit += wrong
                    else:
                        t.on += 1
                        wrong = not hits or hits[0] != q["expect"]
                        t.first_right += not wrong
                    if wrong:
                        t.misses.append(q["id"])
        finally:
            vault.close()
    return out


def _merge(ts: list[Tally]) -> Tally:
    return Tally(sum(t.on for t in ts), sum(t.first_right for t in ts),
                 sum(t.off for t in ts), sum(t.false_hit for t in ts))


def precision_rows(found: dict[tuple[str, str], Tally]) -> list[tuple[str, str, Tally]]:
    rows = []
    for split in ("dev", "held-out", "all"):
        for lang in ("en", "zh", "both"):
            ts = [t for (sp, lg), t in found.items()
                  if split in (sp, "all") and lang in (lg, "both")]
            rows.append((split, lang, _merge(ts)))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/datasets"))
    ap.add_argument("--set", type=Path, default=SET)
    ap.add_argument("--no-datasets", action="store_true", help="the precision set only")
    ap.add_argument("--split", choices=["dev", "held-out", "all"], default="all",
                    help="print only this split of the precision set (tune on dev)")
    ap.add_argument("--misses", action="store_true", help="list the queries answered wrong")
    args = ap.parse_args()
    console = Console(width=200)
    sets = load_set(args.set)
    table = Table(title="Precision set: P@1 on on-topic queries, false-hit rate on "
                        "off-topic ones (recall at the default top_k)")
    for col in ("strategy", "split", "lang", "on-topic n", "P@1", "off-topic n",
                "false hits"):
        table.add_column(col)
    misses: dict[str, list[str]] = {}
    for name, strat in STRATEGIES.items():
        found = run_set(sets, strat)
        misses[name] = sorted(q for (sp, _), t in found.items()
                              if args.split in (sp, "all") for q in t.misses)
        for split, lang, t in precision_rows(found):
            if args.split not in (split, "all") or (args.split != "all" and split == "all"):
                continue
            table.add_row(name, split, lang, str(t.on), f"{t.first_right / t.on:.3f}",
                          str(t.off), f"{t.false_hit / t.off:.3f}")
    console.print(table)
    if args.misses:
        for name, qs in misses.items():
            console.print(f"{name}: wrong on {', '.join(qs) or 'none'}")
    if args.no_datasets:
        return
    rt = Table(title="Recall with the floor off and on: R@5 / R@10 / MRR (eval runner, "
                     "top_k 100)")
    for col in ("dataset", "strategy", "tune", "holdout", "all"):
        rt.add_column(col)
    for i, (name, lang) in enumerate(DATASETS):
        order = list(STRATEGIES.items())
        for label, strat in (order if i % 2 == 0 else order[::-1]):  # interleaved
            m = run_metrics(evaluate(name, args.data, lang=lang,
                                     vault_kwargs={"strategy": strat}))
            rt.add_row(f"{name} {lang or ''}".strip(), label, *(
                "/".join(f"{m[s]['overall'][k]:.3f}" for k in ("R@5", "R@10", "MRR"))
                for s in ("tune", "holdout", "all")))
    console.print(rt)


if __name__ == "__main__":
    main()

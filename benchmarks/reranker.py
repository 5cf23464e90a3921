"""Reranker off vs on: ranking quality and recall cost per query, interleaved in one run.

Each dataset (LoCoMo; MADial-Bench zh and en) is remembered once into a temporary Vault
as `memvault eval` does (docs/evaluation.md: one memory per doc, the group as user, the
clock at the midnight after the group's last memory). Every question is then asked
twice through `Vault.recall(top_k=100)`: with `reranker="none"` and with the reranker of
`--kind` (the strategy's `retrieval.reranker`, `--model`/`--top`/`--weight`), one right
after the other, in alternating order (even queries off first, odd queries on first), so
both see the same machine load and the same caches. The cost is the wall time of the
whole recall call, end to end (trace included).

Printed per dataset: R@5, R@10, MRR, P@5 (over the queries in the dataset's overall: all
but LoCoMo's adversarial category; the same definitions as `memvault eval`), and the
p50 / p95 recall cost in ms, for off and on. `--conversations N` indexes and asks only
the first N LoCoMo conversations.

Usage (from the project root)::

    python benchmarks/reranker.py [--data ../shared/datasets] [--sets locomo madial-zh
        madial-en] [--kind embedder] [--model e5-small] [--top 20] [--weight 0.5]
        [--conversations N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from memvault import Vault
from memvault.config import Strategy
from memvault.eval.datasets import Dataset, load_dataset
from memvault.eval.metrics import mean_metrics, query_metrics
from memvault.eval.runner import EvalClock, group_times
from memvault.ids import content_hash
from memvault.model import Scope, Source

SHOWN = ("R@5", "R@10", "MRR", "P@5")


def strategy(kind: str, model: str | None, top: int, weight: float) -> Strategy:
    base = Strategy().model_dump()
    base["retrieval"]["reranker"] = {"kind": kind, "model": model, "top": top,
                                     "weight": weight}
    return Strategy.model_validate(base)


def index(vault: Vault, ds: Dataset, tenant: str, clock: EvalClock,
          times: dict[str, int]) -> tuple[dict[str, str], dict[str, str]]:
    """(doc id -> the doc id that stands for it, memory id -> doc id). As the eval runner:
    identical texts of one session stand for each other (the first names them all)."""
    groups: dict[str, list[Any]] = defaultdict(list)
    for d in ds.docs:
        groups[d.group].append(d)
    canonical: dict[str, str] = {}
    doc_of: dict[str, str] = {}
    for group, docs in groups.items():
        clock.now = times[group]
        results = vault.remember_many(
            [{"scope": Scope(tenant, group, session=d.session), "content": d.content,
              "kind": d.kind, "source": Source.IMPORT.value, "source_ref": d.id,
              "valid_from": d.valid_from, "metadata": d.metadata} for d in docs],
            reason=f"bench {ds.name}")
        first: dict[tuple[str, str, str], str] = {}
        for d, r in zip(docs, results, strict=True):
            named = first.setdefault((d.session, d.kind, content_hash(d.content, None, None)),
                                     d.id)
            canonical[d.id] = doc_of.setdefault(r.id, named)
    return canonical, doc_of


def run(ds: Dataset, st: Strategy, kind: str) -> dict[str, Any]:
    tenant = f"bench-{ds.name}"
    times = group_times(ds.docs)
    clock = EvalClock(min(times.values()))
    rows: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
    cost: dict[str, list[float]] = {"off": [], "on": []}
    fallbacks = 0
    with tempfile.TemporaryDirectory(prefix="memvault-rerank-") as tmp:
        vault = Vault(Path(tmp) / "bench.db", actor="bench", clock=clock, strategy=st)
        try:
            t = time.perf_counter()
            canonical, doc_of = index(vault, ds, tenant, clock, times)
            index_s = time.perf_counter() - t
            for i, q in enumerate(ds.queries):
                clock.now = times[q.group]
                gold = frozenset(canonical[g] for g in q.gold)
                for arm in (("off", "on") if i % 2 == 0 else ("on", "off")):
                    t = time.perf_counter()
                    hits = vault.recall(Scope(tenant, q.group), q.text, top_k=100,
                                        reranker="none" if arm == "off" else kind)
                    cost[arm].append(1000 * (time.perf_counter() - t))
                    if arm == "on" and hits.trace_id:
                        fallbacks += bool((vault.trace(Scope(tenant, q.group), hits.trace_id)
                                           .get("rerank") or {}).get("fallback"))
                    ranked = list(dict.fromkeys(doc_of[h.memory.id] for h in hits))
                    if q.in_overall:
                        rows[arm].append(query_metrics(ranked, gold))
        finally:
            vault.close()
    out: dict[str, Any] = {"dataset": ds.name, "queries": len(ds.queries),
                           "docs": len(ds.docs), "index_s": index_s, "fallbacks": fallbacks}
    for arm in ("off", "on"):
        m = mean_metrics(rows[arm])
        lat = sorted(cost[arm])
        out[arm] = {**{k: m[k] for k in ("n", *SHOWN)},
                    "p50_ms": statistics.median(lat),
                    "p95_ms": lat[int(0.95 * (len(lat) - 1))]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/datasets"))
    ap.add_argument("--sets", nargs="+", default=["locomo", "madial-zh", "madial-en"],
                    choices=["locomo", "madial-zh", "madial-en"])
    ap.add_argument("--kind", default="embedder", choices=["embedder", "llm"])
    ap.add_argument("--model", default=None)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--weight", type=float, default=0.5)
    ap.add_argument("--conversations", type=int, default=None,
                    help="LoCoMo: only the first N conversations")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    st = strategy(args.kind, args.model, args.top, args.weight)
    started = datetime.now(UTC).isoformat(timespec="minutes").replace("+00:00", "Z")
    load0 = os.getloadavg()
    results = []
    for name in args.sets:
        lang = name.split("-")[1] if name.startswith("madial") else None
        ds = load_dataset(name.split("-")[0], args.data, lang)
        if name == "locomo" and args.conversations:
            keep = sorted({d.group for d in ds.docs})[:args.conversations]
            ds = Dataset(ds.name, ds.lang, ds.source,
                         [d for d in ds.docs if d.group in keep],
                         [q for q in ds.queries if q.group in keep], ds.categories)
        t = time.perf_counter()
        results.append(run(ds, st, args.kind))
        print(f"{name}: {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    rr = st.retrieval.reranker
    table = Table(title=f"reranker {rr.kind} (model {rr.model or 'default'}, top {rr.top}, "
                        f"weight {rr.weight}) vs off — {started}, load {load0[0]:.1f} → "
                        f"{load1[0]:.1f}, {os.cpu_count()} CPUs")
    for col in ("dataset", "queries", "arm", *SHOWN, "p50 ms", "p95 ms", "fallbacks"):
        table.add_column(col, justify="left" if col in ("dataset", "arm") else "right")
    for r in results:
        for arm in ("off", "on"):
            a = r[arm]
            table.add_row(r["dataset"], str(int(a["n"])), arm,
                          *(f"{a[k]:.3f}" for k in SHOWN), f"{a['p50_ms']:.1f}",
                          f"{a['p95_ms']:.1f}", str(r["fallbacks"]) if arm == "on" else "")
    Console(width=160).print(table)
    if args.json:
        args.json.write_text(json.dumps({"started": started, "load": [load0, load1],
                                         "strategy": rr.model_dump(), "results": results},
                                        indent=1))


if __name__ == "__main__":
    main()

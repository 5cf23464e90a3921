"""Snapshots of a run (JSON, plus a score histogram PNG), tables, and run-to-run compare.

A snapshot is everything needed to compare two runs later without re-running them:
dataset, split, strategy (and its hash), embedder, version, date, metrics per split and
category, timings and the score distribution of hits vs misses.
"""

from __future__ import annotations

import json
import math
import os
import statistics
from pathlib import Path
from typing import Any

import numpy as np
from rich import box
from rich.table import Table
from rich.text import Text

from .. import __version__
from ..errors import ValidationError
from .casediff import case_changes, diff_text
from .metrics import METRICS, OVERALL, Ranked, Scored, query_metrics, score_samples, summarise
from .runner import RunResult

SNAPSHOT_FORMAT = "memvault-eval"
SNAPSHOT_VERSION = 1
HIST_BINS = 20
SPLITS_OF_RUN = {"all": ["tune", "holdout", "all"], "tune": ["tune"], "holdout": ["holdout"]}


# --- building -----------------------------------------------------------------------------

def run_metrics(run: RunResult) -> dict[str, dict[str, dict[str, float]]]:
    scored = [Scored(r.query.split, r.query.category, r.query.in_overall,
                     query_metrics(r.ranked, r.gold)) for r in run.results]
    return summarise(scored, SPLITS_OF_RUN[run.split], run.dataset.categories)


def _stats(xs: list[float]) -> dict[str, float | int | None]:
    if not xs:
        return {"n": 0, "mean": None, "median": None, "p10": None, "p90": None}
    q = np.percentile(xs, [10, 90])
    return {"n": len(xs), "mean": statistics.fmean(xs), "median": statistics.median(xs),
            "p10": float(q[0]), "p90": float(q[1])}


def histogram(samples: dict[str, list[float]], bins: int = HIST_BINS) -> dict[str, Any]:
    """Shared bin edges over every sample, raw counts per sample, and summary stats."""
    every = [x for xs in samples.values() for x in xs]
    lo = min([0.0, *every])
    hi = max(every) if every else 1.0
    if hi - lo < 1e-9:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, bins + 1)
    return {"bin_edges": [round(float(e), 6) for e in edges],
            "counts": {k: np.histogram(xs, bins=edges)[0].astype(int).tolist()
                       for k, xs in samples.items()},
            "stats": {k: _stats(xs) for k, xs in samples.items()}}


def build_snapshot(run: RunResult) -> dict[str, Any]:
    # Score distributions over the queries that count in "overall" (LoCoMo adversarial
    # questions have no answer in the conversation; their scores would blur the picture).
    samples = score_samples(Ranked(r.scores, r.is_gold()) for r in run.results
                            if r.query.in_overall)
    ds = run.dataset
    return {
        "format": SNAPSHOT_FORMAT, "format_version": SNAPSHOT_VERSION,
        "dataset": ds.name, "lang": ds.lang, "data_path": ds.source, "split": run.split,
        "created_at": run.started_at, "memvault_version": __version__,
        "embedding_model": run.strategy.get("embedding_model"),
        "strategy": {k: v for k, v in run.strategy.items() if k != "strategy_hash"},
        "strategy_hash": run.strategy.get("strategy_hash"),
        "n_queries": len(run.results), "n_docs": len(ds.docs),
        # Recall returning nothing is a failure mode of its own (e.g. a filter that left
        # no candidate); it is counted here, its queries score 0 in every metric.
        "queries_without_hits": sum(1 for r in run.results if not r.ranked),
        "n_memories": run.n_memories, "duplicate_docs": run.duplicates,
        "dataset_notes": list(ds.notes),
        "wall_time_s": round(run.timings.get("wall_s", sum(
            v for k, v in run.timings.items() if k.endswith("_s"))), 3),
        "timings": {k: round(v, 3) for k, v in run.timings.items()},
        "metrics": run_metrics(run),
        "score_distribution": {
            "what": "fused recall score. top1_hit/top1_miss: top-1 score of queries whose "
                    "top-1 is gold / not gold; gold_topk/nongold_topk: scores of gold / "
                    "non-gold hits in the top 10. Queries in 'overall' of the run.",
            "png": None, **histogram(samples)},
    }


# --- writing ------------------------------------------------------------------------------

def _stamp(iso: str) -> str:
    return iso.replace("-", "").replace(":", "")


def write_histogram_png(dist: dict[str, Any], path: Path, title: str) -> bool:
    """Draw the score histograms; False if matplotlib (extra `eval`) is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display needed, none touched
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    edges = np.asarray(dist["bin_edges"])
    width = np.diff(edges)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    panels = [("top-1 score per query", [("top1_hit", "top-1 is gold", "tab:green"),
                                         ("top1_miss", "top-1 not gold", "tab:red")]),
              ("scores in the top 10", [("gold_topk", "gold", "tab:green"),
                                        ("nongold_topk", "not gold", "tab:gray")])]
    for ax, (name, series) in zip(axes, panels, strict=True):
        for key, label, colour in series:
            counts = np.asarray(dist["counts"][key], dtype=float)
            n = counts.sum()
            # Densities: the groups differ in size by up to 10x, the shapes are the point.
            dens = counts / (n * width) if n else counts
            ax.stairs(dens, edges, label=f"{label} (n={int(n)})", color=colour, fill=True,
                      alpha=0.45)
        ax.set_title(name)
        ax.set_xlabel("fused score")
        ax.set_ylabel("density")
        ax.legend()
    fig.suptitle(title)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def ready_out_dir(out_dir: Path) -> Path:
    """Make the folder a run's snapshot goes to, before the run: a path that is a file, or
    a folder that cannot be made or written, is bad input found at once, not a traceback
    after every case has run."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a file in the way (FileExistsError), no permission, …
        raise ValidationError(f"out_dir {str(out_dir)!r} is not a folder that can be "
                              f"written: {e.strerror or e}") from None
    if not os.access(out_dir, os.W_OK | os.X_OK):
        raise ValidationError(f"out_dir {str(out_dir)!r} is not writable")
    return out_dir


def write_snapshot(snapshot: dict[str, Any], out_dir: Path) -> tuple[Path, Path | None]:
    """Write ``<dataset>-<split>-<time>.json`` and, with matplotlib, the histogram PNG
    beside it (``…-scores.png``). Without matplotlib the histogram data is only in the
    JSON (``score_distribution``). Returns (json path, png path or None)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{snapshot['dataset']}-{snapshot['split']}-{_stamp(snapshot['created_at'])}"
    n = 1
    while (out_dir / f"{stem}.json").exists():  # two runs in one second
        n += 1
        stem = f"{snapshot['dataset']}-{snapshot['split']}-{_stamp(snapshot['created_at'])}-{n}"
    png = out_dir / f"{stem}-scores.png"
    title = (f"{snapshot['dataset']} ({snapshot['split']}), {snapshot['embedding_model']}, "
             f"strategy {str(snapshot['strategy_hash'])[:12]}")
    dist = snapshot["score_distribution"]
    if write_histogram_png(dist, png, title):
        dist["png"] = png.name
    else:
        dist["note"] = ("matplotlib is not installed (pip install 'memvault[eval]'): no PNG; "
                        "the histogram data is here")
    path = out_dir / f"{stem}.json"
    path.write_text(json.dumps(snapshot, ensure_ascii=False, indent=1) + "\n",
                    encoding="utf-8")
    return path, (png if dist["png"] else None)


def load_snapshot(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValidationError(f"cannot read snapshot {path} ({e})") from None
    if not isinstance(data, dict) or data.get("format") != SNAPSHOT_FORMAT:
        raise ValidationError(f"{path} is not a memvault eval snapshot")
    return data


# --- tables -------------------------------------------------------------------------------

# Two tables of ~8 columns each, so both fit an 80-column terminal.
TABLE_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ranking", ("R@1", "R@5", "R@10", "MRR", "nDCG@10", "pool")),
    ("hits and precision", ("hit@1", "hit@5", "hit@10", "P@1", "P@5", "P@10")),
)


def _fmt(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.3f}".removeprefix("0")  # ".512", as BASELINES.md writes them


def _table(title: str | Text, metrics: tuple[str, ...]) -> Table:
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for col in ("split", "category", "n", *metrics):
        t.add_column(col, justify="left" if col in ("split", "category") else "right")
    return t


def metrics_tables(snapshot: dict[str, Any]) -> list[Table]:
    head = (f"{snapshot['dataset']} · split {snapshot['split']} · {snapshot['n_queries']} "
            f"queries · {snapshot['embedding_model']} · strategy "
            f"{str(snapshot['strategy_hash'])[:12]}")
    tables = []
    for name, metrics in TABLE_GROUPS:
        t = _table(f"{head}\n{name}", metrics)
        for split, table in snapshot["metrics"].items():
            for cat, m in table.items():
                t.add_row(split, cat, str(int(m["n"])), *(_fmt(m.get(k)) for k in metrics),
                          style="bold" if cat == OVERALL and len(table) > 1 else None)
            if len(table) > 1:
                t.add_section()
        tables.append(t)
    tm = snapshot["timings"]
    tables[-1].caption = (
        f"wall {snapshot['wall_time_s']:.1f}s (load {tm.get('load_s', 0):.1f}, open "
        f"{tm.get('open_s', 0):.1f}, index {tm.get('index_s', 0):.1f}, query "
        f"{tm.get('query_s', 0):.1f}); recall p50 {tm.get('recall_p50_ms', 0):.1f} ms, "
        f"p95 {tm.get('recall_p95_ms', 0):.1f} ms")
    return tables


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Differences B − A of every metric, per split and category both snapshots have."""
    warnings: list[str] = []
    for key in ("dataset", "split", "embedding_model", "strategy_hash", "memvault_version"):
        if a.get(key) != b.get(key):
            warnings.append(f"{key}: {a.get(key)} → {b.get(key)}")
    rows: list[dict[str, Any]] = []
    for split, ta in a["metrics"].items():
        tb = b["metrics"].get(split)
        if tb is None:
            warnings.append(f"split {split} only in A")
            continue
        for cat, ma in ta.items():
            mb = tb.get(cat)
            if mb is None:
                warnings.append(f"{split}/{cat} only in A")
                continue
            if ma["n"] != mb["n"]:
                warnings.append(f"{split}/{cat}: {int(ma['n'])} vs {int(mb['n'])} queries")
            rows.append({"split": split, "category": cat, "n_a": ma["n"], "n_b": mb["n"],
                         "a": {k: ma[k] for k in METRICS if k in ma},
                         "b": {k: mb[k] for k in METRICS if k in mb},
                         "diff": {k: mb[k] - ma[k] for k in METRICS if k in ma and k in mb}})
        warnings += [f"{split}/{c} only in B" for c in tb if c not in ta]
    warnings += [f"split {s} only in B" for s in b["metrics"] if s not in a["metrics"]]
    out: dict[str, Any] = {"rows": rows, "warnings": warnings}
    if "cases" in a or "cases" in b:  # case snapshots (casereport.py): case by case too
        out["cases"] = case_changes(a, b)
        warnings += [f"case {c} only in A" for c in out["cases"]["only_in_a"]]
        warnings += [f"case {c} only in B" for c in out["cases"]["only_in_b"]]
    return out


def compare_tables(cmp: dict[str, Any], label_a: str, label_b: str) -> list[Table]:
    tables = []
    for name, metrics in TABLE_GROUPS:
        # Plain Text: the labels are paths, shown as they are whatever the console.
        t = _table(Text(f"B − A, {name}\nA = {label_a}\nB = {label_b}"), metrics)
        for row in cmp["rows"]:
            n = (str(int(row["n_a"])) if row["n_a"] == row["n_b"]
                 else f"{int(row['n_a'])}→{int(row['n_b'])}")
            t.add_row(row["split"], row["category"], n,
                      *(diff_text(row["diff"].get(k)) for k in metrics))
        tables.append(t)
    return tables

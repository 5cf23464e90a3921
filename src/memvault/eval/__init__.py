"""Retrieval evaluation of memvault on LoCoMo and MADial-Bench (`memvault eval`).

    datasets.py  loaders, evidence-id normalisation, tune/holdout splits
    metrics.py   R@k, hit@k, P@k, MRR, nDCG@10; means per split and category
    runner.py    index a dataset into a fresh temporary Vault, recall every query
    strategy.py  what strategy a run measured (weights, embedder, hash)
    report.py    snapshot JSON, score histogram PNG, tables, compare

Definitions and setups: docs/evaluation.md.
"""

from .datasets import Dataset, Doc, Query, Split, load_dataset, normalise_evidence_ids
from .report import build_snapshot, compare, load_snapshot, write_snapshot
from .runner import RunResult, evaluate, run_eval

__all__ = ["Dataset", "Doc", "Query", "RunResult", "Split", "build_snapshot", "compare",
           "evaluate", "load_dataset", "load_snapshot", "normalise_evidence_ids", "run_eval",
           "write_snapshot"]

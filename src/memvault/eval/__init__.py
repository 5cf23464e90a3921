"""Retrieval evaluation of memvault on LoCoMo, MADial-Bench and an application's own cases
(`memvault eval`).

    datasets.py  loaders, evidence-id normalisation, tune/holdout splits
    metrics.py   R@k, hit@k, P@k, MRR, nDCG@10; means per split and category
    runner.py    index a dataset into a fresh temporary Vault, recall every query
    strategy.py  what strategy a run measured (weights, embedder, hash)
    report.py    snapshot JSON, score histogram PNG, tables, compare
    casefile.py  an application's own cases (JSONL/YAML), checked line by line
    cases.py     run them in a throwaway store, or read-only against a live scope
    casereport.py, casediff.py, htmlreport.py  their snapshot, tables, compare, HTML page

Definitions and setups: docs/evaluation.md.
"""

from .datasets import Dataset, Doc, Query, Split, load_dataset, normalise_evidence_ids
from .report import build_snapshot, compare, load_snapshot, write_snapshot
from .runner import RunResult, evaluate, run_eval

__all__ = ["Dataset", "Doc", "Query", "RunResult", "Split", "build_snapshot", "compare",
           "evaluate", "load_dataset", "load_snapshot", "normalise_evidence_ids", "run_eval",
           "write_snapshot"]

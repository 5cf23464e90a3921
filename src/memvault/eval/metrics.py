"""Ranking metrics per query, and their means by split and category.

Binary relevance: an item is gold or not. Definitions (docs/evaluation.md):

- R@k (recall) = |gold in top k| / |gold|
- hit@k = 1 if any gold item is in the top k, else 0
- P@k (precision) = |gold in top k| / k (k, not the number returned: a short list is
  not rewarded for being short)
- MRR = 1 / rank of the first gold item in the returned list, 0 if none is returned
- nDCG@10 = DCG@10 / ideal DCG@10, DCG = sum over ranks i <= 10 of gold_i / log2(i + 1)
- pool = R@(everything recall returned): how much gold candidate generation found at all

Every mean is over queries (each query weighs the same, however much gold it has).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

KS: tuple[int, ...] = (1, 5, 10)
NDCG_K = 10
METRICS: tuple[str, ...] = (
    *(f"R@{k}" for k in KS), *(f"hit@{k}" for k in KS), *(f"P@{k}" for k in KS),
    "MRR", f"nDCG@{NDCG_K}", "pool",
)
OVERALL = "overall"


def _gold_in_top(ranked: Sequence[str], gold: AbstractSet[str], k: int) -> int:
    return sum(1 for item in ranked[:k] if item in gold)


def recall_at_k(ranked: Sequence[str], gold: AbstractSet[str], k: int) -> float:
    return _gold_in_top(ranked, gold, k) / len(gold)


def hit_at_k(ranked: Sequence[str], gold: AbstractSet[str], k: int) -> float:
    return 1.0 if _gold_in_top(ranked, gold, k) else 0.0


def precision_at_k(ranked: Sequence[str], gold: AbstractSet[str], k: int) -> float:
    return _gold_in_top(ranked, gold, k) / k


def reciprocal_rank(ranked: Sequence[str], gold: AbstractSet[str]) -> float:
    for rank, item in enumerate(ranked, start=1):
        if item in gold:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranked: Sequence[str], gold: AbstractSet[str], k: int) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, item in enumerate(ranked[:k]) if item in gold)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal


def query_metrics(ranked: Sequence[str], gold: AbstractSet[str]) -> dict[str, float]:
    """Every metric of METRICS for one ranked list (best first) and its gold set."""
    if not gold:
        raise ValueError("a query needs at least one gold item")
    if len(set(ranked)) != len(ranked):
        raise ValueError("a ranking must not repeat an item")
    out: dict[str, float] = {}
    for k in KS:
        out[f"R@{k}"] = recall_at_k(ranked, gold, k)
        out[f"hit@{k}"] = hit_at_k(ranked, gold, k)
        out[f"P@{k}"] = precision_at_k(ranked, gold, k)
    out["MRR"] = reciprocal_rank(ranked, gold)
    out[f"nDCG@{NDCG_K}"] = ndcg_at_k(ranked, gold, NDCG_K)
    out["pool"] = recall_at_k(ranked, gold, len(ranked)) if ranked else 0.0
    return out


def mean_metrics(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """Per-metric mean over queries, plus ``n`` (the number of queries)."""
    out: dict[str, float] = {"n": len(rows)}
    for name in METRICS:
        out[name] = sum(r[name] for r in rows) / len(rows) if rows else math.nan
    return out


@dataclass(frozen=True, slots=True)
class Scored:
    """One evaluated query: its metrics and where it belongs."""

    split: str
    category: str
    in_overall: bool
    metrics: dict[str, float]


def summarise(scored: Iterable[Scored], splits: Sequence[str],
              categories: Sequence[str]) -> dict[str, dict[str, dict[str, float]]]:
    """{split: {"overall" | category: {"n": .., metric: mean}}}. Split "all" means every
    query; "overall" leaves out the categories excluded from it (LoCoMo adversarial),
    which still get their own row. Empty groups are left out."""
    items = list(scored)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for split in splits:
        in_split = [s for s in items if split == "all" or s.split == split]
        if not in_split:
            continue
        table = {OVERALL: mean_metrics([s.metrics for s in in_split if s.in_overall])}
        for cat in categories:
            rows = [s.metrics for s in in_split if s.category == cat]
            if rows:
                table[cat] = mean_metrics(rows)
        if not table[OVERALL]["n"]:
            del table[OVERALL]
        out[split] = table
    return out


@dataclass(frozen=True, slots=True)
class Ranked:
    """What score distributions need from one query: the returned scores, best first,
    and which of them are gold."""

    scores: Sequence[float]
    is_gold: Sequence[bool]


def score_samples(rankings: Iterable[Ranked], k: int = 10) -> dict[str, list[float]]:
    """Fused scores of hits vs misses: ``top1_hit`` / ``top1_miss`` = the top-1 score of
    queries whose top-1 is gold / is not; ``gold_topk`` / ``nongold_topk`` = the scores of
    every gold / non-gold item in the top k. Queries that returned nothing are skipped."""
    out: dict[str, list[float]] = {"top1_hit": [], "top1_miss": [], "gold_topk": [],
                                   "nongold_topk": []}
    for r in rankings:
        if not r.scores:
            continue
        out["top1_hit" if r.is_gold[0] else "top1_miss"].append(float(r.scores[0]))
        for score, gold in zip(r.scores[:k], r.is_gold[:k], strict=True):
            out["gold_topk" if gold else "nongold_topk"].append(float(score))
    return out

"""Recall: fuse full-text and dense candidates, keep what is live, one winner per slot.

The backend returns scoped candidates with raw scores; everything from here on is the
same for every backend. Scores are min-max normalised per retriever before mixing
(measured better than reciprocal rank fusion on both benchmark datasets, BASELINES.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import bm25
from .bm25 import TextCandidates
from .embed import Embedder
from .model import Hit, Memory, ScoreParts
from .textindex import terms


@dataclass(frozen=True, slots=True)
class RecallWeights:
    """text: weight of BM25; dense: total weight of the embedders, split evenly."""

    text: float = 0.5
    dense: float = 0.5
    candidates: int = 50


def _minmax(scores: dict[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        # One candidate, or all tied: each is as good as the best.
        return dict.fromkeys(scores, 1.0 if hi > 0 else 0.0)
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def fuse(text: Sequence[tuple[str, float]], dense: dict[str, Sequence[tuple[str, float]]],
         weights: RecallWeights) -> dict[str, ScoreParts]:
    """Score parts per candidate id. A candidate missing from a list scores 0 there."""
    text_raw = dict(text)
    text_norm = _minmax(text_raw)
    dense_raw = {model: dict(rows) for model, rows in dense.items()}
    dense_norm = {model: _minmax(rows) for model, rows in dense_raw.items()}
    per_model = weights.dense / len(dense) if dense else 0.0
    ids: dict[str, None] = dict.fromkeys(text_raw)
    for rows in dense_raw.values():
        ids.update(dict.fromkeys(rows))
    out: dict[str, ScoreParts] = {}
    for mid in ids:
        parts = ScoreParts(bm25=text_raw.get(mid, 0.0), bm25_norm=text_norm.get(mid, 0.0))
        total = weights.text * parts.bm25_norm
        for model in dense_raw:
            parts.dense[model] = dense_raw[model].get(mid, 0.0)
            parts.dense_norm[model] = dense_norm[model].get(mid, 0.0)
            total += per_model * parts.dense_norm[model]
        parts.total = total
        out[mid] = parts
    return out


def collapse_slots(hits: list[Hit]) -> list[Hit]:
    """One winner per slot: the most recently updated value. Input is ranked; order kept."""
    newest: dict[str, Hit] = {}
    for h in hits:
        if h.memory.slot is None:
            continue
        cur = newest.get(h.memory.slot)
        if cur is None or (h.memory.updated_at, h.memory.version) > (
                cur.memory.updated_at, cur.memory.version):
            newest[h.memory.slot] = h
    return [h for h in hits if h.memory.slot is None or newest[h.memory.slot] is h]


def rank(memories: dict[str, Memory], parts: dict[str, ScoreParts], *, top_k: int,
         min_score: float = 0.0) -> list[Hit]:
    hits = [Hit(memories[mid], p.total, p) for mid, p in parts.items() if mid in memories]
    hits.sort(key=lambda h: (-h.score, -h.memory.updated_at, h.memory.id))
    hits = collapse_slots(hits)
    return [h for h in hits if h.score >= min_score][:top_k]


def rank_snapshot(memories: list[Memory], query_terms: list[str], query: str,
                  embedders: list[Embedder], weights: RecallWeights) -> dict[str, ScoreParts]:
    """Score a set of memories that is not in the live index (as-of reads), with the
    same BM25 and the same terms as the live path."""
    if not memories:
        return {}
    docs = [(m.id, terms(m.content)) for m in memories]
    tc = TextCandidates(n_docs=len(docs), avg_len=sum(len(t) for _, t in docs) / len(docs),
                        df={q: sum(1 for _, t in docs if q in t) for q in query_terms},
                        docs=[d for d in docs if any(q in d[1] for q in query_terms)])
    text = bm25.score(tc, query_terms)[:weights.candidates]
    dense: dict[str, list[tuple[str, float]]] = {}
    contents = [m.content for m in memories]
    for emb in embedders:
        matrix = emb.embed_documents(contents)
        sims = matrix @ emb.embed_query(query)
        order = np.argsort(-sims)[:weights.candidates]
        dense[emb.name] = [(memories[i].id, float(sims[i])) for i in order]
    return fuse(text, dense, weights)

"""BM25 over one scope, computed in the core so every backend ranks text alike.

A backend returns the candidate documents that contain a query term, with their index
terms, plus the scope's statistics (live documents, average length, document frequency of
each query term). Statistics are per scope on purpose: a tenant's scores never depend on
what other tenants stored.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field


@dataclass(slots=True)
class TextCandidates:
    n_docs: int = 0
    avg_len: float = 0.0
    df: dict[str, int] = field(default_factory=dict)
    docs: list[tuple[str, list[str]]] = field(default_factory=list)


# Terms after this marker are context (a turn's neighbours, turnctx.py), not the memory's
# own words: they count `context_weight` times (BM25F-style). The length is the whole key.
CONTEXT_MARK = "|"


def score(tc: TextCandidates, query_terms: list[str], *, k1: float = 1.2,
          b: float = 0.75, context_weight: float = 1.0) -> list[tuple[str, float]]:
    """(id, BM25) best first; documents without any query term are dropped."""
    if not tc.docs or not query_terms or tc.n_docs <= 0:
        return []
    avg = tc.avg_len or 1.0
    # Lucene's IDF: always positive, so a term in every document still counts a little.
    idf = {t: math.log(1 + (tc.n_docs - tc.df.get(t, 0) + 0.5) / (tc.df.get(t, 0) + 0.5))
           for t in query_terms}
    out: list[tuple[str, float]] = []
    for mid, terms in tc.docs:
        dl = len(terms)
        if CONTEXT_MARK in terms:
            cut = terms.index(CONTEXT_MARK)
            tf: dict[str, float] = dict(Counter(terms[:cut]))
            for t, n in Counter(terms[cut + 1:]).items():
                tf[t] = tf.get(t, 0) + context_weight * n
        else:
            tf = dict(Counter(terms))
        s = 0.0
        for t in query_terms:
            f = tf.get(t, 0)
            if f:
                s += idf[t] * f * (k1 + 1) / (f + k1 * (1 - b + b * dl / avg))
        if s > 0:
            out.append((mid, s))
    out.sort(key=lambda x: (-x[1], x[0]))
    return out

"""Exact nearest neighbours over vectors held in memory (SQLite's vector search, and the
as-of path that scores a past snapshot)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .blas import one_thread


def nearest_each(ids: Sequence[str], matrix: np.ndarray, queries: np.ndarray,
                 limit: int) -> list[list[tuple[str, float]]]:
    """For each row of `queries`: the `limit` (id, dot product) pairs of `matrix`'s rows
    with the largest dot product, best first. Vectors are L2-normalised, so the dot
    product is the cosine."""
    qs = np.asarray(queries, dtype=np.float32)
    if not len(ids) or limit <= 0:
        return [[] for _ in range(len(qs))]
    k = min(limit, len(ids))
    out = []
    with one_thread():  # blas.py: small products run on this thread alone
        product = (matrix @ qs.T).T
    for sims in product:
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top])]
        out.append([(ids[i], float(sims[i])) for i in top])
    return out

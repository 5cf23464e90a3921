"""Recall measurements of the core benchmark: scoped `vault.recall` with query embedding
(as is) and without (the same call, each embedder's query embedding answered from vectors
computed beforehand), the time of each store call, and conversation queries.

"Without" patches `embed_query` (and `embed_queries`, where the embedder has it) on the
embedder instances in `vault.embedders`, not the list: whichever part of the vault holds
them, it gets the lookup, and the rest of recall is exactly src's code path.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from timing import log, patched, timed

from memvault import Vault

TOP_K = 10
CONVERSATION_LINES = 6
STORE_STAGES = ("text_candidates", "vector_candidates", "fetch")
STAGES = (*(f"store.{s}" for s in STORE_STAGES), "rest (validate, terms, scoring, rank)")


@dataclass
class RecallStats:
    e2e: list[float] = field(default_factory=list)
    no_embed: list[float] = field(default_factory=list)
    embed: list[float] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=dict)
    mismatches: int = 0
    hits: list[int] = field(default_factory=list)
    conversation: list[float] = field(default_factory=list)  # multi-line queries, e2e


class QueryLookup:
    """An embedder's query embedding answered from `cache`; a text not in it is embedded
    by the model's own methods (counted in `misses`)."""

    def __init__(self, emb: Any, cache: dict[str, np.ndarray]) -> None:
        self.cache = cache
        self.real_query = emb.embed_query
        self.real_queries = getattr(emb, "embed_queries", None)
        self.calls = 0
        self.misses = 0
        self._computing = False  # the model's embed_query may call embed_queries, or back

    def _real(self, texts: list[str]) -> np.ndarray:
        if callable(self.real_queries):
            return np.asarray(self.real_queries(texts), dtype=np.float32)
        return np.stack([self.real_query(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        if self._computing:
            return self.real_query(text)
        self.calls += 1
        vec = self.cache.get(text)
        if vec is None:
            self.misses += 1
            self._computing = True
            try:
                vec = self.cache[text] = self._real([text])[0]
            finally:
                self._computing = False
        return vec

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        if self._computing:
            return self._real(texts)
        return np.stack([self.embed_query(t) for t in texts])


@contextmanager
def without_query_embedding(vault: Vault, lookups: dict[str, QueryLookup],
                            sink: dict[str, float]) -> Iterator[None]:
    """Inside: the embedders answer query embeddings from `lookups`, and the time spent in
    each store call recall makes is added to `sink`. Instances only; restored after."""
    def add_to(name: str) -> Any:
        def add(seconds: float) -> None:
            sink[name] = sink.get(name, 0.0) + seconds
        return add

    with ExitStack() as stack:
        for e in vault.embedders:
            lk = lookups[e.name]
            stack.enter_context(patched(e, "embed_query", lk.embed_query))
            if callable(lk.real_queries):
                stack.enter_context(patched(e, "embed_queries", lk.embed_queries))
        for name in STORE_STAGES:
            fn = getattr(vault.store, name)
            stack.enter_context(patched(vault.store, name, timed(fn, add_to(f"store.{name}"))))
        yield


def _same_hits(a: list[Any], b: list[Any]) -> bool:
    return (len(a) == len(b)
            and all(x.memory.id == y.memory.id and abs(x.score - y.score) < 1e-5
                    for x, y in zip(a, b, strict=True)))


def run_recall(vault: Vault, queries: list[tuple[dict[str, str], str]],
               warmup: list[tuple[dict[str, str], str]]) -> RecallStats:
    """Each query runs twice, alternately first: vault.recall as is, and vault.recall with
    the query vectors precomputed (the only difference: query embedding is a dict lookup)."""
    st = RecallStats()
    for sc, q in warmup:
        vault.recall(sc, q, top_k=TOP_K)
    caches: dict[str, dict[str, np.ndarray]] = {e.name: {} for e in vault.embedders}
    for _sc, q in queries:  # query embedding on its own
        t = time.perf_counter()
        for e in vault.embedders:
            caches[e.name][q] = e.embed_query(q)
        st.embed.append(time.perf_counter() - t)
    lookups = {e.name: QueryLookup(e, caches[e.name]) for e in vault.embedders}
    for i, (sc, q) in enumerate(queries):
        def e2e(sc: dict[str, str] = sc, q: str = q) -> list[Any]:
            t = time.perf_counter()
            hits = vault.recall(sc, q, top_k=TOP_K)
            st.e2e.append(time.perf_counter() - t)
            return hits

        def pre(sc: dict[str, str] = sc, q: str = q) -> list[Any]:
            sink: dict[str, float] = {}
            with without_query_embedding(vault, lookups, sink):
                t = time.perf_counter()
                hits = vault.recall(sc, q, top_k=TOP_K)
                total = time.perf_counter() - t
            st.no_embed.append(total)
            for name in STAGES[:-1]:
                st.stages.setdefault(name, []).append(sink.get(name, 0.0))
            st.stages.setdefault(STAGES[-1], []).append(total - sum(sink.values()))
            return hits

        if i % 2:
            b, a = pre(), e2e()
        else:
            a, b = e2e(), pre()
        st.hits.append(len(a))
        st.mismatches += not _same_hits(a, b)
        if (i + 1) % 100 == 0:
            log(f"  recall: {i + 1}/{len(queries)}")
    if queries and not any(lk.calls for lk in lookups.values()):
        log("warning: recall never asked the embedders for a query vector; 'without query "
            "embedding' may still embed (or recall embeds elsewhere)")
    misses = sum(lk.misses for lk in lookups.values())
    if misses:
        log(f"warning: {misses} query texts were not precomputed; they were embedded inside "
            "the run without query embedding")
    # A conversation excerpt as the query (line votes: one vector search per line).
    for i in range(0, len(queries) - CONVERSATION_LINES + 1, CONVERSATION_LINES):
        group = queries[i:i + CONVERSATION_LINES]
        text = "\n".join(f"{'User' if j % 2 == 0 else 'Assistant'}: {q}"
                         for j, (_sc, q) in enumerate(group))
        t = time.perf_counter()
        vault.recall(group[0][0], text, top_k=TOP_K)
        st.conversation.append(time.perf_counter() - t)
    return st

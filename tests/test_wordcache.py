"""Coverage's caches (wordmatch.py, issue 21): bounded from the strategy, the same
figures as a plain per-memory computation, one tenant's words never cached for another."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from memvault import Vault, wordmatch
from memvault.config import Strategy
from memvault.embed import load_embedder
from memvault.model import Memory, Scope

ME = Scope("acme", "alice")


@pytest.fixture
def restore_caches() -> Iterator[None]:
    yield
    defaults = Strategy().retrieval.caches
    wordmatch.configure(defaults.memory_words, defaults.word_vectors)


def caches(memory_words: int, word_vectors: int) -> Strategy:
    base = Strategy().model_dump()
    base["retrieval"]["caches"] = {"memory_words": memory_words, "word_vectors": word_vectors}
    return Strategy.model_validate(base)


def plain_coverage(query: str, memories: dict[str, Memory], emb: Any,
                   min_similarity: float) -> dict[str, tuple[float, float]]:
    """The definition, one memory and one word at a time: per query word, its best cosine
    to a word of the memory (the same word 1, below the bar 0), idf-weighted over the
    pool; distinct = the same over the query words not every memory matches."""
    asked = wordmatch.content_words(query, wordmatch.MAX_QUERY_WORDS + 1)
    said = {mid: wordmatch.content_words(m.content, wordmatch.MAX_MEMORY_WORDS)
            for mid, m in memories.items()}

    def vec(w: str) -> np.ndarray:
        v = np.asarray(emb.embed_documents([w])[0], dtype=np.float32)
        return (v / np.linalg.norm(v)).astype(np.float16).astype(np.float32)

    vecs = {w: vec(w) for w in {*asked, *(w for ws in said.values() for w in ws)}}

    def sim(a: str, b: str) -> float:
        s = 1.0 if a == b else float(vecs[a] @ vecs[b])
        return s if s >= min_similarity else 0.0

    n = len(memories)
    idf = {a: math.log(1.0 + n / (1.0 + sum(a in ws for ws in said.values())))
           for a in asked}
    best = {mid: {a: max((sim(a, w) for w in ws), default=0.0) for a in asked}
            for mid, ws in said.items()}
    own = {a for a in asked if not all(best[mid][a] > 0 for mid in said)}
    out = {}
    for mid in said:
        total = sum(idf[a] * best[mid][a] for a in asked) / sum(idf.values())
        own_sum = sum(idf[a] for a in own)
        distinct = sum(idf[a] * best[mid][a] for a in own) / own_sum if own_sum else 0.0
        out[mid] = (total, distinct)
    return out


POOL = ["Anna saw a physician on Monday", "Anna visited the doctor on Monday",
        "Anna watched a film", "The invoice is due", "ok", "Anna painted a sunrise at dawn",
        "我的轿车上周去保养了", "Melanie ran a charity race for mental health"]


@pytest.mark.parametrize("query", ["Which doctor did Anna visit?", "When did Anna paint?",
                                   "汽车保养", "charity running event", "invoice film"])
@pytest.mark.parametrize("bar", [0.0, 0.7, 0.95])
def test_coverage_equals_the_plain_definition(query: str, bar: float) -> None:
    emb = load_embedder("use-m3")
    pool = {f"m{i}": Memory(id=f"m{i}", scope=ME, kind="fact", content=t)
            for i, t in enumerate(POOL)}
    found = wordmatch.coverage_parts(f"eq-{query}-{bar}", query, pool, emb, bar)
    expected = plain_coverage(query, pool, emb, bar)
    assert found.keys() == expected.keys()
    for mid, (c, d) in expected.items():
        # The same float16 vectors; float32 products and sums in another order, and a
        # word embedded alone or in a batch, move the sixth decimal at most.
        assert found[mid] == pytest.approx((c, d), abs=1e-5), pool[mid].content


def test_the_strategy_bounds_the_caches(make_vault: Callable[..., Vault],
                                        restore_caches: None) -> None:
    vault = make_vault(strategy=caches(memory_words=3, word_vectors=10))
    assert (wordmatch._memory_words.size, wordmatch._vectors.size) == (3, 10)
    vault.remember_many([{"scope": ME, "content": t} for t in POOL])
    for q in ["Which doctor did Anna visit?", "sunrise painting", "charity race"]:
        hits = vault.recall(ME, q)
        assert hits and len(wordmatch._memory_words.items) <= 3
        assert len(wordmatch._vectors.items) <= 10
        stats = wordmatch.cache_stats()
        assert stats["memory_words"]["entries"] <= 3
        assert stats["word_vectors"]["entries"] <= 10
    # At 0 nothing is kept, and coverage is still computed.
    vault2 = make_vault(strategy=caches(memory_words=0, word_vectors=0))
    vault2.remember(ME, "visit the physician")
    hits = vault2.recall(ME, "doctor visit")
    assert hits[0].parts.coverage > 0
    assert not wordmatch._memory_words.items and not wordmatch._vectors.items


class Counting:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        self.real = load_embedder("use-m3")
        self.name, self.dim = self.real.name, self.real.dim
        self.asked: list[str] = []

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.asked.extend(texts)
        return self.real.embed_documents(texts)


def test_word_vectors_are_not_shared_between_tenants() -> None:
    emb = Counting()
    words = ["zebracorn", "quartzite", "moonlit"]
    a = wordmatch.word_vectors("tenant-a-iso", emb, words)  # type: ignore[arg-type]
    assert emb.asked == words
    emb.asked.clear()
    again = wordmatch.word_vectors("tenant-a-iso", emb, [*words, "zebracorn"])  # type: ignore[arg-type]
    assert emb.asked == []  # the tenant's own cache
    np.testing.assert_array_equal(again[:3], a)
    np.testing.assert_array_equal(again[3], a[0])
    b = wordmatch.word_vectors("tenant-b-iso", emb, words)  # type: ignore[arg-type]
    assert emb.asked == words  # another tenant embeds them itself
    np.testing.assert_array_equal(a, b)


def test_purge_drops_cached_words_and_vectors_with_a_configured_cache(
        make_vault: Callable[..., Vault], restore_caches: None) -> None:
    vault = make_vault(strategy=caches(memory_words=100, word_vectors=1000))
    secret = vault.remember(ME, "The vault code is zebracorn quartz").memory
    vault.remember(ME, "The office code is amber")
    vault.recall(ME, "what is the code?")
    assert (ME.tenant, secret.id) in wordmatch._memory_words.items
    vault.purge(ME, secret.id)
    assert (ME.tenant, secret.id) not in wordmatch._memory_words.items
    assert not {k[3] for k in wordmatch._vectors.items  # type: ignore[index]
                if k[0] == ME.tenant} & {"zebracorn", "quartz"}

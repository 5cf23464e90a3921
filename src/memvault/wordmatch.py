"""Coverage: how much of a question's words a memory says, near-synonyms included.

BM25 matches a turn through its whole index key (its own words, its neighbours' and the
question it answers), and a sentence vector blurs one content word among the others. A
question names what it is about in a few words, and the turn that answers it usually
says those words, or near ones ("doctor" / "physician", "painting" / "painted").
`coverage` is the idf-weighted mean, over the query's content words, of each word's best
similarity to a word of the memory's own text (the same word: 1; below
`retrieval.word_similarity`: 0). It is one more relevance part (`weights.coverage`,
docs/retrieval.md).

A memory's words are embedded when it is written and kept in the store, per tenant and
model (the word_vectors table, issue 21): a recall reads the words its cache lacks from
there in one query, and embeds only what is still missing (the query's own words, a
store written before the table) in one batch. The process keeps them in a bounded cache
per tenant and model (`retrieval.caches`), so no tenant's recall is faster for words
another tenant used. A recall never writes a vector to the store: a purge deletes the
words of what it erases there (store/sql_tx.py) and here (`forget`), and another
process's purge empties the tenant's caches before its next recall (`check_erasures`,
once a recall: the read path checks, then tells `query_vector` and `coverage` it has).
A word's vector does not depend on the batch it was embedded in (`unit_vectors`, for an
embedder that says how), so a stored one is the one a recall would compute. The idf is
taken over the candidate pool. A multi-line query (a conversation) and a long one (more than
`MAX_QUERY_WORDS` content words) have no coverage part: on MADial, where the query is a
conversation, it moved R@5 by up to 2.5 points either way.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Protocol

import jieba
import numpy as np

from .blas import one_thread
from .embed import Embedder
from .model import Memory
from .textindex import CJK_RANGES, STOPWORDS, ZH_STOPWORDS

jieba.setLogLevel(logging.WARNING)

_RUN = re.compile(rf"([{CJK_RANGES}]+)|([^\W\d_{CJK_RANGES}]+)", re.UNICODE)
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_JA_WORD = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{2,}|[\u30a0-\u30ff]{2,}")
# A question names its subject in a few words; a longer one-line query is a passage.
MAX_QUERY_WORDS = 32
# A memory's first words: bounds the vocabulary (and the embedding) of one recall.
MAX_MEMORY_WORDS = 64
# The caches' default bounds (`retrieval.caches` sets them): memories whose words (of one
# version) are kept, ~1 KiB each; words, all tenants (float16 at 512 dims: 1.25 KiB an
# entry with its key, measured).
MEMORY_WORDS_CACHE = 16_384
WORD_VECTORS_CACHE = 65_536


class StoredWords(Protocol):
    """Where a recall reads the vectors of words a store's memories say (the store; this
    module does not import it)."""

    def last_erasure(self) -> int:
        """Changes with every purge committed to the store, by any process."""
        ...

    def word_vectors(self, tenant: str, model: str, words: list[str]) -> dict[str, bytes]:
        """The stored float16 vectors (their bytes) of those of `words` the tenant has."""
        ...


def content_words(text: str, limit: int | None = None) -> tuple[str, ...]:
    """The words that carry meaning, each once, in order (the first `limit`): Latin words
    of three letters or more that are not stop words, and two-letter ones written in
    capitals ("AI", "UK"), lower-cased and not stemmed (the vectors see "painted" and
    "painting" alike); jieba's words of two characters or more; Korean words as spaced;
    Japanese kanji compounds and katakana words."""
    out: dict[str, None] = {}
    for cjk, latin in _RUN.findall(text):
        if latin:
            w = latin.lower()
            if (len(w) > 2 or (len(w) == 2 and latin.isupper())) and w not in STOPWORDS:
                out[w] = None
        elif _HANGUL.search(cjk):  # Korean puts spaces between its words
            if len(cjk) > 1:
                out[cjk] = None
        elif _KANA.search(cjk):  # Japanese: kanji compounds and katakana words
            for w in _JA_WORD.findall(cjk):
                out[w] = None
        else:
            for w in jieba.cut(cjk, HMM=False):
                if len(w) > 1 and w not in ZH_STOPWORDS:
                    out[w] = None
        if limit is not None and len(out) >= limit:
            break
    return tuple(out)[:limit]


class _LRU:
    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[object, object] = OrderedDict()

    def get(self, key: object) -> object | None:
        found = self.items.get(key)
        if found is not None:
            self.items.move_to_end(key)
        return found

    def put(self, key: object, value: object) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        self.trim()

    def resize(self, size: int) -> None:
        self.size = size
        self.trim()

    def trim(self) -> None:
        while len(self.items) > self.size:
            self.items.popitem(last=False)


_lock = threading.Lock()
_memory_words = _LRU(MEMORY_WORDS_CACHE)  # (tenant, memory id) -> (stamp, words)
_vectors = _LRU(WORD_VECTORS_CACHE)  # (tenant, model, dim, word) -> float16 unit vector
_purges = 0  # bumped by forget(): an entry computed across a purge is not kept
# Per store, per tenant: the store's erasure mark when the tenant's caches were last known
# to hold nothing a purge erased (check_erasures).
_marks: weakref.WeakKeyDictionary[object, dict[str, int]] = weakref.WeakKeyDictionary()


def configure(memory_words: int, word_vectors: int) -> None:
    """Bound the two caches (entries; `retrieval.caches` in the strategy). They are the
    process's: a Vault sets them when it opens, the last one opened wins. 0: no cache."""
    with _lock:
        _memory_words.resize(max(0, memory_words))
        _vectors.resize(max(0, word_vectors))


def cache_stats() -> dict[str, dict[str, int]]:
    """Per cache: its bound, its entries and the bytes its values hold (the vectors'
    data; a words entry counts its strings), for `memvault`'s footprint accounting."""
    with _lock:
        words = list(_memory_words.items.values())
        n_vectors = len(_vectors.items)
        vec_bytes = sum(v.nbytes for v in _vectors.items.values())  # type: ignore[attr-defined]
    word_bytes = sum(sys.getsizeof(w) for _, ws in words for w in ws)  # type: ignore[misc]
    return {"memory_words": {"size": _memory_words.size, "entries": len(words),
                             "bytes": word_bytes},
            "word_vectors": {"size": _vectors.size, "entries": n_vectors,
                             "bytes": vec_bytes}}


def _words_of(tenant: str, m: Memory) -> tuple[str, ...]:
    # The content's hash too: two stores open in one process may hold one id.
    stamp = (m.version, hash(m.content))
    with _lock:
        found = _memory_words.get((tenant, m.id))
        purges = _purges
    if isinstance(found, tuple) and found[0] == stamp:
        return found[1]  # type: ignore[no-any-return]
    words = content_words(m.content, MAX_MEMORY_WORDS)
    with _lock:
        if purges == _purges:
            _memory_words.put((tenant, m.id), (stamp, words))
    return words


def forget(tenant: str) -> None:
    """A purge in `tenant`: drop every cached word and vector of the tenant (the erased
    content's among them; the rest is read back from the store at the next recall)."""
    global _purges
    with _lock:
        _purges += 1
        for cache in (_memory_words, _vectors):
            for key in [k for k in cache.items if k[0] == tenant]:  # type: ignore[index]
                del cache.items[key]


def check_erasures(stored: StoredWords, tenant: str) -> None:
    """Before a recall of `tenant` reads its caches: if a purge was committed to the store
    since the tenant's last recall on it (by any process), forget the tenant's words.
    Also the first time this store is seen: the caches may hold words from before."""
    mark = stored.last_erasure()
    with _lock:
        seen = _marks.setdefault(stored, {})
        same = seen.get(tenant) == mark
        seen[tenant] = mark
    if not same:
        forget(tenant)


@lru_cache(maxsize=1024)  # asked three times a recall (read path, query_vector, coverage)
def query_words(query: str) -> tuple[str, ...]:
    """The query's content words that coverage measures: () when it has none or more
    than MAX_QUERY_WORDS (then a recall has no coverage part, and reads no word cache)."""
    asked = content_words(query, MAX_QUERY_WORDS + 1)
    return asked if len(asked) <= MAX_QUERY_WORDS else ()


def unit_vectors(emb: Embedder, words: Sequence[str]) -> np.ndarray:
    """float16 unit vectors of `words` (rows in order; a vector that is not finite: zeros),
    computed the same way whatever else is in the batch: a write stores these, a recall
    computes these."""
    if not words:
        return np.zeros((0, emb.dim), dtype=np.float16)
    return _unit16(_padded(emb, list(words))[:len(words)])


def _padded(emb: Embedder, texts: list[str]) -> np.ndarray:
    # An embedder whose small batches round otherwise says how many rows to pad them to
    # (embed.USEEmbedder.stable_batch); empty texts are the cheapest padding.
    pad = max(0, int(getattr(emb, "stable_batch", 0)) - len(texts))
    return np.asarray(emb.embed_documents([*texts, *[""] * pad]), dtype=np.float32)


def _unit16(rows: np.ndarray) -> np.ndarray:
    fresh = np.nan_to_num(rows, nan=0.0, posinf=0.0, neginf=0.0)
    norms = np.linalg.norm(fresh, axis=1, keepdims=True)
    return (fresh / np.where(norms > 0, norms, 1.0)).astype(np.float16)


def word_embedder(embedders: Sequence[Embedder]) -> Embedder | None:
    """The embedder whose word vectors coverage uses: the first that reads Chinese, else
    the first (which then votes on no query written mostly in CJK, embed.votes_on)."""
    return next((e for e in embedders if getattr(e, "reads_cjk", True)), None) or \
        next(iter(embedders), None)


def word_vectors(tenant: str, emb: Embedder, words: Sequence[str],
                 stored: StoredWords | None = None) -> np.ndarray:
    """One unit vector per word (rows in the order given): from the cache, else from the
    store (one query), else embedded (one batch). A vector that is not finite counts as
    no vector (zeros)."""
    known, purges = _known(tenant, emb, words, stored)
    rest = [w for w in dict.fromkeys(words) if w not in known]
    if rest:
        fresh = dict(zip(rest, unit_vectors(emb, rest), strict=True))
        _keep(tenant, emb, fresh, purges)
        known.update(fresh)
    if not words:
        return np.zeros((0, emb.dim), dtype=np.float32)
    return np.array([known[w] for w in words], dtype=np.float32)


def query_vector(tenant: str, emb: Embedder, query: str,
                 stored: StoredWords | None = None, *, checked: bool = False) -> np.ndarray:
    """`emb.embed_query(query)`, and with it, in the same batch, the vectors of the
    query's words that neither the cache nor the store has (which coverage will ask
    for): one embedding call instead of two, each with its fixed cost (issue 21: a warm
    recall still meets a few new words, and their own call was its tail). Only for an
    embedder whose query and document vectors are computed alike (`symmetric`); a word's
    vector is the one `unit_vectors` gives (the batch is padded as it pads). `checked`:
    the caller has run `check_erasures` for this recall already."""
    asked = query_words(query)
    if not getattr(emb, "symmetric", False) or not asked:
        return np.asarray(emb.embed_query(query), dtype=np.float32)
    if stored is not None and not checked:
        check_erasures(stored, tenant)
    known, purges = _known(tenant, emb, asked, stored)
    rest = [w for w in asked if w not in known]
    if not rest:
        return np.asarray(emb.embed_query(query), dtype=np.float32)
    rows = _padded(emb, [query, *rest])
    _keep(tenant, emb, dict(zip(rest, _unit16(rows[1:1 + len(rest)]), strict=True)), purges)
    return rows[0]


def _known(tenant: str, emb: Embedder, words: Sequence[str], stored: StoredWords | None
           ) -> tuple[dict[str, np.ndarray], int]:
    """The vectors of `words` the cache has, or else the store (then cached), and the
    purge count they were read under."""
    prefix = (tenant, emb.name, emb.dim)
    known: dict[str, np.ndarray] = {}
    with _lock:
        for w in words:
            v = _vectors.get((*prefix, w))
            if v is not None:
                known[w] = v  # type: ignore[assignment]
        purges = _purges
    missing = [w for w in dict.fromkeys(words) if w not in known]
    if missing and stored is not None:
        size, want = emb.dim * 2, set(missing)
        found = {w: np.frombuffer(b, dtype=np.float16)
                 for w, b in stored.word_vectors(tenant, emb.name, missing).items()
                 if w in want and len(b) == size}  # another dimension: embed it again
        _keep(tenant, emb, found, purges)
        known.update(found)
    return known, purges


def _keep(tenant: str, emb: Embedder, vectors: Mapping[str, np.ndarray], purges: int) -> None:
    prefix = (tenant, emb.name, emb.dim)
    with _lock:
        if purges == _purges:  # not across a purge, which may have dropped a word
            for w, v in vectors.items():
                _vectors.put((*prefix, w), v)


def coverage(tenant: str, query: str, memories: Mapping[str, Memory], emb: Embedder,
             min_similarity: float, stored: StoredWords | None = None, *,
             checked: bool = False) -> dict[str, float]:
    """Per memory id, 0..1: the idf-weighted mean of each query content word's best
    similarity to a word of the memory (0 below `min_similarity`). {} when the query has
    no content word or more than MAX_QUERY_WORDS."""
    return {mid: c for mid, (c, _) in
            coverage_parts(tenant, query, memories, emb, min_similarity, stored,
                           checked=checked).items()}


def coverage_parts(tenant: str, query: str, memories: Mapping[str, Memory], emb: Embedder,
                   min_similarity: float, stored: StoredWords | None = None, *,
                   checked: bool = False) -> dict[str, tuple[float, float]]:
    """Per memory id: (coverage, distinct coverage). Distinct coverage is the same mean
    over only the query words that not every memory of `memories` says: a word all of
    them match (the user's name in a store about one person, "user" in a store written
    in the third person) tells none of them apart, so it is no evidence that one is
    related to the question (the relevance floor, docs/retrieval.md). 0 when every
    query word is such a word. `stored`: where the memories' word vectors are kept;
    `checked`: the caller has run `check_erasures` for this recall already (the read
    path, before `query_vector`: a second check would be a second read of the mark)."""
    asked = query_words(query)
    if not asked or not memories:
        return {}
    if stored is not None and not checked:
        check_erasures(stored, tenant)
    said = [_words_of(tenant, m) for m in memories.values()]
    column: dict[str, int] = {}
    for words in said:
        for w in words:
            column.setdefault(w, len(column))
    if not column:
        return dict.fromkeys(memories, (0.0, 0.0))
    vectors = word_vectors(tenant, emb, [*asked, *column], stored)
    # One more column, all 0: where a memory's row of word indexes is padded.
    sims = np.zeros((len(asked), len(column) + 1), dtype=np.float32)
    with one_thread():  # blas.py: a small product, slow across threads on a busy machine
        sims[:, :-1] = vectors[:len(asked)] @ vectors[len(asked):].T
    for i, w in enumerate(asked):
        if w in column:  # the same word is 1 exactly (float16 vectors dot to 1 ± 1e-3)
            sims[i, column[w]] = 1.0
    sims[sims < min_similarity] = 0.0
    n = len(memories)
    # Each memory's word indexes, one row each (padded with the 0 column), and each query
    # word's best similarity to a word of each memory in one gather and one max.
    index = np.full((n, max(len(words) for words in said) or 1), len(column), dtype=np.intp)
    df = np.zeros(len(column) + 1, dtype=np.int64)
    for r, words in enumerate(said):
        cols = [column[w] for w in words]
        index[r, :len(cols)] = cols
        df[cols] += 1
    best = sims[:, index].max(axis=2)  # (query words, memories)
    asked_df = np.array([df[column[w]] if w in column else 0 for w in asked])
    idf = np.log(1.0 + n / (1.0 + asked_df))
    shared = (best > 0).all(axis=1)
    own = idf * ~shared
    idf_sum, own_sum = float(idf.sum()), float(own.sum())
    plain = (idf[:, None] * best).sum(axis=0) / idf_sum
    distinct = (own[:, None] * best).sum(axis=0) / own_sum if own_sum > 0 \
        else np.zeros(n)
    return {mid: (float(c), float(d))
            for mid, c, d in zip(memories, plain, distinct, strict=True)}

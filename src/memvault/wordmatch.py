"""Coverage: how much of a question's words a memory says, near-synonyms included.

BM25 matches a turn through its whole index key (its own words, its neighbours' and the
question it answers), and a sentence vector blurs one content word among the others. A
question names what it is about in a few words, and the turn that answers it usually
says those words, or near ones ("doctor" / "physician", "painting" / "painted").
`coverage` is the idf-weighted mean, over the query's content words, of each word's best
similarity to a word of the memory's own text (the same word: 1; below
`retrieval.word_similarity`: 0). It is one more relevance part (`weights.coverage`,
docs/retrieval.md).

Word vectors are embedded one word at a time and kept in a bounded cache per tenant and
model, so a word is embedded once while it is in use and no tenant's recall is faster
for words another tenant used. The idf is taken over the candidate pool. A multi-line
query (a conversation) and a long one (more than `MAX_QUERY_WORDS` content words) have no
coverage part: on MADial, where the query is a conversation, it moved R@5 by up to 2.5
points either way.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping, Sequence

import jieba
import numpy as np

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
_WORDS_CACHE = 16_384  # memories whose words (of one version) are kept: ~100 pools
_VECTORS_CACHE = 65_536  # words, all tenants (float16: 1 MiB per 1,000 words at 512 dims)


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
        while len(self.items) > self.size:
            self.items.popitem(last=False)


_lock = threading.Lock()
_memory_words = _LRU(_WORDS_CACHE)
_vectors = _LRU(_VECTORS_CACHE)  # (tenant, model, dim, word) -> float16 unit vector
_purges = 0  # bumped by forget(): a words entry computed across a purge is not kept


def _words_of(m: Memory) -> tuple[str, ...]:
    # The content's hash too: two stores open in one process may hold one id.
    stamp = (m.version, hash(m.content))
    with _lock:
        found = _memory_words.get(m.id)
        purges = _purges
    if isinstance(found, tuple) and found[0] == stamp:
        return found[1]  # type: ignore[no-any-return]
    words = content_words(m.content, MAX_MEMORY_WORDS)
    with _lock:
        if purges == _purges:
            _memory_words.put(m.id, (stamp, words))
    return words


def forget(tenant: str, memories: Iterable[Memory], also: Iterable[str] = ()) -> None:
    """A purge: drop the memories' words and their words' vectors from the caches, and
    the words of the memories `also` names (ids whose earlier versions quoted them)."""
    global _purges
    gone = list(memories)
    words = {w for m in gone for w in content_words(m.content)}
    with _lock:
        _purges += 1
        for mid in {*(m.id for m in gone), *also}:
            _memory_words.items.pop(mid, None)
        stale = [k for k in _vectors.items
                 if k[0] == tenant and k[3] in words]  # type: ignore[index]
        for key in stale:
            del _vectors.items[key]


def word_vectors(tenant: str, emb: Embedder, words: Sequence[str]) -> np.ndarray:
    """One unit vector per word (rows in the order given), embedding only the words the
    cache lacks. A vector that is not finite counts as no vector (zeros)."""
    prefix = (tenant, emb.name, emb.dim)
    with _lock:
        have = {w: v for w in words if (v := _vectors.get((*prefix, w))) is not None}
        purges = _purges
    missing = [w for w in dict.fromkeys(words) if w not in have]
    if missing:
        fresh = np.nan_to_num(np.asarray(emb.embed_documents(missing), dtype=np.float32),
                              nan=0.0, posinf=0.0, neginf=0.0)
        norms = np.linalg.norm(fresh, axis=1, keepdims=True)
        fresh = (fresh / np.where(norms > 0, norms, 1.0)).astype(np.float16)
        with _lock:
            for w, v in zip(missing, fresh, strict=True):
                have[w] = v
                if purges == _purges:  # not across a purge, which may have dropped w
                    _vectors.put((*prefix, w), v)
    if not words:
        return np.zeros((0, emb.dim), dtype=np.float32)
    return np.stack([have[w] for w in words]).astype(np.float32)


def coverage(tenant: str, query: str, memories: Mapping[str, Memory], emb: Embedder,
             min_similarity: float) -> dict[str, float]:
    """Per memory id, 0..1: the idf-weighted mean of each query content word's best
    similarity to a word of the memory (0 below `min_similarity`). {} when the query has
    no content word or more than MAX_QUERY_WORDS."""
    return {mid: c for mid, (c, _) in
            coverage_parts(tenant, query, memories, emb, min_similarity).items()}


def coverage_parts(tenant: str, query: str, memories: Mapping[str, Memory], emb: Embedder,
                   min_similarity: float) -> dict[str, tuple[float, float]]:
    """Per memory id: (coverage, distinct coverage). Distinct coverage is the same mean
    over only the query words that not every memory of `memories` says: a word all of
    them match (the user's name in a store about one person, "user" in a store written
    in the third person) tells none of them apart, so it is no evidence that one is
    related to the question (the relevance floor, docs/retrieval.md). 0 when every
    query word is such a word."""
    asked = content_words(query, MAX_QUERY_WORDS + 1)
    if not asked or len(asked) > MAX_QUERY_WORDS or not memories:
        return {}
    said = {mid: _words_of(m) for mid, m in memories.items()}
    vocab = list(dict.fromkeys(w for words in said.values() for w in words))
    if not vocab:
        return dict.fromkeys(memories, (0.0, 0.0))
    column = {w: i for i, w in enumerate(vocab)}
    vectors = word_vectors(tenant, emb, [*asked, *vocab])  # one batch for the new words
    sims = vectors[:len(asked)] @ vectors[len(asked):].T
    for i, w in enumerate(asked):
        if w in column:  # the same word is 1 exactly (float16 vectors dot to 1 ± 1e-3)
            sims[i, column[w]] = 1.0
    sims[sims < min_similarity] = 0.0
    n = len(memories)
    df = Counter(w for words in said.values() for w in words)
    idf = np.array([math.log(1.0 + n / (1.0 + df[w])) for w in asked])
    idf_sum = float(idf.sum())
    best = {mid: sims[:, [column[w] for w in words]].max(axis=1) if words
            else np.zeros(len(asked), dtype=np.float32) for mid, words in said.items()}
    shared = np.logical_and.reduce([b > 0 for b in best.values()])
    own = idf * ~shared
    own_sum = float(own.sum())
    out = {}
    for mid, b in best.items():
        out[mid] = (float((idf * b).sum() / idf_sum),
                    float((own * b).sum() / own_sum) if own_sum > 0 else 0.0)
    return out

"""Coverage: how much of a question's words a memory says, near-synonyms included.

BM25 matches a turn through its whole index key (its own words, its neighbours' and the
question it answers), and a sentence vector blurs one content word among the others. A
question names what it is about in a few words, and the turn that answers it usually
says those words, or near ones ("doctor" / "physician", "painting" / "painted").
`coverage` is the idf-weighted share of the query's content words for which the memory's
own text has a word whose vector is at least `retrieval.word_similarity` close (the same
word: 1). It is one more relevance part (`weights.coverage`, docs/retrieval.md).

Word vectors come from the query's first voting embedder, one word at a time, and are
kept in a bounded per-model cache, so a word is embedded once per process while it is in
use. The idf is taken over the candidate pool. A multi-line query (a conversation) has no
coverage part: on MADial, where the query is a conversation, it moved R@5 by up to
2.5 points either way.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence

import jieba
import numpy as np

from .embed import Embedder
from .model import Memory
from .textindex import _CJK, STOPWORDS, ZH_STOPWORDS

jieba.setLogLevel(logging.WARNING)

_RUN = re.compile(rf"([{_CJK}]+)|([^\W\d_{_CJK}]+)", re.UNICODE)
_WORDS_CACHE = 65_536  # memories whose words (of one version) are kept
_VECTORS_CACHE = 65_536  # words per model (float16: 64 KiB per 1,000 words at 512 dims)


def content_words(text: str) -> tuple[str, ...]:
    """The words that carry meaning, each once, in order: Latin words of three letters
    or more that are not stop words (lower-cased, not stemmed: the vectors see
    "painted" and "painting" alike), and jieba's words of two characters or more."""
    out: dict[str, None] = {}
    for cjk, latin in _RUN.findall(text):
        if latin:
            w = latin.lower()
            if len(w) > 2 and w not in STOPWORDS:
                out[w] = None
        else:
            for w in jieba.cut(cjk, HMM=False):
                if len(w) > 1 and w not in ZH_STOPWORDS:
                    out[w] = None
    return tuple(out)


def is_multiline(query: str) -> bool:
    return sum(1 for line in query.splitlines() if line.strip()) >= 2


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
_vectors: dict[str, _LRU] = {}


def _words_of(m: Memory) -> tuple[str, ...]:
    # The content's hash too: two stores open in one process may hold one id.
    stamp = (m.version, hash(m.content))
    with _lock:
        found = _memory_words.get(m.id)
    if isinstance(found, tuple) and found[0] == stamp:
        return found[1]  # type: ignore[no-any-return]
    words = content_words(m.content)
    with _lock:
        _memory_words.put(m.id, (stamp, words))
    return words


def forget(memory_ids: Iterable[str]) -> None:
    """Drop purged memories' words from the cache (word vectors are keyed by the word
    alone and stay until evicted)."""
    with _lock:
        for mid in memory_ids:
            _memory_words.items.pop(mid, None)


def word_vectors(emb: Embedder, words: Sequence[str]) -> np.ndarray:
    """One unit vector per word (rows in the order given), embedding only the words the
    model's cache lacks."""
    with _lock:
        cache = _vectors.setdefault(emb.name, _LRU(_VECTORS_CACHE))
        have = {w: v for w in words if (v := cache.get(w)) is not None}
    missing = [w for w in dict.fromkeys(words) if w not in have]
    if missing:
        fresh = np.asarray(emb.embed_documents(missing), dtype=np.float32)
        with _lock:
            for w, v in zip(missing, fresh, strict=True):
                have[w] = v.astype(np.float16)
                cache.put(w, have[w])
    if not words:
        return np.zeros((0, emb.dim), dtype=np.float32)
    return np.stack([have[w] for w in words]).astype(np.float32)


def coverage(query: str, memories: Mapping[str, Memory], emb: Embedder,
             min_similarity: float) -> dict[str, float]:
    """Per memory id, 0..1: the idf-weighted share of the query's content words that the
    memory's text holds or nearly holds. {} when the query has no content word."""
    asked = content_words(query)
    if not asked or not memories:
        return {}
    said = {mid: _words_of(m) for mid, m in memories.items()}
    vocab = list(dict.fromkeys(w for words in said.values() for w in words))
    if not vocab:
        return dict.fromkeys(memories, 0.0)
    column = {w: i for i, w in enumerate(vocab)}
    sims = word_vectors(emb, list(asked)) @ word_vectors(emb, vocab).T  # asked x vocab
    for i, w in enumerate(asked):
        if w in column:  # the same word is 1 exactly (float16 vectors dot to 1 ± 1e-3)
            sims[i, column[w]] = 1.0
    sims[sims < min_similarity] = 0.0
    n = len(memories)
    df = {w: sum(1 for words in said.values() if w in words) for w in asked}
    idf = np.array([math.log(1.0 + n / (1.0 + df[w])) for w in asked])
    idf_sum = float(idf.sum())
    out = {}
    for mid, words in said.items():
        if not words:
            out[mid] = 0.0
            continue
        best = sims[:, [column[w] for w in words]].max(axis=1)
        out[mid] = float((idf * best).sum() / idf_sum)
    return out

"""Turn text into index terms, the same way for every backend.

Chinese runs are cut by jieba (search mode: long words also yield their parts, so
"导出格式" matches "导出" and "格式"); Latin words are lower-cased, stop words dropped
and Snowball-stemmed. The backends store and match these terms verbatim, so SQLite and
PostgreSQL rank the same text alike.
"""

from __future__ import annotations

import logging
import re
import threading
from functools import lru_cache

import jieba
import snowballstemmer

jieba.setLogLevel(logging.WARNING)

# The CJK scripts (Han, kana, Hangul) as the body of a regex character class; wordmatch
# splits words with it too.
CJK_RANGES = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_RUN = re.compile(rf"([{CJK_RANGES}]+)|([^\W_{CJK_RANGES}]+)", re.UNICODE)

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its
itself just me more most my myself no nor not of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves
s t d ll m re ve
""".split())

ZH_STOPWORDS = frozenset("""
的 了 是 在 和 就 都 也 而 及 与 着 或 吗 呢 吧 啊 么 把 被 让 给 个 这 那 之
""".split())

_CJK_CHAR = re.compile(f"[{CJK_RANGES}]")
_LATIN_WORD = re.compile(rf"[^\W\d_{CJK_RANGES}]+", re.UNICODE)


def mostly_cjk(text: str) -> bool:
    """Written mainly in Chinese, Japanese or Korean: at least as many CJK characters as
    other words (a Chinese word is one to two characters, so this leans to CJK only
    when most of the sentence is)."""
    cjk = len(_CJK_CHAR.findall(text))
    return cjk > 0 and cjk >= len(_LATIN_WORD.findall(text))


_lock = threading.Lock()
_stemmer = snowballstemmer.stemmer("english")


def stem(word: str) -> str:
    """The Snowball stem of one English word (what index terms are made of)."""
    return _stem(word)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    with _lock:  # snowballstemmer objects are not thread-safe
        return _stemmer.stemWord(word)


def terms(text: str) -> list[str]:
    """Index terms of `text` in order (duplicates kept: they carry term frequency)."""
    out: list[str] = []
    for m in _RUN.finditer(text):
        cjk, word = m.group(1), m.group(2)
        if cjk:
            for piece in jieba.cut_for_search(cjk):
                if piece and piece not in ZH_STOPWORDS:
                    out.append(piece)
        else:
            w = word.lower()
            if w in STOPWORDS:
                continue
            out.append(_stem(w) if w.isascii() and w.isalpha() else w)
    return out


def index_text(text: str) -> str:
    """Space-joined terms: what the full-text index stores."""
    return " ".join(terms(text))


def memory_index_text(content: str, valid_from: int | None) -> str:
    """What a memory is indexed under: its content, plus date words when it has an event
    date, so "what did I do last May" can match by full text."""
    base = index_text(content)
    if valid_from is None:
        return base
    from .timeexpr import date_terms

    return f"{base} {index_text(date_terms(valid_from))}"


def query_terms(text: str) -> list[str]:
    """Distinct terms of a query, order kept."""
    seen: dict[str, None] = {}
    for t in terms(text):
        seen.setdefault(t, None)
    return list(seen)

"""A statement's topic: a short, stable key for what it is about ("quiet cafes",
"花生 过敏"), derived from the statement itself when no declared slot names it.

The key is the statement's core (stance.core: the speaker, the stance and the framing
removed) reduced to its first content words, with the words that usually carry a value
rather than a subject left out (days, months, numbers, times). Two statements that take
opposite stances on the same thing get the same key. A memory keeps its topic across
versions: an update found by meaning (reads/related.py) inherits the key of the memory
it changes, so the key stays stable while the wording moves.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

import jieba

from ..textindex import CJK_RANGES, STOPWORDS, ZH_STOPWORDS, stem
from .stance import core

MAX_WORDS = 3
MAX_CHARS = 64

_VALUE_WORDS = frozenset("""
monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays
saturday saturdays sunday sundays weekday weekdays weekend weekends morning mornings
afternoon afternoons evening evenings night nights today tomorrow yesterday week weeks
month months year years january february march april may june july august september
october november december am pm daily weekly monthly hourly every each please want like
love hate prefer need would could should can will shall get got make made go going
actually again start started starting really just ever officially finally honestly totally
thing things stuff lol haha yeah
""".split())
_ZH_VALUE = re.compile(r"^(?:周[一二三四五六日天末]|星期.|礼拜.|[上下中]午|早上|晚上|每天|每周|"
                       r"每月|今天|明天|昨天|[0-9零一二三四五六七八九十百两]+.?|请|给|帮|把|让)$")
_WORD = re.compile(rf"[{CJK_RANGES}]+|[^\W\d_{CJK_RANGES}]+(?:'[a-z]+)?", re.UNICODE)
# One character is a word in Chinese (猫, 茶, 车), unless it only holds a sentence together.
_ZH_FUNCTION = frozenset("在是有和的了也都就还会要能想去来用给把被让对很太更最又再才只没不别说做"
                         "看吧啊呢吗嘛啦个些点一上下里中前后时次回种样得地着过而且或与及之其这那哪谁"
                         "我你他她它们咱俺您"
                         # everyday verbs: what one does, not what it is about
                         "吃喝玩买卖学写读听住走跑打开关坐站睡起叫让找等带拿放穿戴换改发")
_CJK = re.compile(f"[{CJK_RANGES}]")


def content_words(text: str, *, stemmed: bool = True, grams: bool = False) -> list[str]:
    """The words of `text` that can say what it is about, in order (English words
    stemmed unless `stemmed` is False, so "going by" meets "go by"). `grams`: Chinese
    runs also give their character pairs, since a short phrase is often cut other than
    the sentence it came from ("过道" alone is cut 过/道)."""
    return list(_content_words(text, stemmed, grams))


@lru_cache(maxsize=16384)  # the write path asks again about the same stored texts
def _content_words(text: str, stemmed: bool, grams: bool) -> tuple[str, ...]:
    out: list[str] = []
    for run in _WORD.findall(text):
        if _CJK.match(run):
            out += [w for w in jieba.cut(run) if w.strip() and w not in ZH_STOPWORDS
                    and not (len(w) == 1 and w in _ZH_FUNCTION) and not _ZH_VALUE.match(w)]
            if grams:
                out += [run[i:i + 2] for i in range(len(run) - 1)
                        if not (set(run[i:i + 2]) <= _ZH_FUNCTION)
                        and not _ZH_VALUE.match(run[i:i + 2])]
        else:
            w = run.casefold()
            if w.split("'")[0] in STOPWORDS:
                continue  # "i've", "it's"
            if len(w) > 1 and w not in STOPWORDS and w not in _VALUE_WORDS:
                out.append(stem(w) if stemmed else w)
    return tuple(out)


@lru_cache(maxsize=16384)
def _straddles(text: str) -> frozenset[str]:
    """The character pairs of `text` that only ever run two words of its together (the
    last of one word of two or more characters and the first of the next: 天早 in
    "明天早会"); a pair inside a word, or by a one-character word, is not one."""
    joins: set[str] = set()
    inside: set[str] = set()
    for run in _WORD.findall(text):
        if not _CJK.match(run):
            continue
        words = [w for w in jieba.cut(run) if w]
        for a, b in pairwise(words):
            (joins if len(a) >= 2 and len(b) >= 2 else inside).add(a[-1] + b[0])
        inside |= {w[i:i + 2] for w in words for i in range(len(w) - 1)}
    return frozenset(joins - inside)


def straddles(pair: str, *texts: str) -> bool:
    """Does a shared character pair only run two words together in each of `texts`?"""
    return all(pair in _straddles(t) for t in texts)


def topic_of(text: str) -> str | None:
    """The topic key of a statement, or None when it names nothing to be about."""
    words = list(dict.fromkeys(content_words(core(text), stemmed=False)))[:MAX_WORDS]
    if not words:
        return None
    return " ".join(words)[:MAX_CHARS]

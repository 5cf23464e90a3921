"""Whether a statement says a memory again: in fewer words or the same ones
(`restates`), at more length (`elaborates`), or as a slot value said less fully
(`says_again`). Close meaning is not enough: sentence vectors put "allergic to
shellfish" as close to "allergic to peanuts" as many paraphrases are to their memory, so
these compare words."""

from __future__ import annotations

import re

from ..textindex import terms
from .discourse import changes_mind
from .stance import core

__all__ = ["ELABORATES", "elaborates", "restates", "says_again", "words_of"]

# A statement this close in meaning to a memory, that says every word of it and no other
# value, says it again at more length ("我一碰猫就打喷嚏 猫毛过敏没办法" / "我对猫毛过敏").
ELABORATES = 0.72


def says_again(new: str, old: str, *, said: str | None = None) -> bool:
    """Restates the old statement, and what it was said as (`said`) has no word of
    change: a slot value said less fully ("我住南山这边" after "我住在深圳南山") is the same
    value, not a new one."""
    return not changes_mind(said or new) and restates(new, old)


def restates(new: str, old: str) -> bool:
    """Says nothing the old statement does not: every word of the new one's core but
    filler, its values included ("Thursday", "15", "四年级"), is in the old one. Close
    meaning is not enough: "allergic to shellfish" is not "allergic to peanuts"."""
    a, b = words_of(core(new) or new), words_of(core(old) or old)
    return not a - b - _FILLER


def elaborates(new: str, old: str) -> bool:
    """Says the old statement again, at more length: every word of the old one but the
    light ones is in the new one, and the new one adds no value of its own (a number, a
    Latin-script name, an amount). "我一碰猫就打喷嚏 猫毛过敏没办法" elaborates "我对猫毛
    过敏"; "我对狗毛过敏" does not (猫 is missing), nor does "I'm allergic to peanuts and
    shellfish"."""
    a, b = words_of(core(new) or new), words_of(core(old) or old)
    if b - a - _FILLER - _LIGHT:
        return False
    if any(_VALUE.search(w) for w in a - b - _FILLER):
        return False
    if _LIMITS.search(new) and not _LIMITS.search(old):
        return False  # "除了周末 我每天都跑步" narrows "我每天跑步": no longer the same
    return not set(_ZH_AMOUNT.findall(new)) - set(_ZH_AMOUNT.findall(old))


# Function words of Chinese that carry no fact a paraphrase must keep ("我对猫毛过敏",
# "提醒请发短信给我", "我每周一三五去游泳").
_LIGHT = frozenset("对 去 每 请 给 让 把 被 在 用 会 要 想 得 了 着 过 吧 呢 啊".split())
_VALUE = re.compile(r"[0-9A-Za-z]")
# An exception or a limit ("除了…", "只…", "但…", "except", "only", "unless").
_LIMITS = re.compile(r"除了|除非|之外|只有|只在|只是|仅|但是?|不过|\b(?:except|only|unless|but|"
                     r"apart\s+from|other\s+than)\b", re.I)
# An amount said in Chinese numerals ("五公里", "两杯"), not one that points back at what
# was just said ("这三天").
_ZH_AMOUNT = re.compile(r"(?<![这那])[零一二两三四五六七八九十百千万半几]+"
                        r"(?:公里|公斤|小时|分钟|个|只|里|斤|块|元|岁|次|天|周|年|月|点|杯|瓶|本|件|台|层|楼|米)")


# Words that add no fact of their own: how often, how surely, where-about ("most
# evenings", "一直都是", "南山这边"). Any other word the old statement lacks is news.
_FILLER = frozenset(
    "most usually generally normally mostly typically basically really still always "
    "pretty quite just mainly main around side part here there thing stuff lot bit "
    "now currently 现在 目前 如今 "
    "一直 都 是 的 还是 平时 一般 通常 基本 基本上 大多 大多数 主要 总是 老是 经常 也 还 就 "
    "这边 那边 这里 那里 附近 一带 左右 差不多 挺 蛮 很 比较 真的 确实 其实 用户".split())


# A list of weekdays said compactly ("周一三五", "星期二、四") is the same days said in full.
_WEEKDAYS = re.compile(r"(?:周|星期|礼拜)([一二三四五六日天](?:[、,，和及与]?[一二三四五六日天])+)")
def words_of(text: str) -> set[str]:
    """Every word but the function words: values count (the full-text index's terms).
    Chinese is cut into words, not characters, so "每天早上跑步" and "每天晚上跑步" differ in
    a word, not share six of seven."""
    return set(terms(_WEEKDAYS.sub(lambda m: " " + " ".join(f"周{d}" for d in re.findall(
        r"[一二三四五六日天]", m.group(1))) + " ", text)))

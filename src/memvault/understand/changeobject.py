"""What a change says it changes: the object of its verb of substitution.

"Switched my work laptop to a MacBook Air" changes a laptop; "我把手机号换成移动的了"
changes a phone number; "我信用卡换成了招行的" a credit card. A memory that does not name
that thing ("My main language at work is Java", "我的手机是华为 Mate 60", "我的工资卡在
招商银行") may still be what the change is about, as a guess, but a word they happen to
share ("work", 手机) or a topic class they share (a bank, a phone) does not make it sure:
such a change is staged against it, for a person to confirm (relate.py). Before, each of
these overwrote the memory.
"""

from __future__ import annotations

import re

import jieba

from ..textindex import terms
from .discourse import SPEAKER, beyond_change
from .matchwords import NUMBER, time_words
from .topics import content_words

__all__ = ["announced_only", "changed_thing", "names_object"]

_EN = re.compile(
    r"\b(?:switch(?:ed|ing)?|chang(?:e|ed|ing)|mov(?:e|ed|ing)|swap(?:ped|ping)?|"
    r"transferr?(?:ed|ing)?|shift(?:ed|ing)?|replac(?:e|ed|ing))\s+(?:over\s+)?"
    r"(?:all\s+)?(?:of\s+)?(?:my|our)\s+((?:[a-z][a-z-]*\s+){0,2}?[a-z][a-z-]*)"
    r"\s+(?:over\s+|across\s+)?(?:to|for|into|with)\b", re.I)
# 把 X 换成 / 改到 …; X 换成 … right after the speaker or a clause's start
_ZH = re.compile(
    r"把(?:我们的?|我的?)?([\u4e00-\u9fffA-Za-z]{1,6}?)(?:都|也|全|全部)?(?:换|改|转(?![给发告交达述])|调|迁|挪|搬)|"
    r"(?:^|我的?|[，,。\s])(?![我把])([\u4e00-\u9fff]{2,4}?)(?:也|都)?(?:换成|改成|换到|转到|改到|迁到)")
# Heads that name no thing of their own ("changed my mind to…", "moved my stuff to…").
_NO_THING = frozenset("mind stuff things everything it them plans plan".split())


def changed_thing(statement: str) -> tuple[str, str | None] | None:
    """The head of what the statement says it switches, moves or changes ("laptop" in
    "switched my work laptop to a MacBook", "信用卡" in "我信用卡换成了招行的"), with the side
    of life it is said to be of ("work"), or None when it names none ("switched to
    Neovim", "搬到杭州了", "现在换成小米了")."""
    if m := _EN.search(statement):
        *said, head = (w.casefold() for w in m.group(1).split())
        return None if head in _NO_THING else (head, next((w for w in said if w in _SIDES),
                                                          None))
    if m := _ZH.search(statement):
        thing = m.group(1) or m.group(2)
        words = _words(thing)
        # "通知时间改成…", "回复语言改成…": how a thing is done, not a thing
        return (thing, None) if words and not any(w.endswith(_HOW) for w in words) else None
    return None


# What an arrangement is made by, not a thing of its own.
_HOW = tuple("方式 时间 格式 语言 地点 频率 称呼 渠道 颜色 风格 语气 时段 日子 周期 提醒 通知 "
              "版本 字体 主题 模式 单位 币种 长度 顺序".split())


# Sides of life a thing is of: a work laptop is not the personal one.
_SIDES = frozenset("work personal home office private business".split())
# Nouns a thing names a part of ("phone number", "phone case"): the thing as a modifier.
_PART = ("number", "numbers", "case", "bill", "plan", "contract", "charger", "provider",
         "network", "address", "account", "password", "screen", "cover", "insurance", "id")


def names_object(memory: str, thing: str, side: str | None = None) -> bool:
    """Does `memory` name `thing`, a word of it as a whole ("手机号" is not named by "我的
    手机", "phone" not by "my phone number", "常用邮箱" is by "我的邮箱是…"), or a Chinese
    activity with its parts apart ("看书" in "用微信读书看电子书")? `side`: the side of life
    the change said the thing is of; a memory of another side ("My personal laptop…" for
    a work laptop) does not name it."""
    if thing[0] >= "\u2e80":
        words = _words(thing)
        said = set(jieba.cut(memory, HMM=False))
        return bool(words & said) or any(
            len(w) == 2 and re.search(f"{re.escape(w[0])}.{{1,3}}{re.escape(w[1])}", memory)
            for w in words)
    stem = set(terms(thing))
    tokens = re.findall(r"[A-Za-z][\w'-]*", memory)
    for i, tok in enumerate(tokens):
        if not stem & set(terms(tok)):
            continue
        after = tokens[i + 1].casefold() if i + 1 < len(tokens) else ""
        before = tokens[i - 1].casefold() if i else ""
        if after in _PART or (side and before in _SIDES and before != side):
            continue
        return True
    return False


# When and how much, not what: "周报现在改成…", "把看书全搬到…".
_NOT_A_THING_ZH = frozenset(
    "现在 以后 最近 已经 都 全 也 又 还 就 今天 这次 这周 今年 还是 其实 干脆 直接 "
    "那 那就 先 再 统一 一律 索性 不对 算了 然后 所以 平时 要 想 后来 之后 接着 最后 终于 总算 "
    "结果 于是 目前 如今 上周 下周 明天 昨天 周末 早就 刚刚 刚 今年 去年 上个月 这个月".split())


def _words(thing: str) -> set[str]:
    """A Chinese object's words as said, whole ("手机号", not 手机 and 号)."""
    return {w for w in jieba.cut(thing, HMM=False) if w.strip() and w not in _NOT_A_THING_ZH}


# A change said to be coming, not made: "is moving", "is getting rescheduled", "要换时间了".
_COMING = re.compile(
    r"\b(?:is|are|['’]s|['’]re)\s+(?:(?:about|going)\s+to\s+(?:move|change|shift)|"
    r"(?:being|getting)\s+(?:moved|changed|rescheduled|shifted|pushed)|"
    r"(?:moving|changing|shifting))\b|\bwill\s+(?:be\s+)?(?:move|change|shift)"
    r"|(?:要|快要|将要?|准备|打算)(?:换|改|调|挪|变)(?!成|到|为)", re.I)
# What a change of it names besides the thing: what changes about it ("time", "时间"),
# and words that only open a line ("heads up", "btw").
_ASPECT = frozenset("time times day days date dates slot place venue room schedule timing "
                    "时间 日子 日期 地方 地点 时段 安排 head heads btw fyi".split())


def announced_only(statement: str, memory: str) -> bool:
    """Does the statement say a change of the memory's thing is coming, and nothing it
    will be ("my standup is moving btw", "钢琴课要换时间了")? Until the new value is said,
    the memory's holds. Not a change made ("the dentist moved my appointment": the old
    date no longer holds), nor one that says its value ("…moving to 10:15", "改到周五")."""
    if not _COMING.search(statement) or NUMBER.search(statement):
        return False
    if time_words(statement):
        return False
    theirs = set(content_words(memory))
    # (a Chinese word is the memory's when the memory says it, however jieba cuts it
    # there: "站会" of "开站会")
    rest = [w for w in content_words(beyond_change(_COMING.sub(" ", statement)))
            if not (w in memory if w[0] >= "\u2e80" else w in theirs)
            and w.casefold() not in _ASPECT and not _SOMEONE.fullmatch(w)]
    return not rest


_SOMEONE = re.compile(r"[我咱俺你您]们?|" + SPEAKER.pattern, re.I)

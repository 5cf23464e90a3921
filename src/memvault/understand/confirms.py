"""The user affirming what is already known: "you remembered right", "that's what I
said", "你记得没错", "我说的就是周六 没说错", "这个规矩一直有效".

A confirmation is a discourse move of its own, like a change of mind or a take-back: it
says the stored thing holds, so it adds no memory. The words that carry it are few and
the same whatever is confirmed, which is why a short lexicon covers lines nobody wrote
a rule for; what is confirmed is found by meaning (relate.py) or, for a reply, by the
words of the assistant's line it answers (`echoes`).
"""

from __future__ import annotations

import re

from .discourse import changes_mind
from .saidagain import words_of

__all__ = ["confirmed", "confirms", "confirms_only", "echoes", "without_confirming"]

_CONFIRMS = re.compile(
    r"\b(?:that['’]?s|thats|that\s+is|it['’]?s|its)\s+(?:exactly\s+|just\s+)?what\s+i\s+"
    r"(?:said|meant|mean|told\s+you|wrote)\b"
    r"|\b(?:you|u)\s+(?:got\s+(?:it|that)\s+right|remembered?\s+(?:it\s+|that\s+)?"
    r"(?:right|correctly)|(?:are|['’]re|r)\s+(?:right|correct))\b"
    r"|\b(?:that['’]?s|thats|that\s+is)\s+(?:right|correct)\b"
    r"|\bi\s+meant\s+(?:it|that|what\s+i\s+said)\b|\bno\s+(?:typo|mistake)\b"
    r"|\bnot\s+a\s+(?:typo|mistake)\b|\bas\s+you\s+know\b|\byou\s+(?:already\s+)?know\s+"
    r"(?:that|this)\b|\bstill\s+(?:stands|holds|applies)\b"
    r"|你?(?:记得|记)(?:没错|对了|很对|是对的)|你?没记错|我?没说错|说的?没错|我?说的就是"
    r"|你(?:是|也|应该)?知道的?(?:吧|嘛|呀|啊)?(?=[，,。！!？?\s]|$)"
    r"|(?:一直|依然|仍然|还是|继续|照样|都)有效|还算数|就是这个(?:时间|意思)?|没错"
    , re.I)

# What a confirmation leaves that names nothing: a yes, a laugh, a pointer, a joiner.
_EMPTY = frozenset(
    "yes yep yeah yup ok okay sure right correct exact inde and so lol haha "
    "对 对的 是 是的 嗯 嗯嗯 哦 噢 好 好的 这个 那个 这事 那事 规矩 哈 哈哈 呀 啊 吧 呢 的".split())


def confirms(text: str) -> bool:
    """Does the line affirm that what is known holds?"""
    return bool(_CONFIRMS.search(text))


def without_confirming(text: str) -> str:
    """The line without its words of confirmation."""
    return _CONFIRMS.sub(" ", text)


def confirms_only(text: str) -> bool:
    """A confirmation and nothing else ("that's what i said and that's what i meant",
    "没说错")."""
    return confirms(text) and not _rest(without_confirming(text))


def echoes(reply: str, said: str) -> bool:
    """Does a reply to the assistant's line `said` only affirm it: a confirmation whose
    every other word is in that line ("Saturday morning, not Sunday?" / "yep saturday.
    that's what i said")? It tells nothing the line it answers did not."""
    if not confirms(reply):
        return False
    return not _rest(without_confirming(reply)) - words_of(said)


def _rest(text: str) -> set[str]:
    return {w for w in words_of(text) if w not in _EMPTY}


def confirmed(statement: str, memory: str) -> bool:
    """Does the statement confirm the memory: say that it holds, change nothing, and
    name no value (a number, a Latin-script name) the memory lacks? "对 朵朵就是我闺女 五岁
    你记得没错" confirms "我女儿叫朵朵 今年五岁"; "that's right, it's 4pm now" does not
    confirm "…at 3pm"."""
    if not confirms(statement):
        return False
    rest = without_confirming(statement)
    return not changes_mind(rest) and not any(
        _VALUE.search(w) for w in _rest(rest) - words_of(memory))


_VALUE = re.compile(r"[0-9A-Za-z]")

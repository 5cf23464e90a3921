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

from .discourse import adds, changes_mind
from .saidagain import words_of

__all__ = ["after_confirming", "confirmed", "confirms", "confirms_only", "echoes",
           "without_confirming"]

_CONFIRMS = re.compile(
    # "that's what I said", "exactly what I asked for"
    r"\b(?:that['’]?s|thats|that\s+is|it['’]?s|its|exactly)\s+(?:exactly\s+|just\s+)?what\s+"
    r"i\s+(?:said|meant|mean|told\s+you|wrote|asked\s+for|wanted)\b"
    # "you got it right", "you've got the climbing thing right", "you remember everything"
    r"|\b(?:you|u)(?:['’]ve|\s+have)?\s+got\s+(?:it|that|(?:the\s+)?[\w-]+(?:\s+(?:thing|bit|"
    r"part|one))?)\s+right\b"
    r"|\b(?:you|u)\s+remember(?:ed)?\s+(?:it\s+|that\s+)?(?:right|correctly|everything|well)\b"
    r"|\b(?:you|u)(?:\s+are|['’]re|\s+r)\s+(?:right|correct)\b|\bgood\s+memory\b|\bspot\s+on\b"
    r"|\b(?:that['’]?s|thats|that\s+is)\s+(?:right|correct)\b|^\s*(?:correct|exactly)\b"
    r"|\bi\s+told\s+(?:you|u)\s+(?:that\s+|this\s+)?(?:before|b4|already)\b"
    r"|\bi\s+meant\s+(?:it|that|what\s+i\s+said)\b|\bno\s+(?:typo|mistake)\b"
    r"|\bnot\s+a\s+(?:typo|mistake)\b|\bas\s+you\s+know\b|\byou\s+(?:already\s+)?know\s+"
    r"(?:that|this)\b|^\s*(?:you|u)\s+know\s+(?=i\s)|,?\s*right\s*\?(?=\s*(?:just|$))"
    r"|\bjust\s+making\s+sure\b|\bstill\s+(?:stands|holds|applies)\b"
    r"|你?(?:记得|记)(?:没错|对了?|很对|是对的)|你?没记错|我?没说错|说的?没错|我?说的就是"
    r"|你说[得的]?对|^\s*说[得的]对|你(?:是|也|应该)?知道的?(?:吧|嘛|呀|啊)?(?=[，,。！!？?\s]|$)"
    r"|(?:一直|依然|仍然|还是|继续|照样|都)有效|还算数|就是这个(?:时间|意思)?|没错"
    , re.I)

# What a confirmation leaves that names nothing: a yes, a laugh, a pointer, a joiner.
_EMPTY = frozenset(
    "yes yep yeah yup ok okay sure right correct exact inde and so lol haha ha "
    "对 对的 是 是的 嗯 嗯嗯 哦 噢 好 好的 这个 那个 这事 那事 规矩 哈 哈哈 呀 啊 吧 呢 的 "
    "那儿 这儿 那里 这里 那边 这边 确实".split())


# What is left at the front once the confirmation is gone: a mark, a yes, a "but".
_JOINER = re.compile(r"^(?:[\s,，.。!！~～:：;；—–-]|\b(?:yes|yep|yeah|yup|but|though|"
                     r"however)\b|对的?|是的|嗯+|但是?|不过|可是)+", re.I)


def confirms(text: str) -> bool:
    """Does the line affirm that what is known holds?"""
    return bool(_CONFIRMS.search(text))


def without_confirming(text: str) -> str:
    """The line without its words of confirmation."""
    return _CONFIRMS.sub(" ", text)


def after_confirming(text: str) -> str:
    """What the line says besides its confirmation, from its first word ("you're right,
    but I've moved it to Friday now" -> "I've moved it to Friday now")."""
    kept = [m for m in _CONFIRMS.finditer(text) if _OWN_CLAUSE.match(text, m.end())]
    for m in reversed(kept):  # a confirmation in a clause of its own, not "that's what I
        text = text[:m.start()] + " " + text[m.end():]  # said to my boss too"
    return _JOINER.sub("", text).strip()


# What ends a clause of its own after a confirmation: a mark, the end, or a "but".
_OWN_CLAUSE = re.compile(r"\s*(?:[,，.。!！?？~～:：;；—–-]|$|(?:but|though|however)\b|"
                         r"(?:不过|但|可是))", re.I)


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
    """Does the statement confirm the memory: say that it holds, change and add nothing
    ("没说错～另外我对芒果也过敏" adds), and name no value (a number, a Latin-script
    name) the memory lacks? "对 朵朵就是我闺女 五岁 你记得没错" confirms "我女儿叫朵朵
    今年五岁"; "that's right, it's 4pm now" does not confirm "…at 3pm"."""
    if not confirms(statement):
        return False
    rest = without_confirming(statement)
    return not changes_mind(rest) and not adds(rest) and not (
        _values(rest) - _values(memory, every=True))


def _values(text: str, every: bool = False) -> set[str]:
    """The values a text names: numbers, and names — a capitalised word not opening the
    line, or any Latin word in Chinese text ("python" in "我确实是写python的"). `every`:
    every word, so that a value said in lower case still counts as the memory's."""
    latin = re.findall(r"[A-Za-z][A-Za-z0-9'’-]*|\d[0-9A-Za-z.:]*", text)
    if every or re.search(r"[\u4e00-\u9fff]", text):
        return {w.casefold() for w in latin} - _EMPTY
    return {w.casefold() for w in latin[1:] if w[0].isupper() or w[0].isdigit()} | {
        w for w in latin[:1] if w[0].isdigit()}

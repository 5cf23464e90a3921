"""News of a thing the user has or uses is not news of the user.

A memory says the user has, uses or does something ("My laptop is a MacBook Air", "I
watch films on Netflix", "我用印象笔记记东西", "I work as a paramedic"). A line about how
that thing is doing ("ugh my macbook keyboard keeps sticking lately", "netflix put their
prices up again", "印象笔记最近又涨价了", "work has been brutal lately") carries a time
word or a word of change, and it is close in meaning, yet what the memory says still
holds: the user has not said anything new about themselves. Two shapes of it:

- `of_the_thing`: a part of the thing named by a possessive ("spotify's shuffle…",
  "美团的配送费…");
- `how_it_is_doing`: the line opens with the thing itself and says how it behaves or
  what it did, with no one of the user's side in it and no value (a number, a day, a
  name) that could be the memory's new one.

Both are asked only of a line already read as a change; relate.py keeps the memory.
"""

from __future__ import annotations

import re

from ..textindex import STOPWORDS
from .discourse import SPEAKER, about_someone
from .matchwords import NUMBER, Match, named_words, time_words
from .stance import polarity

__all__ = ["how_it_is_doing", "of_the_thing"]

# Words that only open a line ("ugh", "lol", "哎"), and time words before the thing.
_FILLER = re.compile(r"^(?:\s*(?:ugh+|lol|omg|honestly|ok(?:ay)?|so|and|but|well|man|welp|"
                     r"sigh|btw|fyi|heads\s+up|哎+|唉+|啊+|嗯+|诶+|哈+)[\s,，!！.。:：]*)+", re.I)
_LEAD_TIME = re.compile(r"^(?:\s*(?:lately|recently|these\s+days|最近|这阵子|这几天|这段时间|"
                        r"现在)[\s,，]*)+", re.I)
# A part of the thing, named by a possessive: "spotify's shuffle", "美团的配送费".
_PART = re.compile(r"([A-Za-z][\w-]*)['’]s\s+(?!(?:gone|out|over|dead|done)\b)[a-z]|"
                   r"([\u4e00-\u9fff]{2,4}?)的(?=[\u4e00-\u9fff])", re.I)
# What before a thing says the user does something with it ("I listen to music on …",
# "我用…"; not "my …", "我的…").
_USES = re.compile(r"\b(?:i|i'm|i've|we|we're)\s+\S+|我(?!的|们的)\S", re.I)
# "my …" / "our …" / "the …" before the thing, and the speaker's possessive 我的.
_OWNER = re.compile(r"^(?:(?:my|our|the)\s+|我的|我们的)", re.I)
# The user's side anywhere after that: "for me", "I", "my go-to", "我".
_SELF = re.compile(r"\b(?:i|i['’]m|i['’]ve|i['’]d|i['’]ll|im|ive|me|my|mine|myself|we|"
                   r"we['’]re|us|our)\b|[我咱俺]", re.I)
# A name the line gives, which the memory's next version could hold as its value.
_CAPITAL = re.compile(r"(?<=\s)(?-i:[A-Z][\w-]*)")
# "is a ThinkPad now", "是乐刻的": a plain copula says what the thing is, a value.
_IS = re.compile(r"(?:\b(?:is|are)|['’]s)\b(?!\s+(?:been|gotten|getting|being|so|too|way|"
                 r"always|really|super|kinda|such)\b)", re.I)
# A verb of the user's own doing right after the thing (the subject unsaid): "打车基本都用
# 高德了" is the user's way of getting a taxi, not news of taxis.
_ADVERBS_ZH = r"[最近又都也还基本一般平时现在已经总是老是经常全就才再]*"
_DOES_ZH = re.compile(rf"^{_ADVERBS_ZH}(?:用|去|吃|喝|坐|买|住|换|改|搬|转|练|跑|骑|开|办|选|"
                      r"订|报|在|是|只|不|没|别|要|能|会|可以)")
# The user's leaving it, anywhere after the thing, the subject unsaid: "电信到期了转了联通".
_LEFT_ZH = re.compile(r"转|换|改|搬|退|续|停|取消|卸载|注销|不用|不去|不再")
# News that ends the thing, or the user's having it ("the gym closed down", "macbook died",
# "健身房倒闭了", "卡到期了"): what the memory says no longer holds, whoever did it.
_ENDED = re.compile(r"\b(?:closed|clos(?:ing|es)\s+down|shut(?:ting)?\s+down|shut|went\s+bust|"
                    r"bankrupt|discontinued|died|dead|broke|broken|stolen|gone|ended|expired|"
                    r"cancell?ed|fired|laid\s+off|let\s+go|over)\b|倒闭|关门|停业|没了|停产|下架|"
                    r"到期|坏了|丢了|被偷|报废|黄了|停了|结束|裁|辞退|开除|搬走|拆了", re.I)
# Time words that place the news, not a value ("最近", "lately").
_NOT_A_VALUE = frozenset({"最近", "每天"})


def of_the_thing(statement: str, memory: Match) -> bool:
    """Is the statement about a part of a thing the memory says the user uses, likes or
    does, named by a possessive ("spotify's shuffle…", "美团的配送费…"), the speaker
    nowhere? Not of a memory whose own subject the thing is ("My gym membership costs 40"
    and "gym's putting the membership up"). (Without a possessive the thing may be the
    user's own change, the subject unsaid: "健身卡到期没续…".)"""
    if SPEAKER.search(statement):
        return False
    opening, theirs = _FILLER.sub("", statement), memory.content
    part = _PART.match(opening)
    if part is None:
        return False
    owner = part.group(1) or part.group(2)
    if owner.isascii():
        shared = named_words(owner) & named_words(theirs)
        at = next((w.start() for w in re.finditer(r"[A-Za-z][\w-]*", theirs)
                   if shared & named_words(w.group(0))), -1)
    else:
        at = theirs.find(owner) if owner in named_words(theirs) else -1
    return at > 0 and bool(_USES.search(theirs[:at]))


def how_it_is_doing(statement: str, memory: Match) -> bool:
    """Does the statement open with a thing the memory names and say only how it is
    doing ("work has been brutal lately", "my macbook keyboard keeps sticking",
    "印象笔记最近又涨价了"): nothing that ends it ("closed down", "倒闭了"), no one of
    the user's side after the thing, no plain "is" (what it is now is a value: "my editor
    is neovim now"), and no number, day or name the memory could take as its new value?
    Asked of a memory of what the user has or does, not of a stance."""
    if polarity(memory.content):
        # a stance on the thing ("我很喜欢吃香菜") is changed by a reaction to it ("最近香菜
        # 一闻就反胃"): news of a thing leaves only what the user has or does
        return False
    line = _LEAD_TIME.sub("", _FILLER.sub("", statement)).lstrip()
    if about_someone(line) or _ENDED.search(line):
        # a person is no thing: what "my sister" does now is news of her, and her memory's;
        # and what ends the thing ends the user's having it
        return False
    line = _OWNER.sub("", line)
    theirs = named_words(memory.content) | (named_words(memory.said) if memory.said else set())
    if line[:1].isascii():
        first = re.match(r"[A-Za-z][\w-]*", line)
        if first is None or not (named_words(first.group(0)) & theirs):
            return False
        rest = line[first.end():]
        if _IS.search(re.split(r"[,;.!?]", rest)[0]):
            return False
    else:
        head = next((w for w in sorted(theirs, key=len, reverse=True)
                     if w[0] >= "\u2e80" and len(w) >= 2 and line.startswith(w)), "")
        if not head:
            return False
        rest = line[len(head):]
        # (nor any later clause that opens with the user's doing: "…过敏好了，现在能吃了")
        if any(_DOES_ZH.match(_LEAD_TIME.sub("", c.strip()))
               for c in [rest, *re.split(r"[，,。；;！!\s]+", rest)[1:]] if c.strip()) \
                or _LEFT_ZH.search(rest):
            return False
    # a name it gives: capitalised, not a word capitalised for emphasis ("AGAIN")
    names = {w.casefold() for w in _CAPITAL.findall(statement)} - theirs - STOPWORDS \
        - {w.casefold() for w in re.findall(r"[A-Za-z][\w-]*", memory.content)}
    return not (_SELF.search(rest) or NUMBER.search(statement)
                or time_words(statement) - _NOT_A_VALUE or names)

"""Conversation cues in ranking: who said a turn, and whether it only asks.

Two score parts that similarity alone misses (docs/retrieval.md, "Conversation cues"):

- `speaker`: the query names the person who said the memory ("What does Nate like?"
  and a turn Nate said). A memory's speaker is `metadata["speaker"]`; imports and
  `observe()` messages with a `name` set it. Matching is on whole words (any script
  without spaces, such as Chinese, matches as a substring).
- `question`: a `turn` whose last sentence is a question (a final "?" or "？"; in
  Chinese also a last clause that ends with 吗 or a question word, or holds an A-not-A
  pair such as 是不是: `is_question`). A question repeats the words of a later query but
  holds no answer; the answer is in the reply, which the turn context (turnctx.py)
  indexes with the question's words.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .config import AsksBack
from .model import Kind, Memory

_CLOSERS = "\"'”’)）」』》】]* \t\r\n"


# The metadata key of a turn's sequence number in its scope (data-model.md, "Turn order").
SEQ = "turn_seq"


def turn_seq(m: Memory) -> int | None:
    seq = m.metadata.get(SEQ)
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


def speaker_of(m: Memory) -> str | None:
    raw = m.metadata.get("speaker") if isinstance(m.metadata, dict) else None
    if isinstance(raw, str) and raw.strip():
        return raw.strip()
    return None


@lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    if name.isascii():
        return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)
    return re.compile(re.escape(name), re.IGNORECASE)


def names_in(query: str, speakers: set[str]) -> set[str]:
    """The speakers that `query` names by their full name or by their first name."""
    named = set()
    for s in speakers:
        forms = {s, s.split()[0]} if " " in s else {s}
        if any(_name_pattern(f).search(query) for f in forms if len(f) >= 2):
            named.add(s)
    return named


# Chinese chat often drops the question mark. Without it, a last clause still asks when
# it ends with 吗 or on a question word (+ up to three characters: 去哪儿了, 什么名字,
# 怎么办), asks back (那你呢), or holds an A-not-A pair (是不是, 有没有); not when the
# clause reports or generalises a question (我问他去哪儿了, 不知道为什么, 什么都行,
# 没什么) or the text ends with a full stop or an exclamation mark.
_WH = r"什么|什麼|哪|谁|誰|怎么|怎麼|为什么|為什麼"
_ZH_ASKS = re.compile(
    rf"({_WH}|怎样|怎樣|多少|几点|几岁|幾點|幾歲)[\u4e00-\u9fff]{{0,3}}$"
    rf"|({_WH})[^都也]*呢$"
    r"|^[那还]?(你|您|他|她|它|你们|他们|她们|然后|后来|结果|其他|别人)呢$"
    r"|是不是|有没有|有沒有|好不好|对不对|對不對|行不行|要不要|能不能|会不会|會不會|可不可以")
_ZH_NOT_ASKING = re.compile(
    r"问|問|知道|晓得|清楚|记得|記得|明白|不管|无论|無論|没什么|沒什麼|不怎么|不怎麼"
    r"|多少有|多多少少|(什么|什麼|哪\S?|谁|誰|怎么|怎麼)[都也]")
_CLAUSE_BREAK = re.compile(r"[，,、；;：:。！!？?…\s]")


def is_question(text: str) -> bool:
    """Ends with a question mark, or (Chinese chat often drops the mark) its last clause
    asks in Chinese: the particle 吗, a final question word, or an A-not-A pair."""
    end = text.rstrip(_CLOSERS + "~～")
    if end.endswith(("?", "？")):
        return True
    end = end.rstrip("。.")
    if end.endswith(("吗", "嗎")):
        return True
    if text.rstrip(_CLOSERS + "~～").endswith(("。", "！", "!", ".")):
        return False
    clause = _CLAUSE_BREAK.split(end)[-1]
    return bool(_ZH_ASKS.search(clause)) and not _ZH_NOT_ASKING.search(clause)


# What a turn tells besides its questions, in words (a Han character counts as half a
# word), for `retrieval.asks_back`: "Wow! What got you into running?" tells 1 word and only
# asks; "Went hiking at Mount Tam with my cousin Leo, ... How about you?" tells and asks
# back. A transcript header ("[2:33 pm on 5 May, 2023] Maria:") and the turn's other
# questions tell nothing.
_LABEL = r"(?!\d)[^\s:：\[\]，。,.!?]{1,20}"
_HEADER = re.compile(rf"^\s*(?:\[[^\]\n]{{1,60}}\]\s*)?"
                     rf"(?:{_LABEL}(?: {_LABEL})?\s*(?::\s+|：\s*))?")
# Sentence ends: . ! ? followed by a space (not the dot of "3.5" or "St.Mary"), and the
# full-width 。！？, which need no space.
_SENTENCES = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_WORD = re.compile(r"[^\W\d_]{2,}|\d+")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def without_header(text: str) -> str:
    """`text` without a leading transcript header ("[2:33 pm on 5 May, 2023] Maria:")."""
    return _HEADER.sub("", text, count=1)


def words_told(text: str) -> float:
    """How much `text` tells in its sentences before the last, questions left out, in
    words."""
    sentences = [s for s in _SENTENCES.split(without_header(text).strip())
                 if s.strip()]
    told = 0.0
    for s in sentences[:-1]:
        if s.rstrip(_CLOSERS).endswith(("?", "？")):
            continue
        told += len(_WORD.findall(_HAN.sub(" ", s))) + len(_HAN.findall(s)) / 2
    return told


def asking(m: Memory, asks_back: AsksBack | None = None) -> float:
    """How much a turn only asks: 0 for a memory that is not a turn ending with a
    question; else 1, or with `asks_back` set, 1 up to `only_asks` words told, 0 from
    `tells` on, linear between."""
    if m.kind != Kind.TURN.value or not is_question(m.content):
        return 0.0
    if asks_back is None:
        return 1.0
    told = words_told(m.content)
    return min(1.0, max(0.0, (asks_back.tells - told) / (asks_back.tells - asks_back.only_asks)))

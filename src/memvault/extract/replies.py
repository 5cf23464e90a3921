"""Lines that give only a new value ("太早了，15 分钟吧", "hmm, Excel actually"), kept as
candidates in their place among the extractor's, for the write path to read against
what was said just before them (understand/ellipsis.py, threadlinks.reply_change).

An extractor reads a line on its own, and such a line says nothing on its own: it takes
nothing from it, or keeps the line itself ("Hmm make it 8pm" as a correction whose
content is those words, which would replace "Remind me at 7pm every day" with them). So
a REPLY candidate is made for each such user line from which the extractor read no slot,
placed before the extractor's candidates of the line; the write path drops it unless the
statement before it holds the value it swaps, and drops the extractor's candidates of the
line when it does.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ..textindex import CJK_RANGES
from ..understand.confirms import after_confirming
from ..understand.ellipsis import is_reply, repair_word, repaired
from ..understand.repair import only_admits, owns_slip, refuses, slip
from .candidate import CandidateMemory
from .cues import IF_CLAUSE
from .messages import Message
from .whatifs import HYPOTHETICAL

REPLY = "reply_value"
# A Chinese line's parts, where spaces stand for commas ("啊不对 是一杯 下午那杯早就戒了").
_CJK_PART = re.compile(rf"(?<=[{CJK_RANGES}])\s+(?=[{CJK_RANGES}])")
# The assistant asking whether it has a thing right, and the user saying no at once.
_ASKED = re.compile(r"[?？]\s*$")
_SAYS_NO = re.compile(r"\s*(?:no+|nope|nah|not\s+quite|wrong|actually\s+no)\b|\s*(?:不是|不对|错了|"
                      r"没有|不)(?![\u4e00-\u9fff]{3})", re.I)
# Sentence ends, not the point of a decimal ("1.5 hours").
_SENTENCE = re.compile(r"(?<=[.!?。！？])(?!\d)\s*|\n+")


def message_of(c: Any, msgs: list[Message]) -> int | None:
    """The index of the message a candidate came from: the message it names, or else the
    first whose text holds its source span (an extractor guarantees one does), a user's
    before any other (an assistant may quote the line: "just say: make it 8pm")."""
    for i, m in enumerate(msgs):
        if c.message_id is not None and m.id == c.message_id:
            return i
    for user in (True, False):
        for i, m in enumerate(msgs):
            if (m.role == "user") == user and c.source_text and c.source_text in m.content:
                return i
    return None


def turn_of(c: Any, msgs: list[Message], turn_ids: list[str]) -> str | None:
    """The stored turn (`turn_ids`, one per message) a candidate came from."""
    i = message_of(c, msgs)
    return turn_ids[i] if i is not None and i < len(turn_ids) else None


def said_before(msgs: list[Message], c: Any, turn_ids: list[str],
                stated: dict[str | None, list[str]]) -> list[str] | None:
    """What the user message before the one `c` came from stored or changed (`stated`,
    by turn), in this call; None when it is the call's first user message."""
    i = message_of(c, msgs)
    j = next((j for j in range(i - 1, -1, -1) if msgs[j].role == "user"), None) \
        if i is not None else None
    if j is None:
        return None
    return stated.get(turn_ids[j] if j < len(turn_ids) else None, [])


def with_replies(msgs: list[Message], candidates: list[Any]) -> list[Any]:
    """`candidates`, with a REPLY candidate for each user line that gave no slot and may
    be a bare-value reply, placed before the candidates of that line and after those of
    the lines before it."""
    read = {message_of(c, msgs) for c in candidates if c.slot is not None}
    # a take-back gives no value ("Scratch that." is not a cat called Scratch)
    taken = {message_of(c, msgs) for c in candidates if "retraction" in c.flags}
    out = list(candidates)
    for i, m in enumerate(msgs):
        if m.role != "user" or (i in read and not slip(m.content)) or i in taken:
            continue  # a slot read is the better reading, unless the line repairs a slip
        # The line, or its last sentence after sentences that give the reason ("30 mins is
        # too much warning, i just forget again by the time it starts. make it 10 min
        # before").
        said = m.content.strip()
        if HYPOTHETICAL.search(said) or IF_CLAUSE.search(said):
            continue  # "要是再生一个，…": a what-if names no value the user holds
        # "no, Wednesday" to the assistant's "your class is Tuesday, right?"
        asked = msgs[i - 1].content if i and msgs[i - 1].role == "assistant" and _ASKED.search(
            msgs[i - 1].content) and _SAYS_NO.match(said) else None
        if not (asked and is_reply(said, marked=True)) and not is_reply(said) \
                and repair_word(said) is None and not refuses(said):
            # or its last sentence, or the repair its first part makes ("啊不对 是一杯 下午
            # 那杯早就戒了 …")
            parts = [p.strip() for p in _SENTENCE.split(said) if p.strip()]
            cjk = _CJK_PART.split(said)
            heads = [h for h in (" ".join(cjk[:k]) for k in range(1, len(cjk))) if slip(h)]
            said = next((p for p in (parts[-1] if parts else "", after_confirming(said), *heads)
                         if p and p != m.content.strip() and is_reply(p)), "") or (
                # a slip of a statement said earlier, owned up to at length (threadlinks)
                said if owns_slip(said) else "")
            if not said:
                continue
        reply = CandidateMemory(content=said, kind="fact", slot=None, value=None,
                                source="user_explicit", confidence=0.9,
                                source_text=said, message_id=m.id,
                                explicit=True, flags=[REPLY], at=m.at, asked=asked)
        at = next((n for n, c in enumerate(out)
                   if (k := message_of(c, msgs)) is not None and k >= i), len(out))
        out.insert(at, reply)
    return out


def read_repairs(text: str, found: list[Any]) -> list[Any]:
    """The candidates of a line, as its repairs leave them: none from a sentence that only
    owns up to a slip ("my bad, I always mix those two up"); and when the line repairs
    itself ("I live in Leeds, sorry, I mean Bradford"), those read from the statement
    before the repair with the right value in place of the slip
    (understand/ellipsis.repaired), and none from the repair's own words ("it's a
    2017")."""
    # "…capgemini. my bad, I always mix those two up": owning up keeps nothing
    found = [c for c in found if not only_admits(c.source_text or c.content)]
    olds = tuple(dict.fromkeys(c.value for c in found if isinstance(c.value, str) and c.value))
    if (fix := repaired(text, olds)) is None:
        if not slip(text):
            return found
        # The message owns up to a slip and says a statement again ("我爸生日是农历八月十六
        # 之前打错了"): the statement, without the owning up, puts a memory right (the
        # gate: `Candidate.revises`).
        return [replace(c, content=kept, flags=[*c.flags, "repair"])
                for c in found if (kept := _without_admission(c.content))]
    statement, old, new, at = fix
    reply = text[at:]
    out = []
    for c in found:
        source = c.source_text or c.content
        if source.strip() and source.strip() in reply:
            continue  # read from the repair itself
        content = c.content
        if reply.strip() and reply.strip() in content:
            content = statement  # the line itself, slip and repair
        elif old.casefold() in content.casefold():
            content = _replaced(content, old, new)
        elif new.casefold() not in content.casefold():
            out.append(c)
            continue
        value = _replaced(c.value, old, new) if isinstance(c.value, str) else c.value
        out.append(replace(c, content=content, value=value))
    return out


def _replaced(text: str, old: str, new: str) -> str:
    k = text.casefold().find(old.casefold())
    return text if k < 0 else text[:k] + new + text[k + len(old):]


def _without_admission(content: str) -> str:
    """`content` without its clauses that only own up to a slip."""
    parts = [p for p in _CLAUSES.split(content) if p.strip()]
    kept = [p.strip(" ,，") for p in parts if not only_admits(p)]
    if len(kept) == len(parts):
        return content
    return ("，" if re.search(f"[{CJK_RANGES}]", content) else ", ").join(kept)


# Clause breaks, and spaces between Chinese characters ("…八月十六 之前打错了").
_CLAUSES = re.compile(rf"[,，;；]\s*|(?<=[{CJK_RANGES}])\s+(?=[{CJK_RANGES}])")

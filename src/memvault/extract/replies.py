"""Lines that give only a new value ("太早了，15 分钟吧", "hmm, Excel actually"), kept as
candidates in their place among the extractor's, for the write path to read against
what was said just before them (understand/ellipsis.py, threadlinks.reply_change).

An extractor reads a line on its own, and such a line says nothing on its own; so these
candidates are made only for user lines from which the extractor took nothing (what it
does read, even tentatively, it reads better than a swap: "最后还是决定买ThinkPad X1").
They carry the flag REPLY and are dropped unless the statement before them holds the
value they swap.
"""

from __future__ import annotations

from typing import Any

from ..understand.ellipsis import is_reply
from .candidate import CandidateMemory
from .messages import Message

REPLY = "reply_value"


def message_of(c: Any, msgs: list[Message]) -> int | None:
    """The index of the message a candidate came from: the message it names, or else the
    first whose text holds its source span (an extractor guarantees one does)."""
    for i, m in enumerate(msgs):
        if c.message_id is not None and m.id == c.message_id:
            return i
    for i, m in enumerate(msgs):
        if c.source_text and c.source_text in m.content:
            return i
    return None


def with_replies(msgs: list[Message], candidates: list[Any]) -> list[Any]:
    """`candidates`, with a REPLY candidate for each user line that gave none and may be
    a bare-value reply, placed after the candidates of the lines before it."""
    read = {message_of(c, msgs) for c in candidates}
    out = list(candidates)
    for i, m in enumerate(msgs):
        if m.role != "user" or i in read or not is_reply(m.content):
            continue
        reply = CandidateMemory(content=m.content.strip(), kind="fact", slot=None, value=None,
                                source="user_explicit", confidence=0.9,
                                source_text=m.content.strip(), message_id=m.id,
                                explicit=True, flags=[REPLY], at=m.at)
        at = next((n for n, c in enumerate(out)
                   if (k := message_of(c, msgs)) is not None and k > i), len(out))
        out.insert(at, reply)
    return out

"""What a thread is about: the memories the user's earlier messages named.

A change often comes after the conversation has named what it changes: "trello is
getting messy, what are good alternatives?" … "went with Todoist"; "Keep最近广告多得离谱" …
"卸了 换成薄荷健康了". The line that announces the change names only the new thing, so by
itself it matches nothing; the thread it ends names the old one. `thread_lines` picks the
user's messages just before a statement (earlier in the same call, else the user's last
turns stored before it, within the window a thread stays open) and `named` the live
memory a line names in a word of its own, from what the semantic lookup found for it.
The write path (writepath.py) reads the store and offers that memory as a linked match:
only a statement that replaces or settles something takes it (understand/relate.py).
Pure: the caller does the reading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from .understand.discourse import kept_clauses, stays_only
from .understand.matchwords import Thresholds, shares_words
from .understand.offers import reads_back
from .understand.takeback import THANKS, THANKS_ZH

# How long a conversation stays one thread (the window of "what the conversation
# changed last", threadlinks.LAST_CHANGE_MS, too).
THREAD_MS = 3 * 86_400_000
# The messages read back: the one just before, and the one before it.
LINES = 2

# A line of the thread: (the id of its stored turn, its text).
Line = tuple[str | None, str]


def thread_lines(msgs: Sequence[Any], turns: Sequence[str | None], at: int,
                 stored: Sequence[Line]) -> list[Line]:
    """The thread before message `at` of a call, latest first: the user's earlier messages
    of the call (`turns`: their turns), or, when it opens the call, the user's turns stored
    before it (latest first)."""
    own = [(turns[i], m.content) for i, m in enumerate(msgs[:at]) if m.role == "user"]
    return list(reversed(own))[:LINES] or list(stored)[:LINES]


# A take-back of "that" and nothing named: "remove that, it was a joke", "把那条删了吧".
_THAT = re.compile(
    r"\b(?:remove|delete|forget|drop|erase|scrap|clear|wipe)\s+(?:that|this|it)\b"
    r"(?!\s+(?:about|of|bit|one|note|thing|part|entry)\b)|"
    r"(?:那个|这个|那条|这条|它)(?:删掉|删了|去掉|忘了|别记了)|"
    r"(?:删掉|删了|去掉|忘掉)(?:那个|这个|那条|这条|它)(?![^\W\d_吧了啦呀哈])", re.I)


def takes_back_that(said: str) -> bool:
    """Does the line take back "that", naming nothing itself?"""
    return bool(_THAT.search(said))


def read_back(before: tuple[str | None, str, str] | None) -> list[Line]:
    """The message just before a take-back ((turn, text, role)), as the line a bare
    "remove that" refers to, when it is the assistant's saying what it holds of the user
    ("I have a note that you're lactose intolerant", "since you're learning it"); else
    none. A draft or an answer it wrote ("Here's a draft to your landlord: …") is not
    what "delete it" takes back from memory."""
    if before is not None and before[2] == "assistant" and reads_back(before[1]):
        return [(before[0], before[1])]
    return []



def with_rest(lines: list[Line], turn: str | None, message: str, said: str) -> list[Line]:
    """`lines` with, first, the rest of the statement's own message: the old thing is
    often named beside the change ("moved everything over to Monzo. barclays can cry about
    it", "RIP the civic. I've got a Model 3 now"). Not a part that says a thing stays
    ("switched to nights, still at St Mary's"): that names what is kept, not replaced."""
    rest = _rest(message, said)
    if not says_more(message, said) or stays_only(rest) or kept_clauses(message):
        return lines
    return [(turn, rest), *lines]


def _rest(message: str, said: str) -> str:
    return message.replace(said, " ", 1) if said and said in message else ""


# Thanks, filler and laughter say nothing of a thing ("Forget that. Thanks!", "删掉那条，谢谢").
_NOTHING = re.compile(rf"\b(?:{THANKS}|please|pls|ok(?:ay)?|ta)\b"
                      rf"|{THANKS_ZH}|哈哈+|好的|嗯+|啦|呀|哦|吧", re.I)


def says_more(message: str, said: str) -> bool:
    """Does the message say anything beside `said` (a full stop, thanks or an emoji left
    over is nothing: "Please forget that.", "Forget that. Thanks!")?"""
    return any(ch.isalnum() for ch in _NOTHING.sub(" ", _rest(message, said)))


def named(turn: str | None, line: str, found: Iterable[Any], t: Thresholds,
          only: bool = False) -> str | None:
    """The memory `line` names in a word of its own (not merely resembles), among what
    the lookup `found` for it (reads/related.py, best first), or None. A line that stated
    a memory of its own (one of `found` was read from it) is about what it stated, not a
    discussion of another memory: it names none ("I play piano" the day before "signed up
    for cello", "I bank with Barclays" beside an older "I bank with HSBC")."""
    found = list(found)
    if turn is not None and any(r.memory.metadata.get("turn_id") == turn for r in found):
        return None
    hits = [r for r in found if r.score >= t.second and shares_words(line, r.memory.content)]
    # `only`: the one memory it names, or none ("that summary rule" and two memories of
    # summaries: which one is not said)
    return None if not hits or (only and len(hits) > 1) else str(hits[0].memory.id)

"""What a stored statement says when it is read again as the user's words: which slot
it would set, and whether it is about someone else.

A memory stored by hand (`remember("我希望你叫我小林")`, an import, REST) or an open
statement the extractor kept without a slot can still hold a slot's value: "我希望你叫我
小林" says what to call the user as surely as the `user.name` slot would. When a later
statement sets that slot and no memory holds it yet, the write path asks here which of
the statements it matched would set the same slot; that memory is the slot's current
value for the gate (a change updates it, a frozen one blocks the change, a restatement
is a restatement), not a memory beside which a second value is added.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..model import Memory
from .cues import THIRD
from .messages import as_messages
from .rules import RuleExtractor

_RULES = RuleExtractor()


def reading(text: str) -> list[Any]:
    """The candidates the rule extractor reads in `text` said by the user."""
    return _RULES.extract(as_messages([{"role": "user", "content": text}]))


@lru_cache(maxsize=4096)  # the same stored texts are read again by each candidate
def sets_slot(text: str, slot: str) -> bool:
    """Would the user saying `text` set `slot` to a value?"""
    if not text.strip():
        return False
    return any(c.slot == slot and c.value is not None for c in reading(text))


def about_someone_else(m: Memory) -> bool:
    """Is the stored statement about another person ("My manager prefers email updates",
    "我女儿喜欢吃素"), so that nothing the user says of themselves changes it?"""
    subject = m.metadata.get("subject")
    if isinstance(subject, str) and subject not in ("", "user"):
        return True
    return bool(THIRD.match(m.source_text or m.content))


# The user as the one spoken of: "I", "me", "我" (not "我家孩子", "我女儿", "我们").
_SELF = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|myself)\b"
                   r"|我(?![家的们老爸妈儿女闺媳丈妻哥姐弟妹朋同爱对室舍领上])")


def speaks_of_self(text: str) -> bool:
    """Does the statement speak of the user themselves ("call me…", "我不吃素了"), not of
    someone of theirs ("娃九月份上一年级了", "我女儿…")?"""
    # "send my reports as Excel": the user's own things, unless "my" opens a person
    return bool(_SELF.search(text) or (re.search(r"\bmy\b", text, re.I)
                                       and not THIRD.match(text)))

"""Which slot a stored statement without one would set, read as the user saying it.

A memory stored by hand (`remember("我希望你叫我小林")`, an import, REST) or an open
statement the extractor kept without a slot can still hold a slot's value: "我希望你叫我
小林" says what to call the user as surely as the `user.name` slot would. When a later
statement sets that slot and no memory holds it yet, the write path asks here which of
the statements it matched would set the same slot; that memory is the slot's current
value for the gate (a change updates it, a frozen one blocks the change, a restatement
is a restatement), not a memory beside which a second value is added.
"""

from __future__ import annotations

from functools import lru_cache

from .messages import as_messages
from .rules import RuleExtractor

_RULES = RuleExtractor()


@lru_cache(maxsize=4096)  # the same stored texts are read again by each candidate
def sets_slot(text: str, slot: str) -> bool:
    """Would the user saying `text` set `slot` to a value?"""
    if not text.strip():
        return False
    found = _RULES.extract(as_messages([{"role": "user", "content": text}]))
    return any(c.slot == slot and c.value is not None for c in found)

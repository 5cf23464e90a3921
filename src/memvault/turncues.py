"""Conversation cues in ranking: who said a turn, and whether it only asks.

Two score parts that similarity alone misses (docs/retrieval.md, "Conversation cues"):

- `speaker`: the query names the person who said the memory ("What does Nate like?"
  and a turn Nate said). A memory's speaker is `metadata["speaker"]`; imports and
  `observe()` messages with a `name` set it. Matching is on whole words (any script
  without spaces, such as Chinese, matches as a substring).
- `question`: a `turn` whose last sentence is a question (a final "?" or "？", or the
  particle 吗). A question repeats the words of a later query but holds no answer; the
  answer is in the reply, which the turn context (turnctx.py) indexes with the
  question's words.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .model import Kind, Memory

_CLOSERS = "\"'”’)）」』》】]* \t\r\n"


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


def is_question(text: str) -> bool:
    """Ends with a question mark, or (Chinese chat often drops the mark) with the
    question particle 吗."""
    return text.rstrip(_CLOSERS + "~～。.").endswith(("?", "？", "吗", "嗎"))


def asks(m: Memory) -> bool:
    """A turn that ends with a question."""
    return m.kind == Kind.TURN.value and is_question(m.content)

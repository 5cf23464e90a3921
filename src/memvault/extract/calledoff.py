"""A sentence that calls a plan off ("the Lisbon trip isn't happening anymore", "成都那趟
出差取消了", "dentist cancelled on me"), as the rule extractor reads it: its candidates take
back the plan they name, softly. The gate forgets a memory only when one names that plan
(understand/planoff.py, relate.py); otherwise the sentence is what it was before, a
statement ("I cancelled my gym membership" with nothing stored about a gym), or nothing
when no rule read one in it.
"""

from __future__ import annotations

import re
from typing import Any

from ..understand.discourse import beyond_change
from ..understand.planoff import plan_off
from ..understand.stance import core
from ..understand.topics import content_words
from .candidate import CandidateMemory
from .cues import HYPOTHETICAL, REQUEST


def carry(c: CandidateMemory, thing: str) -> CandidateMemory:
    """Mark `c` as calling off `thing`."""
    c.retraction = thing
    c.flags.append("plan_off")
    return c


def called_off(body: str, question: bool, got: list[CandidateMemory]) -> str | None:
    """Mark the sentence's own candidates (`got`) when it calls a plan off. Returns the
    thing called off when the sentence had no candidate to carry it (the caller makes a
    tentative one, kept only if it takes a memory back); None otherwise."""
    got = [c for c in got if "unread" not in c.flags]  # no rule read them: as if none
    if (question and not REQUEST.search(body)) or HYPOTHETICAL.search(body) \
            or any(c.retraction is not None or c.slot is not None for c in got):
        return None  # asked about or imagined; or a slot's value, which its slot decides
    thing = plan_off(body)
    if thing is None:
        return None
    mine = [c for c in got if c.subject in (None, "user")]
    for c in mine:
        carry(c, thing)
    return None if got else thing


def beside_take_back(found: list[CandidateMemory]) -> list[CandidateMemory]:
    """A message's candidates, without the sentences that only say why a thing is taken
    back and name nothing of their own ("lol no, I gave up on that months ago. delete
    it"): the take-back reads them to find its memory; stored, they would be a memory of
    "that"."""
    if not any("retraction" in c.flags for c in found):
        return found
    return [c for c in found if "retraction" in c.flags or c.slot is not None
            or not _names_nothing(c.source_text or c.content)]


def swaps(found: list[Any], taken_back: str) -> bool:
    """Do the slot values `found` in a line take back one value of a slot (said in
    `taken_back`) and name another of the same slot? "forget email, text me", "scratch
    email, ping me on telegram": a change of the value, not a take-back."""
    said = taken_back.casefold()
    gone = {(m.spec.key, m.value) for m in found if m.surface.casefold() in said}
    return any(m.spec.key in {k for k, _ in gone} and (m.spec.key, m.value) not in gone
               for m in found)


def _names_nothing(text: str) -> bool:
    """Only when, an interjection or a word of change, around "that" or "it" at most: "lol
    no, I gave up on that months ago", "nah I quit that ages ago", "早就不弄那个了"."""
    words = set(content_words(beyond_change(core(text)))) - _LIGHT
    return not words or (len(words) == 1 and bool(_BACK.search(text)))


# Words that name no thing: of when ("months ago", "三个月前") and interjections.
_LIGHT = frozenset("ago age ages back while now then anymore today yesterday week weeks month "
                   "months year years day days since lately recently long nah lol yeah yep "
                   "nope ok okay haha ugh hmm well honestly tbh 以前 之前 现在 前 月 年 天 周 早 "
                   "哈哈 嗯 唉 那个 这个".split())
# A word that points back at what was said instead of naming it.
_BACK = re.compile(r"\b(?:that|it|this|those|them)\b|那个|这个|它|那事|这事", re.I)

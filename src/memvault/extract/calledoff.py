"""A sentence that calls a plan off ("the Lisbon trip isn't happening anymore", "成都那趟
出差取消了", "dentist cancelled on me"), as the rule extractor reads it: its candidates take
back the plan they name, softly. The gate forgets a memory only when one names that plan
(understand/planoff.py, relate.py); otherwise the sentence is what it was before, a
statement ("I cancelled my gym membership" with nothing stored about a gym), or nothing
when no rule read one in it.
"""

from __future__ import annotations

from ..understand.planoff import plan_off
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

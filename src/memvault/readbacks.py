"""A "no" to the assistant's check of a stored value, with the right value: "your yoga
class is Tuesday, right?" / "no, Wednesday"; "钢琴课是周二晚上对吧？" / "不是，是周三".

The reply names only the new value and the check only the old one, so neither line alone
says which memory changes: the memory whose value the check names, and in which the
reply's value takes its place (understand/ellipsis.swap), is the one. One such memory
only; with none or several, the reply changes nothing here (the write path reads it no
further).
"""

from __future__ import annotations

from .engine import Engine
from .extract.candidate import CandidateMemory
from .model import Scope, Status
from .reads.related import NOT_MATCHED
from .store import ListFilter
from .threadlinks import swapped_update
from .understand.ellipsis import swap

# How many of the user's memories are read for the one a check named.
_READ = 500


def readback_change(eng: Engine, sc: Scope, c: CandidateMemory) -> CandidateMemory | None:
    """`c` (a REPLY candidate with `asked`) as the update of the memory the check named,
    or None."""
    if not c.asked:
        return None
    said, asked = c.source_text or c.content, c.asked.casefold()
    user = Scope(sc.tenant, sc.user, sc.agent)
    found: list[CandidateMemory] = []
    for m in eng.reads.list(user, ListFilter(status=Status.ACTIVE.value, limit=_READ)):
        if m.kind in NOT_MATCHED:
            continue
        for text in dict.fromkeys(t for t in (m.content, m.source_text) if t):
            got = swap(said, text, marked=True)
            if got and got[1].casefold() in asked and (
                    update := swapped_update(c, m, got[0])) is not None:
                found.append(update)
                break
    return found[0] if len(found) == 1 else None

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
from ..understand.ellipsis import repaired
from ..understand.planoff import plan_off
from ..understand.stance import core, polarity
from ..understand.topics import content_words
from .candidate import CandidateMemory
from .cues import REQUEST
from .whatifs import HYPOTHETICAL


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


# A sentence that withdraws what the same message just said, naming nothing but a pointer
# to it: "I'm allergic to shellfish. Actually scratch that, I was thinking of my dad.",
# "我下周三要去看牙医。那条不用记了，我自己会记着". Not "forget that I said…" (a clause
# follows: what it names is a stored memory).
_WITHDRAWS = re.compile(
    r"^\W*(?:(?:actually|oh|wait|no|nah|sorry|hmm+|ah|ok|okay|lol)\b[\s,.!-]*)*"
    r"(?:scratch|forget|ignore|disregard|strike|delete|drop)\s+(?:that|this|it)\b"
    r"(?!\s+(?:I|I'm|I've|my|we|you|he|she|they|about|bit|part|one)\b)"
    r"|^\W*(?:算了|不对|等等|哦|啊)?[，,\s]*(?:那条|这条|那句|这句|刚才那句|刚那句|刚才说的|刚说的|上一句|前面那句)"
    r"(?:话)?(?:你)?(?:就)?(?:不用|别|不要|无需|不必)(?:记|存|记录)(?:了|下来|住)?"
    r"|^\W*(?:算了|不对)?[，,\s]*(?:当我没说|那句不算|这句不算|刚才那句不算)", re.I)


# The reason a withdrawal gives when it is that the user keeps track themselves.
_SELF_KEPT = re.compile(r"自己(?:会)?记(?:着|得|住)|I(?:'ll| will| can)\s+(?:just\s+)?"
                        r"(?:remember|keep\s+track\s+of)\s+(?:it|that)(?:\s+myself)?", re.I)


def withdrawn(text: str, message: str, found: list[CandidateMemory]
              ) -> tuple[list[CandidateMemory], int] | None:
    """When `text`, a sentence of `message`, withdraws what the message said before it
    (`found`: read from those sentences): what stays of `found`, and where the rest of
    the sentence starts (its length when the rest only says the user keeps track). None
    when it withdraws nothing, what came before names nothing, or it repairs a slip ("I
    live in Leeds. scratch that, Bradford": read_repairs puts the value right)."""
    m = _WITHDRAWS.search(text)
    if m is None or all(_names_nothing(c.source_text or c.content) for c in found):
        return None  # "lol no, I gave up on that months ago. delete it": a stored memory
    olds = tuple(dict.fromkeys(c.value for c in found if isinstance(c.value, str) and c.value))
    if repaired(message, olds) is not None:
        return None
    return without_withdrawn(found), len(text) if _SELF_KEPT.search(text, m.end()) else m.end()


def without_withdrawn(found: list[CandidateMemory]) -> list[CandidateMemory]:
    """The candidates read before a withdrawal, without the statements it withdraws: what
    the message added. A change or a denial of something stored stays ("I'm not allergic
    to penicillin at all. please forget that": "that" is the stored allergy)."""
    return [c for c in found if c.change_of_mind or c.retraction is not None
            or c.replaces is not None or "negative_only" in c.flags
            or polarity(c.source_text or c.content) < 0]

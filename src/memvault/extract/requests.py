"""A change asked for as a question, naming what to: "can you push the morning briefing to
8:15?", "…, can the spending summary come saturday morning instead?", "Could focus mode kick
in at 8am instead?", "能不能把周报改到周四发？", "提醒可以改成提前20分钟吗".

Not "can you change the tone?" (it names nothing new), "could I get a refund instead?"
(the speaker's own ask), "can Tom move our 1:1 to Monday?" (someone else is asked), nor a
question about the current answer ("能不能换个例子"): the rule extractor keeps what this
finds only if it changes a memory it matches (a tentative candidate), as the request
itself, without the modal and the question mark.
"""

from __future__ import annotations

import re

from ..understand.discourse import opens_one_more
from .candidate import CandidateMemory
from .cues import THIRD

ASKED = "asked_change"

# The modal that opens an English request at a clause start (and "you"): what the request
# is, is what follows, when it names a new value: "instead", or a verb of change with
# "to/at/on…" and something after it, or "make it …".
_ASK_EN = re.compile(
    r"(?:^|(?<=[,;:]))\s*(?:(?:so|and|but|ok|okay|hmm|ugh|also|then|actually|honestly|hey|hi|"
    r"yo|please|pls)[,!]?\s+)?(?:can|could|would|will)\s+"
    # asked of the assistant or of the thing itself, not of someone ("can my boss move…",
    # "could they move…", "can Tom…")
    r"(?!(?:i|they|he|she|someone|anyone|people|my\s+(?:boss|manager|wife|husband|partner|"
    r"mom|mum|dad|friend|team|colleague|doctor|landlord|kids?|son|daughter))\b)"
    r"(?-i:(?![A-Z][a-z]))"
    # asking for advice, not for a change: "would it be better to take them at night instead?"
    r"(?!(?:it|that|this|there)\s+(?:be\s+(?:better|worse|best|wiser?|smarter|easier|"
    r"healthier|ok(?:ay)?|fine|possible)|help|make\s+sense|matter|hurt)\b)"
    r"(?:(?:you|u)\s+(?:please\s+|pls\s+)?)?+"
    # not a task ("can you suggest something I could cook instead of pasta?")
    r"(?!(?:suggest|recommend|give|tell|show|find|write|explain|list|draft|translate|"
    r"summari[sz]e|check|look|help|search|compare|think)\b)"
    r"(?=[^?]{0,120}?\binstead\b|[^?]{0,120}?\b(?:switch\w*|chang\w*|mov(?:e|ing)|push\w*|"
    r"bump\w*|shift\w*)\b[^?]{0,60}?\b(?:to|at|on|for|into)\s+\S|[^?]{0,120}?\bmake\s+it"
    r"\s+\S)", re.I)
# A Chinese request: a modal, then a verb of change with where to ("改到周四", "挪到晚上7点半",
# "调到800", "改成提前20分钟", "换成邮件"); what is asked is the sentence without the
# modal and the question's end. Not 能 inside a word (智能, 功能, 不能, 可能), not asking
# whether it happened ("改到9点了吗"), nor a task ("你能帮我查一下…").
_ASK_ZH = re.compile(r"(?:能不能|可不可以|(?<![不])可以|能否|(?<![智功不可才只本技性体职万])能)"
                     r"(?![^，。！？?]{0,20}?(?:帮我查|查一下|看看|问问|了吗|了没|了么))"
                     r"(?=[^，。！？?]{0,20}?(?:改|换|挪|调|推迟|提前|延后|推到|移)(?:到|成|为|去|在)"
                     r"[^，。！？?]{1,})")
_OPINION = re.compile(r"你觉得|你说|觉得|知道|会不会|是不是|为什么|为啥|怎么")
_ZH_END = re.compile(r"(?:吗|呢|吧)?\s*[？?]*\s*$")


def asked_change(body: str) -> tuple[int, str] | None:
    """(where the request starts in `body`, what it asks for) or None."""
    if (m := _ASK_EN.search(body)) is not None:
        return m.start(), body[m.end():].rstrip("?？ ")
    if (m := _ASK_ZH.search(body)) is not None:
        clause = max((c.end() for c in re.finditer(r"[，,；;：:]", body[:m.start()])),
                     default=0)
        if THIRD.match(body[clause:m.start()]) or _OPINION.search(body[clause:m.start()]):
            return None  # "老王能不能把我们的一对一改到周一？", "你觉得老师能把课改到周四吗"
        asked = body[clause:m.start()] + body[m.end():]
        return clause, _ZH_END.sub("", asked).strip()
    return None


def asked(cands: list[CandidateMemory]) -> list[CandidateMemory]:
    """Mark the candidates of an asked change."""
    for c in cands:
        c.flags.append(ASKED)
    return cands


def after_request(before: list[CandidateMemory],
                  got: list[CandidateMemory]) -> list[CandidateMemory]:
    """The candidates of the sentence right after an asked change in the same message: its
    reason ("Can the digest come at 6:30 instead? I leave earlier now.", "睡前提醒可以改成
    11点吗？我睡得晚"), which neither is a memory of its own nor goes on to change the
    request's memory; unless it adds something ("Also, I'm vegetarian now") or sets a slot.
    Only that one sentence: the request's mark is taken off once it is read."""
    if not before or ASKED not in before[-1].flags:
        return got
    before[-1].flags.remove(ASKED)
    return [c for c in got if c.slot is not None or opens_one_more(c.source_text)]


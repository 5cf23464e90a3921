"""The sentences of a user's message that the rule extractor reads: not the words inside
quotation marks, nor the clause that only introduces them ("我同事在群里说：", "my boss
emailed me:"); a sentence that names nothing but what came before joins it."""

from __future__ import annotations

import re

from ..understand.discourse import beyond_change
from ..understand.stance import core
from ..understand.topics import content_words
from .cues import CLAUSE, sentences
from .statements import quoted_spans

# Where a clause starts: what comes before the clause that introduces a quotation stays.
_CLAUSE_OR_AND = re.compile(CLAUSE.pattern + r"|\band\b|\bso\b|然后|而且|结果", re.I)
# A verb of saying or writing right before a quotation: the clause introduces it.
_INTRODUCES = re.compile(
    r"(?:(?<![小常])说|写了?|回了|(?<!开)发了?|问了?|道|讲|留言|评论|回复|发我|发给我|跟我说|"
    r"告诉我)(?:了)?(?:一?句|一?段|一?条)?(?:话)?\s*[:：,，]?\s*$"
    r"|\b(?:said|says|wrote|writes|texted|messaged|emailed|replied|asked|told\s+(?:me|us|him|"
    r"her|them)|(?:texted|messaged|emailed|wrote\s+to)\s+(?:me|us|him|her|them))"
    r"(?:\s+(?:this|back))?\s*[:,]?\s*$", re.I)


def read_spans(text: str) -> list[tuple[int, int, bool]]:
    """The sentences of a message to read: not those inside quotation marks; a sentence
    that names nothing but what came before ("I hate them.") joins the one before."""
    quoted = quoted_spans(text)
    out: list[tuple[int, int, bool]] = []
    for start, end, question in sentences(text):
        if any(q0 <= start < q1 for q0, q1 in quoted):
            continue
        # What is said before a quotation is the user's; the quotation is not, nor are the
        # words that only introduce it ("我同事在群里说：", "my boss emailed me:").
        cut = min([end, *(q0 for q0, _ in quoted if start < q0 < end)])
        if cut < end and _INTRODUCES.search(text, start, cut):
            # Only the clause that introduces it goes; what the sentence said before stays.
            cut = max([start, *(m.end() for m in _CLAUSE_OR_AND.finditer(text, start, cut))])
        end = cut
        if not text[start:end].strip(" \t,，:：\"'“‘「『"):
            continue
        if out and not out[-1][2] and not content_words(
                beyond_change(core(text[start:end]))):
            # "I hate them.", "Final answer.": about the sentence before
            out[-1] = (out[-1][0], end, question)
            continue
        out.append((start, end, question))
    return out


_QUOTE_NEXT = re.compile(r"\s*[:：,，]?\s*[\"“「『']")


def opens_quote(text: str, end: int) -> bool:
    """Does a quotation follow the sentence ending at `end` ("外卖菜单上写着：“…”")? The
    sentence is then its frame."""
    return bool(_QUOTE_NEXT.match(text, end))

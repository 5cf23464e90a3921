"""When a statement holds: a time long over by the calendar, or a stay with its length.

Both say a change is not how things stand now: "I switched banks back in 2019, to Halifax"
tells history, "moved to Lisbon for two weeks of holiday" a stay, not a new home
(discourse.recounts and one_time read them; the extractor sets no address for a stay).
"""

from __future__ import annotations

import re

__all__ = ["LONG_AGO", "STAY", "a_stay", "plans_ahead", "used_to_clauses"]

# Long ago, by the calendar: "back in 2019", "years ago", "in 2015", "2018年的时候", "三年前",
# and the Chinese aspect of having done it once ("换过一次工作"); not "back in March", which
# may be this year's change.
LONG_AGO = re.compile(
    r"\bback\s+in\s+(?:(?:19|20)\d\d|the\s+day)\b|\b(?:\d+|a\s+few|a\s+couple\s+of|several|"
    r"many|two|three|four|five|six|ten)\s+(?:years?|decades?)\s+ago\b|\b(?:years|ages|long|"
    r"decades|a\s+decade)\s+ago\b|\bin\s+(?:19\d\d|20[01]\d)\b|"
    r"(?:19|20)\d\d\s*年(?:的时候|那会儿?|那年|时)|[一二两三四五六七八九十几\d]+年前|前几年|"
    r"(?:换|搬|改|转|跳槽|辞职)过(?![来去头])", re.I)

# a stay with its length ("moved to Lisbon for two weeks of holiday", "国庆搬去大理住一周")
STAY = (r"\b(?:mov(?:e|ed|ing)|relocat\w*|stay(?:ing|ed)?|living)\b[^.!?,;]{1,30}\bfor\s+"
        r"(?:(?:a|one|two|three|four|\d+|a\s+few|a\s+couple\s+of)\s+(?:days?|weeks?|months?|"
        r"nights?)\b|an?\s+(?:\w+-)?(?:day|week|month|night)\b|the\s+(?:week|weekend|month|"
        r"summer|winter)\b)"
        r"|[搬去到][^，。！？]{1,8}住(?:一|两|三|几|\d+)(?:周|晚|天|个月|个星期)")
_STAY_RE = re.compile(STAY, re.I)


def a_stay(text: str) -> bool:
    """Does the statement tell of a stay with its length ("moved to Lisbon for two weeks
    of holiday", "国庆搬去大理住一周"), not a new home?"""
    return bool(_STAY_RE.search(text))


# A move or a switch said to come later: "I'm moving to Glasgow next month", "moving in
# next week", "新房子在南山区 下周就搬". What holds now has not changed yet. ("starting next
# week, send it on Mondays" says when a request starts: not a plan.)
_LATER_EN = re.compile(
    r"\bnext\s+(?:week|month|year|spring|summer|autumn|fall|winter|term|\w+day)\b|"
    r"\bin\s+(?:a\s+few|a\s+couple\s+of|two|three|four|five|six|\d+)\s+(?:days|weeks|months)\b|"
    r"\b(?:soon|tomorrow)\b|\blater\s+this\s+(?:year|month)\b", re.I)
_MOVE_EN = re.compile(
    r"\b(?:(?:I|we)['’]ll|(?:I|we)\s+will|going\s+to|gonna|plan(?:ning)?\s+to|about\s+to)\s+"
    r"(?:\w+\s+)?(?:move|relocate|switch|change|join|leave|quit)\b|"
    r"\b(?:moving|relocating|switching|changing|joining|leaving|quitting)\b", re.I)
# (a move of home or job: "下周起换成邮件通知" is a request, not a plan)
_LATER_ZH = re.compile(
    r"(?:下周|下个?月|下个星期|明年|过几天|过两天|月底|年底|下半年|即将|准备|打算|计划)"
    r"[^，。！？,.!?]{0,4}?(?:就|要|会)?(?:搬|跳槽|入职|辞职)")


def plans_ahead(text: str) -> bool:
    """Does the statement tell of a move or a switch still to come?"""
    return bool((_LATER_EN.search(text) and _MOVE_EN.search(text)) or _LATER_ZH.search(text))


_USED_TO = re.compile(r"\bused\s+to\b", re.I)


def used_to_clauses(clauses: list[str]) -> tuple[list[str], list[str]]:
    """The clauses that tell what used to be ("used to" taken out), and the others."""
    past = [_USED_TO.sub(" ", c) for c in clauses if c.strip() and _USED_TO.search(c)]
    return past, [c for c in clauses if c.strip() and not _USED_TO.search(c)]

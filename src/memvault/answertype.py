"""What kind of answer a question asks for, and whether a memory holds one.

A question that asks *when* ("When did Calvin have a car accident?", "牙医约在什么时候？")
is answered by a memory that says a time ("I had a little car accident last Friday"),
not by one that shares its words and says none ("Calvin: Nice car!"). Similarity ranks
both alike; the `answer` score part (weight `weights.answer`) tells them apart.

Only the memory's own words count: a transcript header ("[2:33 pm on 5 May, 2023]
Maria:") dates every turn, so it says nothing about which turn names the time.
English and Chinese, by rule; other kinds of answer (how many, where) were measured and
left out (BENCHMARKS.md, "What a question asks for").
"""

from __future__ import annotations

import re
from functools import lru_cache

from .turncues import without_header

_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# "May" and "March" are also a verb: a month only beside a date or after a preposition.
_MONTHS = "january|february|april|june|july|august|september|october|november|december"
_VERB_MONTHS = (r"(?:(?<=\bin )|(?<=\bof )|(?<=\bsince )|(?<=\buntil )|(?<=\blast )"
                r"|(?<=\bnext )|(?<=\bthis )|(?<=\bearly )|(?<=\blate )|(?<=\bmid-))"
                r"(?:may|march)|(?:may|march),? \d|\d{1,2}(?:st|nd|rd|th)? (?:of )?(?:may|march)")
_NUM = ("\\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen"
        "|twenty|thirty|forty|fifty|sixty|ninety|a few|a couple of|several")

# Asks when: a leading "when", "when" followed by a verb, or asked of ("do you remember
# when I moved?", "tell me when…"); what/which + a unit of time; how long.
_ASKS_WHEN_EN = re.compile(
    r"^\W*when\b"
    r"|\bwhen (?:did|do|does|is|was|were|will|are|am|have|has|had|should|can|could)\b"
    r"|\b(?:remember|recall|tell me|remind me|know|forgot|forget|find out|check) when\b"
    r"|\b(?:what|which) (?:year|month|date|day|days|time|weekend|week)\b"
    r"(?! (?:zone|care|trip|off|pass|job|shift|school)s?\b)"
    r"|\bwhat(?:'s| is| was) the (?:date|day|time|year)\b"
    r"|\bhow long\b|\bsince when\b", re.IGNORECASE)
_ASKS_WHEN_ZH = re.compile(
    r"什么时候|什麼時候|啥时候|何时|何時|哪天|哪一天|哪年|哪一年|哪个月|哪個月|几号|幾號"
    r"|几月|幾月|几点|幾點|星期几|星期幾|周几|週幾|礼拜几|多久|多长时间|多長時間|什么日子")

# Says a time: relative days and weeks, named days and months, years, clock times and
# dates, spans ("two weeks", "three days", "an hour ago").
_TELLS_TIME_EN = re.compile(
    rf"\b(?:yesterday|today|tonight|tomorrow|recently|ago|since|noon|midnight"
    rf"|(?:last|next|this|every|tomorrow|yesterday) (?:night|morning|afternoon|evening"
    rf"|week|weekend|month|year|summer|winter|spring|fall|autumn|{_DAYS})"
    rf"|the other day|(?:{_DAYS})s?|(?:{_MONTHS})|{_VERB_MONTHS}|(?:19|20)\d\d"
    rf"|\d{{1,2}}(?::\d\d)?\s?(?:am|pm|a\.m\.|p\.m\.)|\d{{1,2}}:\d\d"
    rf"|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?|the \d{{1,2}}(?:st|nd|rd|th)"
    rf"|(?:{_NUM}) (?:minutes?|hours?|days?|nights?|weeks?|months?|years?|decades?)"
    rf"|weeks|months|years|weekends?|christmas|easter|thanksgiving|new year)\b",
    re.IGNORECASE)
_N = "[0-9０-９一二两兩三四五六七八九十半几幾]"
_TELLS_TIME_ZH = re.compile(
    rf"昨天|今天|明天|前天|后天|後天|昨晚|今晚|明晚|今早|明早|今年|去年|明年|前年"
    rf"|[上下这這本]个?[周週月]|[上下这這本]个?星期|[周週]末|[周週星期礼拜禮拜][一二三四五六日天]"
    rf"|{_N}+\s*月|{_N}+\s*[号號日](?![楼樓线線房室])|{_N}+\s*[点點](?![也儿兒都])"
    rf"|{_N}+\s*年(?![级級纪紀])|年[初底]|月[初底]|早上|上午|中午|下午|晚上|傍晚|凌晨|每天|每周|每週"
    rf"|最近|前几天|前幾天|{_N}+\s*(?:个|個)?(?:小时|小時|分钟|分鐘|天|周|週|星期|月)"
    rf"|春节|春節|国庆|國慶|元旦|中秋|暑假|寒假|圣诞|聖誕")


def asks_when(query: str) -> bool:
    """The query asks when something happens or happened, or for how long."""
    return bool(_ASKS_WHEN_EN.search(query) or _ASKS_WHEN_ZH.search(query))


# Every Chinese rule holds a CJK character: text without one skips them (a third of the
# cost on English turns).
_CJK = re.compile("[\u4e00-\u9fff]")
_CACHED_CHARS = 1000  # a recall asks about the same stored turns again and again


def tells_time(text: str) -> bool:
    """The memory's own words (a transcript header left out) name a time or a span."""
    own = without_header(text)
    return _tells(own) if len(own) <= _CACHED_CHARS else _tells.__wrapped__(own)


@lru_cache(maxsize=8192)
def _tells(own: str) -> bool:
    return bool(_TELLS_TIME_EN.search(own) or (_CJK.search(own) and _TELLS_TIME_ZH.search(own)))

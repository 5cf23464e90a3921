"""Dates in memories and time ranges in queries, English and Chinese, by rule.

A memory with an event date (valid_from) gets date terms in its index ("may", "2023",
"5月", "五月", "2023年"), so "what did I do in May" can match it by full text. A query
that names a time range ("last May", "in March 2024", "yesterday", "去年五月", "上个月",
"2023年5月", "2024-03-05") narrows recall to memories dated inside it. Relative
expressions are resolved against the time of the query.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import UTC, date, datetime, timedelta

MONTHS_EN = ["january", "february", "march", "april", "may", "june", "july", "august",
             "september", "october", "november", "december"]
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(MONTHS_EN)} | {"sept": 9}
_MONTH_ANY = {m: i + 1 for i, m in enumerate(MONTHS_EN)} | _MONTH_ABBR
_ZH_NUM = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
           "十": 10, "十一": 11, "十二": 12}
ZH_MONTHS = ["一月", "二月", "三月", "四月", "五月", "六月", "七月", "八月", "九月", "十月",
             "十一月", "十二月"]

_MONTH_RE = "|".join(sorted(_MONTH_ANY, key=len, reverse=True))
_ZH_MONTH_RE = r"(十[一二]|[一二三四五六七八九十]|1[0-2]|0?[1-9])\s*月"


def _ms(d: date) -> int:
    return int(datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp() * 1000)


def _month_range(year: int, month: int) -> tuple[int, int]:
    start = date(year, month, 1)
    end = start + timedelta(days=monthrange(year, month)[1])
    return _ms(start), _ms(end)


def _year_range(year: int) -> tuple[int, int]:
    return _ms(date(year, 1, 1)), _ms(date(year + 1, 1, 1))


def _day_range(d: date) -> tuple[int, int]:
    return _ms(d), _ms(d + timedelta(days=1))


def _x(r: tuple[int, int]) -> tuple[int, int, bool]:
    return r[0], r[1], True


def _r(r: tuple[int, int]) -> tuple[int, int, bool]:
    return r[0], r[1], False


def date_terms(ms: int) -> str:
    """Text whose index terms let a memory dated `ms` match date words in a query."""
    d = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return (f"{d.year} {MONTHS_EN[d.month - 1]} {d.year}年 {d.month}月 {ZH_MONTHS[d.month - 1]} "
            f"{d.year}-{d.month:02d}")


def _zh_month(token: str) -> int:
    token = token.strip()
    return int(token) if token.isdigit() else _ZH_NUM[token]


def _zh_day(token: str) -> int:
    """1-31 from digits or Chinese numerals (三, 十二, 二十一, 三十)."""
    if token.isdigit():
        return int(token)
    tens, _, ones = token.rpartition("十")
    if "十" not in token:
        return _ZH_NUM.get(token, 0)
    return (_ZH_NUM.get(tens, 0) if tens else 1) * 10 + (_ZH_NUM.get(ones, 0) if ones else 0)


def _latest_day(today: date, month: int, day: int) -> date | None:
    """The latest date with this month and day that is not after `today`."""
    for year in (today.year, today.year - 1, today.year - 4):  # Feb 29: a leap year back
        try:
            d = date(year, month, day)
        except ValueError:
            continue
        if d <= today:
            return d
    return None


def query_range(query: str, now_ms: int) -> tuple[int, int] | None:
    """[start, end) in epoch ms of the time range a query names, or None."""
    found = named_range(query, now_ms)
    return None if found is None else (found[0], found[1])


def named_range(query: str, now_ms: int) -> tuple[int, int, bool] | None:
    """(start, end, explicit): explicit when the query names a calendar date, month or
    year ("May 2023", "last May", "2023年5月"); not explicit for words relative to now
    ("today", "yesterday", "last week", "上个月"), which in a conversation are as often
    small talk as a constraint, so recall only prefers memories dated inside them."""
    q = query.lower()
    today = datetime.fromtimestamp(now_ms / 1000, tz=UTC).date()

    m = re.search(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", q)
    if m:
        try:
            return _x(_day_range(date(int(m[1]), int(m[2]), int(m[3]))))
        except ValueError:
            pass
    m = re.search(r"(\d{4})\s*年\s*" + _ZH_MONTH_RE + r"(?:\s*(\d{1,2})\s*[日号])?", query)
    if m:
        year, month = int(m[1]), _zh_month(m[2])
        if m[3]:
            try:
                return _x(_day_range(date(year, month, int(m[3]))))
            except ValueError:
                pass
        return _x(_month_range(year, month))
    m = re.search(rf"\b(\d{{1,2}})\s+({_MONTH_RE})\.?,?\s+(\d{{4}})\b", q)
    if m:
        try:
            return _x(_day_range(date(int(m[3]), _MONTH_ANY[m[2]], int(m[1]))))
        except ValueError:
            pass
    m = re.search(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}}),?\s+(\d{{4}})\b", q)
    if m:
        try:
            return _x(_day_range(date(int(m[3]), _MONTH_ANY[m[1]], int(m[2]))))
        except ValueError:
            pass
    m = re.search(rf"\b({_MONTH_RE})\.?,?\s+(\d{{4}})\b", q)
    if m:
        return _x(_month_range(int(m[2]), _MONTH_ANY[m[1]]))
    # A day without a year ("on April 12", "12th of May", "3月18号"): the latest such day
    # up to today, as a conversation speaks of days it has seen.
    m = (re.search(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*[:.]\d)", q)
         or re.search(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b", q))
    name = 1 if m and m[1] in _MONTH_ANY else 2
    if m and (m[name] != "may" or query[m.start(name):m.end(name)] == "May"):  # the verb
        month, day = _MONTH_ANY[m[name]], int(m[3 - name])
        found = _latest_day(today, month, day)
        if found is not None:
            return _x(_day_range(found))
    m = re.search(_ZH_MONTH_RE + r"\s*(\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号號]", query)
    if m:
        found = _latest_day(today, _zh_month(m[1]), _zh_day(m[2]))
        if found is not None:
            return _x(_day_range(found))

    # Relative expressions.
    m = re.search(rf"\b(last|this|next)\s+({'|'.join(MONTHS_EN)})\b", q)
    if m:
        month = MONTHS_EN.index(m[2]) + 1
        year = today.year
        if m[1] == "last":
            year -= 1 if month >= today.month else 0
        elif m[1] == "next":
            year += 1 if month <= today.month else 0
        return _x(_month_range(year, month))
    m = re.search(r"(去年|今年|明年|前年)\s*" + _ZH_MONTH_RE, query)
    if m:
        offset = {"去年": -1, "今年": 0, "明年": 1, "前年": -2}[m[1]]
        return _x(_month_range(today.year + offset, _zh_month(m[2])))
    if re.search(r"\byesterday\b", q) or "昨天" in query:
        return _r(_day_range(today - timedelta(days=1)))
    if re.search(r"\btoday\b", q) or "今天" in query:
        return _r(_day_range(today))
    m = re.search(r"\b(\d{1,3})\s+days?\s+ago\b", q) or re.search(r"(\d{1,3})\s*天前", query)
    if m:
        return _r(_day_range(today - timedelta(days=int(m[1]))))
    if re.search(r"\blast\s+week\b", q) or "上周" in query or "上个星期" in query:
        start = today - timedelta(days=today.weekday() + 7)
        return _r((_ms(start), _ms(start + timedelta(days=7))))
    if re.search(r"\bthis\s+week\b", q) or "这周" in query or "本周" in query:
        start = today - timedelta(days=today.weekday())
        return _r((_ms(start), _ms(start + timedelta(days=7))))
    if re.search(r"\blast\s+month\b", q) or "上个月" in query or "上月" in query:
        first = today.replace(day=1)
        prev = first - timedelta(days=1)
        return _r(_month_range(prev.year, prev.month))
    if re.search(r"\bthis\s+month\b", q) or "这个月" in query or "本月" in query:
        return _r(_month_range(today.year, today.month))
    if re.search(r"\blast\s+year\b", q) or "去年" in query:
        return _r(_year_range(today.year - 1))
    if re.search(r"\bthis\s+year\b", q) or "今年" in query:
        return _r(_year_range(today.year))
    m = re.search(r"\bin\s+(\d{4})\b", q) or re.search(r"(\d{4})\s*年", query)
    if m and 1900 <= int(m[1]) <= 2200:
        return _x(_year_range(int(m[1])))
    return None

"""A stored memory as the write path's semantic lookup found it (`Match`), the
closeness thresholds its decisions use (`Thresholds`), and the specific words two
statements name things by (`named_words`, `shares_words`, `in_common`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from ..textindex import STOPWORDS
from .discourse import beyond_change
from .stance import core
from .topics import content_words, straddles

__all__ = ["WHEN", "Match", "Thresholds", "in_common", "named_words", "shares_words"]


@dataclass(frozen=True, slots=True)
class Match:
    """A stored memory the statement may concern; `score` is its closeness (0..1)."""

    id: str
    content: str
    score: float
    dense: float = 0.0  # the meaning part of the score alone
    # Tied to the statement by the conversation itself: what an earlier sentence of the
    # same message changed, or what a line that settles a thread refers to.
    linked: bool = False
    # The words the memory was said in, when its content is a rewrite of them ("My hotel
    # budget is around 100 euros a night" stored as "The user's budget is 100 EUR").
    said: str = ""
    # In the statement's topic class by meaning (topicscore.py), whatever values the two
    # give ("moved my accounts to Monzo" / "I bank with Barclays"); `exclusive`: a topic
    # that holds one value at a time, so a new value replaces the old one.
    topical: bool = False
    exclusive: bool = False
    frozen: bool = False  # an operator froze it: its value is not to change unreviewed
    topic: str = ""  # the topic class's name, when `topical`

    def names(self, statement: str) -> bool:
        """Do the statement and this memory, as stored or as said, name a thing in
        common?"""
        return shares_words(statement, self.content) or (
            bool(self.said) and self.said != self.content and shares_words(statement, self.said))


@dataclass(frozen=True, slots=True)
class Thresholds:
    """match: closeness from which a memory is about the same thing; change: the same,
    for a statement that takes the opposite stance on a thing both name (a change said
    in so many words that names the same thing needs only `second`); close: from which a
    time word alone ("now", "最近") makes a change without a word in common. retract: the
    closeness a retraction needs to name a memory. margin: a second memory this close to
    the best one makes the target ambiguous. lead, floor: a memory at least `floor` close
    in meaning and ahead of every other by `lead` is the one a replacement ("switched
    to…", "换成…") or a retraction means, though they share no word."""

    match: float = 0.4
    change: float = 0.3
    close: float = 0.55
    retract: float = 0.35
    margin: float = 0.04
    ratio: float = 0.7
    second: float = 0.15
    lead: float = 0.1
    floor: float = 0.25
    # hint: the closeness from which a retraction that names no memory plainly is staged
    # against the few nearest, rather than dropped.
    hint: float = 0.18
    # A change whose memory only its rank names, and that memory plainly close (`match`):
    # applied (True) or staged for a person (False). Below `match` it is always staged.
    apply_ranked: bool = True
    # The memory a change or a take-back is about may be the one in its topic class by
    # meaning (Match.topical, Match.exclusive); False: by closeness and words only.
    by_topic: bool = True


def shares_words(a: str, b: str) -> bool:
    """Do the two statements name a thing in common: a specific content word of their
    cores (not a stance or a change marker, not a lone Chinese character such as 卡,
    which is a card in one sentence and lag in another)?"""
    x, y = named_words(a), named_words(b)
    # A character pair counts when one of the two says it inside a word ("过道" in one,
    # cut 过/道 in the other), not when both only run two words together ("明天早会" and
    # "每天早上" share 天早).
    both = {w for w in x & y if w[0] < "\u2e80" or len(w) != 2 or not straddles(w, a, b)}
    # A clipped word names the same thing ("temps" / "temperatures", "meds" / "medication").
    return bool(both) or any(
        len(short) >= 4 and long_.startswith(short) for u in x for v in y
        if u[0] < "\u2e80" for short, long_ in (sorted((u, v), key=len),))


# When, not what: a part of the day or week names no thing ("Early morning is the only
# quiet time I get now" is not about "my morning news briefing").
WHEN = frozenset(
    "morning mornings evening evenings afternoon afternoons night nights tonight today "
    "tomorrow yesterday weekend weekends weekday weekdays week weeks daily weekly monthly "
    "month months year years early late monday tuesday wednesday thursday friday saturday "
    "sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays "
    "早上 上午 中午 下午 晚上 今天 明天 昨天 周末 每天 每周 工作日 凌晨 傍晚 夜里 最近 "
    "周一 周二 周三 周四 周五 周六 周日 星期一 星期二 星期三 星期四 星期五 星期六 星期天 "
    "星期日 时候".split())


def time_words(text: str) -> set[str]:
    """The words of `WHEN` the text says: an English one as a whole word, a Chinese one
    anywhere in a run of Chinese ("周三" of "每周三晚上")."""
    said = re.findall(r"[A-Za-z]+|[\u4e00-\u9fff]+", text)
    return {w.casefold() for w in said if w.casefold() in WHEN} | {
        w for w in WHEN if w[0] >= "\u2e80" and any(w in run for run in said)}


# A number a memory's next version could hold as its value: digits, or a Chinese numeral
# with its measure word ("十点", "三年级", "两百块").
NUMBER = re.compile(r"\d|[零一二两三四五六七八九十百千万半]{1,4}(?:点|号|岁|块|元|公里|斤|次|天|"
                    r"年级|年|个|周|级|楼|层|分|小时)")


def named_words(text: str) -> set[str]:
    """The specific words a statement names things by (what `shares_words` compares)."""
    return {w for w in content_words(beyond_change(core(text) or text), grams=True)
            if len(w) >= (2 if w[0] >= "\u2e80" else 3) and w not in WHEN} | _joined(text) \
        | _measured(text)


# How many or how often: what stays of a change ("I take the bus instead now, still four
# days a week") without naming the thing that stays.
def in_common(statement: str, memory: Match) -> set[str]:
    """The specific words the statement and the memory (as stored or as said) share."""
    theirs = named_words(memory.content) | (named_words(memory.said) if memory.said else set())
    return named_words(statement) & theirs


# A number with its unit or as a day of the month names one value ("the 21st", "30mg",
# "21号"): a bare number ("3 days", "2 kids") names nothing by itself.
_MEASURED = re.compile(r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)\s?"
                       r"(st|nd|rd|th|mg|mcg|ml|kg|lbs?|km|am|pm|号|日|毫克|公斤)(?![A-Za-z])",
                       re.IGNORECASE)
_UNITS = {"st": "th", "nd": "th", "rd": "th", "号": "th", "日": "th", "毫克": "mg",
          "公斤": "kg", "lb": "lbs"}


def _measured(text: str) -> set[str]:
    return {n + _UNITS.get(u.casefold(), u.casefold()) for n, u in _MEASURED.findall(text)}


def _joined(text: str) -> set[str]:
    """Adjacent Latin words run together: "VS Code" is "vscode", "Mac Book" "macbook"."""
    # (not the letters of an ordinal or a unit: "21st fell" is no "stfell")
    words = [w.casefold() for w in re.findall(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]*", text)]
    return {a + b for a, b in pairwise(words) if a not in STOPWORDS and b not in STOPWORDS}

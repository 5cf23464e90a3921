"""How one clause of a sentence bears on what the sentence states.

A sentence is read whole by the rule extractor (rules.py); some of its clauses change
what the whole means: a tag that only asks for agreement after a request, a standing word
that is only how the user does something of their own, a clause that says what holds now
beside a value given up.
"""

from __future__ import annotations

import re

from ..model import Kind
from ..understand.discourse import beyond_change, changes_mind
from ..understand.stance import core
from ..understand.topics import content_words
from .cues import CALL_ME, CLAUSE, IMPERATIVE, NOW, ONE_DAY, RECURRING, STANDING
from .slotspec import SlotMatch, SlotSpec

# A request with a question tag ("用中文回答我好不好", "发PDF给我行吗"): the tag asks for
# agreement, the clause before it says what is wanted.
_TAG = re.compile(r"[，,]?\s*(?:好不好|行不行|可不可以|好吗|行吗|可以吗|成吗|行么|好么)"
                  r"\s*[呀啊嘛吧哈]*\s*[?？]?\s*$")


# "我在公司写邮件都用英文": the user's own activity, then how they always do it; a habit
# of theirs, not how things should be done for them ("报表都用 XLSX", "以后都用英文").
_OWN_HABIT = re.compile(r"^\s*我(?:们)?[^，。,；;你]{0,12}?(?:写|读|看|听|说|讲|聊|开会|上课|记|"
                        r"做|画|打字|备课|发言|汇报|交流)[^，。,；;你]{0,8}?(?:都用|一直用)")


def own_habit(body: str) -> bool:
    """Is the standing word only how the user does something of their own?"""
    return bool(_OWN_HABIT.search(body)) and not any(
        m.group() not in ("都用", "一直用") for m in STANDING.finditer(body))


def replaced_in_words(body: str, matches: list[SlotMatch]) -> bool:
    """Does a clause of `body` that names no slot value say what holds now, with a word of
    change and something it names ("I'm doing Mediterranean now", "doing intermittent
    fasting instead", "现在荤素都吃", "最近开始吃鱼")?"""
    at = 0
    for part in CLAUSE.split(body):
        start = body.find(part, at)
        at = start + len(part)
        if part.strip() and (NOW.search(part) or changes_mind(part)) \
                and content_words(beyond_change(core(part))) \
                and not any(start <= m.start < at for m in matches):
            return True
    return False


def tag_request(body: str) -> bool:
    """Does a request end in a tag that asks for agreement ("发PDF给我行吗")?"""
    tag = _TAG.search(body)
    return bool(tag) and bool(IMPERATIVE.search(body[:tag.start()]))


def for_one_day(body: str, spec: SlotSpec, standing: bool) -> bool:
    """Is the slot asked of the assistant (how it replies, reaches or calls the user) in a
    sentence that asks it for one day or one thing at hand only ("Reply in Spanish today.",
    "今天别叫我老师了 叫我宝", "text me the confirmation for this booking")? `standing`: the
    sentence says from then on ("from today on", "以后"), so it is not."""
    return bool(ONE_DAY.search(body)) and not (standing or RECURRING.search(body)) and (
        spec.kind == Kind.PREFERENCE.value
        or bool(spec.key == "user.name" and CALL_ME.search(body)))

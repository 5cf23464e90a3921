"""Statements about someone else: which of them are the user's memories.

The people of the user's own household and family are part of the user's profile ("my
daughter is 6", "我爸妈住在成都", "my sister Emma lives in Toronto"). What a friend, a
colleague, a boss or a neighbour likes or does ("my manager swears by Windows", "我们老板
出差从来只坐飞机") is chatter about them: the turn keeps it in the conversation record,
where recall finds it, but it is not stored as a standing memory, unless the user asks
for it to be kept ("my friend Dana is allergic to shellfish, keep that in mind"), it bears
on the user ("my boss wants me to send PDFs"), or it is what someone requires of them
("the client wants weekly reports"). Someone unnamed by a relation (he, she, a first
name) may be family: kept, as before; so is who someone is ("my manager is Tom Baker").
"""

from __future__ import annotations

import re

from .cues import THIRD

__all__ = ["kept_about", "theirs_after"]

# Relations outside the family, as the THIRD cue (cues.py) names them: a statement about
# one of them is the user's memory only on the conditions above.
_SOCIAL = frozenset(
    "friend boss colleague coworker manager flatmate roommate housemate neighbour neighbor "
    "mate landlord landlady tenant client assistant customer teacher doctor lawyer ceo cfo "
    "coach trainer tutor therapist dentist gp physio mentor barber hairdresser nanny "
    "babysitter cleaner "
    "cto coo vp director supervisor lead auditor accountant vendor investor "
    "朋友 老板 同事 领导 室友 舍友 同学 邻居 房东 闺蜜 好友 好朋友 哥们 发小 死党 "
    "组长 上司 经理 主管 教练 师傅 搭档 合伙人 客户 甲方".split())
# "王经理", "李总", "老张": a person by a surname and a title
_TITLED = re.compile(r"^[\u4e00-\u9fff]{1,2}(?:经理|总监|主管|老师|医生|主任|总)$|"
                     r"^[小老][王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾]$")

_ASKED_TO_KEEP = re.compile(
    r"\b(?:keep|bear)\s+(?:(?:that|this|it)\s+)?in\s+mind\b|\bremember\b|\bdon['’]?t\s+forget\b|"
    r"\b(?:make|take)\s+a\s+note\b|\bnote\s+(?:that|it|this)\b|"
    r"记着|记住|记得|记一下|记下|别忘了|留意|帮我记", re.I)
# What someone requires, or arranges from now on, is the user's business too ("客户每次都要
# PDF", "王经理说以后进度通知用邮件").
_REQUIRES = re.compile(
    r"\b(?:wants?|wanted|requires?|required|expects?|asked|asks|insists?|needs?)\b|"
    r"\bfrom now on\b|\bgoing forward\b|要求|希望|规定|让我|叫我|要我|以后|今后|往后|从现在起|"
    r"(?:都|每次|必须|一定|得)要|"
    # a time someone moved ("王老师说下学期的课改到周三了", "my boss moved the standup to 10")
    r"改到|调到|挪到|推迟到|提前到|改在|\b(?:moved|pushed|rescheduled|changed)\s+(?:it|the\s+\w+)"
    r"\s+to\b", re.I)
# Who they are is kept: "my manager is Tom Baker", "我同事叫小林".
_NAMED = re.compile(r"^\s*(?:is|['’]s|was)\s+(?:called\s+|named\s+)?(?-i:[A-Z][a-z]+)\b|"
                    r"^\s*(?:is\s+)?(?:called|named)\b|^['’]s\s+name\b|^\s*(?:叫|姓|名字)", re.I)
_ME = re.compile(r"\b(?:I|me|I['’]m|I['’]ve|I['’]d|I['’]ll|my|mine|myself|us|our|we)\b|我(?!们)",
                 re.I)


def kept_about(body: str, who: str, subject_end: int, message: str = "") -> bool:
    """Is `body`, a statement whose subject is `who` (what THIRD matched, ending at
    `subject_end`), a memory of the user's? `message`: the whole message it is a sentence
    of, where a request to keep it may follow ("…过敏，下次聚餐帮我记着点")."""
    w = who.casefold()
    rest = body[subject_end:]
    if _PASSES_ON.match(rest) or _SAYS_ONLY.match(rest):
        # "我妈在家族群里发了这个": what they passed on is at hand, not kept; "我妈老念叨
        # “…”": the frame of what they say, and what they say is a quotation
        return False
    if w not in _SOCIAL and not _TITLED.match(who) and " from " not in body[:subject_end]:
        return True  # family, a pronoun or a name (not "Marco from work": a colleague)
    return bool(_NAMED.match(rest) or _ASKED_TO_KEEP.search(message or body)
                or _REQUIRES.search(rest) or _ME.search(rest))


# Someone passing on the thing at hand ("my mom posted this in the family chat", "我妈在
# 家族群里发了这个"): the clause says where the thing came from, nothing about anyone.
_PASSES_ON = re.compile(
    r"\s*(?:just\s+|also\s+)?(?:posted|sent|shared|forwarded|showed)\s+(?:me\s+|us\s+)?"
    r"(?:this|that|these|it)\b(?!\s+\w+\s+(?:is|are|was)\b)[^.!?]{0,40}$"
    r"|[^，。！？]{0,12}?(?:发|转发?|分享|甩)(?:了|来|给我|过来)*(?:这个|这条|这篇|这些|这段|这张|一条|一篇)\s*$",
    re.I)


# Only a verb of saying, what is said following it: "我妈老念叨", "my dad always says".
_SAYS_ONLY = re.compile(
    r"\s*(?:老|总|总是|常|常常|经常|一直|天天|又)?(?:念叨|唠叨|说|讲|嘀咕|叮嘱|教育我|告诉我)"
    r"(?:过|着)?\s*[:：,，]?\s*$"
    r"|\s*(?:always\s+|keeps\s+|often\s+|used\s+to\s+)?(?:says?|said|saying|tells?\s+me|told\s+me)"
    r"\s*[:,]?\s*$", re.I)


# A clause boundary after which someone else may be the subject.
_BOUNDARY = re.compile(r"\s*[,;，；]\s*|\s+(?=(?:but|while|whereas)\s)|(?<=[\u4e00-\u9fff])\s+")


def theirs_after(body: str) -> int | None:
    """Where a clause about someone else's ways starts in a statement of the user's ("I
    prefer tea; my colleague only drinks espresso", "我喝美式，我同事只喝拿铁"): the user's
    statement ends there. None when no such clause follows, or when it is one the user
    would keep (kept_about)."""
    for m in _BOUNDARY.finditer(body):
        rest = body[m.end():]
        rest = re.sub(r"^(?:but|while|whereas)\s+", "", rest, flags=re.I)
        third = THIRD.match(rest)
        if m.start() == 0 or third is None:
            continue
        who = next((g for g in third.groups() if g), "")
        if who and not kept_about(rest, who, third.end(), body):
            return m.start()
    return None

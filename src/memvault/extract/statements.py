"""Open-vocabulary statements: a sentence about the user that no slot names.

A memory does not need a vocabulary: "I bank with Barclays", "我写代码用Vim", "Show me
temperatures in Celsius", "跟我说话直接点" are lasting facts and wishes whatever they are
about. What marks them is their form, not their topic: the user speaking about
themselves in the present (a first-person subject), or asking for how things should be
done from now on (a standing imperative) — and not asking a question, asking for a task
to be done now, or musing aloud. These patterns are of that form only; the rule
extractor's other filters (what-ifs, quotes, someone else, one-offs, the past) run first.

A sentence that is neither but announces a change ("move my digest to Mondays", "还是
…吧") is kept as a *tentative* candidate: it is stored only if it changes a memory it
matches by meaning (the gate decides, understand/relate.py).
"""

from __future__ import annotations

import re

from ..understand.discourse import changes_mind, marks_change, one_time, settles
from ..understand.stance import core
from ..understand.topics import content_words
from .cues import any_of

_OPENER_EN = (r"(?:oh|btw|fyi|also|and|so|well|ok|okay|honestly|actually|anyway|plus|"
              r"just\s+so\s+you\s+know|for\s+the\s+record|note\s+that|remember\s+that|"
              r"by\s+the\s+way|heads\s+up|for\s+context|quick\s+note)")
# The start of a sentence whose "I" chat English leaves out: "oh finally started…"
_LEAD_EN = rf"^\s*(?:{_OPENER_EN}[,:!-]?\s+)*(?:just\s+|finally\s+|recently\s+|also\s+)?"
SELF_SUBJECT = any_of(
    # "I"/"we" as the subject, anywhere in the sentence ("For diagrams I also use …")
    r"\b(?:I|I'm|I've|I'd|I'll|Im|we|we're|we've|we'd)\b(?!['’]\w)|\bi'm\b",
    # "my …" opening a clause, or "my X is …" anywhere
    rf"(?:^|[,;:–—-]\s*|\b(?:and|but|so)\s+)(?:{_OPENER_EN}[,:!-]?\s+)*(?:my|our|"
    r"me\s+and\s+my)\b",
    r"\b(?:my|our)\s+(?:\w+\s+){0,2}(?:is|are|was|were|has|have)\b",
    r"(?:^|[，,；;：:])\s*(?:其实|对了|顺便说一下|顺便|补充一下|另外|还有|记一下|说一下|跟你说|"
    r"告诉你|哦|嗯|诶|对|是这样|现在|最近)?[，,：:]?\s*(?:我|我们|我家|咱们|咱|俺)",
    # Chinese drops the subject when it is the speaker: "最近迷上了韩餐", "现在 10 点就睡",
    # "今年在阳台种了番茄"
    # (not 每天: "每天都应该喝咖啡" is what an article says anyone should do)
    # (not 平时/一般: "平时多喝水对身体好" is advice; nor "…的人": "今年种番茄的人特别多")
    r"(?:^|[，,；;：:])\s*(?:最近|现在|这阵子|这段时间|这几天|目前|如今|向来|从小|今年|"
    r"这个月|这周)(?![^，。！？,.!?：:]*的人)"
    r"[^，。！？,.!?：:]{0,6}?(?:迷上|爱上|喜欢|开始|习惯|改|换|吃|喝|看|听|玩|睡|起|住|学|练|"
    r"跑|骑|戒|种|养)",
    # So does chat English, for what the speaker has been doing: "been learning Welsh"
    # (a verb of one event, "bought milk", "started raining", is read only as a possible
    # change: _DID below)
    rf"^\s*(?:{_OPENER_EN}[,:!-]?\s+)*(?:just\s+|also\s+)?(?:have\s+|'ve\s+)?been\s+"
    r"(?!(?:thinking|wondering|meaning|trying)\b)\w+ing\b(?![^.!?]*\byou(?:r)?\b)",
    # a habit begun or ended ("started doing yoga", "quit smoking", "stopped eating meat";
    # not the weather, "started raining")
    _LEAD_EN +
    r"(?:started|stopped|quit|gave\s+up|took\s+up|picked\s+up|began)\s+"
    r"(?!(?:raining|snowing|pouring|getting|to)\b)\w+ing\b(?![^.!?]*\byou(?:r)?\b)",
    # what the speaker did or does, with a word that says it lasts ("signed up for a
    # Spanish class on Tuesdays", "living in Toronto these days", "learning Rust in my
    # spare time"); "growing concerns about the budget" says nothing lasts
    _LEAD_EN +
    r"(?:started|stopped|switched|moved|bought|sold|adopted|joined|signed\s+up|took\s+up|"
    r"picked\s+up|gave\s+up|quit|growing|learning|training|studying|living)\b"
    r"(?![^.!?]*\b(?:you|your|is|are|was|were)\b)"
    r"(?=[^.!?]*\b(?:every|each|daily|weekly|twice|once\s+a|a\s+(?:day|week|month)|"
    r"on\s+\w+days|on\s+(?:weekends|weekdays)|completely|for\s+good|these\s+days|nowadays|"
    r"in\s+my\s+spare\s+time|full[\s-]time|at\s+the\s+moment|since|this\s+(?:year|summer|"
    r"spring|autumn|fall|winter|season|term|semester))\b)",
    # Chinese puts the topic first: "新海诚的片子我也挺爱看的", "早饭我一直都不吃"
    r"(?:我|我们|咱们|咱)[^，。！？,.!?：:]{0,4}?(?:爱|喜欢|讨厌|用|吃|喝|看|听|玩|去|会|要|想|"
    r"在|是|有|养|住|做|打|买|学|开|坐|穿|读|写|练|跑|骑|睡|起|戴|习惯|偏好|受不了)")
# Thinking aloud about the conversation, not a statement about oneself.
MUSING = any_of(
    r"^\s*(?:I|we)\s+(?:think|guess|suppose|know|see(?!\s+(?:a|an|my|him|her|them)\b)|mean|agree|understand|hope|wonder|bet|"
    r"doubt|forgot|believe|feel\s+like|was\s+wondering|am\s+wondering|just\s+(?:wanted|"
    r"realized|realised|saw|got|came|remembered)|can'?t\s+(?:decide|remember|believe)|"
    r"have\s+a\s+question|need\s+(?:help|advice|some\s+help|a\s+hand))\b",
    r"^\s*(?:I'm|I\s+am)\s+(?:not\s+sure|wondering|curious|confused|stuck|trying\s+to\s+"
    r"(?:figure|decide|understand|work\s+out))\b",
    r"^\s*我(?:觉得|认为|想问|想知道|看看|知道了|明白|同意|问一下|刚|刚才|刚刚|不太确定|不确定|"
    r"在想|好奇|纠结|有个问题|有点疑问|需要帮助)",
    # regret about telling, not a statement: "I shouldn't have shared it"
    r"\bI\s+(?:shouldn'?t|should\s+not)\s+have\s+(?:shared|said|told|mentioned)\b",
    r"\bI(?:'d|\s+would)\s+like\s+to\s+know\b|\bI\s+want\s+to\s+know\b",
    r"\bI'?m\s+done\s+with\s+(?:the|this|that|it|these|those)\b",
    r"你(?:给我|发我|发给我|说|写|做)的",
    r"\bI\s+(?:don'?t|do\s+not)\s+want\s+(?:it|that|this)\s+(?:stored|kept|saved|"
    r"remembered|on\s+file)\b",
    r"不想(?:留|存|让你记)")
# A task for the assistant now, not a standing wish.
TASK = any_of(
    r"\b(?:can|could|would|will)\s+you\b", r"(?:^|\bplease\s+|\bpls\s+)\s*help\s+me\b",
    r"\bI\s+(?:need|want|'d\s+like|would\s+like)\s+(?:the|a|an|some|your)\s+(?:\w+\s+){0,3}"
    r"(?:explanation|answer|summary|overview|breakdown|list|example|version|copy|draft|"
    r"review|help|advice|info|information|details|opinion|feedback)\b",
    r"\b(?:I|we)\s+(?:need|want|would\s+like|'d\s+like)\s+you\s+to\b", r"\blet'?s\b",
    r"能不能|能否|可不可以|你能|你可以(?!叫我|称呼我|喊我)|帮忙",
    r"帮我(?![^。]*(?:的时候|每次|以后|一般|总是|优先|都))")
_VERBS_EN = (r"use|show|give|address|call|sign|reply|respond|answer|write|send|remind|keep|"
             r"format|put|list|include|avoid|stop|start|tell|notify|text|email|ping|message|"
             r"round|convert|quote|display|express|measure|spell|refer\s+to|default\s+to|"
             r"book|order|schedule|suggest|recommend|assume|treat|speak|talk")
STANDING_IMPERATIVE = any_of(
    rf"^\s*(?:please\s+|pls\s+|kindly\s+)?(?:always\s+|never\s+|don'?t\s+|do\s+not\s+)?"
    rf"(?:{_VERBS_EN})\b(?!\s+(?:me\s+|us\s+)?(?:this|that|these|those|it)\b)",
    r"^\s*(?:请|以后|今后|往后|每次|每天|每周|每月|每晚|每早|平时|一律|所有|回复|回答|跟我|和我|"
    r"给我|发给我|发我|文件|表格|报告|推荐|提醒)[^。！？]*?(?:我|都|别|不要|要|用|发|按|保留|"
    r"优先|先)",
    r"^\s*(?:请|麻烦)?帮我[^。！？]*(?:的时候|每次|以后|一般|总是|优先)",
    r"(?:每天|每周|每月|每晚|每早|每个?(?:周|星期|礼拜)[一二三四五六日天]|工作日)[^。！？]*?"
    r"(?:发给我|给我发|提醒我|告诉我|通知我|推送给我|给我推送)",
    # How to reach or remind the user, on a condition that recurs: "开会前 10 分钟提醒我",
    # "有事用微信找我就行", "每个新订单都要通知我"
    r"(?:有(?:事|问题|情况|消息|更新)|随时|每[个次天周月晚早]?|[前后]\s*\d+\s*分钟|以后|今后|"
    r"所有|一律)[^。！？]*?"
    r"(?:提醒我|通知我|告诉我|找我|联系我|发给我|给我发|发我)",
    # A thing, then how it should be done (topic first, no subject): "报表发 PDF 给我",
    # "通知请发邮件", "周报要用正式的书面语", "日历同步用 Outlook"
    # ("手机用久了就卡" says how a thing behaves; "把这个文件发给我" is a task now).
    r"^\s*(?!(?:你|您|他|她|它|有人|别人|大家))(?:(?![把这那])[\u4e00-\u9fff]){2,6}\s*"
    r"(?:(?:请|要|都要|得|一律|统一)\s*(?:用|发|交|按)(?!的|完)\s*[^，。！？]{1,16}?(?:给我|发我|格式|"
    r"就行|就好|吧|$)|(?:用|发|按)(?!的|完)\s*(?:[^，。！？]{0,8}?(?:给我|发我)|"
    r"[A-Za-z][A-Za-z0-9 .+#-]*$))")


# For now, not from now on.
_FROM_NOW_ON = re.compile(r"\b(?:from\s+now\s+on|going\s+forward|always|every|whenever|"
                          r"in\s+(?:your\s+|all\s+)?(?:replies|answers|responses|messages)|"
                          r"when(?:ever)?\s+you\s+(?:reply|answer|respond|write))\b|"
                          r"以后|今后|往后|每次|每天|每周|总是|一直", re.I)


def is_task(text: str) -> bool:
    """A request for something now ("can you explain…", "I need the full explanation of
    …"), not a standing wish ("I need a detailed explanation for every answer")."""
    return bool(TASK.search(text)) and not _FROM_NOW_ON.search(text) and not marks_change(text)


def standing(text: str) -> bool:
    """A statement about the user or a standing wish, of any topic."""
    if MUSING.search(text) or TASK.search(text):
        return False
    if one_time(text) and not _FROM_NOW_ON.search(text):
        return False
    if not names_something(text):
        return False  # "I love it!", "我也是": about what came before
    return bool(SELF_SUBJECT.search(text) or STANDING_IMPERATIVE.search(text))


# Someone or something else as the subject: "There are no more emails", "The explanation
# was too long", "你还是先休息吧", "这份报告…".
OTHER_SUBJECT = any_of(
    r"^\s*(?:there|the|this(?!\s+(?:week|month|year|morning|evening))|that|"
    r"these(?!\s+days)|those|it|it's|he|she|they|you|your|his|her|their|"
    r"everyone|everybody|nobody|someone|people)\b",
    r"^\s*(?:你|您|他|她|它|他们|她们|这|那|大家|别人|有人|客户|老板|同事|领导|公司|文章|新闻|"
    r"书上|网上|看看|听说)")
_SELF_ANYWHERE = any_of(r"\b(?:I|I'm|I've|I'd|me|my|mine|we|we're|us|our)\b|\bi'm\b",
                        r"我|咱")


def open_statement(text: str) -> bool:
    """A sentence that may change what it matches though it is not a statement on its
    own: about the user ("Wingspan has overtaken Catan as my favourite"), settling a
    change ("Malta is booked! Final."), or announcing one with no one else as its subject
    ("ditched notion for obsidian", "oat milk is out"). Never a task, a question to the
    assistant, thinking aloud or one occasion."""
    if not names_something(text) or MUSING.search(text) or TASK.search(text):
        return False
    if one_time(text) and not _FROM_NOW_ON.search(text):
        return False
    if _SELF_ANYWHERE.search(text) or _DID.search(text):
        return True
    if not OTHER_SUBJECT.search(text):
        return settles(text) or changes_mind(text)
    # A thing, not a person, said to change in so many words ("the gym is putting the
    # membership up", "the standup moved to 10"): it may be what a memory is about.
    return marks_change(text) and bool(_THING.search(text))


# What the speaker did, "I" unsaid ("traded in the civic for a tesla", "started an audiobook
# on the side"): one event as often as a lasting change ("bought milk on the way home",
# "moved the meeting to 3pm"), so it is kept only if it changes a memory it matches.
_DID = re.compile(
    _LEAD_EN +
    r"(?:started|stopped|switched|moved|traded|bought|sold|adopted|joined|signed\s+up|"
    r"took\s+up|picked\s+up|gave\s+up|quit|began|caved|growing|learning)\b"
    r"(?![^.!?]*\byou(?:r)?\b)", re.I)


# A thing named with a determiner ("the gym", "this plan"), not a pronoun ("there are no
# more emails", "it's…") or a person.
_THING = re.compile(r"^\s*(?:the|this|that|these|those)\s+(?!(?:one|ones|is|was|are|were)\b)"
                    r"[a-z]", re.I)


def names_something(text: str) -> bool:
    """Does the sentence say what it is about, beyond pronouns and framing?"""
    return bool(content_words(core(text)))


# Words inside quotation marks are someone else's (a line of an e-mail, a T-shirt's
# slogan, what the barista said), never the user's statement.
_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|\"[^\"]*\"|"
                     r"(?:(?<=^)|(?<=[\s:(\[]))'[^']{3,}?'(?=[\s.,;:!?)\]]|$)")


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """Quotations (a quoted phrase of several words); a quoted single term ("don't call
    me 'buddy'") is the user's own word for something."""
    return [(m.start(), m.end()) for m in _QUOTED.finditer(text)
            if len(m.group()) > 12 or " " in m.group().strip()]

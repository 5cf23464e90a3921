"""A plan said to be off: "the Lisbon trip isn't happening anymore", "dentist cancelled on
me", "I've pulled out of the marathon", "考研那事黄了", "成都那趟出差取消了", "周末那个闹钟
取消吧".

Such a line takes back a stored plan, appointment or setting without a word about memory.
It is read as a *soft* retraction: it forgets the memory it names by a specific word
(relate.py), and when none is named it is an ordinary statement, so "I cancelled my gym
membership" said with nothing stored about a gym is kept as what it says.

The predicate is a closed class of its own: verbs and phrases that say an event will not
take place or that the speaker left it, and the imperative "cancel the …"; what remains of
the clause once the predicate and the words that only point ("that", "那个") are gone is
the thing named.
"""

from __future__ import annotations

import re

_OFF_EN = (
    # said of the thing: "the trip got cancelled", "the wedding's been called off"
    r"\b(?:cancel(?:l?ed|l?ing)?|called\s+off|call(?:ing)?\s+off|scrapped|axed)\b|"
    r"\b(?:is|are|was|were|'s|'re)\s*n[o']?t\s+happening\b|\bnot\s+happening\b|"
    r"\bno\s+longer\s+(?:happening|on)\b|\bwon'?t\s+be\s+happening\b|"
    r"\bf(?:e|a)ll(?:s|ing)?\s+through\b|"
    r"\b(?:is|are|'s|'re)\s+off\b(?=\s*(?:now|for\s+good|after\s+all|any\s*more|[,.;!]|$))|"
    # said of the speaker: "I've pulled out of the marathon", "we bailed on the cruise",
    # "quit the pottery class", "not going to the concert anymore"
    r"\b(?:pull|back|drop|bow)(?:s|ed|ing)?\s+out\s+of\b|\bwithdr(?:ew|awn|aw)\s+from\b|"
    r"\bbail(?:s|ed|ing)?\s+on\b|\bquit(?:ting)?\b|"
    r"\bnot\s+(?:going|doing|taking|attending)\b(?=[^.!?]{0,80}\bany\s*more\b)|"
    # an arrangement no longer wanted: "no need to cc Dana on the summaries anymore",
    # "you can stop sending the digest"
    r"\bno\s+(?:need|point)\s+(?:to|in)\b(?=[^.!?]{0,80}\bany\s*(?:more|longer)\b)|"
    r"\b(?:don'?t|do\s+not)\s+need\s+(?:you\s+)?to\b(?=[^.!?]{0,80}\bany\s*(?:more|longer)\b)|"
    r"\byou\s+can\s+stop\b|"
    # the imperative of an app's setting or a booking: "cancel the 7am alarm", "scrap that
    # appointment", "drop the sunday reminder" (not "drop the kids at school")
    r"\b(?:scrap|ditch|nix)\b(?=\s+(?:the|that|this|my|our)\b)|"
    r"\b(?:drop|delete|remove|kill|get\s+rid\s+of)\b(?=\s+(?:the|that|this|my|our)\s+(?:[\w'-]+\s+){0,3}"
    r"(?:reminder|alarm|appointment|booking|reservation|meeting|call|class|subscription)s?\b)"
)
_OFF_ZH = (r"取消(?:了|啦|掉|吧|咯|算了)?|黄了|泡汤了?|告吹|吹了|没戏了|作罢|搁浅了?|"
           r"(?:去|办|考|搞|弄|参加|比|跑)不成了?|(?:去|参加)不了了|"
           r"不(?:去|办|考|参加|比赛|跑|搞|弄|报)了|推掉了?|退出了|退赛了|退掉了?|退了|"
           # an arrangement no longer wanted: "不用再抄送小王了", "以后不必再提醒了"
           r"(?:不用|不必|无需|没必要)再(?=[^，。！？]{1,12}了)")
_OFF = re.compile(rf"(?:{_OFF_EN})|(?:{_OFF_ZH})", re.I)

# Not a plan being off: a question about it, one wished or supposed, or a cancel that is
# about a subscription's fee policy ("free cancellation").
_NOT_OFF = re.compile(r"\b(?:if|whether|might|may|should\s+i|could\s+i|would\s+you|"
                      r"cancellation\s+(?:fee|policy)|in\s+case)\b|如果|要是|万一|会不会|"
                      r"要不要|是不是|能不能|可不可以", re.I)

# Not off but replaced, anywhere in the line ("todoist is cancelled, ticktick it is",
# "雅思不考了，改成准备托福", "厦门不去了，五一改去青岛", "mornings aren't happening, my
# runs are in the evening now"): a change of the plan, which the change rules read.
_REPLACED = re.compile(
    r"\b(?:instead|now|rather|it\s+is|going\s+with|went\s+with|switch\w*|mov(?:e|ed|ing)\s+"
    r"(?:it\s+)?to|replac\w*|postpon\w*|reschedul\w*|push\w*\s+(?:it\s+)?back)\b|"
    r"改(?!善|进|革)|换成|换到|换了|现在|而是|转(?:成|到|向)|延期|推迟|改期|"
    # what takes its place, settled ("如家回不去了 出差就它了", "就定这家了")
    r"就(?:是|选|用|定)?(?:它|这个|这家|这款|这位)了|就定[^，。！？\s]{1,8}了", re.I)
# Off for a while only, in the clause that says it ("japan's not happening this year",
# "这周六先不去了"): the plan stands. ("考研那事黄了，家里让我先工作": 先 is the next
# clause's.)
_FOR_A_WHILE = re.compile(
    r"\b(?:this\s+(?:time|year|week|weekend|month|once)|today|tonight|for\s+now|"
    r"for\s+the\s+time\s+being|until|till)\b|"
    r"这次|这回|这周|本周|今天|今晚|今年|这个月|先|暂时", re.I)

# Before the verb: a not ("the interview isn't cancelled", "没取消"), or a relative
# pronoun (a description: "a guy who fell through the ice").
_NEGATED = re.compile(r"(?:\b(?:not|never|no\s+longer)|n'?t|没有?|未|不是|并没)\s*(?:been\s+|be\s+|"
                      r"got\s+|被)?$", re.I)
_RELATIVE = re.compile(r"\b(?:who|that|which|whose)\s*$", re.I)
# Someone else's plan ("Alex's work trip got cancelled", "my husband's race is off",
# "他的出差取消了"): not one the user stored as theirs.
_THEIRS = re.compile(r"\b(?!(?:it|that|what|there|here|let|he|she|who)'s\b)"
                     r"(?:[A-Z][a-z]+|(?:[Mm]y|[Oo]ur)\s+[a-z]+)'s\b|\b(?:[Hh]is|[Hh]er|[Tt]heir)\b|"
                     r"(?:他|她|他们|她们)的")
# When or what kind it is ("下个月的马拉松", "周日的烧烤") is not the thing: what it says of.
_OWNER = re.compile(r"^[^，。！？]{0,8}?的(?=[^的]{2,})")
# A memory of a plan, a booking or an arrangement: what a plan called off can take back
# (not "I go to the gym every morning" for "I pulled a muscle at the gym", nor "I prefer
# meetings in the afternoon" for "my 3pm meeting got cancelled").
_PLANNED = re.compile(
    r"\b(?:plan(?:s|ning|ned)?|going\s+to|gonna|will|'ll|appointment|booked|booking|"
    r"reservation|trip|travel(?:l?ing)?|flight|training\s+for|signed\s+up|registered|"
    r"scheduled|remind(?:er)?s?|alarm|next\s+(?:week|month|year|\w+day)|tomorrow|"
    r"on\s+the\s+\d+|this\s+(?:weekend|week|month|\w+day)|subscri\w+|membership|"
    r"class(?:es)?|course|lessons?|learning|studying|preparing|cc|send|deliver\w*)\b|"
    r"要去|打算|计划|准备|约了|预约|报名|订了|提醒|闹钟|下周|下个月|明年|会员|课|出差|旅行|旅游|"
    r"考|抄送|发到|推送", re.I)


# Where the clause stops naming the thing: its reason, what someone said.
_BECAUSE = re.compile(r"\b(?:so|because|bc|cause|since|as|but)\b|因为|所以|但是|不过", re.I)

# Words that only point at the thing or frame the clause: what remains names it.
_POINTING = re.compile(
    r"\b(?:the|that|this|those|these|my|our|whole|entire|so|you|can|could|just|please|pls|"
    r"now|any\s*more|after\s+all|for\s+good|on\s+me|on\s+us|i'?ve|i'?m|i|we'?ve|we'?re|we|"
    r"they|they'?ve|he|she|has|have|had|been|got|get|is|are|was|were|it'?s|it|also|"
    r"actually|honestly|well|ok|okay|yeah|nah|sadly|unfortunately|officially|totally|"
    r"completely|already|finally|lol|ugh|oh|hey|btw|tbh|idea|plan|plans|thing|stuff)\b|"
    r"那个|这个|那趟|这趟|那次|这次|那件事|那事|这事|那场|这场|那条|这条|之前说的|之前|那边|这边|"
    r"我们|我|咱们|的|了|吧|啊|呀|哈|嘛|已经|彻底|终于|还是|被|算了",
    re.I)
_SPACE = re.compile(r"[\s,，。.!！?？;；:：、~…\"'“”‘’()（）—–]+")
_CLAUSE = re.compile(r"[,，。.!！?？;；]+(?:\s|$)|[，。！？；]")


def planned(memory: str) -> bool:
    """Does a stored statement hold a plan, a booking or an arrangement?"""
    return bool(_PLANNED.search(memory))


def _words(text: str) -> str:
    return _SPACE.sub(" ", _POINTING.sub(" ", text)).strip()


def _after_said(text: str) -> str:
    """What someone said is the thing ("牙医那边打电话说周四的号取消了")."""
    at = max(text.rfind("说"), text.rfind("讲"))
    return text[at + 1:].removeprefix("是") if at >= 0 else text


def _until_because(text: str) -> str:
    cut = _BECAUSE.search(text)
    return (text[:cut.start()] if cut else text).strip()


def plan_off(text: str) -> str | None:
    """The thing `text` says is off ("Lisbon trip", "成都 出差"), or None when no clause of
    it calls a plan off or what is left names nothing."""
    if _NOT_OFF.search(text) or _REPLACED.search(text):
        return None
    bounds = [0, *(b.end() for b in _CLAUSE.finditer(text)), len(text)]
    for m in _OFF.finditer(text):
        start = max(b for b in bounds if b <= m.start())
        end = min((b for b in bounds if b >= m.end()), default=len(text))
        clause = text[start:end]
        before = text[start:m.start()]
        if _FOR_A_WHILE.search(clause) or _NEGATED.search(before) \
                or _RELATIVE.search(before) or _THEIRS.search(clause):
            continue
        # The thing is said before the verb ("the Lisbon trip isn't happening", "考研那事
        # 黄了"), else after it ("cancel the 7am alarm", "pulled out of the marathon");
        # a clause that names nothing ("不搞了") leaves it to the clause before.
        thing = (_words(_OWNER.sub("", _until_because(_after_said(before))))
                 or _words(_OWNER.sub("", _until_because(text[m.end():end])))
                 or _words(text[max((b for b in bounds if b < start), default=0):start]
                           if start else ""))
        if thing:
            return thing
    return None

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
    r"\b(?:cancel(?:l?ed|l?ing)?|called\s+off|call(?:ing)?\s+off|scrapped|axed|shelved)\b|"
    r"\b(?:is|are|was|were|'s|'re)\s*n[o']?t\s+happening\b|\bnot\s+happening\b|"
    r"\bno\s+longer\s+(?:happening|on)\b|\bwon'?t\s+be\s+happening\b|"
    r"\bf(?:e|a)ll(?:s|ing)?\s+through\b|"
    r"\b(?:is|are|'s|'re)\s+off\b(?=\s*(?:now|for\s+good|after\s+all|any\s*more|[,.;!]|$))|"
    # said of the speaker: "I've pulled out of the marathon", "we bailed on the cruise"
    r"\b(?:pull|back|drop|bow)(?:s|ed|ing)?\s+out\s+of\b|\bwithdr(?:ew|awn|aw)\s+from\b|"
    r"\bbail(?:s|ed|ing)?\s+on\b|"
    # the imperative of an app's setting or a booking: "cancel the 7am alarm",
    # "scrap that appointment"
    r"\b(?:scrap|ditch|nix)\b(?=\s+(?:the|that|this|my|our)\b)"
)
_OFF_ZH = (r"取消(?:了|啦|掉|吧|咯|算了)?|黄了|泡汤了?|告吹|吹了|没戏了|作罢|搁浅了?|"
           r"(?:去|办|考|搞|弄|参加|比|跑)不成了?|去不了了|"
           r"不(?:去|办|考|参加|比赛|跑|搞|弄|报)了|推掉了?|退出了|退赛了|退掉了?")
_OFF = re.compile(rf"(?:{_OFF_EN})|(?:{_OFF_ZH})", re.I)

# Not a plan being off: a question about it, one wished or supposed, or a cancel that is
# about a subscription's fee policy ("free cancellation").
_NOT_OFF = re.compile(r"\b(?:if|whether|might|may|should\s+i|could\s+i|would\s+you|"
                      r"cancellation\s+(?:fee|policy)|in\s+case)\b|如果|要是|万一|会不会|"
                      r"要不要|是不是|能不能|可不可以", re.I)

# Not off but replaced ("todoist is cancelled, ticktick it is", "雅思不考了，改成准备托福",
# "mornings aren't happening, my runs are in the evening now"): a change of the plan,
# which the change rules read. Nor off for a while only ("japan's not happening this
# year", "这周六先不去了"): the plan stands.
_NOT_GONE = re.compile(
    r"\b(?:instead|now|rather|it\s+is|going\s+with|went\s+with|switch\w*|mov(?:e|ed|ing)\s+"
    r"(?:it\s+)?to|replac\w*|this\s+(?:time|year|week|weekend|month|once)|today|tonight|"
    r"for\s+now|for\s+the\s+time\s+being|until|till|postpon\w*|reschedul\w*|"
    r"push\w*\s+(?:it\s+)?back)\b|"
    r"改成|改为|改到|换成|换到|改用|换了|现在|而是|转(?:成|到|向)|这次|这回|这周|本周|今天|今晚|"
    r"今年|这个月|先|暂时|延期|推迟|改期", re.I)

# Words that only point at the thing or frame the clause: what remains names it.
_POINTING = re.compile(
    r"\b(?:the|that|this|those|these|my|our|whole|entire|so|you|can|could|just|please|pls|"
    r"now|any\s*more|after\s+all|for\s+good|on\s+me|on\s+us|i'?ve|i'?m|i|we'?ve|we'?re|we|"
    r"has|have|had|been|got|get|is|are|was|were|it'?s|it|also|actually|honestly|well|"
    r"ok|okay|yeah|so|sadly|unfortunately|officially|totally|completely|already|"
    r"lol|ugh|oh|hey|btw|idea|plan|plans|thing|stuff)\b|"
    r"那个|这个|那趟|这趟|那次|这次|那件事|那事|这事|那场|这场|那条|这条|之前说的|之前|"
    r"我们|我|咱们|的|了|吧|啊|呀|哈|嘛|已经|彻底|终于|还是",
    re.I)
_SPACE = re.compile(r"[\s,，。.!！?？;；:：、~…\"'“”‘’()（）—–]+")
_CLAUSE = re.compile(r"[,，。.!！?？;；]+(?:\s|$)|[，。！？；]")


def plan_off(text: str) -> str | None:
    """The thing `text` says is off ("Lisbon trip", "成都 出差"), or None when no clause of
    it calls a plan off or what is left names nothing."""
    if _NOT_OFF.search(text) or _NOT_GONE.search(text):
        return None
    for m in _OFF.finditer(text):
        start = max((b.end() for b in _CLAUSE.finditer(text, 0, m.start())), default=0)
        end = next((b.start() for b in _CLAUSE.finditer(text, m.end())), len(text))
        thing = _SPACE.sub(" ", _POINTING.sub(" ", text[start:m.start()] + " "
                                             + text[m.end():end])).strip()
        if thing:
            return thing
    return None

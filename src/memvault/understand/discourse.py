"""The discourse moves around a statement: the speaker changing their mind, taking a
statement back, or adding to what they said.

These are the ways people signal a move in any conversation, whatever it is about, so
one short lexicon per move covers statements no rule was written for: "move my digest to
Mondays", "we're in Lisbon now", "其实我现在用…了" all carry a change marker; which memory
they change is found by meaning (reads/related.py), not by these words.
"""

from __future__ import annotations

import re

from .stance import CALLED_OFF, CLAUSE, polarity
from .takeback import THANKS, retraction
from .when import LONG_AGO, STAY

# The speaker named anywhere in the line ("I", "my", "we", "我", "咱"): a line without it
# says something of someone or something else, or leaves its speaker unsaid.
SPEAKER = re.compile(r"\b(?:I|I'm|I've|I'd|me|my|mine|we|we're|us|our)\b|我|咱", re.I)

# Time and discourse words that often, not always, mark a change ("now", "these days",
# "其实", "最近"): a change only when the memory is clearly about the same thing.
_WEAK_EN = (r"now|nowadays|these\s+days|lately|"
            # "actually", not as stress in a relative clause ("the only thing I actually
            # check", "what I actually use")
            r"(?<!thing\sI\s)(?<!things\sI\s)(?<!what\sI\s)(?<!one\sI\s)(?<!stuff\sI\s)"
            # (not "actually" before a degree word: "actually pretty hard" judges)
            r"actually(?!\s+(?:pretty|quite|rather|fairly|kinda|kind\s+of|sort\s+of)\b)|"
            r"at\s+this\s+point|started|starting|"
            r"going\s+forward|from\s+now\s+on|from\s+here\s+on|"
            r"finally|final|in\s+the\s+end|after\s+all|new\s+(?:one|plan|place|job|gig|address|"
            r"number)|better\s+for\s+me|works?\s+better|"
            # when it began: "been using obsidian since last month"
            r"since\s+(?:last|this)\s+\w+|since\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day")
_WEAK_ZH = (r"现在|如今|最近|目前|开始|终于|新的|反而|倒是|重新|"
            # (not before a degree word: "晚上开车其实挺吃力的" judges, it changes nothing)
            r"其实(?!挺|很|蛮|还挺|有点|有些|比较|特别|真的|也|都|不太|不怎么|没那么)|"
            # a standing rule from now on: a change only of what it plainly replaces
            r"(?:^|[，,。\s]|我|请|那)以后|从今|今后|往后")
_WEAK = re.compile(rf"\b(?:{_WEAK_EN})\b|(?:{_WEAK_ZH})", re.I)
_CHANGE_EN = (
    r"any\s*more|no\s+longer|instead|"
    r"switch(?:ed|ing)?|chang(?:e|ed|ing)|mov(?:e|ed|ing)|relocat\w*|migrat\w*|"
    r"not\s+anymore|rather|"
    r"changed\s+my\s+mind|on\s+second\s+thought|scrap|ditch|drop|make\s+it|"
    r"leave\s+(?:it|them|that|those|these)\s+out|"
    r"turns\s+out|updated|"
    # a product's update ("Windows update restarted my laptop") changes nothing of mine
    # ("the update is that…", "latest update: …" still announce a change)
    r"(?<!\bwindows\s)(?<!\bsoftware\s)(?<!\bsystem\s)(?<!\bapp\s)(?<!\bfirmware\s)"
    r"(?<!\bsecurity\s)(?<!\bdriver\s)updates?(?!\s+[a-z]+ed\b)|"
    r"swap(?:ped)?|replac\w*|used\s+to|stopped|quit|gave\s+up|"
    r"i'?m\s+(?:over|done\s+with)|not\s+\w+\s+(?:but|anymore)|"
    r"postpon\w*|reschedul\w*|push(?:ed)?\s+(?:it\s+)?(?:back|forward)|delay(?:ed)?|"
    r"brought\s+forward|moved\s+up|upp(?:ed|ing)|(?:up|down)graded|promoted|overt(?:ook|aken|ake)|ditch(?:ed)?|"
    r"dropp?(?:ed)?|is\s+out|are\s+out|no\s+more|went\s+with|going\s+with|"
    r"settled\s+on|ended\s+up|"
    r"sold\s+out|signed\s+up|booked|closed|cancel(?:l)?ed|got\s+rid\s+of|"
    r"not\s+any\s+more|any\s+longer|these\s+days|bump(?:ed)?|raise[ds]?|lower(?:ed)?|"
    # an amount that moves: "putting the rent up", "cutting the budget to 120"
    r"(?:go(?:es|ing)?|went|gone|put(?:s|ting)?)\s+(?:\w+\s+){0,3}?(?:up|down)|raising|"
    r"increas\w*|decreas\w*|cut(?:ting)?\s+(?:\w+\s+){0,5}?(?:to|down)|"
    r"push(?:ed)?\b[^.,;]{0,30}?\b(?:back|forward)|"
    r"(?:push|shift)(?:ed|ing)?\b[^.,;?]{0,40}?\bto\s+\S|"
    r"change[ds]?\s+my\s+mind|final\s+answer|scratch\s+that|on\s+second\s+thoughts?|"
    + CALLED_OFF
)
# "不…了" is "no longer"; "碰不了", "吃不了" (can't) is no change.
_CHANGE_ZH = (r"还是.{0,12}吧|算了|改(?!善|进|革)|换|不再|已经不|不[^了，。,.！!？?、；;]{1,6}了|"
              # "stop …": 别打电话了, 别再提醒我了 (not 别忘了, a reminder)
              r"别再?(?!忘)[^了，。,.！!？?、；;]{1,6}了|"
              r"变成|搬|迁(?:到|去|移|走)|转(?![头身眼])|调到|调成|调整|挪到|提到|提高到|升到|涨到|加到|降到|减到|不想再|戒|而是|"
              r"(?:放宽|收紧|调高|调低|提前|推迟|延后|延长|缩短|放|推|延|改)到|涨(?!知识)|降(?=了|价|到)|"
              r"调了|要调|弄到|弄成|"
              r"取消|"
              r"停了|不干了|辞|"
              # a move to another employer, trade or school year ("跳槽到字节了", "娃升四年级了")
              r"跳槽|转行|升职|晋升|入职|升(?:入|上)?[一二三四五六七八九]年级")
_CHANGE = re.compile(rf"\b(?:{_CHANGE_EN})\b|(?:{_CHANGE_ZH})", re.I)

_ALSO = re.compile(r"\b(?:also|as\s+well|in\s+addition|another|besides|alongside|"
                   r"on\s+top\s+of)\b"
                   r"|\btoo\b(?=\s*(?:[.!,;)]|$))"
                   # one more of the kind: "又办了张卡", "新开了张卡", "多养了一只"
                   r"|又(?=买|开|办|养|报|加|添|订)|新[开办添]了?[一两]?[张个只台]|多[办开买养]了"
                   # "又领养了只橘猫", "又入了一台": one more of a kind that is counted
                   r"|又[\u4e00-\u9fff]{1,2}了[一两]?[只个张台条辆套部本件位双把]"
                   # ("又从救助站领回来一只三花猫")
                   r"|又[^，。！？\s]{0,10}?[一两][只个张台条辆套部本件位双把]"
                   r"|也(?=喜欢|爱|想|用|会|养|学|玩|看|听|吃|喝|挺|蛮|很|有|在|要|是|常|经常|戒)"
                   # the speaker too, of any verb ("我也对芒果过敏"); not "maybe" (也许), "me
                   # too" (我也是), "fine" (我也行), nor "no longer either" (我也不想养了)
                   r"|我也(?![许是就行好罢算可不没])"
                   r"|还(?=喜欢|爱|想|用|会|养|学|玩|看|听|吃|喝|挺|蛮|有)|另外|同时|以及", re.I)


# Saying again what holds: "as I mentioned", "same as always", "一直都…", "还是老样子".
# ("一直" restates after the speaker or at a clause's start, "我一直不吃肉", "这个一直没变";
# not what something else keeps doing, "手机一直响", nor "以后一直用浅色", "最近一直用Arc".)
_RESTATE = re.compile(
    r"^\s*again\b|\b(?:as\s+i\s+(?:said|mentioned|told\s+you)|like\s+i\s+(?:said|mentioned|"
    r"told\s+you)|"
    r"(?:as|like)\s+(?:always|usual|before|ever)|same\s+as\s+(?:always|before|ever|usual)|"
    r"the\s+usual|"
    r"nothing(?:['’]s|\s+has)?\s+changed|"
    r"still|always\s+(?:have|has|had)\s+been|as\s+i\s+always|reminder|"
    r"keep\s+(?:it|that|them|things)\s+(?:on|at|as|the\s+same|how)|leave\s+(?:it|that)\s+(?:on|at|as))\b"
    r"|保持不变|不用改了?|不改了|别改了"
    r"|我说过|之前说过|说过了|你忘(?:了|啦)|(?:(?<![^，,。！!？?\s我都也就还])|(?<=这个)|(?<=那个))一直|还是老样子|照旧|跟以前一样|和以前一样|依然|仍然|照样|"
    r"老规矩|老习惯|雷打不动|一如既往|[再在]强调|强调一下|重申|再说一遍|再说一次|提醒一下(?=[，,\s])|"
    r"to\s+repeat|just\s+to\s+be\s+clear|once\s+again", re.I)
# Saying only that the line is said again ("once more for the record: …", "repeating
# myself i know", "I've said this before,"): it confirms a memory only when it says
# nothing that memory does not ("…: I'm allergic to shellfish" is not "…peanuts" again).
_SAID_AGAIN = re.compile(
    r"\bonce\s+more(?=\s*(?:[,:;.!]|for\s+the\s+record))|\brepeat(?:ing)?\s+myself\b|"
    r"\b(?:i\s+know\s+)?i(?:['’]ve|\s+have)?\s+(?:said|told\s+you)\s+(?:this|that|it)\s+"
    r"(?:before|already)(?=\s*(?:[,.!?;:]|but\b|$))", re.I)
# "this time" of one occasion, not of one more attempt at a habit ("trying to lose weight,
# seriously this time", "I'm quitting sugar for real this time", "这次是认真的").
THIS_TIME_EN = (r"(?<!\bseriously\s)(?<!\breally\s)(?<!\bfor\sreal\s)(?<!\bfor\sgood\s)"
                r"(?<!\bwith\sit\s)(?<!\bto\sit\s)(?<!\bmean\sit\s)"
                r"\bthis\s+time\b(?!\s+(?:for\s+(?:real|good|sure)|i\s+mean\s+it))")
THIS_TIME_ZH = r"(?:这次|这一次|本次|这回)(?!是?认真|真的?要?|一定|动真格)"
# One occasion, not how things stand: "only today", "tomorrow", "明天", "这次".
_ONCE = re.compile(
    # ("as of this week", "starting this month", "从这周起": when a change starts)
    r"\b(?:(?<!as\sof\s)(?<!from\s)(?<!starting\s)today|tonight|tomorrow|(?<!as\sof\s)"
    r"(?<!from\s)(?<!starting\s)"
    r"this\s+(?:morning|afternoon|evening|week|weekend|once|"
    r"one)|just\s+this\s+once|only\s+today|for\s+now|right\s+now|at\s+the\s+moment|"
    r"for\s+the\s+time\s+being|just\s+for\s+this|for\s+this\s+(?:one|snippet|report|file|"
    r"email|message|doc|document|project|task|case|trip|meeting|question)|"
    r"for\s+this\s+[a-z]+\s+only|(?:only|just)\s+for\s+this\s+[a-z]+)\b"
    r"|\b(?:only|just)\s+(?:today|tonight|this\s+(?:week|once|time))\b"
    rf"|{THIS_TIME_EN}|{THIS_TIME_ZH}"
    r"|明天|今天|今晚|后天|(?<!从)(?:这周|本周)(?!起|开始)|暂时|这两天|这几天|先(?=别|不)|这一条|这一单|这单"
    # a request tied to one event: "资料更新后请…", "once it's done, let me know"
    r"|(?<!以)(?<!之)后(?=请|麻烦|记得|告诉|通知)"
    r"|\bonce\s+(?:it|this|that|the\s+\w+)\s+(?:is|are|has|have|gets?)\b"
    # away for a while, back on a day ("in Manchester now for a conference, back on
    # Friday", "这周在上海出差")
    r"|\bback\s+(?:(?:home\s+)?(?:on|by)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:the\s+)?"
    r"\d+(?:st|nd|rd|th)?)|next\s+(?:week|month|\w+day)|in\s+(?:a|two|three|\d+)\s+(?:days?|weeks?))\b"
    r"|\bfor\s+(?:a|the|this)\s+"
    r"(?:conference|visit|wedding|work\s+trip|business\s+trip|few\s+(?:days|weeks)|"
    r"couple\s+of\s+(?:days|weeks))\b|(?:过几天|下周|月底)就?回来"
    # a stay with its length ("moved to Lisbon for two weeks of holiday", "国庆搬去大理住一周")
    r"|" + STAY +
    # a request about one thing shown or named ("这个菜谱给我换成杯和盎司", "这封邮件帮我…")
    r"|这(?:个|份|篇|封|张|段|道|条)[\u4e00-\u9fff]{1,4}?(?=给我|帮我|请你?|麻烦|你帮)", re.I)


def beyond_change(text: str) -> str:
    """The statement without its change markers: what is left names the new thing, if
    anything ("we moved" leaves nothing, "started swimming" leaves "swimming")."""
    return _SETTLES.sub(" ", _WEAK.sub(" ", _CHANGE.sub(" ", text)))


# Said to be for this once only ("only today though", "just this once", "就今天"): not
# even a short-lived memory.
_ONLY_ONCE = re.compile(r"\b(?:only|just)\s+(?:for\s+)?(?:today|tonight|"
                        r"this\s+(?:once|time|one))\b|"
                        r"\btoday\s+only\b|仅此一次|就这一次|就今天|只是今天|只有今天"
                        # "for today's delivery update only", "for tonight's call only"
                        r"|\bfor\s+(?:today|tonight|tomorrow)['’]s\s+(?:[a-z-]+\s+){0,3}only\b",
                        re.I)


def only_once(text: str) -> bool:
    """Does the statement say it holds for this one occasion only?"""
    return bool(_ONLY_ONCE.search(text))


def restating(text: str) -> bool:
    """Does the statement say it repeats what held before?"""
    return bool(_RESTATE.search(text) or _SAID_AGAIN.search(text))


def only_said_again(text: str) -> bool:
    """Does the statement say it is said again only by a marker of repetition ("once more
    for the record"), not of what stays ("as I mentioned", "still", "一直")?"""
    return bool(_SAID_AGAIN.search(text)) and not _RESTATE.search(text)


def without_restating(text: str) -> str:
    """The statement without its words that say it is said again."""
    return _FOR_THE_RECORD.sub(" ", _SAID_AGAIN.sub(" ", _RESTATE.sub(" ", text)))


_FOR_THE_RECORD = re.compile(r"\bfor\s+the\s+record\b|\bi\s+know\b|记一下|说一下", re.I)


def one_time(text: str) -> bool:
    """Is the statement about one occasion rather than how things stand? Not when a
    clause of its own settles a choice ("went with the samsung in the end, the s23 arrived
    this morning"): the day another clause names is when, not for how long."""
    return bool(_ONCE.search(text)) and not any(
        _CHOSEN.search(c) and not _ONCE.search(c) for c in CLAUSE.split(text))


# A choice made, with the thing chosen after it ("went with the samsung", "settled on the
# 28th", "最终选了小米"); not a way an evening went ("ended up staying in").
_CHOSEN = re.compile(r"\b(?:went|gone|going)\s+with\s+(?:the\s+)?\w|\bsettled\s+on\s+\w|"
                     r"\bdecided\s+on\s+\w|(?:最终|最后)(?:还是)?(?:选|定|买|挑)了?.|定了.", re.I)


# "搞错了，我是 A 型血" gives the right version; "…你别记了，是我搞错了" only admits it.
# (not "搞错了 其实没事": what is right is that nothing holds, a take-back)
_WRONG_THEN_RIGHT = r"[搞弄记写]错了(?=[，,：:\s]*(?:我|是|应该|其实(?![没不])|实际|正确))"
# The last word on a thread of changes ("changed my mind again: Inverness", "算了还是钉钉吧"):
# it is about whatever was changed last, even when it names too little to match.
_SETTLES = re.compile(
    r"\b(?:changed\s+my\s+mind|final\s+answer|in\s+the\s+end|after\s+all|scratch\s+that|"
    r"on\s+second\s+thoughts?|ended\s+up|settled\s+on|went\s+with|final|no\s+wait|"
    r"correction)\b"
    # 不对 of a feeling or a judgement ("感觉不对", "不太对", "不对劲") corrects nothing;
    # 最后 of a place in something ("回答最后加个总结", "最后那个总结") settles nothing
    r"|算了|(?<![觉太点里得像么有])不对(?!劲)|(?:^|(?<=[，,。！!？?\s我们那]))最后(?![一那这的个])|最终|改主意|还是.{0,12}吧|定了|就定(?=[^，。！？\s]{1,12}吧)|定成|说错了|打错了|"
    r"口误|" + _WRONG_THEN_RIGHT,
    re.I)


# Correcting what was just said, not taking a memory back: "scratch that — a latte",
# "no wait, it's Clove", "不对 是昌平".
_CORRECTS = re.compile(
    r"\b(?:scratch|forget|ignore)\s+(?:that|this|it)\s*(?:[—–:;,-]+|\s+)\s*(?:just\s+|it'?s\s+|"
    r"make\s+it\s+|actually\s+)?(?=\w)(?!(?:i|please|pls|don'?t|do\s+not|never|you|one|too|"
    rf"thank|{THANKS}|ok|okay)\b)|"
    r"\b(?:no\s+wait|wait\s+no|correction|typo)\b|不对[，,\s]*(?:是|应该是|改成)|说错了|"
    r"打错了|口误|" + _WRONG_THEN_RIGHT, re.I)


def corrects(text: str) -> bool:
    """Does the statement correct what was just said, giving the right version?"""
    return bool(_CORRECTS.search(text))


def settles(text: str) -> bool:
    """Does the statement settle a thread of changes ("final answer", "算了…还是…吧")?"""
    return bool(_SETTLES.search(text))


def changes_mind(text: str) -> bool:
    """Does the statement present itself as a change from what held before (a marker
    of change, or a time word that often says so)?"""
    text = without_stays(text)  # "I'm NOT moving", "nothing's changed": no change
    return _makes(_CHANGE, text) or bool(_WEAK.search(text) or _SETTLES.search(text))


# Replacing one thing by another, said in so many words: the verbs and adverbs of
# substitution and transfer (switch, change, move, swap, replace, instead, no longer; 换, 改,
# 搬, 转, 调到, 变成, 不再, 还是…吧). A closed grammatical class, not a list of topics: it is
# what lets a change find its memory by rank alone (relate.py, `lead`), where an event
# word ("signed up", "booked") or a time word ("now") would not say that anything held
# before is replaced.
_REPLACES = re.compile(
    r"\b(?:switch(?:ed|ing)?|chang(?:e|ed|ing)|mov(?:e|ed|ing)|relocat\w*|migrat\w*|"
    r"swap(?:ped|ping)?|replac\w*|trad(?:e|ed|ing)\s+in|instead|no\s+longer|any\s*more|"
    r"not\s+any\s+more|ditch(?:ed|ing)?|dropped(?!\s+(?:by|in|off))|went\s+back\s+to|switched\s+back|"
    r"(?:i'?m|i\s+am)\s+back\s+(?:to|on)|sold\s+(?:my|the|our)|"
    # the old one let go: "bye bye apple", "RIP thinkpad", "旧的华为给我爸用了"
    r"bye[\s-]*bye|good\s*bye\s+to|farewell\s+to|rip)\b"
    r"|还是.{0,12}吧|换|改(?!善|进|革)|搬|迁(?:到|去|移)|转到|转成|调到|调成|变成|不再|"
    r"卖了|卖掉|弃用|挪到|挪去|旧的[^，。！？\s]{0,6}(?:给|送|卖|淘汰|退)", re.I)


def replaces(text: str) -> bool:
    """Does the statement say that something it names replaces what held before?"""
    return _makes(_REPLACES, without_stays(text))


def marks_change(text: str) -> bool:
    """A marker that says a change in so many words ("switched to", "no longer", "改成",
    "不再", "final answer", "最后定了"), not only a time word ("now", "最近"); a change
    denied ("not moving", "nothing's changed", "没改") is none."""
    text = without_stays(text)
    return _makes(_CHANGE, text) or bool(_SETTLES.search(text))


def _makes(markers: re.Pattern[str], text: str) -> bool:
    """Does a marker of `markers` make a change in `text`, rather than name one?"""
    return any(not _names_a_change(text, m) for m in markers.finditer(text))


# A marker that names a change rather than makes one: a noun after a determiner ("email
# the client about the delay", "got a small raise", "the move was exhausting"), or an -ing
# clause that is judged ("moving everything is such a faff", "switching banks sounds like
# a pain"). ("the update is that…" still announces one.)
_AS_NOUN = re.compile(r"\b(?:a|an|the|this|that|another|any|some|about|of|for)\s+"
                      r"(?:[a-z]+\s+)?$", re.I)
_NOUNS = frozenset("delay delayed raise raises move change switch swap drop cut bump "
                   "increase decrease upgrade booking".split())
_MADE = re.compile(r"\b(?:made|make|makes|making|did|do|doing|done|took|take|taking)\s*$", re.I)
_JUDGED = re.compile(r"[^,.;!?]{0,40}?\b(?:is|was|would\s+be|sounds|seems|feels|looks)\b"
                     r"(?![^,.;!?]*\b(?:I|I'm|we)\b)", re.I)
_CLAUSE_OPENS = re.compile(r"(?:^|[,.;!?…]\s*|\b(?:but|and|though|tbh|honestly)\s+)$", re.I)


def _names_a_change(text: str, m: re.Match[str]) -> bool:
    word = m.group(0).casefold()
    before = text[:m.start()]
    if word in _NOUNS and (det := _AS_NOUN.search(before)) and not _MADE.search(
            before[:det.start()]):
        return True  # (but "finally made the switch to decaf" makes it)
    return word.endswith("ing") and bool(_CLAUSE_OPENS.search(before)) \
        and bool(_JUDGED.match(text, m.end()))


# What may hold, not what holds: a condition ("if the iPhone gets cheaper…", "如果华为出新款，
# 我就换华为") or a possibility ("I might switch", "我可能会搬去上海"). Such a line says
# nothing has changed yet.
# Not a polite frame ("if possible", "如果可以的话", "I would like…", "could you…"), nor a
# frequency ("once a week").
_SUPPOSES = re.compile(
    # (not a courtesy to the listener: "if you're curious", "if you must know")
    r"\b(?:if(?!\s+(?:possible|you\s+(?:can|could|don'?t\s+mind)|that'?s\s+(?:ok|okay|"
    r"alright|fine)|so|you(?:['’]re|\s+are)\s+(?:curious|wondering)\b|"
    r"you\s+(?:want|must)\s+to\s+know\b))|unless|in\s+case|might|may\s+(?:be\s+)?(?:switch|move|change|go|get|"
    r"start|stop|try)|thinking\s+(?:of|about)|considering|planning\s+to|plan\s+to|"
    r"hoping\s+to|want\s+to\s+try|tempted\s+to|toying\s+with|on\s+the\s+fence|"
    r"(?:kinda|kind\s+of|sort\s+of|half)\s+(?:want|tempted)|"
    # someone else's wish ("my wife says she wants to quit", "he'd like to move"): the
    # speaker's own "I want…" is a request and is not here
    r"wants\s+to|(?:he|she|they)(?:['’]d|\s+would)\s+(?:like|love)\s+to|"
    # a search is not a choice: "been looking at flats in Bristol", "shopping around"
    r"looking\s+(?:at|for|into)|shopping\s+around|searching\s+for|browsing|"
    r"(?:job|house|flat|apartment)[\s-]hunting|interviewing\s+(?:at|with|for))\b"
    r"|如果(?!可以|方便|可能的话)|(?<![主需只重就还想正总])要是(?!可以|方便)|假如|假设|万一|(?<!可以)(?<!方便)(?<!可能)的话|"
    r"可能(?!的话)|也许|或许|说不定|打算|考虑|想要?换|想要?搬|"
    # a pull, not a choice: "有点想转Obsidian", "挺想换个城市"
    r"(?:有点|有些|挺|蛮|好|超|真|还挺)想(?!法|起|到|通)|"
    # someone's wish said on ("老公说想辞职"), and a search ("在看苏州的房子", "在面一家新公司")
    r"说(?:想|打算|准备|考虑)|"
    r"(?:在|正在)(?:看|找|挑|物色|比较|对比)(?=[^，。！？\s]{0,8}?(?:房|车|工作|学校|公司|"
    r"机会|offer|银行|套餐|健身房))|看房|找房|找工作|(?:在|正在)面(?:试)?(?![条包馆食粉])|投简历",
    re.I)


def supposes(text: str) -> bool:
    """Does the statement say what may hold (a condition, a possibility, a plan), rather
    than what holds now?"""
    return bool(_SUPPOSES.search(text))


# A time the statement is set in that is over ("back when I lived in Porto", "when I was
# 12", "大学那会儿", "读研那几年"): what it tells is history, not how things stand.
_PAST_FRAME = re.compile(
    r"\bback\s+(?:when|then)\b|\bwhen\s+i\s+was\s+(?:a\s+(?:kid|child|teen(?:ager)?|student)|"
    r"young(?:er)?|little|in\s+(?:college|uni(?:versity)?|(?:high\s+|grad\s+)?school)|\d{1,2})\b|"
    r"\bgrowing\s+up\b|\bas\s+a\s+(?:kid|child|teen(?:ager)?)\b|"
    r"\bin\s+my\s+(?:twenties|teens|thirties|college\s+days|student\s+days|uni\s+days|"
    r"school\s+days)\b"
    r"|(?<!到)那会儿?|(?<!到)那时候?|那几年|那阵子|小时候|当年|年轻(?:的)?时候|"
    r"(?:上学|读书|大学|高中|初中|读研|读博|研究生|刚工作|刚毕业)(?:那会儿?|那几年|的时候|时候|期间)"
    r"|" + LONG_AGO.pattern, re.I)
# A clause that says how things stand now ("…, now I'm in Lisbon", "现在改喝茶了", "still
# do"); not "现在想想" or "now that I think of it", which look back.
_NOW_HOLDS = re.compile(r"\b(?:now|nowadays|these\s+days|currently|still)\b"
                        r"(?!\s+that\s+i\s+think)|(?:现在|如今|目前|最近|还在)(?!想想|想起来|回想|回头看)",
                        re.I)
# A clause that turns away from the story to what happened since ("…back then but switched
# to Obsidian", "…, anyway I moved to Lisbon last month", "…，上周换回安卓了"): it is not in
# the story's time.
_TURNS = re.compile(r"^(?:but|though|however|anyway)\b|^(?:但是?|不过|可是)|"
                    r"\b(?:last|this)\s+(?:week|month|weekend)\b|\b(?:recently|lately|just)\b|"
                    r"上周|上个?月|这周|本周|最近|前几天|刚刚?|今年", re.I)


def recounts(text: str) -> bool:
    """Is every change the statement tells set in a time that is over, and nothing said of
    how things stand now ("started on guitar when i was 12, switched to bass at 16", "大学
    那会儿一周喝三回啤酒，现在想想都后怕")? Not "when I was a kid I hated broccoli, now I
    love it", "I used Notion back then but switched to Obsidian", "我戒咖啡了，当年就是喝太
    多才失眠的" (the change is now; the story is its reason)."""
    if not _PAST_FRAME.search(text) or _NOW_HOLDS.search(text):
        return False
    framed = False
    for part in _clauses(re.sub(r"\s+(?=(?:but|though|however)\b)", ", ", text, flags=re.I)):
        # a clause is in the story's time once the story has begun, until one turns away
        framed = bool(_PAST_FRAME.search(part)) or (framed and not _TURNS.search(part))
        if not framed and changes_mind(part):
            return False
    return True


# A clause that says a thing stays as it was ("家还在西湖区没动", "still at the same firm",
# "kept my mechanical keyboard tho"); not "还是发邮件吧" (a change) nor "还是决定搬去成都了"
# (what was done after all), nor a feeling that lasts ("still miss Porto", "还是很想念北京").
_STAYS = re.compile(r"\b(?:still|(?:kept|keeping)\s+(?:my|our|the|it|them|that)\b|"
                    r"not\s+giving\s+(?:that|it|them)\s+up|"
                    r"same\s+(?:as\s+(?:before|ever)|old)|(?:haven|hasn|didn|won)['’]?t\s+"
                    r"(?:moved|changed?)|not\s+(?:moving|changing|switching)|"
                    r"nothing(?:['’]s|\s+has|\s+is)?\s+chang(?:ed|ing)|"
                    # a change said not to be meant: "not actually going to switch"
                    r"not\s+(?:really\s+|actually\s+)?(?:going\s+to|gonna|planning\s+to)\s+"
                    r"(?:switch|change|move|swap|replace))\b|"
                    r"还在|还是(?![^，。！？]{0,12}吧)|没搬|没动|没变|没换|没改|依旧|照旧|不变|"
                    r"(?:不是真的?|不会|不打算|不准备|没打算|没想)要?[换搬改转]",
                    re.I)
# Clauses: punctuation, a dash, an emoji, or the space chat puts between Chinese phrases.
_PARTS = re.compile(r"[,，。.!！?？;；]+(?:\s|$)|[，。！？；]|\s[—–-]+\s|"
                    r"[\u2600-\u27bf\U0001F000-\U0001FAFF]+\ufe0f?|"
                    r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _PARTS.split(text) if c.strip()]


def _stays(clause: str) -> bool:
    """Does the clause say that a thing stays, changing nothing in the rest of its words?"""
    if not _STAYS.search(clause) or _SETTLES.search(clause):
        return False
    rest = _STAYS.sub(" ", clause)  # (its own 换 is no substitution: "没换地方")
    return not _SUBSTITUTES.search(rest) and not changes_mind(rest) \
        and not polarity(rest)  # "still miss Porto" is a feeling


def without_stays(text: str) -> str:
    """The statement without its words that say a thing stays ("still", "还是", "没变")."""
    return _STAYS.sub(" ", text)


def kept_clauses(text: str) -> list[str]:
    """The clauses of the statement that say a thing stays as it was, when another clause
    changes or adds something ("还在西湖区没搬，不过我最近换工作了"); [] when none does
    ("still here in Toronto, freezing as ever" restates)."""
    clauses = _clauses(text)
    news = [c for c in clauses if not _stays(c) and (
        changes_mind(c) or adds(c) or opens_one_more(c))]
    kept = [c for c in clauses if _stays(c)]
    return kept if news else []


def stays_only(text: str) -> bool:
    """Does the statement say only that things stay as they were ("still fully remote so
    the job didnt change at all", "组没变 还是支付组", "still in Leith, freezing as ever";
    not "还在滨江上班，老婆怀孕了", whose second clause is news)?"""
    clauses = _clauses(text)
    return bool(clauses) and _stays(clauses[0]) and all(
        _stays(c) or _RESTATE.search(c) for c in clauses)


# Saying that something stopped ("can't do it anymore", "开不起了") is not naming what took
# its place ("switched to", "换成", "instead").
_STOPS = re.compile(r"\b(?:any\s*more|any\s+longer|no\s+longer|quit|stopped|gave\s+up|"
                    r"done\s+with)\b|不[^了，。,.！!？?、；;]{1,6}了|不再|已经不|受不了", re.I)
_SUBSTITUTES = re.compile(
    r"\b(?:(?:switch|chang|mov|swapp?|turn)(?:e|ed|ing|s)?\s+(?:it\s+|over\s+|back\s+)?to|"
    r"instead|replac\w*\s+(?:it\s+|them\s+)?with|went\s+with|going\s+with|make\s+it)\b"
    r"|换(?!掉)|改(?!善|进|革|天|日|掉|正)(?=[\u4e00-\u9fff])|转到|转成|调到|调成|变成"
    # "全面转Cursor了", "转投B站", "按Cursor来"
    r"|转(?=[A-Za-z0-9])|转用|转投|按[^，。！？\s]{1,12}来"
    r"|还是.{0,12}吧", re.I)


def stops_only(text: str) -> bool:
    """Does the statement say only that something stopped, naming nothing that replaced
    it ("my knees just can't take it anymore", "油太贵了，真的开不起了"; not "I quit keto,
    I'm doing Mediterranean now", whose other clause says what holds now)?"""
    return bool(_STOPS.search(text)) and not _SUBSTITUTES.search(text) \
        and not _SETTLES.search(text) and not any(
            _WEAK.search(c) and not _STOPS.search(c) for c in _clauses(text))


def stands_alone(text: str) -> bool:
    """Does the sentence open with the speaker as its subject and refer back to nothing
    ("I'm learning Japanese now", "我现在每天跑步"; not "it's Japanese now", "so my
    sleep is better", "sleeping in the day now", "我很喜欢那边")? Said right after a
    change, such a sentence is a statement of its own unless it is about the same thing."""
    return bool(_SPEAKER_FIRST.match(text)) and not _BACK.search(text)


_SPEAKER_FIRST = re.compile(r"\s*(?:(?:ok|okay|and|also|oh|so|btw|plus|lol|haha)[,!]?\s+)?"
                            r"(?:I\b|I['’](?:m|ve|d|ll)\b|我(?!们))", re.I)
_BACK = re.compile(r"\b(?:it|its|it['’]s|that|this|there|these|those|they|them)\b|"
                   r"它|这|那", re.I)


def adds(text: str) -> bool:
    """Does the statement present itself as one more thing beside what is known? Not by
    a clause about someone else: "…别夹英文术语了 我爸妈现在也用这个号" says the parents use
    it too, not that the speaker adds one more thing."""
    return any(_ALSO.search(c) and not _OTHERS_FIRST.match(c) for c in _ALSO_PARTS.split(text)) \
        or bool(_BESIDES.search(text))


# "除了猫毛过敏 对芒果也过敏", "除了咖啡 我还喝茶": besides the one, another (across the
# clause break; not "除了周末 我每天都跑步", nor "还是")
_BESIDES = re.compile(r"除了[^。！？]{1,16}?(?:也|还)(?!是)")


# Clause bounds: punctuation, and a space between Chinese words (chat separates clauses so).
_ALSO_PARTS = re.compile(r"[，,。！!？?；;]|\.(?:\s|$)|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")
# A clause whose subject is someone else: a third person, or the speaker's people.
_PEOPLE = (r"(?:wife|husband|partner|boyfriend|girlfriend|parents|mum|mom|dad|son|daughter|"
           r"kids?|sister|brother|friends?|boss|manager|colleagues?|coworkers?|roommate|"
           r"flatmate)")
_OTHERS_FIRST = re.compile(
    rf"\s*(?:(?:he|she|they)\b|(?:my|our)\s+{_PEOPLE}\b|"
    r"他|她|它们|我们家的|(?:我|我们)?(?:的)?(?:爸妈|父母|爸爸|妈妈|爸|妈|老婆|老公|女儿|儿子|孩子|"
    r"男朋友|女朋友|同事|朋友|室友|领导|老板|家人))", re.I)


def about_someone(text: str) -> bool:
    """Does the text open with someone else as its subject ("my sister eats fish again
    now", "老公说…", "she…")?"""
    return bool(_OTHERS_FIRST.match(text))


# A sentence that opens as one more thing ("also, …", "btw …", "另外…", "对了…"; not
# "plush…", "还有点…").
_OPENS_ONE_MORE = re.compile(r"\s*(?:(?:also|btw|by\s+the\s+way|oh\s+and|and\s+also|plus|"
                             r"unrelated(?:ly)?|random(?:ly)?|side\s*note|off[-\s]topic|"
                             r"on\s+another\s+note|different\s+topic)\b|"
                             r"另外|还有(?!点)|顺便|对了|(?:跟|和)这个?没关系|题外话|说个别的|换个话题)",
                             re.I)


def opens_one_more(text: str) -> bool:
    """Does the sentence open as one more thing, not going on with what came before it?"""
    return bool(_OPENS_ONE_MORE.match(text))


# A sentence led by the speaker or their own ("I work remotely now", "My birthday is March
# 3", "我们上周领证了", "我还养了只猫") states something of its own; one led by anything
# else, right after a change, says why or how it came about. Said to be one more thing
# anywhere in it ("…, by the way", "记一下"), it is one.
_SPEAKER_LEADS = re.compile(r"\s*(?:(?:ok(?:ay)?|so|and|but|yeah|yes|well|honestly)[,\s]+)*"
                            r"(?:I\b|I['’]m\b|I['’]ve\b|I['’]d\b|I['’]ll\b|im\b|ive\b|my\b|"
                            r"we\b|we['’]re\b|we['’]ve\b|our\b|me\s+and\b|(?:[\w'’]+\s+){1,3}"
                            r"and\s+I\b|我|咱)", re.I)
# ("also", "另外" are `adds`, which `explains` asks too.)
_ONE_MORE = re.compile(r"\b(?:btw|by\s+the\s+way|fyi|for\s+the\s+record|either)\b|"
                       r"\btoo(?=\s*(?:[,.!?，。！？]|$))|"  # "…too." (not "too long")
                       r"记一下|记下|记住|顺便", re.I)


def explains(text: str) -> bool:
    """Does a sentence that follows a change in the same message only go on about it
    (its reason, how it feels: "Too competitive, too long.", "been binging a podcast on
    the commute now", "it was wrecking my sleep, can't do it anymore", "路上太堵了"),
    rather than say something new: a change said in so many words (more than what
    stopped), a retraction, one more thing, or a statement led by the speaker or their own
    ("we just order in now", "my birthday is March 3")? (A time word alone, "now", "最近",
    says no change of its own here.)"""
    return not (_SPEAKER_LEADS.match(text) or _ONE_MORE.search(text)
                or ((marks_change(text) or replaces(text)) and not stops_only(text))
                or settles(text) or adds(text) or opens_one_more(text)
                or retraction(text) is not None)


# A reason or a time given after what the line says ("switched to Portuguese since we go to
# Brazil so often", "I'm on Pacific time now, after the move to Seattle", "换成拿铁了，因为
# 胃不好"): what it names is why or when, not what the line is about.
_REASON = re.compile(
    r"(?:\s*,\s*|\s+)(?:since|because|cause|cuz|coz|as\s+(?=(?:i|we|my|our|it|the)\b)|"
    r"after\s+(?=(?:the|my|our|we|i)\b)|so\s+that)\b[^.!?;]*"
    r"|(?<=[^\s，,。])[，,\s]*(?:因为|由于|毕竟)[^。！？；]*", re.I)


def without_reasons(text: str) -> str:
    """The text without the reasons and times it gives after its main clause."""
    return _REASON.sub("", text).strip() or text


def says_new_value(statement: str) -> bool:
    """Does a clause of a take-back, other than the take-back's own, say a change ("称呼
    那条删掉吧，以后叫我老王就行")?"""
    return any(changes_mind(c) and retraction(c) is None for c in _clauses(statement))

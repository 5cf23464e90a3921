"""Taking a stored statement back: the verbs of a retraction ("forget that…", "scratch
what I said about…", "ignore the X thing", "别记…了", "那条不用记了", "我收回刚才说的…")
and what it names, as the rule extractor reads them. A memory verb, not a plain "never
mind" (which also opens a change: "算了还是钉钉吧"). Which memory the label means is
decided by meaning (understand/relate.py), not here.
"""

from __future__ import annotations

import re

import jieba

from .planoff import plan_off

__all__ = ["THANKS", "THANKS_ZH", "names_nothing", "retraction"]

# Verbs of keeping something in memory, in the forms a retraction uses them.
_KEEP_NOW = (r"(?:remember|keep|store|save|record|retain)(?:ing)?|"
             r"(?:hold|holding|hang|hanging)\s+on(?:\s*to)?")
_KEEP_EN = rf"{_KEEP_NOW}|(?:remember|store|save|record|retain)ed|kept|(?:held|hung)\s+on(?:\s*to)?"
# Thanks and laughter after a line, which add nothing to what it says ("forget that,
# cheers", "Forget that. Thanks!"): the take-back's tail here, a message's rest in
# threadtopic.says_more, never a correction's new value (discourse.corrects).
THANKS = r"thanks|thank\s+you|thx|ty|cheers|lol|haha"
THANKS_ZH = r"谢谢|谢啦|谢了|多谢|感谢"

# How a request to the memory is asked: every form of take-back below that is an
# imperative opens with one of these or at a clause's start ("you can drop the bit
# about…", "feel free to scrap what I said about…").
_ASKED = (r"please|pls|can\s+you|could\s+you|would\s+you|will\s+you|"
          r"you\s+(?:can|may|could)|feel\s+free\s+to|go\s+ahead\s+and")
_RETRACT_EN = (
    # an imperative to the memory at the start of a clause: "forget the cello idea",
    # "can you delete what I told you about…", "please wipe whatever you have on my ex"
    r"(?:(?:^|[,;:.!?]\s*)(?:(?:lol|lmao|haha|oh|ah|ok|okay|so|and|also|actually|hey|yeah|"
    rf"nah|no|hmm|um|well|btw|wait|ugh|oops|right)[,!.]?\s+){{0,3}}|\b(?:{_ASKED})\s+|"
    # "just forget it", not "I just forget again"
    r"(?<!\bI\s)(?<!\bwe\s)(?<!you\s)(?<!they\s)\bjust\s+)"
    # (not before a letter: "forget那条…" ends the English word where the Chinese begins)
    r"(?:forget|delete|remove|erase|wipe|scratch|strike|disregard|unsay|retract|"
    r"un-?remember)(?![A-Za-z0-9_'])"
    r"(?!\s+(?:it|about\s+it|this\s+(?:question|email|file|message))\b)|"
    # "I don't want my weight stored", "shouldn't be in your memory", "take X out of memory"
    r"\bdo\s*n[o']?t\s+want\b(?=\s+(?:my|the|that|this|any)\b[^.!?]{0,40}?\b(?:stored|kept|"
    r"saved|remembered|on\s+file|in\s+(?:your\s+)?memory)\b)|"
    r"\bshould(?:n'?t|\s+not)\s+be\s+in\s+(?:your\s+)?(?:memory|notes|records|files)\b|"
    r"\btake\b(?=[^.!?]{1,50}?\bout\s+of\s+(?:your\s+)?(?:memory|notes|records))|"
    # "drop the running one", "scrap the cello thing": a memory named as a thing
    r"(?:(?:^|[,;:.!?]\s*)(?:(?:ok|okay|so|and|oh|lol|yeah|actually)[,!.]?\s+){0,2}|"
    rf"\b(?:just|{_ASKED})\s+)(?:drop|ditch|scrap|bin|nix|lose|ignore)"
    r"(?=\s+the\s+(?:[\w'-]+\s+){1,3}(?:one|thing|bit|note|entry|memory|part|stuff|info|"
    r"nagging|reminders?)\b)|"
    # "I'd prefer you not remember…", "I'd rather you didn't keep…"
    # (a wish: "you never remembered my birthday" is a complaint)
    r"\b(?:rather|prefer(?:red)?|want(?:ed)?|wish|like|need|ask(?:ed)?|better\s+if)\s+"
    rf"(?:it\s+if\s+|if\s+)?you\s+(?:to\s+)?(?:not|didn'?t|never|wouldn'?t|don'?t)\s+"
    rf"(?:to\s+)?(?:{_KEEP_EN})\b|"
    r"(?:drop|ditch|take|get|clear|remove|delete|erase|wipe|scrub|purge|strip|cut|get\s+rid\s+of)"
    r"\b(?=[^.;!?]{0,40}?\b(?:from|out\s+of)\s+(?:your\s+)?(?:notes|memory|memories|records|"
    r"files))|"
    # "drop what you know about my dog", "scrub whatever you have on my ex"
    r"\b(?:drop|ditch|scrap|scrub|purge|clear|lose|bin|toss|dump|nix)\s+(?:what(?:ever)?|"
    r"everything|anything|all)\s+you\s+(?:know|have|remember|stored|saved|noted|kept)\b|"
    # what was said, named as such, and a verb that removes it: "scrap what i told you
    # about my pay", "take out what i said about my boss", "drop the bit about …"
    rf"(?:^|[,;:.!?]\s*|\b(?:just|{_ASKED})\s+)"
    r"(?:scrap|drop|ditch|bin|nix|lose|toss|dump|cut|strike|take\s+out|clear|kill)\s+"
    r"(?:what(?:ever)?\s+i\s+(?:said|told\s+you|mentioned|wrote|shared|typed)|the\s+(?:bit|"
    r"part|stuff|thing|info|line|note)s?)\s+(?:about|on|re|regarding)\b|"
    r"never\s+mind\s+(?:what|the|about|my)\b|"
    # "that penicillin thing, you can let that go": asked of the memory, at a clause's start
    rf"(?:^|[,;:.!?]\s*|\b(?:just|{_ASKED})\s+)let\s+(?:that|it|this)(?:\s+one)?\s+go\b|"
    rf"(?:do\s*n[o']t|do\s+not|no\s+need\s+to|stop|never)\s+(?:{_KEEP_NOW}|note|noting)\b"
    r"(?!\s+(?:to|it\s+in\s+mind))|"
    # "you don't need to remember the German thing", "would you mind not keeping…"
    rf"(?<!\bI\s)(?<!\bwe\s)(?:do\s*n[o']?t|do\s+not|no\s+longer)\s+(?:need|have)\s+to\s+"
    rf"(?:{_KEEP_NOW})\b"
    r"(?!\s+(?:to|it\s+in\s+mind))|"
    rf"\b(?:mind|please|pls|kindly)\s+(?:just\s+)?not\s+(?:{_KEEP_NOW})\b"
    r"(?!\s+(?:to|it\s+in\s+mind))|"
    # "no point keeping that in my profile" (not "no point in keeping score")
    rf"\bno\s+point(?:\s+in)?\s+(?:{_KEEP_NOW})\s+(?:that|this|it)\b"
    r"(?!\s+(?:to|it\s+in\s+mind))|"
    r"ignore\s+what\s+i\s+(?:said|told)|take\s+(?:that|it)\s+back|i\s+take\s+"
    r"(?:that|it|back)|"
    r"(?:that'?s|it'?s|that\s+is|this\s+is)\s+(?:not\s+true|no\s+longer\s+true|wrong|"
    r"outdated|not\s+relevant)\s*(?:any\s*more|now)?|"
    r"was\s+(?:just\s+)?(?:joking|kidding)|don'?t\s+hold\s+(?:me\s+to|onto)|"
    # "I'd rather not get reminded of it": a wish not to have it kept
    r"\b(?:rather|prefer(?:red)?)\s+not\s+(?:to\s+)?(?:be|get)\s+reminded\s+(?:of|about)\b|"
    # "please don't bring them up anymore", "stop mentioning my ex"
    # (asked of the assistant: not "I never talk about work with my kids")
    r"(?:^|[,;:.!?]\s*|\bplease\s+|\bpls\s+)(?:do\s*n[o']?t|do\s+not|stop)\s+"
    r"(?:bring(?:ing)?\s+(?:[\w']+\s+){0,3}?up|mention(?:ing)?|talk(?:ing)?\s+about)\b"
    r"(?=[^.!?]{0,80}\b(?:any\s*more|again)\b)|"
    # as if never said: "consider it never said", "treat that as unsaid", "act like I
    # never mentioned it"
    r"pretend\s+i\s+never\s+said|(?:consider|treat|count)\s+(?:it|that|this)\s+(?:as\s+)?"
    r"(?:never\s+said|unsaid|not\s+said)|(?:as\s+if|like)\s+i\s+never\s+(?:said|mentioned)\b"
)
_RETRACT_ZH = (r"(?:别|不用|不要|无需|不必)(?:再|专门|特意|特地|刻意)?"
               r"(?:记|存(?!钱|款|零)|留(?!下|言|意|学))|"
               r"清掉|清除|清了|拿掉|移除|忘(?:了|掉|记)(?:吧|它|这|那|我说)|忘掉|删(?:了|掉|除|一下|下|咯)|"
               r"撤(?:了|掉|销|一下|下)|"
               r"去掉|划掉|抹掉|收回|撤回|不算(?:了|数)?|作废|当我没说过?|"
               # "别再提他了" (not "别提了", don't get me started; not 提醒)
               r"(?:别|不要|不用)再?提(?:起)?(?![醒前交高出供到议升示了])(?=[^，。！？]{1,10}了)|"
               r"别当真|开玩笑的|随口一说|随口说的|随便说说|不记了|不作数|"
               # not the user's words: "周杰伦那句不是我说的", "那条不是我本人发的"
               r"不是我(?:本人|自己)?(?:说|发|打|写)的|"
               # "那个就别管了": what was said, to be let go
               r"(?<=[那这][个条件事])你?就?(?:别|不用|不要)(?:再)?管(?:了|它)|"
               # "那条你当没听过吧": what was said, to be as if unheard
               r"你就?当(?:作|做)?没(?:听|看)(?:过|见|到)|"
               # as if never said: "之前那句当没发过", "就当我没提", "当作没说过"
               # (not "应当", "相当", "每当没写完…")
               r"(?<![应相每])当(?:作|做|成)?我?没(?:讲|提|说|发生|发|写)过?")
_RETRACT = re.compile(rf"(?:{_RETRACT_EN})|(?:{_RETRACT_ZH})", re.I)

# "delete it", "take it out" take a memory back once the sentence has named one ("that
# thing about trying for a baby — delete it please"); alone, "it" is the thing at hand.
_RETRACT_IT = re.compile(r"\b(?:delete|erase|remove|wipe|forget|drop|take|scrap|ditch|bin|"
                         r"get\s+rid\s+of)\s+it"
                         r"(?:\s+(?:out|off))?"
                         r"\b", re.I)
# "delete it", "forget that one" as a sentence of its own: the thing at hand is what the
# message or the assistant's line before it named (the write path reads them).
# (Also as the last clause, after one that says what is over: "uh that's not a thing
# anymore, drop it", "the first one's sorted, get rid of it".)
_BARE_IT = re.compile(r"(?:^|[,;.!?—–]\s+)\W*(?:(?:please|pls|just|so|ok(?:ay)?|and|yeah|"
                      r"you\s+can|actually|oh|hmm|wait|um|nah|no|hey|sorry|"
                      r"on\s+second\s+thought)\W+){0,3}"
                      r"(?:(?:delete|erase|remove|wipe|forget|drop|scrap|bin|toss|ditch|"
                      r"get\s+rid\s+of)\s+(?:it|that(?:\s+one)?|this(?:\s+one)?)|"
                      r"(?:take|get)\s+(?:it|that|this)\s+(?:out|off)"
                      r"(?:\s+(?:of|from)\s+(?:your\s+)?(?:notes|memory|records|files))?)"
                      rf"(?:\W+(?:please|pls|too|as\s+well|then|{THANKS}))*\W*$", re.I)
_REFERENT = re.compile(r"\b(?:the|that|this|my)\s+(?:[\w'-]+\s+){0,3}(?:thing|stuff|info|"
                       r"bit|part|note|memory|rule|preference|instruction)\b", re.I)

# What a retraction names around its verb: "what I said about", "那条", "之前说…那个".
_ABOUT = re.compile(
    r"\b(?:what(?:ever)?\s+(?:i\s+(?:said|told\s+you|mentioned)|you\s+(?:have|know|"
    r"stored|saved|noted|remember))|i\s+(?:said|told\s+you|mentioned)|said|told|"
    r"mentioned|from\s+(?:your\s+)?(?:notes|memory|records)|not\s+relevant|stuff|idea|"
    r"the\s+(?:bit|part|thing|stuff|note|"
    r"memory|one)|that\s+i\s+(?:said|mentioned|told\s+you)|about|regarding|re:?|please|"
    r"pls|you|can|could|just|ok|okay|actually|also|and|my|me|i'?d|i'?m|i|it|that|the|earlier|before|"
    r"prefer|rather|lol|haha|oh|so|info|thing|things|one|bit|part|entry|have\s+on|on\s+me|"
    r"hey|ugh|wait|hmm|um|sorry|i'?m|stored|kept|saved|anywhere|"
    r"out\s+of\s+(?:your\s+)?(?:memory|notes|records|files)|"
    r"would|mind|"
    r"(?:the\s+)?fact(?:\s+that)?|"
    r"in\s+(?:your\s+)?memory|"
    r"on\s+file|(?:in|on|from)\s+(?:my|your)\s+(?:profile|notes)|them|him|her|"
    r"from\s+(?:memory|your\s+memory)|anymore|any\s+more|now|thanks|thank\s+you|thx|ty|"
    r"let'?s|(?:scrap|ditch|bin|drop|nix|toss|kill)\s+(?:it|that))\b"
    r"|" + (_ABOUT_ZH := r"之前说(?:的|过)?|刚才说(?:的|过)?|我说(?:的|过)?|说过的|关于|那条|这条|"
            r"那个|这个|的事|刚才|刚刚|上一句|上一条|" + THANKS_ZH + r"|记录|那件事|那事|这事|"
            r"信息|那会儿?|那时候?|当时|上次|他们|她们|那句|这句|麻烦|帮我|可以|能不能|能否")
    # one character, a word only where it stands as one: not the 他 of "吉他"
    + r"|(?:我|把|他|她|它|请|你|吧|了|啊|哈|嗯|就|也|都|的|先|诶|欸|哎|呃)", re.I)
_ZH_WORDS = re.compile(_ABOUT_ZH)
# "芒果那个…", "吉他那条…": a thing put first in its clause as what the clause is about.
_TOPIC = re.compile(r"(?:^|[，,。！？!?；;\s])(?:[啊哦诶呃噢]\s*)?([\u3400-\u9fff]{1,8}?)"
                    r"(?:那个|那条|那件事)")
_CJK = re.compile(r"([\u3400-\u9fff]+)")
_SPACE = re.compile(r"[\s,，。.!！?？;；:：、~…\"'“”‘’()（）—–]+")
_CLAUSE = re.compile(r"[,，。.!！?？;；]+(?:\s|$)|[，。！？；]")
# A space between Chinese words, where chat puts a comma
_ZH_GAP = re.compile(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])")


def names_nothing(taken_back: str | None) -> bool:
    """Is it (what `retraction` returned) a take-back that names nothing ("scratch that",
    "delete it"), whose thing the conversation around it says?"""
    return taken_back is not None and not taken_back.strip()


def retraction(text: str) -> str | None:
    """What a statement takes back ("" when it names nothing), or None when it takes
    nothing back."""
    found = list(_RETRACT.finditer(text))
    if not found and (referent := _REFERENT.search(text)):
        found = list(_RETRACT_IT.finditer(text))
        if found and (thing := _named(referent.group())):
            # "the tuesday pottery thing is done, … take it off": what "it" is
            return thing
    if not found:
        return "" if _BARE_IT.search(text) else None
    topic = _TOPIC.search(text)
    for m in found:
        # The clause that holds the verb names the thing ("forget the divorce stuff? I
        # shouldn't have shared it": the divorce); when it names nothing ("that's not
        # true any more", "我收回刚才说的"), the clause before it or after it may.
        start = max((b.end() for b in _CLAUSE.finditer(text, 0, m.start())), default=0)
        end = next((b.start() for b in _CLAUSE.finditer(text, m.end())), len(text))
        if topic and not start <= topic.start(1) < end and (named := _named(topic.group(1))):
            # a thing put first as another clause's topic names it ("芒果那个是我搞混了，是
            # 我妹过敏不是我，你删了吧"), not the clause nearest the verb
            return named
        gap = max((g.end() for g in _ZH_GAP.finditer(text, start, m.start())), default=start)
        if _JUST_SAID.search(text[gap:next(
                (g.start() for g in _ZH_GAP.finditer(text, m.end(), end)), end)]):
            # "刚才那句作废哈 发错人了", "这条先别存 还没定呢": what was just said, whatever
            # the clause after it gives as the reason
            return ""
        named = _named(text[start:m.start()] + " " + text[m.end():end])
        if not named:
            # A plan the line calls off names it wherever it is ("考研那事黄了，决定直接
            # 工作，之前说的那个忘了吧"): not the clause that happens to stand nearest.
            named = plan_off(text[:start] + "。" + text[end:]) or ""
        if not named and start > 0:
            before = max((b.end() for b in _CLAUSE.finditer(text) if b.end() < start),
                         default=0)
            named = _named(text[before:start])
        if not named and end < len(text):
            after = next((b.start() for b in _CLAUSE.finditer(text, end + 1)), len(text))
            named = _named(text[end:after])
        if named:
            return named
    return ""


# What was just said, pointed at: "刚才那句", "这条", "上一条", "what I just said", "that
# last message".
_JUST_SAID = re.compile(r"刚才(?:那|这)?[句条]|刚(?:刚|才)?(?:说|发)的|上一[句条]|这[句条]|"
                        r"\bwhat\s+i\s+just\s+(?:said|wrote|typed|sent)|\b(?:that|the|my)\s+"
                        r"last\s+(?:one|message|bit|line)\b|"
                        r"\b(?:that|this)(?:\s+one)?\W*$", re.I)  # "don't save that, …"

# Symbols and emoji name nothing ("forget that 😅").
_SYMBOLS = re.compile(r"[^\w\s]", re.UNICODE)


def _named(text: str) -> str:
    out = []
    for part in _CJK.split(_RETRACT.sub(" ", text)):
        if _CJK.fullmatch(part):
            # Chinese by its words (jieba), so a word keeps its characters ("吉他那个你别记")
            out += ["".join(w if not _ABOUT.fullmatch(w) else " " for w in jieba.cut(run))
                    for run in _ZH_WORDS.sub(" ", part).split()]
        else:
            out.append(_ABOUT.sub(" ", part))
    return _SPACE.sub(" ", _SYMBOLS.sub(" ", " ".join(out))).strip()

"""A statement's stance: for or against what it is about (polarity), and that thing
without the stance around it (the core), so "I love quiet cafés" and "I can't stand quiet
cafés" compare as the same thing with opposite signs.

The lexicon is of stance and negation, not of topics: it is small and closed by nature
(how people say they like or dislike something), which is why it generalises where a list
of topics would not.
"""

from __future__ import annotations

import re
from functools import lru_cache

import jieba

from ..textindex import terms

# Negative stance first: "don't like" must not read as "like".
_NEG_EN = (r"(?:do\s*n[o']t|does\s*n[o']t|did\s*n[o']t|can\s*n[o']t|cannot|can't|won't|"
           r"dont|doesnt|didnt|cant|wont|"
           r"wouldn't|never|no\s+longer|not)\s+(?:really\s+|much\s+|even\s+|ever\s+)?"
           r"(?:like|love|enjoy|want|need|care\s+for|fancy|do|eat|drink|use|prefer|dig|"
           r"stand|bear|stomach|handle|tolerate)")
# "stop sending me the summaries": what was asked for, called off (a stance against it,
# and a change: discourse.py uses it too); not "stop by", nor the weather.
CALLED_OFF = r"stop\s+(?!by\b|raining\b|snowing\b)\w+ing"
_NEG_EN_WORDS = (r"hate[sd]?|hating|dislike[sd]?|detest[s]?|loathe[sd]?|despise[sd]?|"
                 r"abhor|can't\s+stand|cannot\s+stand|not\s+(?:a\s+)?(?:big\s+)?fan\s+of|"
                 r"not\s+into|not\s+keen\s+on|sick\s+of|tired\s+of|fed\s+up\s+with|"
                 r"over\s+(?:it|them)|avoid(?:s|ing)?|done\s+with|"
                 r"not\s+for\s+me|no\s+more|stay\s+away\s+from|steer\s+clear\s+of|"
                 r"bores?\s+me|annoy(?:s|ing)?|irritat\w*|gross|awful|terrible|the\s+worst|"
                 # asking for a thing to be left out: "skip the links", "leave out the recap"
                 r"skip(?:s|ped|ping)?|omit|leave\s+out|cut\s+out|no\s+need\s+for|"
                 r"gave\s+up|give\s+up|quit|"
                 # switched off, taken away: "kill the push notifications", "leave them out",
                 # "no spoilers please", "the morning coffee is gone"
                 r"kill|turn\s+(?:it\s+|them\s+)?off|switch\s+(?:it\s+|them\s+)?off|disable|mute|"
                 r"(?:leave|cut|take)\s+(?:it|them|that|those)\s+out|get\s+rid\s+of|"
                 r"no\s+(?:[a-z-]+\s+){1,2}(?:please|pls|plz)|(?:is|are|['’]s)\s+gone|"
                 r"off\s+the\s+menu|"
                 # worn out by it: "the emoji thing has gotten kinda old", "a bit much"
                 r"(?<!\bi['’]m\s)(?<!\bi\sam\s)(?:getting|gotten|gets)\s+(?:(?:a\s+(?:bit|little)|kinda|"
                 r"kind\s+of|pretty|really|so|super)\s+)?old|wear(?:s|ing)?\s+thin|worn\s+thin|"
                 r"(?:a\s+(?:bit|little)|way|far)\s+(?:too\s+)?much|" + CALLED_OFF)
_POS_EN = (r"love[sd]?|loving|like[sd]?|liking|enjoy(?:s|ed)?|prefer(?:s|red)?|adore[sd]?|"
           r"fond\s+of|into|a\s+(?:big\s+|huge\s+)?fan\s+of|keen\s+on|want[s]?|need[s]?|"
           r"would\s+like|'d\s+like|'d\s+love|would\s+love|crave[s]?|dig|obsessed\s+with|"
           r"can't\s+get\s+enough\s+of|favou?rite|the\s+best|great|awesome|"
           # asking for a thing to be put in: "always include comments", the opposite
           # of "skip the comments"
           r"include[sd]?|add\s+in|put\s+in|"
           # switched on, kept on: "keep push notifications on", "turn on the dark theme"
           r"keep\s+(?:[\w-]+\s+){1,3}on|turn\s+on|switch\s+on|enable|"
           # consent: "I'm fine with you sharing…", "happy for you to…", "don't mind"
           r"fine\s+with|ok(?:ay)?\s+with|happy\s+(?:for\s+you\s+)?(?:to|with)|"
           r"comfortable\s+with|(?:do\s*n[o']?t|do\s+not)\s+mind")
_NEG_ZH = (r"不(?:太|怎么|大|是很|是特别|很|再)?(?:喜欢|爱|想|要|吃|喝|用|看|听|感兴趣|习惯|"
           r"需要|想要|希望)|讨厌|受不了|烦(?:死)?|反感|厌倦|腻了|腻|恶心|别再|不要|不用|"
           r"别给我|拒绝|没兴趣|不感冒|嫌弃|怕|忍不了|戒了|不碰|过敏|去掉|省掉|跳过|别加|不加|"
           # consent withheld: "不能接受", "不愿意", "我介意" (not "不介意")
           r"不(?:能|可以|太)?接受|不(?:太)?愿意|不乐意|(?<!不)介意")
_POS_ZH = (r"喜欢|爱吃|爱喝|爱看|爱听|爱|偏好|想要|希望|习惯|喜爱|钟爱|迷上|最爱|热爱|中意|偏爱|要|"
           r"优先|首选|开始(?=[吃喝用玩学看听练])|不介意|愿意|乐意|可以接受")

_NEG = re.compile(rf"\b(?:{_NEG_EN})\b|\b(?:{_NEG_EN_WORDS})\b|(?:{_NEG_ZH})", re.I)
_POS = re.compile(rf"\b(?:{_POS_EN})\b|(?:{_POS_ZH})", re.I)

# What frames a statement without saying what it is about: the speaker, intensifiers,
# hedges, discourse markers and time adverbs of the present.
_FRAME = re.compile(
    r"\b(?:I|I'm|I've|I'd|I'll|im|me|my|mine|myself|we|we're|our|us|honestly|actually|"
    r"really|truly|so|very|super|totally|absolutely|kinda|kind\s+of|sort\s+of|pretty|"
    r"quite|just|now|nowadays|these\s+days|lately|anymore|any\s+more|still|always|"
    r"also|too|though|tbh|lol|haha|well|oh|ok|okay|yeah|yes|no|the|a|an|to|of|am|is|"
    r"are|do|does|don't|doesn't|not|it|that|this|them|they|be|been|being)\b"
    r"|我们|我的|我|咱们|咱|它们|它|其实|说实话|真的|真|非常|特别|超级|超|很|挺|太|好|蛮|现在|如今|最近|"
    r"一直|还是|也|都|就|了|吧|啊|呀|呢|哈|嘛|的", re.I)
_SPACE = re.compile(r"[\s,，。.!！?？;；:：、~…\"'“”‘’()（）]+")


@lru_cache(maxsize=16384)
def polarity(text: str) -> int:
    """+1 for, -1 against, 0 when the statement takes no stance word of either kind."""
    if _NEG.search(text):
        return -1
    if _POS.search(text):
        return 1
    return 0


@lru_cache(maxsize=16384)
def core(text: str) -> str:
    """The statement without its stance and framing words: what it is about. A Chinese
    stance or frame word goes only where it is a word of the sentence, not a character of
    another word: 都 of "我们都去", not of "成都"; 超 of "超喜欢", not of "超市"; 太 of "太贵",
    not of "太原"."""
    spans = [m.span() for rx in (_NEG, _POS, _FRAME) for m in rx.finditer(text)]
    if not spans:
        return _SPACE.sub(" ", text).strip()
    cuts = _word_bounds(text) if _CJK.search(text) else frozenset()
    keep = [True] * len(text)
    for a, b in spans:
        if cuts and _CJK.match(text[a:b]) and not (a in cuts and b in cuts):
            continue  # inside a Chinese word
        keep[a:b] = [False] * (b - a)
    out = "".join(c if k else " " for c, k in zip(text, keep, strict=True))
    return _SPACE.sub(" ", out).strip()


_CJK = re.compile(r"[\u3400-\u9fff]")


def _word_bounds(text: str) -> frozenset[int]:
    """Where the words of the sentence start and end (jieba's cut, no guessing)."""
    at, out = 0, {0}
    for w in jieba.cut(text, HMM=False):
        at += len(w)
        out.add(at)
    return frozenset(out)


# A clause's not, and the words that only stress it ("at all", "根本"); where a clause ends.
_NOT = re.compile(r"\b(?:not|never|no\s+longer)\b|\b\w+n['’]t\b|不是|并不|不再|没有|"
                  r"不(?=[\u4e00-\u9fff])|没(?=[\u4e00-\u9fff])", re.I)
_STRESS = re.compile(r"\b(?:at\s+all|any\s*more|actually|really|honestly|wait|after\s+all|"
                     r"in\s+fact|(?:the\s+)?user(?:['’]s)?)\b|根本|一点也|一点都|其实|并|用户",
                     re.I)
CLAUSE = re.compile(r"\s[-—–]+\s|[,，;；。!！?？]|\.(?:\s|$)")


def denies(statement: str, memory: str) -> bool:
    """Does a clause of `statement` say `memory` with a not, or `memory` say it with one
    ("I'm not allergic to penicillin at all" / "I'm allergic to penicillin", "我不是素食者"
    / "我是素食者")? The same content words, only the not differs: "I don't drink coffee
    after 3pm" does not deny "I drink coffee every morning"."""
    def words(text: str) -> frozenset[str]:
        return frozenset(terms(_STRESS.sub(" ", _NOT.sub(" ", text))))
    said = words(memory)
    if not said:
        return False
    return any(bool(_NOT.search(part)) != bool(_NOT.search(memory)) and words(part) == said
               for part in CLAUSE.split(statement) if part.strip())

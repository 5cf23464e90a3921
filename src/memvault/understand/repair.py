"""A speaker repairing what they just said: "sorry typo, it's Anne", "no, not Paris, Lyon",
"说错了 是通州", "不是海淀 是昌平", "我家狗叫旺财 不对 叫来福".

People correct a slip by naming the right value, often with a mark of the repair
("typo", "I mean", "oops", "不对", "口误", "说错了") and sometimes with the wrong value
refused beside it ("not Paris", "不是海淀"). The value's kind says which word of the
earlier statement it replaces (understand/ellipsis.py: a number with its unit or measure
word, a capitalised name, a day). Chinese names and places carry no capital, so here a
Chinese value is typed by what the repair says around it:

- the wrong value refused in so many words ("不是海淀 是昌平"): that word, when the
  statement holds it;
- the verb that introduces both ("叫来福" for "我家狗叫旺财"): the word after that verb
  in the statement;
- the statement's one "是…" ("专业是计算机" for "sorry 是软件工程");
- a value of the same length with the same last character ("上海人" for "杭州人");
- otherwise a proper noun (a place, a person's or an organisation's name, by jieba's
  part-of-speech tags) for the one proper noun of the statement.

Also here: `by_difference`, a repair that says the statement again with the slipped
word refused ("it's shellfish I'm allergic to, not peanuts"); `only_admits`, a sentence
that only owns up to a slip ("my bad, I always mix those two up"), which keeps nothing.
Anything less certain is no repair: the statement stays and the line goes through the
write path as any other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cache

import jieba

from ..textindex import CJK_RANGES, STOPWORDS
from .topics import content_words

# A mark that the speaker repairs a slip of theirs (not a change of mind: the value said
# was never meant). English marks are words; Chinese ones are verbs of erring.
MARK = re.compile(
    r"\b(?:sorry|oops|whoops|typo|my\s+bad|mis-?spoke|misspelt|misspelled|autocorrect(?:ed)?|"
    r"(?:i\s+)?meant(?:\s+to\s+say)?|i\s+mean\b(?!\s+(?:it|that|i|you|we|they|he|she|to)\b)|correction|"
    r"my\s+mistake|by\s+mistake|mix(?:ed)?\s+(?:them|those|these|it)(?:\s+two)?\s+up|"
    r"read\s+it\s+wrong|brain\s+fart)\b|"
    r"(?:^|(?<=\s))\*(?=\w)|(?<=\w)\*(?=\s|$)|"  # "*Mochi", "thursday*"
    # 不对 of a feeling or a judgement ("感觉不对", "不太对", "不对劲") repairs nothing
    r"(?<![觉太点里得像么有])不对(?!劲)|说错了?|打错(?:字)?了?|写错了?|口误|笔误|"
    r"更正(?:一下)?|纠正(?:一下)?|搞错了|记错了|弄错了|搞混了|记混了|看错了|打反了|手滑|应该是",
    re.I)
_C = f"[{CJK_RANGES}]"
# A Chinese value: a short run after the word that introduces it, up to a break or a
# particle ("是昌平 海淀太贵了", "叫来福吧", "在通州哈").
_VALUE = (rf"(?!不对|不是|对不|[打说写搞记弄]错|口误|笔误|更正|纠正|应该)(?P<new>{_C}{{2,6}}?)"
          rf"(?=[了的啦哈呀吧啊哦呢]*(?:$|[^{CJK_RANGES}]|不是))")
_END = rf"(?=[了的啦哈呀吧啊哦呢]*(?:$|[^{CJK_RANGES}]))"
_INTRO = r"是说|意思是|是|叫|姓|在|去|到|住|住在|搬到|改成|改为|换成|用"
_CJK_REPAIR = re.compile(
    rf"(?:(?:(?<![觉太点里得像么有])不对(?!劲)|说错了?|打错(?:字)?了?|写错了?|口误|"
    rf"更正(?:一下)?|纠正(?:一下)?|搞错了|记错了|"
    rf"(?:^|(?<=[\s，,]))(?:[啊哦呃噢诶]\s*)?不是(?=[\s，,])|(?:^|(?<=[\s，,]))[啊哦呃噢]\s*不"
    rf"(?=[\s，,])|(?i:sorry|oops|my\s+bad))"
    rf"[\s，,：:。.!！]*(?:应该|其实)?|应该(?=是))"
    rf"(?:姓\s*(?P<surname>{_C}){_END}|(?P<verb>{_INTRO})?\s*{_VALUE})")
# "不是海淀 是昌平", "是昌平 不是海淀".
_CONTRAST = re.compile(
    rf"不是\s*(?P<old>{_C}{{1,6}}?)\s*[，,、\s]*(?:而)?(?P<verb>{_INTRO})\s*{_VALUE}|"
    rf"(?P<verb2>{_INTRO})\s*(?P<new2>{_C}{{2,6}}?)\s*[，,、\s]*(?:而)?不是\s*(?P<old2>{_C}{{1,6}}?)"
    rf"(?=[了的啦哈呀吧啊哦呢]*(?:$|[\s，,。.!！~～;；]))")
# The words of the verbs; 是 introduces anything, so it types nothing by itself.
_TYPING_VERBS = frozenset(_INTRO.split("|")) - {"是", "是说", "意思是"}
# jieba's tags of proper nouns: places, persons, organisations, other proper names.
_PROPER = frozenset({"ns", "nr", "nrt", "nrfg", "nt", "nz"})


@dataclass(frozen=True, slots=True)
class Repair:
    new: str          # the right value, as written
    start: int        # its span in the line
    end: int
    old: str | None   # the wrong value, when the line refuses it in so many words
    verb: str | None  # the word that introduces the value, when it types it


def repairs(line: str) -> bool:
    """Does the line mark a repair of a slip?"""
    return bool(MARK.search(line))


def slip(line: str) -> bool:
    """Does the line mark a slip in so many words, not only say sorry ("sorry, tired" is
    no repair; "sorry, I mean leeds" is)?"""
    return any(not _APOLOGY.fullmatch(m.group(0)) and not _DENIED.search(line[:m.start()])
               for m in MARK.finditer(line))


_APOLOGY = re.compile(r"sorry|oops|whoops", re.I)
# A slip said not to be one: "没说错", "没打错", "not a typo", "no typo" confirm the words.
_DENIED = re.compile(r"(?:没有?|不是|\b(?:not\s+a|no|wasn['’]?t\s+a|isn['’]?t\s+a))\s*$", re.I)


def only_admits(sentence: str) -> bool:
    """Does the sentence only own up to a slip ("I mixed them up", "My bad, I always mix
    those two up", "之前打错了"), saying nothing about the user to keep?"""
    if not slip(sentence):
        return False
    rest = _OWNING_UP.sub(" ", MARK.sub(" ", sentence))
    return not re.search(rf"[A-Za-z]{{2,}}|{_C}", rest)


# What goes with owning up to a slip: the speaker, the slip, when it was made.
_OWNING_UP = re.compile(
    r"\b(?:i|i'?ve|i'?m|me|my|always|keep|kept|again|said|told|you|u|wrote|typed|that|"
    r"those|them|these|two|the|other|day|earlier|before|lol|haha|idk|why|whatever|ugh|oh|"
    r"so|totally|completely|just|really)\b|我|你|之前|刚才|刚刚|上次|那天|又|了|的|啦|哈+|"
    r"呀|啊|哦|呢|吧|不好意思|抱歉|sorry", re.I)


def repairs_removed(text: str) -> str:
    """`text` without its marks of a repair ("hayward i mean" → "hayward")."""
    return MARK.sub(" ", text)


def chinese_value(line: str) -> Repair | None:
    """The one Chinese value a repair line gives, with the wrong one when it refuses it
    ("不是海淀 是昌平") and the verb that introduces it; None when it gives none or two."""
    found = []
    for m in _CONTRAST.finditer(line):
        if m.group("new") is not None:
            found.append(Repair(m.group("new"), m.start("new"), m.end("new"), m.group("old"),
                                m.group("verb")))
        else:
            found.append(Repair(m.group("new2"), m.start("new2"), m.end("new2"),
                                m.group("old2"), m.group("verb2")))
    if not found:
        found = [Repair(m.group("surname"), m.start("surname"), m.end("surname"), None, "姓")
                 if m.group("surname") else
                 Repair(m.group("new"), m.start("new"), m.end("new"), None, m.group("verb"))
                 for m in _CJK_REPAIR.finditer(line)]
    if len(found) != 1 or found[0].new == found[0].old:
        return None
    return found[0]


def chinese_target(statement: str, rep: Repair) -> tuple[int, int] | None:
    """The span of `statement` that `rep`'s value replaces: the refused value, the word
    after the same verb, or the one proper noun; None when it cannot be told."""
    if rep.old is not None:
        k = statement.find(rep.old)
        return (k, k + len(rep.old)) if k >= 0 and statement.count(rep.old) == 1 else None
    if rep.verb in _TYPING_VERBS:
        # The words after the same verb, up to a break ("我家狗叫旺财" for "叫来福"); a
        # name is cut apart by the tagger too often to go by its words.
        after = [m.span("old") for m in re.finditer(
            rf"(?<!不){rep.verb}(?P<old>{_C}{{1,6}}?){_END}",
            statement) if m.group("old") != rep.new]
        if len(after) == 1:
            return after[0]
    if rep.verb in (None, "是", "是说", "意思是"):
        # The value after the statement's one 是 ("专业是计算机" for "sorry 是软件工程").
        after = list(re.finditer(rf"是(?P<old>{_C}{{1,6}}?){_END}", statement))
        if len(after) == 1 and after[0].group("old") != rep.new:
            return after[0].span("old")
    # A value of the same length with the same last character ("上海人" for "杭州人",
    # "三年级" for "四年级"): its last character types it.
    same = [m.span() for m in re.finditer(rf"{_C}{{{len(rep.new) - 1}}}{re.escape(rep.new[-1])}",
                                          statement) if m.group(0) != rep.new]
    if len(rep.new) >= 3 and len(same) == 1:
        return same[0]
    # A proper noun for the statement's one proper noun: a common one ("黑色") may stand
    # for any word of the statement.
    if not {f for _, f in _tagged(rep.new)} <= _PROPER:
        return None
    proper, at = [], 0
    for w, flag in _tagged(statement):
        if flag in _PROPER and re.fullmatch(f"{_C}+", w):
            proper.append((at, at + len(w)))
        at += len(w)
    if len(proper) != 1 or statement[proper[0][0]:proper[0][1]] == rep.new:
        return None
    return proper[0]


@cache
def _tagger():  # type: ignore[no-untyped-def]
    import jieba.posseg  # loaded on the first Chinese repair only

    return jieba.posseg.POSTokenizer()


def _tagged(text: str) -> list[tuple[str, str]]:
    return [(p.word, p.flag) for p in _tagger().cut(text)]


def refuses(line: str) -> bool:
    """Does the line refuse a value in so many words ("…, not peanuts", "不在腾讯")?"""
    return bool(_REFUSED.search(line))


def refused_spans(line: str) -> list[tuple[int, int, str]]:
    """Where the line refuses a value in so many words, and the value: "porto, not lisbon"
    -> [(7, 17, "lisbon")] (the refusal's span, with the comma before it)."""
    out = []
    for m in _REFUSED.finditer(line):
        start = m.start()
        while start and line[start - 1] in " ,，":
            start -= 1
        out.append((start, m.end(), m.group("old") or m.group("old_zh")))
    return out


def by_difference(line: str, statement: str, fillers: frozenset[str] = frozenset()
                  ) -> tuple[str, str, str] | None:
    """A repair that says the statement again but for one word, refusing the old one
    ("actually I misspoke - it's shellfish I'm allergic to, not peanuts" for "I'm allergic
    to peanuts"; "更正一下，我在阿里巴巴上班，不在腾讯" for "我在腾讯上班"): `statement`
    with the refused word replaced by the one word of the line the statement lacks, with
    the old and the new word; None unless exactly one refused word is the statement's and
    exactly one other word is new (`fillers`: words that say nothing)."""
    olds = {m.group("old") or m.group("old_zh") for m in _REFUSED.finditer(line)}
    held = [o for o in olds if _occurs(o, statement)]
    if len(held) != 1 or len(olds) != 1:
        return None
    old = held[0]
    rest = MARK.sub(" ", _REFUSED.sub(" ", line))
    said = {w.casefold() for w in _LATIN.findall(statement)} | set(_cjk_words(statement))
    new = [w for w in _LATIN.findall(rest) if w.casefold() not in said
           and w.casefold() not in STOPWORDS | fillers and len(w) > 1]
    new += [w for w in _cjk_words(rest) if w not in said and len(w) >= 2]
    if len(new) != 1:
        return None
    k = _occurs(old, statement)
    assert k is not None
    word = new[0]
    if word.islower() and statement[k:k + 1].isupper():
        word = word[0].upper() + word[1:]
    return statement[:k] + word + statement[k + len(old):], statement[k:k + len(old)], word


_LATIN = re.compile(r"[A-Za-z][\w'-]*")
_REFUSED = re.compile(rf"\bnot\s+(?:the\s+|a\s+|an\s+)?(?P<old>[A-Za-z][\w-]*)\b|"
                      rf"不(?:是|在|叫|姓|去|用)\s*(?P<old_zh>{_C}{{1,6}}?){_END}", re.I)


def _occurs(word: str, text: str) -> int | None:
    """Where `word` stands in `text` as a word of its own (a Latin word not inside another)."""
    m = re.search(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", text, re.I)
    return m.start() if m else None


def _cjk_words(text: str) -> list[str]:
    return [w for run in re.findall(f"{_C}+", text) for w in jieba.cut(run)
            if w not in _CJK_LIGHT]


# Words of a Chinese repair that name nothing.
_CJK_LIGHT = frozenset("不好意思 抱歉 其实 应该 就是 一下 我是 我们 他们 那个 这个 是 在 的 "
                       "了".split())


# How alike two spellings of one word are: "patel"/"patil" .8, "anna"/"anne" .75,
# "clover"/"clove" .91; "leeds"/"london" .36.
_NEAR = 0.7


def spelt_alike(a: str, b: str) -> bool:
    """Are `a` and `b` one word spelt nearly alike (a slip of one letter or two)?"""
    return SequenceMatcher(None, a.casefold(), b.casefold()).ratio() >= _NEAR


def owns_slip(line: str) -> bool:
    """Does the line own up to a slip, by a mark (`slip`) or in words the marks lack ("I
    got it wrong", "spelled her name wrong", "记岔了")?"""
    return slip(line) or bool(_WRONG.search(line))


def stored_swap(line: str, statement: str) -> tuple[str, str, str] | None:
    """A repair of a statement said earlier, in a longer line than a bare reply: with a
    mark of the slip, the wrong value refused beside the right one ("oops it's Elm Grove,
    not Elm Road", "the 13th of august not the 3rd", "记岔了，不是朝阳区，是海淀区"); owned up
    to in words, a time, a day of the month, a weekday or an amount for the statement's
    one of that unit, the thing it is of named too ("sorry, the train is 7:45", "瑜伽课我
    记岔了，是周五"), or a name spelt nearly like one of the statement's ("I spelled my
    girl's name wrong, it's Elina" for "Elena"). `statement`
    with the value put right, the old and the new value; None unless exactly one value
    of the statement is meant. A refusal alone repairs nothing: "it's Leeds not London
    for the conference" says nothing about where the user lives."""
    owned = owns_slip(line)
    if not (owned or repairs(line)):
        return None
    if owned and set(content_words(line)) & set(content_words(statement)):
        # A time or an amount of the same unit, the thing it is of named too ("sorry, the
        # train is 7:45", "还房贷那天我记岔了，是25号"), not any one time the user holds.
        theirs = _measures(statement)
        for unit in {u for _, u, _ in _measures(line)}:
            news = {v for v, u, _ in _measures(line) if u == unit} - {v for v, _, _ in theirs}
            held = [(v, k) for v, u, k in theirs if u == unit]
            if len(news) == 1 and len(held) == 1:
                (old, k), new = held[0], news.pop()
                return statement[:k] + new + statement[k + len(old):], old, new
    if (rep := chinese_value(line)) is not None and rep.old and statement.count(rep.old) == 1:
        k = statement.find(rep.old)  # "之前记岔了，不是朝阳区，是海淀区"
        return statement[:k] + rep.new + statement[k + len(rep.old):], rep.old, rep.new
    for m in _REFUSED_RUN.finditer(line):
        old, before = m.group("old"), line[:m.start()]
        if old[0].isdigit():
            digits = re.match(r"\d+", old).group(0)  # type: ignore[union-attr]
            found = list(re.finditer(rf"(?<![\d:.]){digits}(?:st|nd|rd|th)?(?![\d:])", statement))
            news = re.findall(r"(?<![\d:.])(\d+)(?:st|nd|rd|th)?(?![\d:])", before)
            if len(found) == 1 and news and news[-1] != digits:
                k, e = found[0].span()
                new = news[-1] + statement[k + len(digits):e]
                return statement[:k] + new + statement[e:], statement[k:e], new
            continue
        size = len(old.split())
        runs = [r.group(0) for r in _CAPS_RUN.finditer(before)
                if len(r.group(0).split()) == size and r.group(0) != old]
        k = _occurs(old, statement)
        if runs and k is not None and _occurs(runs[-1], statement) is None:
            return statement[:k] + runs[-1] + statement[k + len(old):], old, runs[-1]
    if not owned:
        return None
    pairs = {(w, v.group(0)) for w in _CAPS.findall(line[1:]) if w.casefold() not in STOPWORDS
             for v in _CAPS.finditer(statement)
             if len(w) >= 4 and w != v.group(0)
             and spelt_alike(w, v.group(0))}
    if len(pairs) != 1 or len({v for _, v in pairs}) != 1:
        return None
    (new, old), = pairs
    if _occurs(new, statement) is not None:
        return None
    k = _occurs(old, statement)
    return None if k is None else (statement[:k] + new + statement[k + len(old):], old, new)


# "…, not Elm Road", "not the 3rd", "not Shah": the wrong value, a capitalised run or a number.
_REFUSED_RUN = re.compile(r"\bnot\s+(?:the\s+|a\s+|an\s+)?"
                          r"(?P<old>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)|\d+(?:st|nd|rd|th)?)\b",
                          re.I)
_CAPS_RUN = re.compile(r"(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)")
# A clock time, a number with its unit or a weekday: "7:45", "25号", "3岁", "30mg", "周四".
_MEASURE = re.compile(r"(?<![\d:.])(?:\d{1,2}:\d{2}(?![\d:])|\d+(?P<unit>号|岁|点半?|元|块|公斤|斤|"
                      r"分钟|小时|楼|层|年级|mg|kg|km|(?<=\d)(?:am|pm|st|nd|rd|th)\b))"
                      # a day of the week: "周四", "星期二", "Thursday"
                      r"|(?P<day>(?:周|星期|礼拜)[一二三四五六日天]|\b(?i:mon|tues|wednes|thurs|fri|"
                      r"satur|sun)day\b)")


def _measures(text: str) -> list[tuple[str, str, int]]:
    """Each time, amount or day of `text`: its words, its unit, where it starts."""
    def unit(m: re.Match[str]) -> str:
        if m.group("day"):
            return "day"
        u = m.group("unit") or ":"
        return "th" if u in ("st", "nd", "rd") else u
    return [(m.group(0), unit(m), m.start()) for m in _MEASURE.finditer(text)]


_CAPS = re.compile(r"(?<![\w'])(?-i:[A-Z][a-z]+)\b")
# A slip owned up to in words the marks lack: "I got it wrong", "spelled her name wrong".
_WRONG = re.compile(r"\b(?:got|had)\s+(?:it|that|them|the\s+\w+(?:\s+\w+)?)\s+wrong\b|"
                    r"\bspel(?:led|t)\b[^.!?]{0,30}\bwrong\b|\bwrong\s+(?:name|date|day|number|spelling)\b|记岔了?|写岔了?",
                    re.I)

"""A reply that gives only the new value: "太早了，15 分钟吧", "hmm, Excel actually", "ugh
that feels too formal, just Beth", "ok final: Brooks Ghost".

Right after a statement ("改成提前 30 分钟提醒", "send my reports as Word docs from now
on", "call me Elizabeth"), people correct it by naming the value alone; no extraction
rule reads such a line, since its subject is the statement before it. The mechanism is
one of kind, not of wording: a short line that marks a choice or a correction and names
exactly one value of a kind the earlier statement holds exactly one of (a number with the
same unit, or a capitalised name) replaces that value there. Anything less certain (two
values, none, a question, a long line that says more) is not such a reply.

The write path (threadlinks.reply_change) offers the line here with what the user's line
just before it stored or changed; the result goes to the gate as a change of that memory,
so a frozen memory still blocks it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import pairwise

from ..textindex import CJK_RANGES, STOPWORDS
from .discourse import one_time
from .repair import (
    Repair,
    by_difference,
    chinese_target,
    chinese_value,
    repairs,
    repairs_removed,
    slip,
    spelt_alike,
)
from .topics import content_words

# Words that make a bare value a choice or a correction of what was just said.
_CHOICE = re.compile(
    r"吧\s*[。！!~～]*\s*$|吧[，,]|还是|其实|改成|改为|换成|不对|算了|就(?:用|定|选)?|定了|最终|"
    r"\b(?:actually|instead|rather|make\s+it|let'?s\s+(?:do|go\s+with|say|make\s+it)|"
    r"final(?:ly)?|just|no\s+wait|wait|nah|scratch\s+that|correction|i\s+mean|"
    r"change\s+(?:it|that)\s+to|switch(?:ed)?\s+to|go(?:ing)?\s+with|went\s+with|"
    r"prefer|better)\b", re.I)
_ASKS = re.compile(r"[?？]|吗\s*$|\b(?:should|could|would|can|do|does|is|are)\s+(?:i|you|we|it)\b",
                   re.I)
# "not 15", "不要15分钟", "8点不行吧", "8 点太晚了": a value refused is not the value chosen.
_REFUSED = re.compile(r"\b(?:not|no|never)\s+(?:the\s+)?$|(?:不要|不是|别|不用)\s*$", re.I)
_REFUSED_AFTER = re.compile(
    r"^[^，,。.!！?？;；]{0,4}?(?:不行|不好|不要|不用|不可以|不合适|不方便|太|不太|也不|"
    r"(?:is|'s|are)\s+(?:too|not|no\s+good)|too\b|won'?t|doesn'?t|isn'?t|not\b|sucks)", re.I)
# The choice itself refused: "don't make it thursday", "please don't change it to 8am",
# "别改成周五" (the value is what is not wanted).
_NOT_CHOSEN = re.compile(r"\b(?:do\s*n[o'’]?t|do\s+not|never|no\s+need\s+to)\s+(?:\w+\s+){0,2}?"
                         r"(?:make|change|move|switch|set|put|push|shift)\b|"
                         r"(?:别|不要|不用|不必)(?:再)?(?:改|换|挪|调|推|移)", re.I)
# A name right after thanks or a greeting is whom the line speaks to ("Thanks Sam, that's
# better"), not a value.
_ADDRESSED = re.compile(r"(?:\b(?:thanks|thank\s+you|thx|ty|cheers|hi|hello|hey|dear|bye|"
                        r"morning|night)|谢谢|多谢|感谢|你好|嗨)[\s,，!！]*$", re.I)

_UNITS = {
    "minute": r"分钟|minutes?|mins?",
    "hour": r"个?小时|hours?|hrs?",
    "clock": r"点半?|am|pm|o'?clock",
    "day": r"天|days?",
    "week": r"周|个?星期|weeks?",
    "month": r"个?月|months?",
    "money": r"块钱?|元|rmb|yuan|dollars?|euros?|quid|bucks",
    "weight": r"公斤|千克|斤|kg|kilos?|lbs?|pounds?",
    "distance": r"公里|千米|km|kilometers?|kilometres?|miles?",
    "percent": r"%|percent|per\s*cent",
}
_UNIT = "|".join(f"(?P<{k}>{v})" for k, v in _UNITS.items())
# Bounded by what is not a Latin letter or digit: Chinese writes "提前30分钟提醒".
_NUMBER = re.compile(rf"(?<![A-Za-z0-9.])(?P<cur>[$£€¥])?([0-9]+(?:[.:][0-9]+)?)"
                     rf"(?P<ord>st|nd|rd|th)?\s*(?:{_UNIT})?"
                     r"(?![A-Za-z0-9])", re.I)
# A capitalised name: a run of capitalised words ("Brooks Ghost", "DOCX", "Excel"), not
# "I" and not the line's first word (a sentence's own capital).
_NAME = re.compile(r"(?<![A-Za-z0-9'])(?:[A-Z][A-Za-z0-9'&+-]*)(?:\s+[A-Z][A-Za-z0-9'&+-]*)*")
_NOT_NAMES = frozenset({"i", "i'm", "i've", "i'd", "i'll", "ok", "okay", "hmm", "ugh", "oh",
                        "ah", "no", "yes", "yeah", "yep", "nah", "wait", "actually", "final",
                        "just", "fine", "sorry", "lol", "haha", "also", "the", "a", "an",
                        "my", "let's", "lets", "make", "go", "please", "thanks", "hi",
                        "hey", "well", "so", "but", "and", "or", "emmm", "emm", "em"})
# A line that quotes someone gives their words, not the user's choice.
_QUOTES = re.compile(r"[\"“”「」『』]")
_CJK = re.compile(f"[{CJK_RANGES}]")
# The clause a value stands in ends at punctuation ("太早了，15 分钟吧", "ok final: Brooks
# Ghost, those actually fit"); a full stop only where it is not a decimal point.
_CLAUSE = re.compile(rf"[,，。!！;；:：…~～\n—]|\.(?!\d)|(?<=[{CJK_RANGES}])\s+(?=[{CJK_RANGES}])")
# What a bare value's clause may hold besides it: marks of a choice, fillers.
_BARE_EN = frozenset("""hmm hmmm ok okay ugh oh ah nah no yes yeah yep well so then just
actually instead rather make it that let's lets do go with say final finally wait i mean
scratch correction change to switch switched going went prefer better is be would will fine
please lol haha the a an maybe sorry um uh emm emmm er now typo oops whoops bad meant
misspoke it's its not autocorrect autocorrected""".split())
_BARE_ZH = re.compile(r"还是|改成|改为|换成|不对|算了|其实|好了|那就|就|用|定|选|了|是|嗯|啊|哦|"
                      r"呢|吧|哈|呀|诶|欸|额|呃|那|说错|打错字?|写错|口误|更正|纠正|搞错|"
                      r"记错|应该|不是|一下|叫|在|去")
_LATIN_WORD = re.compile(r"[A-Za-z][\w'-]*")


@dataclass(frozen=True, slots=True)
class Value:
    kind: str   # a unit's name, "number" when it has none, or "name"
    text: str   # as written in its line, with its unit
    start: int  # the span of `text`
    end: int
    digits: tuple[int, int] = (0, 0)  # a number's own span, without its unit
    refused: str | None = None  # the wrong value, refused beside it ("not Paris")
    verb: str | None = None  # a Chinese value's verb ("叫来福"): it types the value


def _numbers(text: str) -> list[Value]:
    """Its numbers with their units, and its days of the week (a value of one kind too:
    "make it thursday" for "the digest on Wednesdays", "改周五吧" for "每周三开例会")."""
    out = []
    for m in _NUMBER.finditer(text):
        unit = "money" if m.group("cur") else next((k for k in _UNITS if m.group(k)), None)
        if unit is None:  # "8:30" is a time of day without a unit
            unit = "clock" if ":" in m.group(2) else "number"
        end = m.start() + len(m.group(0).rstrip())
        if unit == "number" and (w := _MEASURE_WORD.match(text, end)):
            unit, end = "measure:" + w.group(0), w.end()  # "2杯" is a count of cups
        out.append(Value(unit, text[m.start():end], m.start(), end, (m.start(2), m.end(2))))
    out += [Value("clock", m.group(0), m.start(), m.end(), m.span("n"))
            for m in _CN_CLOCK.finditer(text)]  # "七点", "十一点半"; not "一点" (a little)
    for m in _CN_NUMBER.finditer(text):  # "两杯", "三十分钟", "四次"
        w = m.group("w")
        unit = next((k for k in _UNITS if re.fullmatch(_UNITS[k], w)), "measure:" + w)
        out.append(Value(unit, m.group(0), m.start(), m.end(), m.span("n")))
    out += [Value("weekday", m.group(0), m.start(), m.end(), (m.start(), m.end()))
            for m in _WEEKDAY.finditer(text)]
    # A month, with its year when one follows ("may 2027" for "March 2027"): one value.
    months = [Value("month", m.group(0), m.start(), m.end(), (m.start(), m.end()))
              for m in _MONTH.finditer(text)]
    out = [v for v in out if not any(n.start <= v.start < n.end for n in months)]
    # Beside a day ("june 19", "28th of august") the month is where the day is: the day
    # is the value.
    out += [n for n in months if not any(-8 <= v.start - n.end <= 1 or -1 <= n.start - v.end <= 4
                                         for v in out)]
    return sorted(out, key=lambda v: v.start)


# "may" is a month only beside a day or a year ("may 2027", "may 3rd", "3 may").
_MONTH = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b(?:\s+\d{4}\b)?|"
    r"\bmay\s+(?:\d{4}|\d{1,2}(?:st|nd|rd|th)?)\b", re.I)


# Chinese counts: a numeral and its measure word (a count of cups is not a count of
# times). "一点" (a little), "一下", "一直" are no counts: no measure word follows.
_MEASURES = (r"杯|个|次|只|件|本|瓶|碗|顿|节|趟|份|张|台|辆|条|颗|片|位|间|套|双|支|根|盒|包|"
             r"袋|粒|遍|回|岁|年级|楼|层|届|分钟|个?小时|天|个?星期|个?月|块钱?|元|公斤|千克|斤|公里|"
             r"千米")
_CN_CLOCK = re.compile(r"(?<![零一二两三四五六七八九十])(?P<n>[两三四五六七八九]|十[一二]?)点半?"
                       r"(?![水心菜赞评击头子数儿滴])")  # not "三点水" (a radical), "点心"
# After an Arabic number any Chinese character but a particle is its measure word ("21罐"
# counts cans, not cats).
_MEASURE_WORD = re.compile(rf"\s*(?:{_MEASURES})|(?![了的吧啊呀呢哦么嘛和跟到至或不没是就都也还再才"
                           rf"又很太])[{CJK_RANGES}]")
_CN_NUMBER = re.compile(rf"(?<![零一二两三四五六七八九十百千万前这那近])"
                        rf"(?P<n>[零一二两三四五六七八九十百千]+|半)(?P<w>{_MEASURES})")


_WEEKDAY = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|"
                      r"(?:周|星期|礼拜)[一二三四五六日天](?![一二三四五六日天次个回遍趟])", re.I)


def _as_day(new: str, old: str) -> str:
    """`new` day in the form of the `old` it replaces: "Thursdays" for "Wednesdays"."""
    if new[0] >= "\u2e80" or old[0] >= "\u2e80":
        return new
    new = new.rstrip("sS") + ("s" if old[-1:] in "sS" else "")
    return new[0].upper() + new[1:].lower() if old[0].isupper() else new.lower()


def _unwrapped(new: str, before: str, after: str) -> str:
    """`new` without the words the statement has around the value it replaces ("是对芒果
    过敏 不是花生" for "我对花生过敏": "芒果", not "对芒果过敏")."""
    for n in range(len(new) - 1, 0, -1):
        if before.endswith(new[:n]):
            new = new[n:]
            break
    for n in range(len(new) - 1, 0, -1):
        if after.startswith(new[-n:]):
            new = new[:-n]
            break
    return new


def _fits_line(line: str, mine: Value, statement: str) -> bool:
    """A value that does not stand bare in its line ("sorry, 21 Baker Street, typo", "sorry
    I misspoke, I work at KPMG") replaces one only when the rest of its sentence says
    nothing the statement does not."""
    if mine.refused is not None or bare(line, mine):
        return True
    return not _extra(line, mine) - set(content_words(statement))


def _extra(line: str, mine: Value) -> set[str]:
    """The words of the value's sentence besides the value, marks of a repair, fillers."""
    cuts = [0, *(m.end() for m in _SENTENCE_END.finditer(line)), len(line) + 1]
    lo = max(c for c in cuts if c <= mine.start)
    hi = min(c for c in cuts if c >= mine.end)
    rest = line[lo:hi].replace(mine.text, " ")
    if mine.refused:
        rest = rest.replace(mine.refused, " ")
    rest = _BARE_ZH.sub(" ", repairs_removed(rest))
    return set(content_words(rest)) - set(content_words(mine.text)) - _FILLERS - _BARE_EN


def _elsewhere(line: str, mine: Value, statement: str) -> bool:
    """Does a line that refuses a value speak of another thing than the statement: words
    besides its values, none of them the statement's ("no, Canberra is the capital, not
    Sydney" for "I live in Sydney"; not "btw priya's in birmingham not manchester")?"""
    # The sentence of the value ("lol not accenture — capgemini. my bad, I always mix
    # those two up": the next one is about the slip).
    extra = _extra(line, mine)
    return bool(extra) and not extra & set(content_words(statement))


_SENTENCE_END = re.compile(r"[。！？!?]+|\.(?!\d)\s*")


def _ordinal(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _fits(new: str, old: Value) -> bool:
    """Can the bare number `new` stand where `old`'s digits are: an hour of the day
    ("make it 99" is none, nor "0" before "pm"), or a number of about the same size
    ("make it 20" is no year of birth)?"""
    digits = old.text[old.digits[0] - old.start:old.digits[1] - old.start]
    if old.kind == "clock":
        hour = int(new.split(".")[0])
        return 1 <= hour <= 12 if re.search(r"[ap]m", old.text, re.I) else hour <= 24
    return abs(len(new.split(".")[0]) - len(digits.split(".")[0].split(":")[0])) <= 1


def _names(text: str, skip_first: bool) -> list[Value]:
    out = []
    for m in _NAME.finditer(text):
        words = m.group(0).split()
        start = m.start()
        # Drop leading words that are not names ("Ok Final Brooks" → "Brooks"), and the
        # sentence's own first word when it is a capitalised common word ("The user…").
        while words and (words[0].casefold().rstrip(",:") in _NOT_NAMES
                         or (skip_first and start == _first_word(text))):
            start += len(words[0])
            start += len(text[start:]) - len(text[start:].lstrip())
            words = words[1:]
        if words:
            name = " ".join(words)
            out.append(Value("name", name, start, start + len(name)))
    return out


def _first_word(text: str) -> int:
    """Where the text's first word starts, when it is a Latin one ("The user…"; not the
    first Latin word of a Chinese sentence, "我打算买MacBook Pro")."""
    m = re.match(r"[^\w]*(?=[A-Za-z])", text)
    return m.end() if m else -1


def short(line: str) -> bool:
    """Says little besides a value: at most 20 CJK characters and 12 Latin words."""
    return len(_CJK.findall(line)) <= 20 and len(_LATIN_WORD.findall(line)) <= 12


def _values(line: str) -> list[Value]:
    """The values a line names: its numbers, else its names, else a word refused beside
    another ("not accenture — capgemini"), else the one Chinese value of a repair ("说错了
    是通州", understand/repair.py). A value said twice is one ("june 19!! sorry. 19."). Of
    two values, one refused in so many words ("no, not Paris, Lyon", "不是7点 是6点半",
    "6:45 😅 5:45 was a typo"), the other, carrying the refused one."""
    # A line in capitals ("OOPS I MEANT BLUR") shows no name by its capitals.
    found = _numbers(line) or ([] if line.isupper() else _names(line, skip_first=False))
    once = list({v.text.casefold(): v for v in reversed(found)}.values())[::-1]
    refused = [v for v in once if _refused_here(line, v)]
    kin = [v for v in once if refused and v is not refused[0] and v.kind == refused[0].kind]
    if len(refused) == 1 and (len(once) == 2 or len(kin) == 1):
        # the other value, or the other of the refused one's kind ("是5月8日，不是3日")
        other = kin[0] if len(kin) == 1 else next(v for v in once if v is not refused[0])
        return [replace(other, refused=refused[0].text)]
    if once:
        return once
    for m in (*_THIS_NOT.finditer(line), *_NOT_THIS.finditer(line)):
        old, new = m.group("old"), m.group("new")
        if not {old.casefold(), new.casefold()} & (STOPWORDS | _BARE_EN | _FILLERS):
            return [Value("word", new, m.start("new"), m.end("new"), refused=old)]
    if _CJK.search(line) and (rep := chinese_value(line)) is not None:
        return [Value("chinese", rep.new, rep.start, rep.end, refused=rep.old, verb=rep.verb)]
    return []


def _refused_here(line: str, v: Value) -> bool:
    return bool(_NOT_BEFORE.search(line[:v.start]) or _WRONG_AFTER.match(line, v.end))


_ASCII_WORD = re.compile(r"[A-Za-z0-9]")
_FILLERS = frozenset("idk tbh imo lol lmao haha btw omg ugh err erm um uh honestly literally "
                     "basically really seriously".split())
_NOT_BEFORE = re.compile(r"(?:\bnot\s+(?:the\s+)?|不是\s*|(?:说|写|打|叫)成\s*)$", re.I)
_WRONG_AFTER = re.compile(r"\s*(?:(?:was|is)\s+(?:a\s+)?(?:typo|wrong|a\s+mistake)\b|"
                          r"(?:是)?(?:打错|写错|说错|打反))", re.I)
# A lower-case word refused beside another: "not accenture — capgemini", "kilkenny, not
# galway", "thursday* not tuesday".
_W = r"[A-Za-z][\w'-]*"
_NOT_THIS = re.compile(rf"\bnot\s+(?:the\s+)?(?P<old>{_W})\s*(?:[,;—–]|\s-)+\s*"
                       rf"(?:it'?s\s+|but\s+)?(?P<new>{_W})\b", re.I)
_THIS_NOT = re.compile(rf"(?<![\w'])(?P<new>{_W})\*?\s*(?:[,;—–]\s*)?not\s+(?:the\s+)?"
                       rf"(?P<old>{_W})\b", re.I)


def bare(line: str, value: Value) -> bool:
    """Does the value stand nearly alone in its clause: besides it only marks of a choice
    and fillers, at most one other word ("其实是 6 个小时", "make it 8pm", "just Beth"; not
    "I just bought 2 new shoes", "my wife says 9pm instead")?"""
    cuts = [0, *(m.end() for m in _CLAUSE.finditer(line)), len(line) + 1]
    lo = max(c for c in cuts if c <= value.start)
    hi = min(c for c in cuts if c >= value.end)
    rest = line[lo:value.start] + " " + line[value.end:hi]
    words = [w for w in _LATIN_WORD.findall(rest) if w.casefold() not in _BARE_EN]
    return len(words) + len(_CJK.findall(_BARE_ZH.sub("", rest))) // 2 <= 1


def _could_reply(line: str) -> bool:
    """Short, and neither a question, a quotation nor about one occasion."""
    return short(line) and not (_ASKS.search(line) or _QUOTES.search(line) or one_time(line))


def _reply_value(line: str, *, marked: bool = False) -> Value | None:
    """The value `line` gives as a reply (`is_reply`), or None."""
    if not _could_reply(line):
        return None
    values = _values(line)
    if not (marked or _CHOICE.search(line) or repairs(line) or (values and values[0].refused)):
        return None
    # A value beside the one it refuses names its target, whatever else the line says
    # ("btw priya's in birmingham not manchester, idk why i said that").
    if len(values) == 1 and (values[0].refused is not None or bare(line, values[0])
                             or slip(line)):
        return values[0]
    return None


def is_reply(line: str, *, marked: bool = False) -> bool:
    """Could `line` be a bare-value correction of what was just said (before knowing what
    that was)? `marked`: the line's place already says so (`repaired`)."""
    return _reply_value(line, marked=marked) is not None


def _reply_swap(line: str, statement: str, *, marked: bool = False
                ) -> tuple[str, str, str] | None:
    """`_swap` of the value `line` gives as a reply, when the rest of it fits `statement`."""
    v = _reply_value(line, marked=marked)
    return _swap(line, statement, v) if v is not None and _fits_line(line, v, statement) \
        else None


def swap(line: str, statement: str, *, marked: bool = False) -> tuple[str, str, str] | None:
    """`statement` with the one value of its kind that `line` names in its place, with the
    old and the new value; None when `line` is not such a reply to it (not a reply, no
    single value of that kind in the statement, the same value, or a refused one). A
    number with a unit replaces one of the same kind with its unit ("7pm" → "8am", "70 kg"
    → "150 lbs"); a bare number only the digits ("make it 20": "30 minutes" → "20
    minutes"). `marked`: the line's place says it gives a value ("no, Wednesday" to the
    assistant's "your class is Tuesday, right?")."""
    if got := _reply_swap(line, statement, marked=marked):
        return got
    if _could_reply(line):
        # a repair that says the statement again, the slipped word refused
        return by_difference(line, statement, _BARE_EN | _FILLERS)
    return None


def repaired(line: str, olds: tuple[str, ...] = ()) -> tuple[str, str, str, int] | None:
    """A line that repairs itself ("i drive a 2015 civic, my mistake, it's a 2017", "我的狗
    狗叫可乐，啊不是，叫雪碧", "我是2019年入职的 emmm 2018年 搞错了"): the statement before
    the repair with the value swapped, the old and the new value, and where the repair
    starts; None when no part after a break both marks a repair and swaps a value of the
    part before it. `olds`: values read from the line by their slot ("fremont" in "we
    moved to fremont, er, hayward i mean"), which a single word of the repair may replace
    (`swap_word`)."""
    for cut in _CUT.finditer(line):
        statement, reply = line[:cut.start()].rstrip(" ,，、-—–"), line[cut.end():].strip()
        if not statement or not reply or not (repairs(reply) or _INLINE_MARK.match(reply)):
            continue
        if got := _reply_swap(reply, statement, marked=True):
            return (*got, cut.end())
        for old in olds:
            if got := swap_word(reply, statement, old):
                return (*got, cut.end())
        if got := swap_near(reply, statement):
            return (*got, cut.end())
    return None


def swap_near(line: str, statement: str) -> tuple[str, str, str] | None:
    """A misspelling put right: `statement` with the one word spelt nearly like the word a
    repair line gives ("sorry, typo: patil" for "Dr Patel", "*Clove" for "Clover") in its
    place; None when no single word of the statement is that close."""
    if (new := repair_word(line)) is None:
        return None
    near = [m for m in _LATIN_WORD.finditer(statement)
            if len(m.group(0)) >= 3 and m.group(0).casefold() != new.casefold()
            and m.group(0).casefold() not in STOPWORDS
            and spelt_alike(m.group(0), new)]
    if len(near) != 1:
        return None
    return swap_word(line, statement, near[0].group(0))


def swap_word(line: str, statement: str, old: str) -> tuple[str, str, str] | None:
    """`statement` with `old` (a value its slot reads, so of a known kind: "fremont" as
    where the user lives) replaced by the one word that a repair line gives in the clause
    of its mark ("er, hayward i mean, last spring"; "sorry, leeds"); None when the line
    marks no repair or gives no such single word."""
    if (new := repair_word(line)) is None:
        return None
    found = [m for m in re.finditer(rf"(?<![A-Za-z0-9]){re.escape(old)}(?![A-Za-z0-9])",
                                    statement, re.I)]
    if len(found) != 1 or new.casefold() == old.casefold():
        return None
    if new.islower() and found[0].group(0)[:1].isupper():
        new = new[0].upper() + new[1:]
    k, e = found[0].span()
    return statement[:k] + new + statement[e:], statement[k:e], new


def repair_word(line: str) -> str | None:
    """The one word a repair line gives, in its mark's clause or the first clause after
    it that says anything ("er, hayward i mean, last spring", "oops, sorry, leeds")."""
    if not _could_reply(line) or not slip(line):
        return None
    clauses = [c for c in re.split(r"[,，;；.!！—–]+", line) if c.strip()]
    at = next((i for i, c in enumerate(clauses) if repairs(c)), None)
    for clause in clauses[at:] if at is not None else []:
        words = [w for w in _LATIN_WORD.findall(repairs_removed(clause))
                 if w.casefold() not in STOPWORDS | _BARE_EN | _FILLERS]
        if words:
            return words[0] if len(words) == 1 and len(words[0]) >= 3 else None
    return None


# Where a repair may start: after a break ("…civic, my mistake, …"; "…上海人 哦不对 …").
_CUT = re.compile(rf"[,，;；。!！]\s*|\s+[—–-]+\s+|(?<=[{CJK_RANGES}])\s+|\s+(?=[{CJK_RANGES}])|"
                  r"\s+(?=emm)")
# Marks that repair only inside the line they follow: ", no, 5th grade", "，啊不是，叫雪碧".
_INLINE_MARK = re.compile(r"(?:no|nope|er|erm|emm+|um+)\b[,\s]|(?:[啊哦呃噢诶额]\s*)?不是[\s，,]|"
                          r"[啊哦呃噢诶额]\s*不[\s，,]|"
                          r"emm+|呃|额", re.I)


def _swap(line: str, statement: str, mine: Value) -> tuple[str, str, str] | None:
    after = line[mine.end:]
    if mine.refused is not None or mine.kind == "chinese":
        # Its own clause only: "是昌平 海淀太贵了" refuses the value after it, not 昌平.
        after = re.split(r"[\s，,。.!！;；]", after, maxsplit=1)[0] \
            if mine.refused is None else ""
    if _REFUSED.search(line[:mine.start]) or _REFUSED_AFTER.search(after) or \
            _NOT_CHOSEN.search(line[:mine.start]) or (
            mine.kind == "name" and _ADDRESSED.search(line[:mine.start])):
        return None
    if mine.kind == "chinese":
        span = chinese_target(statement, Repair(mine.text, mine.start, mine.end, mine.refused,
                                                mine.verb))
        if span is None:
            return None
        new = _unwrapped(mine.text, statement[:span[0]], statement[span[1]:])
        return statement[:span[0]] + new + statement[span[1]:], statement[span[0]:span[1]], new
    if mine.refused is not None:
        # The wrong value, refused in so many words, is the one it replaces (a word of
        # the statement, not part of one: "not 5" is not in "15 minutes").
        found = [m for m in re.finditer(re.escape(mine.refused), statement, re.I)
                 if not (_ASCII_WORD.match(statement[m.start() - 1:m.start()])
                         and _ASCII_WORD.match(mine.refused[0]))
                 and not (_ASCII_WORD.match(statement[m.end():m.end() + 1])
                          and _ASCII_WORD.match(mine.refused[-1]))]
        if len(found) != 1 or _elsewhere(line, mine, statement):
            return None
        k, e = found[0].span()
        new = _as_day(mine.text, found[0].group(0)) if mine.kind == "weekday" else mine.text
        if mine.refused.isdigit() and mine.digits != (0, 0):
            new = line[mine.digits[0]:mine.digits[1]]  # "78 kg, not 82": "82 kg" → "78 kg"
        new = _unwrapped(new, statement[:k], statement[e:])
        if mine.kind == "word" and new.islower() and found[0].group(0)[:1].isupper():
            new = new[0].upper() + new[1:]  # "kilkenny" for "Galway": a name as written
        return statement[:k] + new + statement[e:], statement[k:e], new
    if mine.kind == "name":
        old_all = _names(statement, skip_first=True)
        same = old_all
    else:
        old_all = _numbers(statement)
        same = [o for o in old_all if o.kind == mine.kind
                or (mine.kind == "number" and o.kind != "weekday")]
    if len(same) != 1:
        return None
    old = same[0]
    if mine.kind == "number":
        a, b = old.digits
        new_text = line[mine.digits[0]:mine.digits[1]]
        if statement[a:b] == new_text or not _fits(new_text, old):
            return None
        if (m := re.match(r"st|nd|rd|th", statement[b:])) and new_text.isdigit():
            # "the 22nd" made "the 28th", not "the 28nd"
            b, new_text = b + m.end(), new_text + _ordinal(int(new_text))
            return statement[:a] + new_text + statement[b:], statement[a:b], new_text
        return statement[:a] + new_text + statement[b:], statement[a:b], new_text
    text = _as_day(mine.text, old.text) if mine.kind == "weekday" else mine.text
    if mine.kind == "month" and text[:1].islower() and old.text[:1].isupper():
        text = text[0].upper() + text[1:]  # "June" for "July", as the statement writes it
    if old.text.casefold().replace(" ", "") == text.casefold().replace(" ", ""):
        return None
    return statement[:old.start] + text + statement[old.end:], old.text, text


def swap_in(line: str, statement: str) -> tuple[str, str, str] | None:
    """`swap` for a line already read as a change of `statement` (the gate decided it): by
    the last clause that marks the change and names exactly one value ("不对，10分钟不够我
    准备的，改成提前20分钟": its reason and the value given up are clauses of their own;
    "Could focus mode kick in at 8am instead?"), bare or not; a number only."""
    cuts = [0, *(m.end() for m in _CHANGE_CLAUSE.finditer(line)), len(line)]
    for a, b in reversed(list(pairwise(cuts))):
        clause = line[a:b]
        if not (_CHOICE.search(clause) or _MOVED.search(clause)) or _QUOTES.search(clause):
            continue
        # A number with its unit only: the unit types it ("20分钟" for "10分钟"; "3 times
        # a week" is no distance). A name may be of another kind ("after the move to
        # Seattle" is no timezone). And the clause says nothing else new ("switched to
        # running 3 km in the evenings" changes the time too: not a swap).
        values = _numbers(clause)
        if len(values) != 1 or values[0].kind == "number" or _says_more(clause, values[0],
                                                                      statement):
            continue
        if (got := _swap(clause, statement, values[0])) is not None:
            return got
    return None


# Clause bounds that are not inside a time or a number ("9:50", "2.5").
_CHANGE_CLAUSE = re.compile(r"[,，。!！;；…~～\n—]|[:：](?!\d)|\.(?!\d)")
# A verb that moves a thing to its new value: "push the briefing to 8:15", "挪到晚上7点".
_MOVED = re.compile(r"\b(?:push|move|shift|bump|set|change|switch|moved|pushed|shifted|"
                    r"bumped|changed|switched)\w*\b[^,.;?]{0,60}?\b(?:to|at)\b|"
                    r"(?:改|换|挪|调|推迟|提前|延后|推|移)(?:到|成|为)", re.I)


def _says_more(clause: str, value: Value, statement: str) -> bool:
    """Does the clause name more than one new word besides its value and the words of
    change ("kick in", "提前"; not "running … in the evenings", "… and send it by email")?
    Latin words count by their first four letters ("running" is "run…"), times of day
    too; Chinese by its words."""
    rest = _MOVED.sub(" ", _CHOICE.sub(" ", clause[:value.start] + " " + clause[value.end:]))
    latin = re.compile(r"[a-z][a-z']+")
    old = {w[:4] for w in latin.findall(statement.casefold())}
    new = [w for w in latin.findall(rest.casefold()) if w not in STOPWORDS and w[:4] not in old]
    old_zh = set(content_words(statement))
    new += [w for w in content_words(rest) if w[0] >= "\u2e80" and w not in old_zh]
    return len(new) > 1 or bool(_AND.search(rest))


# A second change joined to the first ("move it to 8:15 and send it by email instead").
_AND = re.compile(r"\band\b|\bthen\b|然后|并且|而且|再把", re.I)

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
from dataclasses import dataclass
from itertools import pairwise

from ..textindex import CJK_RANGES, STOPWORDS
from .discourse import one_time
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
_NUMBER = re.compile(rf"(?<![A-Za-z0-9.])(?P<cur>[$£€¥])?([0-9]+(?:[.:][0-9]+)?)\s*(?:{_UNIT})?"
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
_CLAUSE = re.compile(r"[,，。!！;；:：…~～\n—]|\.(?!\d)")
# What a bare value's clause may hold besides it: marks of a choice, fillers.
_BARE_EN = frozenset("""hmm hmmm ok okay ugh oh ah nah no yes yeah yep well so then just
actually instead rather make it that let's lets do go with say final finally wait i mean
scratch correction change to switch switched going went prefer better is be would will fine
please lol haha the a an maybe sorry um uh emm emmm er now""".split())
_BARE_ZH = re.compile(r"还是|改成|改为|换成|不对|算了|其实|好了|那就|就|用|定|选|了|是|嗯|啊|哦|"
                      r"呢|吧|哈|呀|诶|欸|额|呃|那")
_LATIN_WORD = re.compile(r"[A-Za-z][\w'-]*")


@dataclass(frozen=True, slots=True)
class Value:
    kind: str   # a unit's name, "number" when it has none, or "name"
    text: str   # as written in its line, with its unit
    start: int  # the span of `text`
    end: int
    digits: tuple[int, int] = (0, 0)  # a number's own span, without its unit


def _numbers(text: str) -> list[Value]:
    """Its numbers with their units, and its days of the week (a value of one kind too:
    "make it thursday" for "the digest on Wednesdays", "改周五吧" for "每周三开例会")."""
    out = []
    for m in _NUMBER.finditer(text):
        unit = "money" if m.group("cur") else next((k for k in _UNITS if m.group(k)), None)
        if unit is None:  # "8:30" is a time of day without a unit
            unit = "clock" if ":" in m.group(2) else "number"
        out.append(Value(unit, m.group(0), m.start(), m.end(), (m.start(2), m.end(2))))
    out += [Value("weekday", m.group(0), m.start(), m.end(), (m.start(), m.end()))
            for m in _WEEKDAY.finditer(text)]
    return sorted(out, key=lambda v: v.start)


_WEEKDAY = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|"
                      r"(?:周|星期|礼拜)[一二三四五六日天](?![一二三四五六日天])", re.I)


def _as_day(new: str, old: str) -> str:
    """`new` day in the form of the `old` it replaces: "Thursdays" for "Wednesdays"."""
    if new[0] >= "\u2e80" or old[0] >= "\u2e80":
        return new
    new = new.rstrip("sS") + ("s" if old[-1:] in "sS" else "")
    return new[0].upper() + new[1:].lower() if old[0].isupper() else new.lower()


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
    return _numbers(line) or _names(line, skip_first=False)


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


def is_reply(line: str) -> bool:
    """Could `line` be a bare-value correction of what was just said (before knowing what
    that was)?"""
    if not short(line) or _ASKS.search(line) or _QUOTES.search(line) \
            or not _CHOICE.search(line) or one_time(line):
        return False
    values = _values(line)
    return len(values) == 1 and bare(line, values[0])


def swap(line: str, statement: str) -> tuple[str, str, str] | None:
    """`statement` with the one value of its kind that `line` names in its place, with the
    old and the new value; None when `line` is not such a reply to it (not a reply, no
    single value of that kind in the statement, the same value, or a refused one). A
    number with a unit replaces one of the same kind with its unit ("7pm" → "8am", "70 kg"
    → "150 lbs"); a bare number only the digits ("make it 20": "30 minutes" → "20
    minutes")."""
    if not is_reply(line):
        return None
    return _swap(line, statement, _values(line)[0])


def _swap(line: str, statement: str, mine: Value) -> tuple[str, str, str] | None:
    if _REFUSED.search(line[:mine.start]) or _REFUSED_AFTER.search(line[mine.end:]) or \
            _NOT_CHOSEN.search(line[:mine.start]) or (
            mine.kind == "name" and _ADDRESSED.search(line[:mine.start])):
        return None
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
        return statement[:a] + new_text + statement[b:], statement[a:b], new_text
    text = _as_day(mine.text, old.text) if mine.kind == "weekday" else mine.text
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

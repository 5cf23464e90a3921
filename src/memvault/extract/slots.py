"""The slot vocabulary: which statements are values of a slot, and how words become values.

A slot is a key with one current value per user (`report.format`, `notify.channel`);
writing it again makes a new version of the same memory. Extractors map what people say
onto slots with this registry, so that "短信", "SMS" and "text messages" all become
`notify.channel = "SMS"` and a later "改成邮件" updates the same slot.

A `SlotSpec` describes one slot in one of two ways (or both):

- enumerated values: canonical value → surface words in Chinese and English
  (`"XLSX": ("xlsx", "excel", "表格")`). Matching is case-insensitive; an ASCII word
  matches only as a whole word (so "csv" is not found in "csvkit"), a Chinese word as a
  substring. `cues` are topic words ("通知", "notification"); with `needs_cue` a value
  word counts only when a cue is in the same sentence ("email" alone is not a channel:
  "my email is a@b.c"), and `weak` words need a cue even when the slot does not.
- `patterns`: regular expressions with a named group `value` for open values (a city,
  an amount, a time), normalised by `parse` (returning None rejects the match).

Built-in slots (the registry `SLOTS`):

    notify.channel     email | SMS | push | phone | wechat | telegram | whatsapp | slack
                       | dingtalk | feishu | none
    report.format      CSV | XLSX | PDF | JSON | DOCX | Markdown | HTML
    reply.language     zh | en | ja | ko | fr | de | es
    reply.verbosity    concise | detailed   (concise clashes with reply.background=first)
    reply.background   first                ("先讲背景", "explain the background first")
    user.location      free text ("我住在杭州", "I live in Berlin")
    user.name          free text ("我叫…", "my name is …")
    user.budget        {"amount": 5000, "currency": "CNY", "period": "month"}
    medication.time    "HH:MM" ("每天上午十点吃药", "I take my meds at 10pm")
    work.hours         "HH:MM-HH:MM" ("工作时间是9点到6点", "I work 9 to 5")
    diet.restriction   vegetarian | vegan | halal | kosher | gluten_free | lactose_free
                       | low_carb | keto
    diet.goal          weight_loss | muscle_gain (transient: 90 days by default)

Extending it (for every extractor that uses the registry):

    from memvault.extract.slots import SLOTS, SlotSpec
    SLOTS.register(SlotSpec("ui.theme", "colour scheme of the UI",
                            values={"dark": ("dark mode", "深色", "暗色"),
                                    "light": ("light mode", "浅色")},
                            cues=("theme", "mode", "主题", "模式")))
    SLOTS.extend("notify.channel", values={"viber": ("viber",)})

Use `SLOTS.copy()` (or a new `SlotRegistry(BUILTIN)`) for a private vocabulary.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import validate as v
from ..errors import ValidationError
from ..model import Kind

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def lang_of(text: str) -> str:
    """'zh' when the text has Chinese characters, else 'en': the language of content."""
    return "zh" if _CJK.search(text) else "en"


# Chinese words that are the tail of a longer word: "报表格式" is 报表 + 格式, not 表格.
_NOT_AFTER = {"表格": "(?<!报)"}


def word_regex(words: Iterable[str]) -> str:
    """One alternation for surface words: longest first (so "电子邮件" wins over "邮件"),
    ASCII words bounded by non-alphanumerics (\\b fails between "用" and "XLSX": both are
    word characters to Python) and allowed a plural s."""
    alts = []
    for w in sorted({w.lower() for w in words if w}, key=len, reverse=True):
        esc = re.escape(w).replace(r"\ ", r"[\s\-]*")
        if w.isascii():
            alts.append(rf"(?<![a-z0-9]){esc}(?:e?s)?(?![a-z0-9])")
        else:
            alts.append(_NOT_AFTER.get(w, "") + esc)
    return "|".join(alts) if alts else r"(?!x)x"


@dataclass(frozen=True)
class SlotSpec:
    """One slot: its key, its kind of memory, how values are said and how to phrase it."""

    key: str
    description: str
    kind: str = Kind.PREFERENCE.value
    values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    cues: tuple[str, ...] = ()
    needs_cue: bool = False
    weak: frozenset[str] = frozenset()
    # A first-person sentence naming a value is a statement about the user ("I'm vegan").
    stative: bool = False
    patterns: tuple[str, ...] = ()
    parse: Callable[[str], Any] | None = None
    # The value a universal negation means ("不喜欢任何形式的推送通知" → none).
    none_value: str | None = None
    default_ttl: str | None = None
    # Whether "最近/currently" make a value transient; a new address is not.
    transient: bool = True
    # Content templates by language: "en", "zh", "en:none" (a value), "en:negative".
    templates: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    display: Callable[[Any], str] | None = None
    # Values of *other* slots this slot's value pulls against ("concise" vs "explain the
    # background first"): both stay active, and the context builder shows them as a conflict.
    clashes: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    _compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        v.slot(self.key)
        v.kind(self.kind)
        try:
            compiled = tuple(re.compile(p, re.I) for p in self.patterns)
        except re.error as e:
            raise ValidationError(f"slot {self.key}: bad pattern ({e})") from None
        for p in compiled:
            if "value" not in p.groupindex:
                raise ValidationError(f"slot {self.key}: pattern {p.pattern!r} has no "
                                      "(?P<value>…) group")
        object.__setattr__(self, "values", {k: tuple(ws) for k, ws in self.values.items()})
        object.__setattr__(self, "_compiled", compiled)

    @property
    def enumerated(self) -> bool:
        return bool(self.values)

    def surface_map(self) -> dict[str, str]:
        """lower-cased surface word → canonical value (the canonical value is a word too)."""
        out: dict[str, str] = {}
        for canon, words in self.values.items():
            for w in (canon, *words):
                out.setdefault(w.lower(), canon)
        return out

    def label(self, value: Any, lang: str) -> str:
        if self.display is not None and not isinstance(value, str):
            return self.display(value)
        if isinstance(value, list):
            return " / ".join(self.label(x, lang) for x in value)
        got = self.labels.get(lang, {}).get(value) if isinstance(value, str) else None
        if got is not None:
            return got
        return self.display(value) if self.display is not None else str(value)

    def render(self, value: Any, lang: str, *, replaces: Any = None) -> str:
        """The memory's content, in the language the user spoke."""
        if value is None:
            tpl = self.templates.get(f"{lang}:negative") or (
                "用户不希望 {slot} 是 {replaces}" if lang == "zh"
                else "The user does not want {slot} to be {replaces}")
            return tpl.format(slot=self.key, replaces=self.label(replaces, lang))
        if isinstance(value, str) and f"{lang}:{value}" in self.templates:
            return self.templates[f"{lang}:{value}"]
        tpl = self.templates.get(lang) or (
            "用户的 {slot} 是 {value}" if lang == "zh" else "The user's {slot} is {value}")
        return tpl.format(slot=self.key, value=self.label(value, lang))

    def describe(self) -> dict[str, Any]:
        """What an LLM prompt says about the slot."""
        d: dict[str, Any] = {"slot": self.key, "kind": self.kind,
                             "description": self.description}
        if self.values:
            d["values"] = sorted(self.values)
        if self.default_ttl:
            d["default_ttl"] = self.default_ttl
        return d


@dataclass(frozen=True, slots=True)
class SlotMatch:
    """A value (or a value's surface word) found in a text."""

    spec: SlotSpec
    value: Any
    surface: str
    start: int
    end: int
    via: str  # "word" (enumerated) or "pattern" (open value)


class SlotRegistry:
    """The slots extractors know. Thread-safe to extend while others read."""

    def __init__(self, specs: Iterable[SlotSpec] = ()) -> None:
        self._specs: dict[str, SlotSpec] = {}
        self._lock = threading.Lock()
        self._regex: dict[str, tuple[re.Pattern[str], re.Pattern[str], dict[str, str]]] = {}
        for s in specs:
            self.register(s)

    def register(self, spec: SlotSpec, *, replace: bool = False) -> SlotSpec:
        if not isinstance(spec, SlotSpec):
            raise ValidationError(f"register: expected a SlotSpec, got {type(spec).__name__}")
        with self._lock:
            if spec.key in self._specs and not replace:
                raise ValidationError(f"slot {spec.key} is already registered "
                                      "(use replace=True or extend())")
            self._specs[spec.key] = spec
            self._regex.pop(spec.key, None)
        return spec

    def extend(self, key: str, *, values: Mapping[str, Iterable[str]] | None = None,
               cues: Iterable[str] = (), patterns: Iterable[str] = ()) -> SlotSpec:
        """Add surface words (to new or existing values), cues or patterns to a slot."""
        spec = self.get(key)
        if spec is None:
            raise ValidationError(f"slot {key} is not registered")
        merged = {k: tuple(ws) for k, ws in spec.values.items()}
        for canon, words in (values or {}).items():
            merged[canon] = tuple(dict.fromkeys((*merged.get(canon, ()), *words)))
        new = dataclasses.replace(spec, values=merged,
                                  cues=tuple(dict.fromkeys((*spec.cues, *cues))),
                                  patterns=(*spec.patterns, *patterns))
        return self.register(new, replace=True)

    def unregister(self, key: str) -> None:
        with self._lock:
            self._specs.pop(key, None)
            self._regex.pop(key, None)

    def get(self, key: str) -> SlotSpec | None:
        return self._specs.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._specs

    def __iter__(self) -> Iterator[SlotSpec]:
        return iter(list(self._specs.values()))

    def __len__(self) -> int:
        return len(self._specs)

    def keys(self) -> list[str]:
        return list(self._specs)

    def copy(self) -> SlotRegistry:
        return SlotRegistry(self)

    def clash(self, a: tuple[str, Any], b: tuple[str, Any]) -> bool:
        """Whether (slot, value) `a` and `b` are declared to pull against each other (in
        either spec); values of the same slot are versions, never a clash."""
        if a[0] == b[0]:
            return False
        for (s1, v1), (s2, v2) in ((a, b), (b, a)):
            spec = self._specs.get(s1)
            if spec is not None and isinstance(v1, str) and \
                    (s2, v2) in spec.clashes.get(v1, ()):
                return True
        return False

    def _compiled(self, spec: SlotSpec) -> tuple[re.Pattern[str], re.Pattern[str],
                                                   dict[str, str]]:
        got = self._regex.get(spec.key)
        if got is None:
            smap = spec.surface_map()
            got = (re.compile(word_regex(smap), re.I), re.compile(word_regex(spec.cues), re.I),
                   smap)
            self._regex[spec.key] = got
        return got

    def has_cue(self, spec: SlotSpec, text: str) -> bool:
        return bool(self._compiled(spec)[1].search(text))

    def normalise(self, key: str, raw: Any) -> Any:
        """A value as the slot stores it: a surface word → its canonical value; an open
        value through the slot's parser; anything unknown unchanged."""
        spec = self.get(key)
        if spec is None or not isinstance(raw, str):
            return raw
        text = raw.strip()
        if spec.enumerated:
            canon = self._compiled(spec)[2].get(text.lower())
            if canon is not None:
                return canon
            m = self._compiled(spec)[0].fullmatch(text)
            if m:
                return self._compiled(spec)[2].get(_singular(m.group(0).lower(),
                                                             self._compiled(spec)[2]), text)
        if spec.parse is not None:
            parsed = spec.parse(text)
            if parsed is not None:
                return parsed
        return text

    def find(self, text: str) -> list[SlotMatch]:
        """Every value mention and pattern capture in `text`, in order of position.
        Word mentions of a slot that needs a cue are kept only if a cue is present."""
        out: list[SlotMatch] = []
        for spec in self:
            words, cues, smap = self._compiled(spec)
            cue = bool(cues.search(text))
            if spec.enumerated:
                for m in words.finditer(text):
                    surface = m.group(0)
                    key = _singular(surface.lower(), smap)
                    if (spec.needs_cue or key in {w.lower() for w in spec.weak}) and not cue:
                        continue
                    out.append(SlotMatch(spec, smap.get(key, surface), surface, m.start(),
                                         m.end(), "word"))
            for pat in spec._compiled:
                for m in pat.finditer(text):
                    raw = m.group("value")
                    if raw is None:
                        continue
                    value = spec.parse(raw) if spec.parse is not None else raw.strip()
                    if value in (None, ""):
                        continue
                    out.append(SlotMatch(spec, value, raw, m.start("value"), m.end("value"),
                                         "pattern"))
        out.sort(key=lambda s: (s.start, -s.end))
        return out


def _singular(word: str, smap: Mapping[str, str]) -> str:
    """Map a matched plural ("texts", "emails") back to its surface word."""
    word = re.sub(r"[\s\-]+", " ", word)
    if word in smap:
        return word
    for cut in (1, 2):
        if word[:-cut] in smap:
            return word[:-cut]
    # Surface words with inner spaces were matched with [\s-]*; compare squeezed.
    squeezed = word.replace(" ", "")
    for k in smap:
        if k.replace(" ", "").replace("-", "") == squeezed.replace("-", ""):
            return k
    return word


# --- value parsers ----------------------------------------------------------------------------

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}


def cn_int(text: str) -> int | None:
    """'10', '十', '十二', '两', '五千', '一千五' (1500), '三万' → int; None otherwise."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _CN_DIGITS and ch not in _CN_UNITS and ch != "万"
                       for ch in text):
        return None
    total = section = 0
    digit: int | None = None
    last_unit = 1
    for ch in text:
        if ch in _CN_DIGITS:
            digit = _CN_DIGITS[ch]
        elif ch in _CN_UNITS:
            section += (1 if digit is None else digit) * _CN_UNITS[ch]
            last_unit, digit = _CN_UNITS[ch], None
        else:  # 万
            total += (section + (digit or 0)) * 10_000
            section, digit, last_unit = 0, None, 10_000
    if digit is not None:
        # Colloquial "一千五" is 1500: a trailing digit right after a unit is a tenth of it.
        section += digit * (last_unit // 10 if last_unit >= 100 and text[-2] in "百千万"
                            else 1)
    return total + section


_NUM = r"(?:\d{1,2}|[零一二两三四五六七八九十]{1,3})"
_DAYPART = (r"(?:每天早上|每天晚上|每晚|每早|早上|早晨|清晨|上午|中午|下午|傍晚|晚上|夜里|夜间|"
            r"凌晨|半夜)")
# Group-free, so patterns can embed them more than once; parse_time re-reads the text.
TIME_ZH = rf"(?:{_DAYPART}\s*)?{_NUM}\s*(?:点|时|[:：])\s*(?:半|{_NUM}\s*分?)?"
TIME_EN = r"\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)?"
_TIME_ZH_RE = re.compile(rf"(?P<part>{_DAYPART})?\s*(?P<h>{_NUM})\s*(?:点|时|[:：])\s*"
                         rf"(?:(?P<half>半)|(?P<m>{_NUM})\s*分?)?")
_TIME_EN_RE = re.compile(r"(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s*(?P<ap>am|pm|a\.m\.|p\.m\.)?",
                         re.I)
_PM_PARTS = {"下午", "傍晚", "晚上", "夜里", "夜间", "每晚", "每天晚上"}
_EN_PM = re.compile(r"\b(?:night|evening|afternoon|tonight)\b", re.I)


def _clock(h: int, m: int) -> str | None:
    if not (0 <= h <= 24 and 0 <= m < 60):
        return None
    return f"{h % 24:02d}:{m:02d}"


def parse_time(text: str) -> str | None:
    """'上午十点' → '10:00', '晚上8点半' → '20:30', '10pm' → '22:00', '7:15' → '07:15'."""
    text = text.strip()
    # Chinese reading only for Chinese text: "10:00 pm" must keep its pm.
    m = _TIME_ZH_RE.search(text) if (_CJK.search(text) or "点" in text) else None
    if m:
        h, mins = cn_int(m.group("h")), 30 if m.group("half") else cn_int(m.group("m") or "0")
        if h is None or mins is None:
            return None
        part = m.group("part")
        if (part in _PM_PARTS and h < 12) or (part == "中午" and h < 11):
            h += 12
        elif part in ("凌晨", "半夜") and h == 12:
            h = 0
        return _clock(h, mins)
    m = _TIME_EN_RE.fullmatch(text) or _TIME_EN_RE.search(text)
    if m:
        h, mins = int(m.group("h")), int(m.group("m") or 0)
        ap = (m.group("ap") or "").lower().replace(".", "")
        if ap == "pm" and h < 12:
            h += 12
        elif ap == "am" and h == 12:
            h = 0
        elif not ap and _EN_PM.search(text) and h < 12:  # "at 10 every night"
            h += 12
        elif not ap and h == 12 and re.search(r"\bnight\b", text, re.I):  # midnight
            h = 0
        return _clock(h, mins)
    return None


def parse_time_range(text: str) -> str | None:
    """'9点到6点' → '09:00-18:00', '9am-6pm', '9 to 5' → '09:00-17:00', '朝九晚五'."""
    text = text.strip()
    if "朝九晚五" in text:
        return "09:00-17:00"
    hour = r"(十[一二]?|[一二三四五六七八九])"
    short = re.fullmatch(rf"[早朝]{hour}晚{hour}", text)
    if short:  # "早十晚七": from ten in the morning to seven in the evening
        start, end = cn_int(short.group(1)), cn_int(short.group(2))
        if start is not None and end is not None and end < 12:
            return f"{start:02d}:00-{end + 12:02d}:00"
    parts = re.split(r"\s*(?:到|至|~|～|—|–|-|－|\bto\b|\buntil\b|\btill\b)\s*", text,
                     maxsplit=1, flags=re.I)
    if len(parts) != 2:
        return None
    start, end = parse_time(parts[0]), parse_time(parts[1])
    if start is None or end is None:
        return None
    explicit_pm = re.search(r"pm|p\.m\.|下午|晚上|傍晚", parts[1], re.I)
    if end <= start and not explicit_pm and int(end[:2]) < 12:
        end = f"{int(end[:2]) + 12:02d}{end[2:]}"  # "9 to 5" means 17:00
    return f"{start}-{end}"


_CURRENCIES = [
    (r"[$]|美元|美金|刀|dollars?|bucks|usd", "USD"),
    (r"[€]|欧元|euros?|eur", "EUR"),
    (r"[£]|英镑|pounds?|gbp", "GBP"),
    (r"日元|円|yen|jpy", "JPY"),
    (r"[¥￥]|元|块钱?|人民币|rmb|cny", "CNY"),
]
_CUR_WORDS = r"元|块钱?|人民币|美元|美金|刀|欧元|英镑|日元|dollars?|bucks|euros?|pounds?|yen|" \
             r"usd|rmb|cny|eur|gbp|jpy"
AMOUNT = (r"[$€£¥￥]?\s*(?:\d[\d,]*(?:\.\d+)?|[零一二两三四五六七八九十百千万]+)\s*"
          rf"(?:[kK](?![a-zA-Z])|千|万|w(?![a-zA-Z]))?\s*(?:{_CUR_WORDS})?")
_AMOUNT_RE = re.compile(
    r"(?P<sym>[$€£¥￥])?\s*(?P<num>\d[\d,]*(?:\.\d+)?|[零一二两三四五六七八九十百千万]+)\s*"
    rf"(?P<mult>[kK](?![a-zA-Z])|千|万|w(?![a-zA-Z]))?\s*(?P<cur>{_CUR_WORDS})?", re.I)
_PERIODS = [(r"每个?月|一个?月|月度|per month|a month|/\s*mo(?:nth)?\b|monthly|每月", "month"),
            (r"每年|一年|per year|a year|/\s*y(?:ea)?r\b|yearly|annual", "year"),
            (r"每周|每星期|一周|per week|a week|weekly", "week"),
            (r"每天|每日|一天|per day|a day|daily", "day")]


def parse_money(text: str) -> dict[str, Any] | None:
    """'5000元' → {"amount": 5000, "currency": "CNY", "period": None};
    '$1,500 a month' → {"amount": 1500, "currency": "USD", "period": "month"}; '3k'; '两万'."""
    for m in _AMOUNT_RE.finditer(text):
        num = m.group("num")
        if num.isascii():
            try:
                amount = float(num.replace(",", ""))
            except ValueError:
                continue
        else:
            n = cn_int(num)
            if n is None:
                continue
            amount = float(n)
        if not num.isascii() and re.match(r"\s*个?[月年周天星]", text[m.end("num"):]):
            continue  # "一个月" is a period, not an amount
        mult = (m.group("mult") or "").lower()
        amount *= {"k": 1000, "千": 1000, "万": 10_000, "w": 10_000}.get(mult, 1)
        if amount <= 0:
            continue
        cur_text = (m.group("sym") or "") + (m.group("cur") or "")
        currency = next((code for pat, code in _CURRENCIES
                         if cur_text and re.search(pat, cur_text, re.I)), None)
        period = next((p for pat, p in _PERIODS if re.search(pat, text, re.I)), None)
        return {"amount": int(amount) if amount.is_integer() else amount,
                "currency": currency, "period": period}
    return None


def show_money(value: Any) -> str:
    if not isinstance(value, Mapping):
        return str(value)
    out = f"{value.get('amount')}"
    if value.get("currency"):
        out += f" {value['currency']}"
    if value.get("period"):
        out += f"/{value['period']}"
    return out


_PLACE_STOP = re.compile(r"^(?:the\s+)?|[\s。.，,!！?？]+$|(?:了|啦|呢|哦)$", re.I)


# Not a place: a kind of home ("a small apartment", "一个小公寓里"), a spot relative to
# something ("学校旁边", "三楼"), or a figure of speech ("fear of spiders", "the past").
_NOT_PLACE = re.compile(
    r"^(?:an?|one|my|our|this|that)\s|^(?:fear|hope|denial|peace|harmony|poverty|luxury|"
    r"comfort|dread|terror|hiding|misery|the (?:moment|past|present|future|now|dark|shadow))\b"
    r"|\b(?:apartment|flat|house|home|dorm|dormitory|condo|studio|basement|cabin|tent|trailer|"
    r"van|hotel|room|building)s?$"
    # a move that is not a home: a new job, a device, a chapter, a shift
    r"|(?-i:^(?:next|new|other|another|same)\b)|\b(?:iphone|android|mac|windows|linux|chapter|page|"
    r"level|phase|stage|step|team|department|office|shift|desk|computer|laptop|phone|server|"
    r"cloud|version|account|plan|project|role|position)s?\b"
    r"|^新|电脑|手机|部门|办公室|工位|公司|学校|装修|系统|版本|账号|项目|岗位"
    r"|\ball (?:day|night|week|the time)\b"
    r"|^[一两几][个间套栋座处]|公寓|房子|宿舍|出租屋|酒店|宾馆|(?:旁边|附近|对面|楼上|楼下|隔壁|里|家|"
    r"[一二三四五六七八九十\d]+楼)$", re.I)


def parse_place(text: str) -> str | None:
    text = _PLACE_STOP.sub("", text.strip()).strip()
    if not text or len(text) > 60 or re.fullmatch(r"[\W\d_]+", text) or _NOT_PLACE.search(text):
        return None
    return text


def parse_name(text: str) -> str | None:
    text = re.sub(r"(?:就行|就好|就可以|吧|啦|了|哈+|呀|啊|哦|呢|嘛|哟)$", "", text.strip()).strip()
    # "我叫个滴滴" (call a car), "叫我一下" (call me once), "叫我名字", a name in quotes (a
    # joke: 我的名字叫"加班"): not names
    if re.match(r"[个一了起醒来过]", text) or text in ("名字", "全名", "大名") \
            or re.search(r"[\"'“”‘’「」]", text):
        return None
    return text if 0 < len(text) <= 40 else None


# --- the built-in vocabulary -----------------------------------------------------------------

_ZH_PLACE = r"[^\s，。,.!?！？；;、]{1,20}?"
# The place ends where a time phrase starts ("I moved to Paris last week").
# An emoji or another symbol ends it too.
_EN_PLACE = (r"[a-z][\w.'’\- ]{0,40}?(?=\s*(?:[,;!?]|[^\w\s.'’\-]|\.(?:\s|$)|$|\band\b|"
             r"\bbut\b|\bnow\b|\b(?:fyi|btw|lol|haha|tbh|rn|tho)\b|"
             r"\bwith\b|\bsince\b|\bfor\b|\bso\b|\bbecause\b|\bwhen\b|\bwhile\b|"
             r"\bafter\b|\bbefore\b|\b(?:last|this|next)\s+"
             r"(?:week|month|year|spring|summer|autumn|fall|winter)\b|\byesterday\b|\brecently\b|"
             r"\b(?:a few|two|three|several)\s+\w+\s+ago\b|\bin\s+(?:19|20)\d\d\b|"
             # "moved to Denver in March", "… back in May"
             r"\b(?:in|back in|since|during)\s+(?:early\s+|late\s+)?(?:january|february|march|"
             r"april|may|june|july|august|september|october|november|december|spring|summer|"
             r"autumn|fall|winter)\b))")

BUILTIN: tuple[SlotSpec, ...] = (
    SlotSpec(
        "notify.channel", "how the user wants to receive notifications and reminders",
        values={"email": ("邮件", "电子邮件", "邮箱", "电邮", "email", "e-mail", "mail",
                          "emailing me"),
                "SMS": ("短信", "手机短信", "短消息", "sms", "text message", "texts",
                        "text me", "texting"),
                "push": ("推送", "app推送", "app 推送", "push", "push notification"),
                "phone": ("电话", "打电话", "phone call", "phone"),
                "wechat": ("微信", "wechat"), "telegram": ("telegram", "电报"),
                "whatsapp": ("whatsapp",), "slack": ("slack",),
                "dingtalk": ("钉钉", "dingtalk", "ding talk"),
                "feishu": ("飞书", "feishu", "lark"),
                "none": ()},
        cues=("通知", "提醒", "联系", "告知", "消息", "进度", "notify", "notification",
              "alert", "remind", "reminder", "contact", "updates", "reach me", "let me know",
              "keep me posted", "email me", "text me", "texting", "call me", "给我发", "发给我",
              "短信给我", "电话给我", "邮件给我", "微信给我", "消息给我", "发到", "发微信",
              "发短信", "发邮件", "打电话", "打我电话", "打我手机", "找我", "send to", "ping me",
              "message me", "no more", "notifs",
              # a channel used as a verb: "WhatsApp me", "以后有急事微信我"
              "whatsapp me", "slack me", "wechat me", "telegram me", "微信我", "钉钉我", "飞书我",
              "短信我"),
        needs_cue=True, none_value="none",
        labels={"zh": {"email": "邮件", "SMS": "短信", "push": "推送", "phone": "电话",
                       "wechat": "微信", "telegram": "Telegram", "whatsapp": "WhatsApp",
                       "slack": "Slack", "dingtalk": "钉钉", "feishu": "飞书"},
                "en": {"email": "email", "SMS": "SMS", "push": "push notifications",
                       "phone": "phone calls", "wechat": "WeChat", "telegram": "Telegram",
                       "whatsapp": "WhatsApp", "slack": "Slack", "dingtalk": "DingTalk",
                       "feishu": "Feishu (Lark)"}},
        templates={"en": "The user wants to be notified by {value}",
                   "zh": "用户希望通过{value}接收通知",
                   "en:none": "The user does not want any notifications",
                   "zh:none": "用户不希望接收任何形式的通知",
                   "en:negative": "The user does not want to be notified by {replaces}",
                   "zh:negative": "用户不希望通过{replaces}接收通知"}),
    SlotSpec(
        "report.format", "the file format for reports and exports",
        values={"CSV": ("csv", "逗号分隔"),
                "XLSX": ("xlsx", "xls", "excel", "表格", "电子表格", "spreadsheet"),
                "PDF": ("pdf",), "JSON": ("json",),
                "DOCX": ("docx", "word", "word 文档"),
                "Markdown": ("markdown", "md"), "HTML": ("html", "网页格式")},
        cues=("报表", "报告", "导出", "格式", "文件", "下载", "附件", "report", "export",
              "format", "file", "download", "attachment", "output"),
        weak=frozenset({"word", "表格", "md", "html", "excel", "spreadsheet", "json"}),
        templates={"en": "The user wants reports exported as {value}",
                   "zh": "用户希望报表导出为 {value}",
                   "en:negative": "The user does not want reports as {replaces}",
                   "zh:negative": "用户不希望报表导出为 {replaces}"}),
    SlotSpec(
        "reply.language", "the language the assistant should reply in",
        values={"zh": ("中文", "汉语", "普通话", "简体中文", "chinese", "mandarin"),
                "en": ("英文", "英语", "english"), "ja": ("日语", "日文", "japanese"),
                "ko": ("韩语", "韩文", "korean"), "fr": ("法语", "法文", "french"),
                "de": ("德语", "德文", "german"), "es": ("西班牙语", "spanish")},
        cues=("reply", "respond", "answer", "talk", "speak", "write", "communicate",
              "language", "switch to", "switch back to", "go back to", "回复", "回答", "交流",
              "说", "沟通", "语言", "用", "改回", "换回"),
        needs_cue=True,
        labels={"zh": {"zh": "中文", "en": "英文", "ja": "日语", "ko": "韩语", "fr": "法语",
                       "de": "德语", "es": "西班牙语"},
                "en": {"zh": "Chinese", "en": "English", "ja": "Japanese", "ko": "Korean",
                       "fr": "French", "de": "German", "es": "Spanish"}},
        templates={"en": "The user wants replies in {value}", "zh": "用户希望用{value}回复"}),
    SlotSpec(
        "reply.verbosity", "how long and detailed replies should be",
        values={"concise": ("简洁", "简短", "简明", "简单点", "短一点", "少废话", "言简意赅",
                            "concise", "brief", "short answer", "short reply", "short response",
                            "answer short", "reply short", "response short", "answers short",
                            "replies short", "responses short", "keep it short",
                            "shorter", "terse", "succinct", "to the point", "说重点",
                            "直接说重点"),
                "detailed": ("详细", "具体一点", "展开讲", "多解释", "detailed", "in detail",
                             "more detail", "thorough", "in depth", "in-depth", "elaborate",
                             "long answer", "long explanation", "long reply", "long response",
                             "answer longer", "reply longer", "response longer",
                             "answers longer", "replies longer", "responses longer")},
        cues=("回答", "回复", "解释", "说明", "讲", "结论", "重点", "answer", "reply", "replies",
              "response", "explanation", "explain", "keep it", "be"),
        needs_cue=True,
        labels={"zh": {"concise": "简洁", "detailed": "详细"},
                "en": {"concise": "concise", "detailed": "detailed"}},
        templates={"en": "The user prefers {value} answers", "zh": "用户希望回答{value}"},
        clashes={"concise": (("reply.background", "first"),)}),
    SlotSpec(
        "reply.background", "whether answers should explain the background first",
        values={"first": ("背景", "来龙去脉", "前因后果", "background", "the backstory",
                          "the context first")},
        cues=("解释", "讲", "介绍", "说明", "交代", "先", "explain", "start with", "give me",
              "walk me through", "cover", "include"),
        needs_cue=True,
        labels={"zh": {"first": "先解释背景"}, "en": {"first": "explain the background first"}},
        templates={"en": "The user wants answers to {value}", "zh": "用户希望回答{value}"},
        clashes={"first": (("reply.verbosity", "concise"),)}),
    SlotSpec(
        "user.location", "where the user lives", kind=Kind.PROFILE.value,
        patterns=(
            r"我(?:(?:现在|目前|已经|刚|刚刚|最近|一直|上个?月|上周|上个?星期|去年|前年|今年|前几天|"
            r"前段时间|年初|月初)\s*){0,2}(?:从[^，。,.\s]{1,10}?)?(?:住在|居住在|生活在|定居在?|"
            rf"常住在?|搬到了?|搬去了?|搬来了?|搬家到了?)\s*(?P<value>{_ZH_PLACE})"
            r"(?:了|啦|住|生活|居住)?(?=[\s，。,.!?！？；;、]|$)",
            # the user's whole family moving ("我们全家搬来大连了"), not a company or a team
            r"^\s*(?:我们|我)(?:全家|一家|家)(?:(?:已经|刚|刚刚|最近|上个?月|去年|今年)\s*){0,2}"
            rf"(?:搬到了?|搬去了?|搬来了?|搬家到了?)\s*(?P<value>{_ZH_PLACE})"
            r"(?:了|啦|住|生活|居住)?(?=[\s，。,.!?！？；;、]|$)",
            rf"我(?:现在|目前)?在(?P<value>{_ZH_PLACE})(?:住|生活|定居)",
            # 住 without 在: "我现在住北京朝阳" (not 住院, 住得远, 住这儿)
            r"我(?:现在|目前|一直)?住(?![在院宿了得的过着不一这那几两二三四五六七八九十\d])"
            r"(?P<value>[^\s，。,.!?！？；;、]"
            r"{2,10}?)(?:了|啦)?(?=[\s，。,.!?！？；;、]|$)",
            r"^\s*我(?:现在的?|目前的?)?家(?:现在|目前)?在(?!装修|搬家|吃|做|办|开|等|忙|收拾|打扫)"
            rf"(?P<value>{_ZH_PLACE})(?=[\s，。,.!?！？；;]|$)",
            rf"\bI(?:'m| am)\s+from\s+[^,.;!?]{{1,40}}?\s+(?:but|and)\s+(?:now\s+)?live\s+in\s+"
            rf"(?P<value>{_EN_PLACE})",
            rf"\bI(?:'m| am)?\s+(?:now\s+|currently\s+|still\s+)?(?:live|living|reside|"
            rf"residing|based|located)\s+in\s+(?P<value>{_EN_PLACE})",
            rf"(?:\bI(?:'ve| have)?\s+(?:just\s+|recently\s+|finally\s+)?|^\s*(?:just|recently|"
            r"finally)\s+|^\s*we(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|"
            r"finally\s+)?)(?:moved|relocated)\s+(?:from\s+[^,.;!?]{1,40}?\s+)?to\s+"
            rf"(?P<value>{_EN_PLACE})",
        ),
        parse=parse_place, transient=False,
        templates={"en": "The user lives in {value}", "zh": "用户住在{value}"}),
    SlotSpec(
        "user.name", "what the user is called", kind=Kind.PROFILE.value,
        patterns=(r"我(?:的名字)?叫(?![了过]|外卖|车|醒|人|餐)(?:做)?\s*"
                  r"(?P<value>[^\s，。,.!?！？；;、]{1,6})"
                  r"(?=[\s，。,.!?！？；;、]|$)",
                  r"我的名字是\s*(?P<value>[^\s，。,.!?！？；;、]{1,10})",
                  r"(?:请|你可以|以后)?叫我\s*(?P<value>[^\s，。,.!?！？；;、]{1,10})",
                  r"\bmy name(?: is|'s|’s)\s+(?P<value>(?-i:[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2}))",
                  r"\bcall me\s+(?P<value>(?-i:[A-Z][\w'-]*))"),
        parse=parse_name, transient=False,
        templates={"en": "The user's name is {value}", "zh": "用户叫{value}"}),
    SlotSpec(
        "user.budget", "how much the user can or wants to spend", kind=Kind.FACT.value,
        patterns=(
            # the period first: "每个月预算大概8000", "my monthly budget is around $2000"
            r"(?:^\s*|我的?\s*)(?P<value>(?:每个?|一个?)[月年周天]\s*(?:的)?预算(?:是|为|在|有|大概|大约|差不多|"
            rf"控制在|不超过|最多|上限是?|只有|:|：|\s)*{AMOUNT})",
            r"\bmy\s+(?P<value>(?:monthly|weekly|yearly|annual|daily)\s+budget"
            r"(?:\s+is|\s+was|:)?\s*"
            r"(?:about\s+|around\s+|roughly\s+|approximately\s+|up\s+to\s+|under\s+)?"
            rf"{AMOUNT})",
            r"(?<![月年周天])(?<![月年周天]的)预算(?:是|为|在|有|就|大概|大约|差不多|控制在|不超过|"
            r"最多|"
            r"上限是?|只有|:|：|\s)*"
            rf"(?P<value>(?:(?:每个?|一个?)[月年周天]\s*)?{AMOUNT}(?:\s*(?:每|一个?)[月年周天])?)",
            r"(?<!monthly )(?<!weekly )(?<!yearly )(?<!annual )(?<!daily )"
            r"\bbudget(?:'s|\s+is|\s+was|\s+of|\s+will\s+be|\s+would\s+be|:)?\s*(?:about\s+|"
            r"around\s+|roughly\s+|approximately\s+|up\s+to\s+|under\s+|at\s+most\s+|"
            r"no\s+more\s+than\s+|below\s+|max(?:imum)?\s+)?"
            rf"(?P<value>{AMOUNT}(?:\s*(?:per|a|/|each)\s*(?:month|year|week|day|mo|yr))?)",
        ),
        parse=parse_money, display=show_money,
        templates={"en": "The user's budget is {value}", "zh": "用户的预算是 {value}"}),
    SlotSpec(
        "medication.time", "when the user takes their medication", kind=Kind.FACT.value,
        patterns=(
            rf"(?P<value>{TIME_ZH})\s*(?:左右)?\s*(?:要|需要|得)?(?:吃药|服药|用药|打针|"
            r"吃.{0,4}药)",
            rf"(?:吃药|服药|用药)(?:的)?时间(?:是|为|在|改到|改成|改为)?\s*(?P<value>{TIME_ZH})",
            r"\b(?:take|taking|have)\s+(?:my\s+|the\s+)?(?:(?!his|her|their|your)[a-z]+\s+){0,2}"
            r"(?:medication|medicine|meds|"
            r"pills?|tablets?|insulin)(?:\s+every\s+(?:day|night|morning|evening)|\s+daily|"
            r"\s+each\s+day)?\s+at\s+"
            rf"(?P<value>{TIME_EN}(?:\s*(?:every|each|at|in\s+the)\s+(?:night|evening|morning|"
            r"afternoon))?)",
            r"\bmy\s+(?:medication|medicine|meds|pill)\s+time\s+is\s+(?:now\s+)?"
            rf"(?P<value>{TIME_EN})",
        ),
        parse=parse_time, transient=False,
        templates={"en": "The user takes their medication at {value}",
                   "zh": "用户每天{value}服药"}),
    SlotSpec(
        "work.hours", "the user's working hours", kind=Kind.PROFILE.value,
        patterns=(
            rf"(?:工作时间|上班时间|办公时间)(?:是|为|:|：)?\s*"
            rf"(?P<value>{TIME_ZH}\s*(?:到|至|-|~|～|—)\s*{TIME_ZH})",
            rf"我(?:每天|一般|平时)?(?:从)?(?P<value>{TIME_ZH}\s*(?:到|至|-|~|～)\s*{TIME_ZH})"
            r"\s*(?:上班|工作)",
            r"(?P<value>朝九晚五)",
            r"我的?(?:上班|工作)(?:时间)?(?:是|为|:|：)?\s*(?P<value>[早朝](?:十[一二]?|[一二三四五六七八九])"
            r"晚(?:十[一二]?|[一二三四五六七八九]))",
            r"\bmy\s+shifts?\s+(?:is|are)\s+(?:from\s+)?"
            rf"(?P<value>{TIME_EN}\s*(?:to|-|–|until|till)\s*{TIME_EN})",
            r"\b(?:I\s+work|my\s+(?:working|work|office)\s+hours\s+are|I'm\s+at\s+work|"
            rf"I\s+am\s+at\s+work)\s+(?:from\s+)?(?P<value>{TIME_EN}\s*(?:to|-|–|until|till)"
            rf"\s*{TIME_EN})",
        ),
        parse=parse_time_range, transient=False,
        templates={"en": "The user works {value}", "zh": "用户的工作时间是 {value}"}),
    SlotSpec(
        "diet.restriction", "what the user eats or avoids", kind=Kind.PROFILE.value,
        values={"vegetarian": ("素食", "吃素", "素食者", "素食主义", "vegetarian", "veggie"),
                "vegan": ("纯素", "严格素食", "vegan"), "halal": ("清真", "halal"),
                "kosher": ("kosher",),
                "gluten_free": ("无麸质", "gluten-free", "gluten free", "coeliac", "celiac"),
                "lactose_free": ("乳糖不耐", "乳糖不耐受", "lactose intolerant",
                                 "lactose-free", "dairy-free"),
                "low_carb": ("低碳水", "low-carb", "low carb"), "keto": ("生酮", "keto")},
        cues=("吃", "饮食", "diet", "eat", "food", "meal"), stative=True,
        labels={"zh": {"vegetarian": "素食", "vegan": "纯素", "halal": "清真",
                       "kosher": "犹太洁食", "gluten_free": "无麸质", "lactose_free": "无乳糖",
                       "low_carb": "低碳水", "keto": "生酮"},
                "en": {"vegetarian": "vegetarian", "vegan": "vegan", "halal": "halal",
                       "kosher": "kosher", "gluten_free": "gluten-free",
                       "lactose_free": "lactose-free", "low_carb": "low-carb",
                       "keto": "keto"}},
        templates={"en": "The user follows a {value} diet", "zh": "用户的饮食：{value}"}),
    SlotSpec(
        "diet.goal", "what the user is currently trying to achieve with food and exercise",
        kind=Kind.PROFILE.value,
        values={"weight_loss": ("减肥", "减重", "瘦身", "控制体重", "lose weight",
                                "losing weight", "on a diet", "trying to lose weight"),
                "muscle_gain": ("增肌", "build muscle", "gain muscle", "bulking")},
        stative=True, default_ttl="90d",
        labels={"zh": {"weight_loss": "减肥", "muscle_gain": "增肌"},
                "en": {"weight_loss": "lose weight", "muscle_gain": "build muscle"}},
        templates={"en": "The user is trying to {value}", "zh": "用户最近在{value}"}),
)

SLOTS = SlotRegistry(BUILTIN)
"""The default registry every extractor uses unless given another; extend it at start-up."""

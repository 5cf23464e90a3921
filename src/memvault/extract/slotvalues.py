"""How words become slot values: the parsers of open values (times, time ranges, amounts
of money, places, names), the regex fragments slot patterns embed (`TIME_ZH`, `TIME_EN`,
`AMOUNT`), and `lang_of`, the language a statement is written in."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def lang_of(text: str) -> str:
    """'zh' when the text has Chinese characters, else 'en': the language of content."""
    return "zh" if _CJK.search(text) else "en"


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
# "3k", "两万", "$2M", "1.5 million", "3亿": the multiple after the number.
_MULT = (r"[kK](?![a-zA-Z])|千|万|亿|w(?![a-zA-Z])|[mM](?![a-zA-Z])|mn(?![a-zA-Z])|"
         r"bn(?![a-zA-Z])|\s?(?:million|billion)s?(?![a-zA-Z])")
_MULTIPLES = {"k": 1000, "千": 1000, "万": 10_000, "w": 10_000, "亿": 100_000_000,
              "m": 1_000_000, "mn": 1_000_000, "million": 1_000_000, "bn": 10**9,
              "billion": 10**9}
AMOUNT = (r"[$€£¥￥]?\s*(?:\d[\d,]*(?:\.\d+)?|[零一二两三四五六七八九十百千万]+)\s*"
          rf"(?:{_MULT})?\s*(?:{_CUR_WORDS})?")
_AMOUNT_RE = re.compile(
    r"(?P<sym>[$€£¥￥])?\s*(?P<num>\d[\d,]*(?:\.\d+)?|[零一二两三四五六七八九十百千万]+)\s*"
    rf"(?P<mult>{_MULT})?\s*(?P<cur>{_CUR_WORDS})?", re.I)
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
        amount *= _MULTIPLES.get(mult.strip().removesuffix("s"), 1)
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
    r"^(?:an?|one|my|our|this|that|the)(?:\s|$)|^(?:fear|hope|denial|peace|harmony|poverty|luxury|"
    r"comfort|dread|terror|hiding|misery|the (?:moment|past|present|future|now|dark|shadow))\b"
    r"|\b(?:apartment|flat|house|home|dorm|dormitory|condo|studio|basement|cabin|tent|trailer|"
    r"van|hotel|room|building|unit|suite|floor|storey|story)s?$"
    # a floor or a unit of the same building ("the 3rd floor unit", "floor 12")
    r"|\b(?:\d+(?:st|nd|rd|th)|ground|top|upper|lower)\s+(?:floor|storey)\b|^(?:floor|unit)\s"
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


def places_only(found: list[Any], place: Callable[[str, str], bool] | None,
                said: str = "") -> list[Any]:
    """The slot matches `found` in `said`, without a place value that `place`
    (placevalue.py) says is not one: "moved to Notion", "我们搬到飞书了" name an app."""
    if place is None:
        return found
    return [m for m in found if not (m.spec.parse is parse_place and m.via == "pattern"
                                     and isinstance(m.value, str) and not place(m.value, said))]


def parse_language(text: str) -> str | None:
    """A language as its tag (langcodes): "Portuguese" → "pt", "Brazilian Portuguese" →
    "pt-BR", "粤语" and "广东话" → "yue", "繁体中文" → "zh-Hant". Only a name of a language
    with a million speakers or more, said as its name: langcodes also finds words that
    merely resemble one ("short" → Shor, "Java" → Javanese, "person" → Persian)."""
    import langcodes  # its name data loads on the first find

    words = text.split()
    for n in dict.fromkeys((len(words), 2, 1)):
        said = " ".join(words[:n])
        try:
            tag = langcodes.find(said)
        except LookupError:
            continue
        if not tag.language or (tag.speaking_population() or 0) < 1_000_000:
            continue
        name = tag.display_name().split(" (")[0].casefold()
        if _CJK.search(said) or said.split()[-1].casefold() == name:
            return str(tag).replace("cmn", "zh", 1) if tag.language == "cmn" else str(tag)
    return None


def language_name(tag: Any, lang: str) -> str | None:
    """A language tag's name in the user's language ("yue" → "Cantonese" / "粤语")."""
    import langcodes

    try:
        return langcodes.get(str(tag)).display_name("zh" if lang == "zh" else "en")
    except (ValueError, LookupError):
        return None

"""Sensitive data in memory text: phone numbers, identity document numbers, payment card
and account numbers, e-mail addresses and credentials (a password or PIN the user gives).

`find_pii(text)` reports where they are; `redact(text)` replaces each with a typed
placeholder ("[PHONE]", "[ID_NUMBER]", "[CARD]", "[EMAIL]", "[SECRET]"). Detection runs on an NFKC,
invisible-stripped copy with every script's digits read as ASCII digits, so full-width
("１３８…") or Arabic-Indic digits and zero-width characters inside a number do not hide
it; spans index the original text, so redaction removes the whole original run including
the hidden characters.

Findings carry the kind and the span, never the matched value: they travel into gate
decisions, review queues and logs, which must not become a second copy of the data.
Unlabelled numbers are validated (ID checksum and date, Luhn for cards) to keep ordinary
numbers (order ids, amounts, dates) out of the result; a number the user labels ("card
number", "身份证号", "passport", "IBAN", "手机号" …) is sensitive whatever its checksum; a
value the user labels as a password, PIN, door code, key or token is a secret when it is
not a plain word; a vendor key is a secret by its shape alone (credentials.py).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..ids import is_id
from .credentials import credential_spans
from .instructions import normalize_with_map
from .numberlabels import labelled_numbers, named_in_message
from .placeholders import PLACEHOLDER_RX, PLACEHOLDERS
from .secretforms import secret_forms

__all__ = [
    "PLACEHOLDERS",
    "PiiFinding",
    "find_pii",
    "hidden_kinds",
    "key_kind",
    "keyed_kinds",
    "luhn_ok",
    "redact",
    "redacted_kinds",
    "resident_id_ok",
    "scrub",
    "scrub_around",
    "sensitive_values",
    "value_in",
    "values_found",
]



@dataclass(frozen=True, slots=True)
class PiiFinding:
    kind: str    # phone | id_number | card | email | secret
    start: int   # span in the original text
    end: int

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)

    @property
    def placeholder(self) -> str:
        return PLACEHOLDERS[self.kind]


_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def resident_id_ok(number: str) -> bool:
    """GB 11643-1999: 17 digits, a valid birth date, and the mod-11 check character."""
    if len(number) != 18 or not number[:17].isdigit() or not number[:17].isascii():
        return False
    try:
        born = date(int(number[6:10]), int(number[10:12]), int(number[12:14]))
    except ValueError:
        return False
    if born.year < 1900:
        return False
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == number[17].upper()


def luhn_ok(digits: str) -> bool:
    """The Luhn check of ISO/IEC 7812 card numbers."""
    if not digits.isdigit() or not digits.isascii():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _digits(s: str) -> str:
    return re.sub(r"[^0-9xX]", "", s)


def _valid_id(m: re.Match[str]) -> bool:
    return resident_id_ok(_digits(m.group()))


def _valid_card(m: re.Match[str]) -> bool:
    d = _digits(m.group())
    # A run of one repeated digit passes Luhn for some lengths but is never a card.
    return 13 <= len(d) <= 19 and len(set(d)) > 1 and luhn_ok(d)


def _valid_intl(m: re.Match[str]) -> bool:
    return 8 <= len(_digits(m.group())) <= 15  # E.164: at most 15 digits


def _always(m: re.Match[str]) -> bool:
    return True


_TOKEN_CHAR = re.compile(r"[0-9A-Za-z_]")


def _inside_identifier(m: re.Match[str]) -> bool:
    """Is the number part of a longer identifier: a token that has a digit or "_" before
    it, or a letter or digit right after it ("m_01a24961f2450000313275…", a random id
    whose digits pass Luhn)? A word prefix ("tel13812345678", "ORD4111…") is not one."""
    text, lo = m.string, m.start()
    while lo > 0 and _TOKEN_CHAR.match(text[lo - 1]):
        lo -= 1
    return any(not ch.isalpha() for ch in text[lo:m.start()]) or bool(
        _TOKEN_CHAR.match(text, m.end()))


def _standalone(valid: Callable[[re.Match[str]], bool]) -> Callable[[re.Match[str]], bool]:
    return lambda m: not _inside_identifier(m) and valid(m)


# A credential the user gives: what follows a password or PIN label. A secret holds a
# digit or a symbol (a PIN four digits, a card's CVV three), or is one word that ends
# the clause after "is", ":", "是" ("my password is sunshine!") and does not say what the
# password is like ("my password is correct", "…is weak"); "my password is on a sticky
# note", "密码忘了" name none. The postal "PIN code" is an address.
_SECRET_LABEL = (r"(?i:(?<![A-Za-z\[])(?:(?P<pin>pin\s*码|(?<!postal\s)(?<!zip\s)(?<!area\s)pin"
                 r"(?:\s+(?:code|number))?|puk(?:\s+code)?)|(?P<cvv>cvv2?|cvc|security\s+code)"
                 r"|(?P<code>(?:door|gate|alarm|garage|lock|locker|lockbox|safe|entry|"
                 r"entrance|building|keypad|key\s*box|key\s*safe|intercom|buzzer|unlock)"
                 r"\s+(?:access\s+)?(?:code|pin|combo|combination)|keypad|padlock|"
                 r"combination(?:\s+lock)?|"
                 # "the code to get into the building is …" (not a zip, area or tax code);
                 # one space between words, so a run of spaces cannot be retried
                 r"(?<!zip\s)(?<!postal\s)(?<!post\s)(?<!area\s)(?<!tax\s)(?<!dress\s)(?<!promo\s)"
                 r"(?<!discount\s)(?<!error\s)(?<!source\s)code\s(?:to|for)\s"
                 r"(?:(?:get\sinto|open|enter)\s)?(?:(?:the|my|our)\s)?(?:[a-z]+\s){0,2}"
                 r"(?:door|gate|building|garage|house|apartment|flat|office|lockbox|safe|unit|"
                 r"locker)|门禁码|门禁密码|开门码|门锁码|解锁码)"
                 r"|(?P<key>(?:api|access|secret|private|client|app|auth|bearer|refresh|"
                 r"session|bot|personal\s+access|deploy)[\s_-]*(?:key|token|secret)"
                 r"(?:[\s_-]*id)?|secret[\s_-]*id|secret|token|key|ak|sk|bearer|密钥|秘钥|令牌|api\s*key)"
                 r"|pass(?:word|code|phrase)|passwd|pwd|pw)(?![A-Za-z_])|支付密码|取款密码|登录密码|"
                 r"开机密码|密码|口令)")
_SECRET_RX = re.compile(
    _SECRET_LABEL +
    r"(?i:(?P<filler>(?:\s*(?:(?:is|was|it'?s|it\s+is|to|(?:changed|set|reset|updated)\s+to|"
    r"is\s+now|now)(?![A-Za-z])|=|:|：|是|为|就是|'s|’s|-|–|改成|改为|设的|设成|设为|换成|"
    # where or whose it is, before what it is: "the wifi pw at the cabin is …"
    r"(?:for|at|on|of|in|from)\s+(?:the\s+|my\s+|our\s+)?[a-z]+(?:\s+[a-z]+)?"
    r"(?=\s+(?:is|was)\b))"
    r"){0,3})\s*)"
    r"(?:\"(?P<quoted>[^\"\n]{1,512})\"|“(?P<quoted2>[^”\n]{1,512})”|"
    # "!" and "?" end a value, unless more of it follows ("Zq9!vault-door").
    r"(?P<number>(?:[^\s,，。;；！!？?、\"“”]|[!?](?=[^\s,，。;；！!？?、\"“”])){1,512}))")
# The value first: "hunter22 is my password", "Qz@88是我的密码".
_SECRET_BEFORE_RX = re.compile(
    r"(?<![^\s(\"“：:，,])(?P<number>[!-~]{4,64}?)\s*(?i:(?:is|was)\s+(?:my|our|the)\s+"
    r"(?:[a-z]+\s+)?|是(?:我的?|我们的?)?(?:\w{0,4}?)?)" + _SECRET_LABEL)
_SECRET_TRAILING = ".,;:!?)]}'\""
_PLAIN_VALUE_MARK = re.compile(r"(?:is|was|=|:|：|是|为|就是|it'?s|it\s+is|'s|’s|-|–)\s*$", re.I)
_CLAUSE_END = re.compile(r"\s*(?:$|[.,;:!?。，；！？)\]]|and\b|but\b|so\b|don'?t\b|please\b|"
                         r"[，。！？]|帮|别|不要|记)", re.I)
# What a password is like, said after "is": not the password.
_NOT_A_SECRET = frozenset("""
correct wrong incorrect right same different easy hard simple complex weak strong long short
secure insecure safe unsafe old new expired changed reset fine ok okay good bad saved stored
required needed invalid valid set blank empty lost forgotten gone here there below above
attached mine yours his hers theirs too
忘了 错了 对的 不对 一样 没变 改了 对 错 过期了 丢了
""".split())
# Keys and tokens that name a row, a request or a page, not a credential.
_NOT_SECRET_KEY = re.compile(
    r"(?i:(?<![A-Za-z])(?:idempotency|dedupe?|cache|sort|partition|primary|foreign|object|"
    r"routing|lookup|hash|shard|row|unique|index|composite|search|cursor|pagination|page|"
    r"next|continuation|sync|correlation|trace|request)[\s_-]?$)")
# What a key's value says when it is no secret: what one is like, or that there is none.
_NOT_A_SECRET_VALUE = _NOT_A_SECRET | frozenset(
    "none null nil n/a na - yes no true false unset redacted hidden".split())
_HAN = re.compile(r"[\u2e80-\u9fff]")
_KEY_VALUE = re.compile(r"[A-Za-z0-9_\-+/=~.]{16,512}")
_NEGATED = re.compile(r"[a-z]+n['’]t", re.I)


def _secrets(norm: str) -> list[tuple[str, int, int]]:
    out = []
    at = 0
    while (m := _SECRET_RX.search(norm, at)) is not None:
        group = next(g for g in ("quoted", "quoted2", "number") if m.group(g) is not None)
        lo, value = m.start(group), m.group(group)
        if group == "number":
            value = value.rstrip(_SECRET_TRAILING)
        if _is_secret(value, m, quoted=group != "number", end=lo + len(value), norm=norm):
            out.append(("secret", lo, lo + len(value)))
            at = lo + len(value)
        else:
            # Not a value: the label may be part of a longer one that starts inside it
            # ("ssh key passphrase is …", "aws_secret_access_key = …").
            at = m.start() + 1
    for m in _SECRET_BEFORE_RX.finditer(norm):
        value = m.group("number").lstrip("(\"“")
        lo = m.end("number") - len(value)
        if _symbolic(value) and not PLACEHOLDER_RX.search(value) \
                and not any(a < m.end("number") and lo < b for _, a, b in out):
            out.append(("secret", lo, m.end("number")))
    return out


def _symbolic(value: str) -> bool:
    return len(value) >= 4 and any(ch.isdigit() or not ch.isalnum() for ch in value)


def _is_secret(value: str, m: re.Match[str], *, quoted: bool, end: int, norm: str) -> bool:
    if not value or PLACEHOLDER_RX.search(norm, end - len(value), end + 1):
        return False  # already redacted: redact() is idempotent
    if not quoted and _NEGATED.fullmatch(value):
        return False  # "the wifi password isn't working"
    if not quoted and _HAN.search(value) and not _PLAIN_VALUE_MARK.search(
            m.group("filler") or ""):
        return False  # "密码要求至少8位": what it is like; "密码是我爱北京123" gives one
    digits = sum(ch.isdigit() for ch in value)
    if m.group("cvv"):
        return digits >= 3
    if m.group("pin"):
        return digits >= 4
    if m.group("code"):
        return digits >= 3  # a keypad's code: "the gate code is 1942#"
    if m.group("key"):
        if is_id(value) or _NOT_SECRET_KEY.search(norm, 0, m.start("key")):
            return False  # "dedupe key: m_…", "idempotency-key: …", "page token: …"
        # A key or token is long (16 or more), mixes letters and digits and is one token of a key's
        # alphabet: "my token is ready" says what it is like, "key=itemgetter(1)",
        # "token = tokenizer.encode(text1)" and "cache key ubuntu-22.04" are code and names.
        # Dots only between parts of one key ("hvs.gTwv…", "<id>.<secret>"), not in a
        # version or a dotted name, whose parts are short.
        return bool(_KEY_VALUE.fullmatch(value)) and digits > 0 and any(
            ch.isalpha() for ch in value) and max(map(len, value.split("."))) >= 12
    if quoted or _symbolic(value):
        return True
    # One plain word: a secret when the label said what follows is the value and the word
    # ends the clause. Not a Chinese phrase ("密码是我自己设置的"): it says what it is like.
    return (value.isascii() and bool(_PLAIN_VALUE_MARK.search(m.group("filler") or ""))
            and value.lower() not in _NOT_A_SECRET and len(value) >= 3
            and bool(_CLAUSE_END.match(norm, end)))


def _labelled(norm: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of the values a label names, in the normalised text: secrets
    first (a card's PIN is not its number), then labelled numbers."""
    keys = credential_spans(norm)
    out = [("secret", lo, hi) for lo, hi in keys]
    for lo, hi in secret_forms(norm, keys):
        if not any(a < hi and lo < b for _, a, b in out):
            out.append(("secret", lo, hi))
    out += [f for f in _secrets(norm) if not any(a < f[2] and f[1] < b for _, a, b in out)]
    return out + labelled_numbers(norm, out)


# (kind, pattern, validator), in priority order: a span taken by an earlier detector is
# not reported again by a later one (an ID number is not also a card or a phone).
_DETECTORS: list[tuple[str, re.Pattern[str], Callable[[re.Match[str]], bool]]] = [
    ("email", re.compile(
        r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
        r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}(?![A-Za-z0-9-])"),
     _always),
    ("id_number", re.compile(
        r"(?<![0-9])[1-9][0-9]{5}[ -]?(?:18|19|20)[0-9]{2}(?:0[1-9]|1[0-2])"
        r"(?:0[1-9]|[12][0-9]|3[01])[ -]?[0-9]{3}[0-9Xx](?![0-9A-Za-z])"), _standalone(_valid_id)),
    # Phones with an explicit international prefix come before cards so that "+86 138…"
    # is not read as a 13-digit card number.
    ("phone", re.compile(
        r"(?<![0-9])(?:\+|00)[ ]?86[ -]?1[3-9][0-9](?:[ -]?[0-9]{4}){2}(?![0-9])"),
     _standalone(_always)),
    ("phone", re.compile(
        r"(?<![0-9A-Za-z])\+[1-9][0-9]{0,2}(?:[ .-]?\(?[0-9]{1,4}\)?){2,5}(?![0-9])"),
     _standalone(_valid_intl)),
    ("card", re.compile(r"(?<![0-9+])[2-6][0-9](?:[ -]?[0-9]){11,17}(?![0-9])"),
     _standalone(_valid_card)),
    # CN mobile: 1[3-9]X XXXX XXXX, separators optional.
    ("phone", re.compile(r"(?<![0-9])1[3-9][0-9](?:[ -]?[0-9]{4}){2}(?![0-9])"),
     _standalone(_always)),
    # North American numbers need separators: a bare 10-digit run is too often something
    # else (order ids, amounts). An area code in brackets says "phone" whatever the
    # exchange ("(555) 123-4567").
    ("phone", re.compile(
        r"(?<![0-9+])(?:1[ .-]?)?(?:\([2-9][0-9]{2}\)[ ]?[0-9]{3}|[2-9][0-9]{2}[ .-][2-9][0-9]{2})"
        r"[ .-][0-9]{4}(?![0-9])"), _standalone(_always)),
    # UK numbers in national form, grouped as they are written: a mobile "07700 900123" /
    # "07700 900 123", London "020 7946 0018", another area "0161 496 0000" (a bare
    # eleven-digit run is too often an order number).
    ("phone", re.compile(
        r"(?<![0-9])(?<![0-9] )(?:07[0-9]{3} (?:[0-9]{6}|[0-9]{3} [0-9]{3})|"
        r"020 [0-9]{4} [0-9]{4}|01[0-9]{2,3} [0-9]{3} ?[0-9]{3,4})(?![0-9]| [0-9])"),
     _standalone(_always)),
]


# What a checksum alone finds: in a field's one-token value (an external message id, an
# order path, a snowflake) a digit run that passes Luhn or the ID check is an identifier
# far more often than a card (one run in ten passes Luhn by chance).
_CHECKSUM_ONLY = frozenset({"card", "id_number"})


_CARD_WORD = re.compile(
    r"(?i:(?<![A-Za-z])(?:card|cc|visa|mastercard|amex|iban|ssn|passport)\W*$)")


def _bare_id(text: str, m: re.Match[str]) -> bool:
    """A run of digits in a one-token field value that nothing marks as a card or an ID:
    not grouped by separators ("4111-1111-…" is written as a card) and not after a card
    word ("card:4111…")."""
    return m.group().isdigit() and not _CARD_WORD.search(text, 0, m.start())


def find_pii(text: str, *, field: bool = False) -> list[PiiFinding]:
    """Every sensitive span in `text`, ordered by position, non-overlapping. `field`: the
    text is a structured field's value (a tag, a metadata string, a source reference),
    where a value of one token is an identifier unless a label says otherwise."""
    if not text:
        return []
    token = field and not any(ch.isspace() for ch in text)
    norm, index = normalize_with_map(text, fold=False)
    # NFKC leaves other scripts' digits alone ("١٣٨…"); they are still a number.
    norm = "".join(str(unicodedata.decimal(ch)) if not ch.isascii() and ch.isdecimal()
                   else ch for ch in norm)
    taken: list[PiiFinding] = []
    spans = []  # the same, in `norm`
    for kind, lo, hi in _labelled(norm):
        taken.append(PiiFinding(kind, index[lo], index[hi - 1] + 1))
        spans.append((lo, hi))
    for kind, rx, valid in _DETECTORS:
        for m in rx.finditer(norm):
            if not valid(m) or (token and kind in _CHECKSUM_ONLY and _bare_id(norm, m)):
                continue
            start, end = index[m.start()], index[m.end() - 1] + 1
            if any(t.start < end and start < t.end for t in taken):
                continue
            taken.append(PiiFinding(kind, start, end))
            spans.append(m.span())
    if not token:
        for kind, lo, hi in named_in_message(norm, spans):
            taken.append(PiiFinding(kind, index[lo], index[hi - 1] + 1))
    return sorted(taken, key=lambda f: f.start)


def redact(text: str, kinds: frozenset[str] | set[str] | None = None,
           known: Sequence[tuple[str, str]] = (), *,
           field: bool = False) -> tuple[str, list[PiiFinding]]:
    """`text` with every finding (of `kinds`, default all) replaced by its placeholder,
    and the findings that were replaced (spans refer to the input text). `known`:
    (kind, value) found in the text this one was derived from (`sensitive_values`),
    replaced wherever they appear, spaced or not: a statement made from "account no.
    0012…" may keep the number without the label that made it sensitive."""
    findings = [f for f in find_pii(text, field=field) if kinds is None or f.kind in kinds]
    out = text
    for f in reversed(findings):  # right to left: earlier spans stay valid
        out = out[:f.start] + f.placeholder + out[f.end:]
    # Longest first: a value inside a longer one is not left behind as its remainder.
    for kind, value in sorted(set(known), key=lambda kv: (-len(kv[1]), kv)):
        if kinds is None or kind in kinds:
            out = _spaced(value).sub(lambda _, p=PLACEHOLDERS[kind]: p, out)
    return out, findings


# A value shorter than this is not looked for in other text: a PIN "1990" is a year
# elsewhere ("born in 1990").
CARRIED_MIN_CHARS = 6


def sensitive_values(texts: Iterable[str], kinds: frozenset[str] | set[str] | None = None
                     ) -> list[tuple[str, str]]:
    """(kind, value) of every finding in `texts` (of `kinds`, default all) that is long
    enough to be found elsewhere: what `redact(..., known=…)` removes from text derived
    from them."""
    return sorted({kv for t in texts for kv in values_found(t, find_pii(t), kinds)})


def values_found(text: str, findings: Iterable[PiiFinding],
                 kinds: frozenset[str] | set[str] | None = None) -> list[tuple[str, str]]:
    """sensitive_values of one text whose findings are known already."""
    picked = [(f.kind, text[f.start:f.end]) for f in findings
              if kinds is None or f.kind in kinds]
    return [(k, v) for k, v in picked if sum(ch.isalnum() for ch in v) >= CARRIED_MIN_CHARS]


def hidden_kinds(actions: Mapping[str, str]) -> set[str]:
    """The kinds whose values no verbatim text keeps (a raw turn, a traced query): those
    the policy (`write.pii`, kind -> action) redacts, and those it stages, whose value
    waits for a reviewer in the staged candidate."""
    return {k for k, a in actions.items() if a in ("redact", "stage")}


def redacted_kinds(actions: Mapping[str, str]) -> set[str]:
    """The kinds the policy (`write.pii`, kind -> action) redacts: their values reach no
    store and leave the process nowhere."""
    return {k for k, a in actions.items() if a == "redact"}


def for_sending(texts: Sequence[str], actions: Mapping[str, str]) -> list[str]:
    """`texts` (the messages of one call) as they may leave the process (a remote extractor
    reads them): the values of the kinds the policy (`write.pii`, kind -> action) redacts
    are replaced, in every text where one appears (an assistant's echo of a password said
    in an earlier message). Staged kinds stay: their value waits for a reviewer in the
    candidate made from it."""
    kinds = redacted_kinds(actions)
    known = sensitive_values(texts, kinds)
    return [redact(t, kinds, known)[0] for t in texts]


# A mapping's key that says what its value is ("password", "card_number", "user_email"):
# the key's last words, as a label is the words before a value in text. A bare "key",
# "token" or "id" names too much ("dedupe_key", "token_count", "message_id").
_KEY_LABELS = [(kind, re.compile(r"(?:^|_)(?:" + alts + r")$")) for kind, alts in (
    ("secret", r"password|passwd|pwd|pass|passcode|passphrase|pin|pin_code|pin_number|cvv|cvc|"
               r"secrets?|"
               r"client_secret|secret_key|api_key|apikey|access_key|private_key|"
               r"access_token|auth_token|refresh_token|bearer_token|session_token|api_token|"
               r"credentials?|密码|密钥"),
    ("card", r"card|card_number|card_no|credit_card|cc_number|iban|account_number|"
             r"bank_account|银行卡号?|卡号"),
    ("id_number", r"ssn|passport|passport_number|passport_no|id_number|national_id|tax_id|"
                  r"身份证号?"),
    ("phone", r"phone|phone_number|mobile|telephone|手机号?|电话"),
    ("email", r"email|e_mail|email_address|邮箱"))]


def key_kind(key: str, value: Any) -> str | None:
    """The kind of value a mapping's key says `value` is, or None. Shaped like one too: a
    number holds six digits or more, an address an "@" ("phone": "iOS" is a platform), a
    PIN four digits ("pin": 1 is a flag); a secret is any text or number but a flag or a
    word that says what it is like ("password": "correct", "api_key": "none"). A list or
    mapping under a secret's key ("credentials": {…}) is one whole."""
    if isinstance(value, bool) or value in ("", [], {}) or value is None:
        return None
    norm = re.sub(r"[\s\-.]+", "_", re.sub(r"(?<=[a-z])(?=[A-Z])", "_", key)).lower()
    norm = norm.rstrip("0123456789_")  # "password2"
    kind = next((kind for kind, rx in _KEY_LABELS if rx.search(norm)), None)
    if not isinstance(value, str | int | float):
        return kind if kind == "secret" and isinstance(value, list | tuple | dict) else None
    text = str(value)
    digits = sum(ch.isdigit() for ch in text)
    if (kind == "email" and "@" not in text) or (kind in ("card", "id_number", "phone")
                                                  and digits < 6):
        return None
    if kind == "secret" and (text.strip().lower() in _NOT_A_SECRET_VALUE or (
            re.search(r"(?:^|_)pin$", norm) and digits < 4)):
        return None
    return kind


def keyed_kinds(value: Any) -> list[str]:
    """The kinds the keys of `value`'s mappings (metadata, nested) say their values are."""
    out: list[str] = []
    if isinstance(value, dict):
        for key, x in value.items():
            if kind := key_kind(str(key), x):
                out.append(kind)
            out += keyed_kinds(x)
    elif isinstance(value, list | tuple):
        out = [k for x in value for k in keyed_kinds(x)]
    return out


def scrub(value: Any, kinds: set[str] | frozenset[str],
          known: Sequence[tuple[str, str]] = ()) -> Any:
    """`value` (text, or the lists and mappings of text that tags and metadata are) with
    every string in it redacted (`redact`, as a field's value); a mapping's value whose key
    names a hidden kind ("password", "card_number") replaced whole; anything else as it
    is."""
    if isinstance(value, str):
        # A memory's id in metadata ("turn_id", "covers") is a reference, not text: changed,
        # it would point nowhere (and purge would not find what it links).
        return redact(value, kinds, known, field=True)[0] if kinds and not is_id(value) \
            else value
    if isinstance(value, list | tuple):
        return type(value)(scrub(x, kinds, known) for x in value)
    if isinstance(value, dict):
        # (a key is text too: "alice@example.com": "owner")
        return {scrub(k, kinds, known): PLACEHOLDERS[kind] if (kind := key_kind(str(k), x))
                in kinds else scrub(x, kinds, known) for k, x in value.items()}
    return value


def scrub_around(fields: Any, actions: Mapping[str, str], said: Iterable[str],
                 carried: Sequence[tuple[str, str]] = ()) -> Any:
    """The text around a statement (its tags, metadata, reason, reference: `fields`, a
    tuple) without the values of the kinds the policy hides (a staged kind's value waits
    for the reviewer in the statement, not in a tag), nor any value the statement itself
    (`said`) or its messages (`carried`) hold, wherever it is repeated bare."""
    hide = hidden_kinds(actions)
    return scrub(fields, hide, (*carried, *sensitive_values(said, hide)))


def value_in(value: str, text: str) -> bool:
    """Does `text` hold `value`, spaced or not?"""
    return bool(_spaced(value).search(text))


def _spaced(value: str) -> re.Pattern[str]:
    # The value's characters in order, with or without the spaces and dashes between
    # them, not inside a longer run of letters or digits.
    chars = [ch for ch in value if not ch.isspace() and ch != "-"]
    return re.compile(r"(?<![0-9A-Za-z])" + r"[\s-]?".join(re.escape(ch) for ch in chars)
                      + r"(?![0-9A-Za-z])")

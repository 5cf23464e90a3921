"""Numbers the user says are sensitive: a label ("card number", "身份证号", "passport",
"IBAN", "手机号" …) names the kind of the number it points at, whatever its checksum.

`labelled_numbers(norm, taken)` finds them in normalised text (pii.py normalises): after
the label, further on up to a colon, or before it ("…, that's my debit card number").
`named_in_message` reads, after every other detector, the rest: a number anywhere in the
same message as a label that names a number at a distance, when it is long enough to be
an account, a card or a document ("Here it is: 4716228813459902. That's my credit card
number.", "6222 0212 3456 7891 是我常用的那张银行卡号").
"""

from __future__ import annotations

import re

# A number the user labels as sensitive is sensitive whatever its checksum ("my card
# number is 4000 1234 5678 9011", "身份证号 330106198805120011"): the label names the
# kind. Labels, longest first within a kind; the number follows within a few characters
# ("is", "no.", "：", "是") and holds at least six digits (a card's last four is not it).
LABELS: dict[str, tuple[str, ...]] = {
    "card": ("银行卡号码", "银行卡号", "信用卡号", "储蓄卡号", "借记卡号", "银行账号", "银行账户",
             "卡号", "账号", "账户号", "银行卡", "信用卡", "账户",
             r"(?:credit|debit|bank|payment)\s+card(?:\s+(?:number|no\.?|#))?",
             r"card\s+(?:number|no\.?|#)", r"(?:bank\s+)?account\s+(?:number|no\.?|#)",
             r"acct\.?\s*(?:number|no\.?|#)?", r"iban", r"routing\s+number",
             r"sort\s+code", r"(?:my|the|this|a)\s+card", r"account"),
    "id_number": ("身份证号码", "身份证号", "身份证", "护照号码", "护照号", "护照", "证件号码",
                  "证件号", "社保号", "社保卡号", "驾驶证号码", "驾驶证号", "驾照号码", "驾照号",
                  "税号", "通行证号码", "通行证号", "通行证", "居住证号码", "居住证号", "居住证",
                  r"driving\s+licen[cs]e(?:\s+(?:number|no\.?|#))?",
                  r"licen[cs]e\s+(?:number|no\.?|#)", r"ni\s+(?:number|no\.?)",
                  r"passport(?:\s+(?:number|no\.?|#))?", r"social\s+security(?:\s+number)?",
                  r"ssn", r"(?:national|social)\s+(?:id|insurance)(?:\s+(?:number|no\.?))?",
                  r"id\s+(?:number|no\.?|#)", r"driver'?s\s+licen[cs]e(?:\s+number)?",
                  r"tax\s+(?:id|number)",
                  # an insurer's, a health service's or a provider's number for the user
                  r"(?:member(?:ship)?|policy|patient|subscriber|insurance|health\s+card|"
                  r"nhs|medicare|medicaid)\s+(?:id|number|no\.?|#)(?:\s+(?:number|no\.?|#))?",
                  "保单号码", "保单号", "医保卡号", "医保号", "会员号",
                  r"(?:nin|dni|nie|nif|cpf|aadhaar|bsn|tfn|pesel|nric|hkid)"
                  r"(?:\s+(?:number|no\.?|#))?", r"(?:pan|sin)\s+(?:card|number|no\.?)"),
    "phone": ("手机号码", "手机号", "电话号码", "联系电话", "电话", "手机",
              r"(?:phone|mobile|cell)(?:\s+(?:number|no\.?|#))?"),
}
# Labels too general to name a value at a distance ("the card game: 2024 edition", "that's
# the account balance"): they only name a number right after them.
NEAR_ONLY = frozenset({r"(?:my|the|this|a)\s+card", r"account", "账户"})


def label_alts(far: bool = False) -> str:
    """The labels as one regex group per kind; `far`: only those that name a number at a
    distance."""
    return r"(?i:(?P<label>" + "|".join(
        f"(?P<{kind}>" + "|".join(
            f"(?<![A-Za-z]){alt}(?![A-Za-z])" if alt[:1].isascii() else alt
            for alt in alts if not (far and alt in NEAR_ONLY)) + ")"
        for kind, alts in LABELS.items()) + r"))"


_LABEL_ALTS = label_alts()
_NUMBER = r"(?P<number>[A-Z0-9](?:[ -]?[A-Z0-9]){5,40})(?![0-9A-Za-z])"
# The label before the number, with the filler people put between ("social insurance
# number, it's 260 189 554"), or after it ("4190-… (that's my debit card number)").
_LABEL_RX = re.compile(
    _LABEL_ALTS +
    r"(?i:\s*(?:is|was|are|=|:|：|#|是|为|：|号|no\.?|number|of|of\s+mine|就是|,|，|"
    r"it'?s|it\s+is|which\s+is|that'?s|'s|’s)?\s*){0,4}" + _NUMBER)
# Or further on, up to a colon, which says what follows is the value ("passport number
# for the booking form: K8…", "身份证号码你帮我存一下：5101…"): a label that names a number
# ("… number", "…号码"; not "phone bill: …", "手机流量剩余：…"), then a clause with no
# digit and no sentence end, then the colon.
_COLON_RX = re.compile(
    label_alts(far=True) + r"(?i:(?<=number)|(?<=no)|(?<=no\.)|(?<=#)|(?<=号)|(?<=号码)|"
    r"\s*(?:number|no\.?|#)|号码|号)" + r"[^0-9\n.!?。！？:：]{0,40}?[:：]\s*" + _NUMBER)
_AFTER_RX = re.compile(
    r"(?<![0-9A-Za-z])" + _NUMBER +
    r"(?i:\s*[(,，–—-]?\s*(?:that'?s|that\s+is|which\s+is|is|是|为|就是)\s*"
    r"(?:my|our|the|我的?)\s*(?:[A-Za-z]+\s+){0,2})" + label_alts(far=True))
# An amount, not an identifier: a currency or a unit right after the number ("account:
# 250000 dollars", "150000 in the red", "1500000 VND"), or a currency sign before it.
_AMOUNT_AFTER = re.compile(
    r"\s*(?:dollars?|usd|eur|euros?|gbp|pounds?|quid|vnd|dong|yen|jpy|rmb|cny|yuan|rupees?|"
    r"inr|won|krw|元|块|万|千|百|k\b|m\b|upvotes?|followers?|likes?|views?|points?|steps?|"
    r"subscribers?|in\s+(?:the\s+)?(?:red|debt|black|savings)|saved|spent|owed|left|"
    r"remaining|overdrawn)(?![A-Za-z])", re.I)
_AMOUNT_BEFORE = re.compile(r"[$£€¥₹₩]\s*$")


def amount(norm: str, lo: int, hi: int) -> bool:
    """Is the number at norm[lo:hi] an amount (a currency or a unit beside it)?"""
    return bool(_AMOUNT_AFTER.match(norm, hi) or _AMOUNT_BEFORE.search(norm, 0, lo))


# A run long enough to be a card, an account or a document number (eight digits or more,
# grouped or not), read as one when a label of the message names such a number.
_LONG = re.compile(r"(?<![0-9A-Za-z])[A-Z0-9](?:[ -]?[A-Z0-9]){7,40}(?![0-9A-Za-z])")
_FAR = re.compile(label_alts(far=True))
# A date or a time written as digits ("2024 12 05", "05-12-2024") is no account.
_DATE = re.compile(r"(?:19|20)\d\d[ -]?(?:0[1-9]|1[0-2])[ -]?(?:0[1-9]|[12]\d|3[01])|"
                   r"(?:0[1-9]|[12]\d|3[01])[ -]?(?:0[1-9]|1[0-2])[ -]?(?:19|20)\d\d")


def labelled_numbers(norm: str, taken: list[tuple[str, int, int]]
                     ) -> list[tuple[str, int, int]]:
    """(kind, start, end) of the numbers a label names in `norm`, none overlapping a span
    of `taken` (or each other)."""
    out: list[tuple[str, int, int]] = []

    def free(lo: int, hi: int) -> bool:
        return not any(a < hi and lo < b for _, a, b in [*taken, *out])

    for m in [*_LABEL_RX.finditer(norm), *_COLON_RX.finditer(norm),
              *_AFTER_RX.finditer(norm)]:
        number = m.group("number")
        if sum(ch.isdigit() for ch in number) < 6:
            continue
        lo, hi = m.start("number"), m.end("number")
        if free(lo, hi) and not amount(norm, lo, hi):
            out.append((next(k for k in LABELS if m.group(k)), lo, hi))
    return out


def named_in_message(norm: str, taken: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    """(kind, start, end) of the long numbers in `norm` a label elsewhere in it names, none
    overlapping `taken` (what every other reading found: a phone is still a phone)."""
    out: list[tuple[str, int, int]] = []
    labels = list(_FAR.finditer(norm))
    if not labels:
        return out
    for m in _LONG.finditer(norm):
        lo, hi = m.span()
        if sum(ch.isdigit() for ch in m.group()) < 8 or _DATE.fullmatch(m.group()) \
                or any(a < hi and lo < b for a, b in taken) or amount(norm, lo, hi):
            continue
        near = min(labels, key=lambda x: min(abs(x.start() - hi), abs(lo - x.end())))
        out.append((next(k for k in LABELS if near.group(k)), lo, hi))
    return out

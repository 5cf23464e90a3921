"""Secrets said in forms where no label stands right before the value (safety/pii.py reads
those): a login given as a pair ("login is jsmith / Pa55w0rd!", "creds: admin:S3cret#"),
the second half of a key pair after a key found by its shape ("AKIA… / 7tEN11…"), an
app password in its letter groups ("the app password google gave me is flyg wzao txfm
qbho"), and a code said before what it opens ("it's 8826 for the side gate", "use 4471#
at the front door"). Spans are in the normalised text pii.py scans."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .placeholders import PLACEHOLDER_RX

# A login pair: the label, where or whose it is, a mark that the value follows ("is", ":"),
# then a user name (a letter first: not a date, a time or a URL's scheme) and the secret,
# split by "/" or ":". The secret mixes a letter with a digit or a symbol ("home/work",
# "05/06", "sign-up" are not one).
_PAIR = re.compile(
    r"(?i:(?<![A-Za-z])(?:log[\s-]?in|sign[\s-]?in|credentials|creds|"
    r"user(?:name)?\s*(?:/|and|&)\s*pass(?:word)?|账号密码|用户名和密码|用户名密码|登录信息)"
    r"(?![A-Za-z])(?:\s+(?:for|from|to|at|on|of)\s+(?:the\s+|my\s+|our\s+)?[\w.-]+){0,2}"
    r"\s*(?:is|are|was|=|:|：|是)\s*)"
    r"(?P<user>[A-Za-z][\w.@+-]{0,63})\s*(?:/|:(?!//)|：)\s*(?P<value>[^\s,，。;；]{4,128})")
# The other half of a key pair, after a key found by its shape: a long token of a key's
# alphabet, with digits and letters.
_OTHER_HALF = re.compile(r"\s*[/:|]\s*(?P<value>[A-Za-z0-9_\-+/=]{16,512})(?![A-Za-z0-9])")
# Google-style app passwords: four groups of four letters, named as an app password.
_APP_PASSWORD = re.compile(
    r"(?i:(?<![A-Za-z])app(?:[\s-]specific)?\s+pass(?:word|code)(?![A-Za-z])"
    r"(?:\s+[a-z]+){0,4}?\s*(?:is|:|=|：|是)\s*|应用专用密码\s*(?:是|：|:)?\s*)"
    r"(?P<value>[a-z]{4}(?:[ -][a-z]{4}){3})(?![A-Za-z])")
# A code said first, then what it opens, after a word that hands it over: "use", "punch
# in", "enter" (then "for", "at", "on" the thing), or "it's" (then only "for" the thing,
# and four digits or more: "it's 930 at the front entrance" is a time). The thing it
# opens ends the clause ("the gate", not "the gate repair"); a year is not a code.
_CODE_FIRST = re.compile(
    r"(?i:(?<![A-Za-z])(?:(?P<handed>use|try|punch(?:\s+in)?|enter|type(?:\s+in)?|key\s+in)|"
    r"it'?s|its)\s+)(?!(?:19|20)\d\d(?!\d))(?P<value>\d{3,8}[#*]?)(?![\d.,:])"
    r"(?i:\s+(?:for|(?(handed)(?:at|on)|(?!))|to\s+open|opens)\s+(?:the\s+|my\s+|our\s+)?"
    r"(?:[a-z]+\s+)?(?:door|gate|garage|building|lockbox|key\s*box|keypad|padlock|alarm|safe|"
    r"locker|intercom|buzzer|storage\s+unit|front\s+entrance|entrance)"
    r"(?=\s*(?:$|[.,;:!?)\-—]|\(|and\b|but\b|so\b|btw\b|lol\b|too\b|then\b|if\b|when\b)))")
# Words that make a number a price, not a code: "it's 4500 for the front door".
_COST = re.compile(r"(?i:(?<![A-Za-z])(?:costs?|price[ds]?|paid|pay|quoted?|charged?|spent|"
                   r"fees?|budget|bill|bucks|dollars?|pounds?|euros?)(?![A-Za-z]))|[$£€¥]")


def secret_forms(norm: str, keys: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """(start, end) of the secrets these forms name in `norm`; `keys`: the spans of keys
    found by their shape (credentials.py), whose other half may follow."""
    out: list[tuple[int, int]] = []
    for m in _PAIR.finditer(norm):
        if PLACEHOLDER_RX.search(m.group("value")):
            continue  # redacted already: redact() is idempotent
        value = m.group("value").rstrip(".!?)]}'\"")
        if len(value) >= 4 and any(ch.isalpha() for ch in value) and not value.startswith(
                "/") and any(ch.isdigit() or (ch not in "-." and not ch.isalnum()) for ch in value):
            out.append((m.start("value"), m.start("value") + len(value)))
    for _, hi in keys:
        m = _OTHER_HALF.match(norm, hi)
        half = m.group("value") if m else ""
        if any(ch.isdigit() for ch in half) and any(ch.isalpha() for ch in half):
            out.append(m.span("value"))  # type: ignore[union-attr]
    out += [m.span("value") for m in _APP_PASSWORD.finditer(norm)]
    for m in _CODE_FIRST.finditer(norm):
        digits = m.group("value").rstrip("#*")
        if m.group("handed") is None and digits == m.group("value") and (
                len(digits) < 4 or digits.endswith("00")):
            continue  # "it's 930 …", "it's 1800 for …": a time or a price as often as a code
        # A price anywhere in the sentence makes the number one ("…, the quote came in").
        start = max(norm.rfind(ch, 0, m.start()) for ch in ".!?\n") + 1
        end = min((i for ch in ".!?\n" if (i := norm.find(ch, m.end())) >= 0),
                  default=len(norm))
        if not _COST.search(norm, start, end):
            out.append(m.span("value"))
    return out

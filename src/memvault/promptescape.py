"""Escaping for the memory section (memvault.inject): memory text as one JSON string
literal that cannot close the block, start a line or smuggle a look-alike of `<`, `>`,
`&`, a quote or a backslash (`escape_literal`), and caller-supplied labels (kind, source,
slot, origin, conflict topic) bare only when plainly safe (`meta_label`). The module
docstring of memvault.inject says what is escaped and why."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_SAFE_META = re.compile(r"^[A-Za-z0-9_.,=\-]{1,64}\Z")

_JSON_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
               "\b": "\\b", "\f": "\\f"}
_ALWAYS_ESCAPE = frozenset("<>&")
_NFKD_DANGEROUS = frozenset('<>&"\\')
# Characters that look like < or > without NFKC saying so.
_ANGLE_LOOKALIKES = frozenset(
    "\u2039\u203a"        # ‹ ›
    "\u2329\u232a"        # 〈 〉 (deprecated angle brackets)
    "\u3008\u3009"        # 〈 〉 CJK angle brackets
    "\u27e8\u27e9"        # ⟨ ⟩
    "\u27ea\u27eb"        # ⟪ ⟫
    "\u276c\u276d\u276e\u276f\u2770\u2771"   # ❬ ❭ ❮ ❯ ❰ ❱
    "\u02c2\u02c3\u02f1\u02f2"                # ˂ ˃ ˱ ˲
    "\u1438\u1433\u144a"                      # ᐸ ᐳ ᑊ
    "\u2264\u2265\u2a7d\u2a7e"                # ≤ ≥ ⩽ ⩾
    "\u226a\u226b\u22d8\u22d9"                # ≪ ≫ ⋘ ⋙
    "\u2190\u2192"                            # ← →
    "\uff5f\uff60"                            # ｟ ｠
)
# Unicode names of the rest of the family (curved, dotted, nested, circled, arc and
# vertical-form angle brackets, less-than and greater-than signs of every kind).
_ANGLE_NAMES = ("ANGLE BRACKET", "POINTING ANGLE", "LESS-THAN", "GREATER-THAN")
# Quotation marks of Chinese and French text (book titles, guillemets), named like them.
_QUOTE_MARKS = frozenset("\u300a\u300b\ufe3d\ufe3e\u00ab\u00bb")   # 《 》 ︽ ︾ « »
# Invisible or blank characters that Unicode files as letters or symbols.
_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0")


@lru_cache(maxsize=8192)
def _needs_escape(ch: str) -> bool:
    if ch in _ALWAYS_ESCAPE or ch in _ANGLE_LOOKALIKES or ch in _INVISIBLE:
        return True
    cat = unicodedata.category(ch)
    if cat[0] == "C" or cat in ("Zl", "Zp"):      # Cc Cf Cs Co Cn, line/para separators
        return True
    if cat == "Zs":
        return ch != " "
    o = ord(ch)
    # variation selectors, and Mongolian's free ones (U+180B-U+180F)
    if 0xFE00 <= o <= 0xFE0F or 0xE0100 <= o <= 0xE01EF or 0x180B <= o <= 0x180F:
        return True
    if o < 0x80:
        return False
    if ch not in _QUOTE_MARKS and any(n in unicodedata.name(ch, "") for n in _ANGLE_NAMES):
        return True
    # NFKD rather than NFKC: it also exposes the "<" inside ≮ and the ">" inside ≯.
    norm = unicodedata.normalize("NFKD", ch)
    return any(c in _NFKD_DANGEROUS for c in norm)


def _u_escape(ch: str) -> str:
    o = ord(ch)
    if o < 0x10000:
        return f"\\u{o:04x}"
    o -= 0x10000
    return f"\\u{0xD800 + (o >> 10):04x}\\u{0xDC00 + (o & 0x3FF):04x}"


def escape_literal(text: str) -> str:
    """`text` as a JSON string literal (with its quotes) that contains no raw quote,
    backslash, line break, control or invisible character, no `<`, `>` or `&`, and no
    look-alike of them. `json.loads(escape_literal(s)) == s` for every str `s` without
    surrogate code points; a lone surrogate (not valid Unicode; it could not be sent to a
    model as UTF-8) comes back as U+FFFD."""
    out = ['"']
    for ch in text:
        short = _JSON_SHORT.get(ch)
        if short is not None:
            out.append(short)
        elif "\ud800" <= ch <= "\udfff":
            out.append("\\ufffd")     # a lone surrogate is not Unicode: U+FFFD
        elif _needs_escape(ch):
            out.append(_u_escape(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


# Longer than any label memvault itself makes (an origin of two 128-character ids is
# 271), so two stored origins never render alike; a longer one is cut visibly.
_META_CHARS = 300


def meta_label(value: str) -> str:
    """A caller-supplied label: bare when plainly safe, else an escaped literal."""
    if _SAFE_META.match(value):
        return value
    if len(value) <= _META_CHARS:
        return escape_literal(value)
    return escape_literal(value[:_META_CHARS]) + f" (+{len(value) - _META_CHARS} chars)"

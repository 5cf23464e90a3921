"""The slot machinery: `SlotSpec` (one slot: its values, cues, patterns and templates),
`SlotRegistry` (the slots extractors know, and finding their values in a text) and
`SlotMatch` (one value found). The built-in vocabulary is in memvault.extract.slots."""

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


# The user reminding the assistant of something ("reminder that I'm vegan", "提醒你一
# 下…"): no cue of the reminders the user wants.
_REMINDS_YOU = re.compile(r"^\W*(?:(?:hey|ok|okay|so)\W+)?(?:(?:just\s+a|a\s+quick|quick|friendly|"
                          r"gentle)\s+)?reminder(?:\s+that\b|\s*[:,—–-])|\bas\s+a\s+reminder\b|"
                          r"^\W*提醒(?:你|您)一下(?!我)", re.I)


def cue_regex(words: Iterable[str]) -> str:
    """`word_regex` for cue words, which are verbs and nouns as often inflected as not:
    "reply" also matches "replies", "replied", "replying"; "write" "writes", "writing"."""
    alts = []
    for w in sorted({w.lower() for w in words if w}, key=len, reverse=True):
        if not (w.isascii() and w.isalpha()):
            alts.append(word_regex([w]))
            continue
        if len(w) > 2 and w.endswith("y") and w[-2] not in "aeiou":
            body = rf"{w[:-1]}(?:y|ies|ied|ying)"
        elif w.endswith("e"):
            body = rf"{w[:-1]}(?:e|es|ed|ing)"
        else:
            body = rf"{w}(?:s|es|ed|ing|{w[-1]}ed|{w[-1]}ing)?"
        alts.append(rf"(?<![a-z0-9]){body}(?![a-z0-9])")
    return "|".join(alts) if alts else r"(?!x)x"

# What a value said on its own may stand beside: when it holds from, how politely, how
# much ("以后简短点", "shorter please", "更详细一点吧"), asked of "us" ("can we do spanish
# from now on?"). A value said so, with nothing else,
# is asked of the one spoken to: the assistant's ways are its cue.
_ALONE = re.compile(r"(?:以后|今后|往后|从现在(?:起|开始)|请|麻烦|再|更|稍微|一点|点|一些|些|都|就|"
                    r"还是|吧|啊|哈|呀|了|嘛|哦|\b(?:from\s+now\s+on|going\s+forward|please|"
                    r"pls|plz|a\s+bit|bit|a\s+little|just|ok(?:ay)?|even|much|way|more|less|"
                    r"and|so|hey|hi|can|could|we|let'?s|do|go\s+with|switch\s+to|instead)\b|"
                    r"[\s,，.。!！~～?？])*", re.I)  # "hey from now on can we do spanish?"


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
    # Patterns of a value asked for ("answer in Portuguese"): read like a value's word
    # (a wish must ask for it; "for this message only" keeps it), not like `patterns`,
    # which say something of the user ("I live in Leeds").
    asks: tuple[str, ...] = ()
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
    # A value's name in a language ("en", "zh") when `labels` has none ("yue" → 粤语).
    names: Callable[[Any, str], str | None] | None = None
    # Values of *other* slots this slot's value pulls against ("concise" vs "explain the
    # background first"): both stay active, and the context builder shows them as a conflict.
    clashes: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    _compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)
    _asked: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        v.slot(self.key)
        v.kind(self.kind)
        try:
            compiled = tuple(re.compile(p, re.I) for p in self.patterns)
            asked = tuple(re.compile(p, re.I) for p in self.asks)
        except re.error as e:
            raise ValidationError(f"slot {self.key}: bad pattern ({e})") from None
        for p in (*compiled, *asked):
            if "value" not in p.groupindex:
                raise ValidationError(f"slot {self.key}: pattern {p.pattern!r} has no "
                                      "(?P<value>…) group")
        object.__setattr__(self, "values", {k: tuple(ws) for k, ws in self.values.items()})
        object.__setattr__(self, "_compiled", compiled)
        object.__setattr__(self, "_asked", asked)

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
        if got is None and self.names is not None and isinstance(value, str):
            got = self.names(value, lang)
        if got is not None:
            return got
        return self.display(value) if self.display is not None else str(value)

    def render(self, value: Any, lang: str, *, replaces: Any = None) -> str:
        """The memory's content, in the language the user spoke."""
        if value is None:
            # A slot without its own wording names what it holds by its description,
            # never by its key ("diet.restriction" is not for the prompt).
            tpl = self.templates.get(f"{lang}:negative") or (
                "用户不希望是 {replaces}（{what}）" if lang == "zh"
                else "The user does not want {replaces} ({what})")
            return tpl.format(what=self.description, replaces=self.label(replaces, lang))
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
    via: str  # "word" (enumerated), "pattern" (open value) or "asked" (SlotSpec.asks)


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
            got = (re.compile(word_regex(smap), re.I), re.compile(cue_regex(spec.cues), re.I),
                   smap)
            self._regex[spec.key] = got
        return got

    def has_cue(self, spec: SlotSpec, text: str) -> bool:
        return bool(self._compiled(spec)[1].search(_REMINDS_YOU.sub(" ", text)))

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
        cue_text = _REMINDS_YOU.sub(" ", text)  # once, not once per slot
        for spec in self:
            words, cues, smap = self._compiled(spec)
            cue = bool(cues.search(cue_text))
            if spec.enumerated:
                for m in words.finditer(text):
                    surface = m.group(0)
                    key = _singular(surface.lower(), smap)
                    if (spec.needs_cue or key in {w.lower() for w in spec.weak}) and not cue \
                            and not _ALONE.fullmatch(text[:m.start()] + " " + text[m.end():]):
                        continue
                    out.append(SlotMatch(spec, smap.get(key, surface), surface, m.start(),
                                         m.end(), "word"))
            for via, pats in (("pattern", spec._compiled), ("asked", spec._asked)):
                for m in (m for pat in pats for m in pat.finditer(text)):
                    raw = m.group("value")
                    if raw is None:
                        continue
                    value = spec.parse(raw) if spec.parse is not None else raw.strip()
                    if value in (None, ""):
                        continue
                    out.append(SlotMatch(spec, value, raw, m.start("value"), m.end("value"),
                                         via))
        out.sort(key=lambda s: (s.start, -s.end))
        # A word inside what a pattern read for the same slot is part of that value ("中文"
        # of "用繁体中文回复"), not a second one.
        return [m for m in out if m.via != "word" or not any(
            o.via != "word" and o.spec is m.spec and o.start <= m.start and m.end <= o.end
            for o in out)]


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

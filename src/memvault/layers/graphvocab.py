"""The graph's vocabulary: relation patterns (English and Chinese) and name aliases.

A `RelationSpec` names a relation, says whether it is single-valued (a person lives in one
place at a time: a new value closes the old one) and gives regular patterns with an
`obj` group and an optional `subj` group. `VOCAB.register(...)` and `ALIASES.add(...)`
extend both at run time.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

# English: a proper name (capitalised words); the subject "I" / "the user" or a name.
_EN_NAME = r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3}"
_EN_STARTERS = (r"(?:Then|Yesterday|Today|Now|And|But|So|Also|Recently|Last|We|They|He|She|"
                r"It|You|This|That|My|Our|When|After|Before)\b")
_EN_SUBJ = rf"(?P<subj>\bI\b|\b[Tt]he user\b|\b(?!{_EN_STARTERS})[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
_EN_THING = r"[\w'’ -]{2,40}?"
_EN_END = r"(?=\s*(?:[,;!?]|\.(?:\s|$)|$|\band\b|\bbut\b|\bnow\b|\bsince\b|\bbecause\b))"
# Chinese: the subject is 我 / 用户 or a 2-3 character name right before the verb.
# A name may not contain pronouns, particles or time words ("昨天我搬到了…" is 我).
_ZH_NAME = r"(?:(?![我你他她它们的了在是和也都就说天年月不很要想会])[\u4e00-\u9fff]){2,3}?"
_ZH_SUBJ = rf"(?P<subj>我|用户|{_ZH_NAME})"
_ZH_ADV = r"(?:现在|目前|已经|一直|刚|刚刚|最近|也|还|都|去年|今年)*"
_ZH_OBJ = r"(?P<obj>[\u4e00-\u9fffA-Za-z0-9]{1,12}?)"
_ZH_END = r"(?=了|啦|住|生活|居住|工作|上班|[\s，。,.!?！？；;、]|$)"


@dataclass(frozen=True, slots=True)
class RelationSpec:
    name: str
    single: bool
    patterns: tuple[str, ...]
    label_en: str = ""
    label_zh: str = ""
    _compiled: tuple[re.Pattern[str], ...] = field(default=(), repr=False, compare=False)

    def compiled(self) -> tuple[re.Pattern[str], ...]:
        if not self._compiled:
            object.__setattr__(self, "_compiled", tuple(re.compile(p) for p in self.patterns))
        return self._compiled


@dataclass(frozen=True, slots=True)
class Mention:
    subject: str | None  # None: the speaker ("I")
    relation: str
    object: str
    span: str
    start: int


class Vocabulary:
    def __init__(self, specs: Iterable[RelationSpec] = ()) -> None:
        self._specs: dict[str, RelationSpec] = {}
        for s in specs:
            self.register(s)

    def register(self, spec: RelationSpec, *, replace: bool = False) -> None:
        if spec.name in self._specs and not replace:
            raise ValueError(f"relation {spec.name} is already registered")
        for p in spec.compiled():
            if "obj" not in p.groupindex:
                raise ValueError(f"relation {spec.name}: pattern without (?P<obj>…)")
        self._specs[spec.name] = spec

    def __iter__(self) -> Iterator[RelationSpec]:
        return iter(self._specs.values())

    def get(self, name: str) -> RelationSpec | None:
        return self._specs.get(name)

    def find(self, text: str) -> list[Mention]:
        out: list[Mention] = []
        taken: list[tuple[int, int]] = []
        for spec in self:
            for p in spec.compiled():
                for m in p.finditer(text):
                    s, e = m.span("obj")
                    if any(a < e and s < b for a, b in taken):
                        continue  # "moved to X" already read as lives_in X
                    obj = m.group("obj").strip(" '’\"")
                    if not obj:
                        continue
                    subj = m.groupdict().get("subj")
                    out.append(Mention(subj.strip() if subj else None, spec.name, obj,
                                       m.group(0), m.start()))
                    taken.append((s, e))
        return sorted(out, key=lambda x: x.start)


VOCAB = Vocabulary([
    RelationSpec("lives_in", True, (
        rf"{_EN_SUBJ}(?:'m| am| is)?\s+(?:now\s+|currently\s+|still\s+)?(?:live|lives|living|"
        rf"reside|resides|residing|based)\s+in\s+(?P<obj>{_EN_NAME})",
        rf"{_EN_SUBJ}(?:'ve| have| has)?\s+(?:just\s+|recently\s+|now\s+)?(?:moved|relocated)"
        rf"\s+to\s+(?P<obj>{_EN_NAME})",
        rf"{_ZH_SUBJ}{_ZH_ADV}(?:住在|居住在|生活在|定居在|常住在)\s*{_ZH_OBJ}{_ZH_END}",
        rf"{_ZH_SUBJ}{_ZH_ADV}(?:搬到了?|搬去了?|搬家到了?)\s*{_ZH_OBJ}{_ZH_END}",
    ), "lives in", "住在"),
    RelationSpec("works_at", True, (
        rf"{_EN_SUBJ}(?:'m| am| is)?\s+(?:now\s+|currently\s+|still\s+)?(?:work|works|working)"
        rf"\s+(?:at|for)\s+(?P<obj>{_EN_NAME})",
        rf"{_EN_SUBJ}\s+(?:just\s+)?(?:joined|got a job at)\s+(?P<obj>{_EN_NAME})",
        rf"{_ZH_SUBJ}{_ZH_ADV}在\s*{_ZH_OBJ}\s*(?:工作|上班|任职)",
        rf"{_ZH_SUBJ}{_ZH_ADV}(?:就职于|入职了?)\s*{_ZH_OBJ}{_ZH_END}",
    ), "works at", "在…工作"),
    RelationSpec("born_in", True, (
        rf"{_EN_SUBJ}\s+(?:was|were)\s+born\s+in\s+(?P<obj>{_EN_NAME})",
        rf"{_ZH_SUBJ}{_ZH_ADV}出生(?:在|于)\s*{_ZH_OBJ}{_ZH_END}",
    ), "was born in", "出生在"),
    RelationSpec("dislikes", False, (
        rf"{_EN_SUBJ}\s+(?:don't|do not|doesn't|does not|never)\s+(?:like|enjoy)\s+"
        rf"(?P<obj>{_EN_THING}){_EN_END}",
        rf"{_EN_SUBJ}\s+(?:dislike|dislikes|hate|hates)\s+(?P<obj>{_EN_THING}){_EN_END}",
        rf"{_ZH_SUBJ}{_ZH_ADV}(?:不喜欢|讨厌)\s*{_ZH_OBJ}{_ZH_END}",
    ), "dislikes", "不喜欢"),
    RelationSpec("likes", False, (
        rf"{_EN_SUBJ}\s+(?:really\s+|also\s+)?(?:like|likes|love|loves|enjoy|enjoys)\s+"
        rf"(?P<obj>{_EN_THING}){_EN_END}",
        rf"{_ZH_SUBJ}{_ZH_ADV}(?:很|非常|特别|最)?(?<!不)(?:喜欢|爱)(?:吃|喝|看|玩)?\s*{_ZH_OBJ}"
        rf"{_ZH_END}",
    ), "likes", "喜欢"),
])


def norm(name: str) -> str:
    """Comparison form of a name: NFKC, case-folded, no spaces or punctuation, no leading
    "the", no trailing 市 (上海市 = 上海)."""
    s = unicodedata.normalize("NFKC", name).casefold().strip()
    s = re.sub(r"^the\s+", "", s)
    s = "".join(ch for ch in s if ch.isalnum())
    if len(s) > 2 and s.endswith("市"):
        s = s[:-1]
    return s


SELF = "user"


class Aliases:
    """Groups of names for one entity, across languages ("Shanghai" = "上海" = "沪")."""

    def __init__(self, groups: Iterable[Iterable[str]] = ()) -> None:
        self._group: dict[str, frozenset[str]] = {}
        for g in groups:
            self.add(*g)

    def add(self, *names: str) -> None:
        keys = {norm(n) for n in names if norm(n)}
        for k in list(keys):
            keys |= self._group.get(k, frozenset())
        group = frozenset(keys)
        for k in group:
            self._group[k] = group

    def of(self, name: str) -> frozenset[str]:
        k = norm(name)
        return self._group.get(k, frozenset({k}) if k else frozenset())


ALIASES = Aliases([
    (SELF, "I", "me", "myself", "the user", "我", "用户", "本人"),
    ("Shanghai", "上海", "沪"), ("Hangzhou", "杭州"), ("Beijing", "北京", "Peking"),
    ("Shenzhen", "深圳"), ("Guangzhou", "广州", "Canton"), ("Nanjing", "南京"),
    ("Chengdu", "成都"), ("Wuhan", "武汉"), ("Suzhou", "苏州"), ("Hong Kong", "香港"),
    ("Taipei", "台北"), ("Tokyo", "东京"), ("Seoul", "首尔"), ("Singapore", "新加坡"),
    ("London", "伦敦"), ("Paris", "巴黎"), ("Berlin", "柏林"), ("Munich", "慕尼黑"),
    ("New York", "NYC", "New York City", "纽约"), ("San Francisco", "SF", "旧金山"),
    ("Los Angeles", "LA", "洛杉矶"), ("Seattle", "西雅图"), ("Sydney", "悉尼"),
    ("Toronto", "多伦多"), ("Alibaba", "阿里巴巴", "阿里"), ("Tencent", "腾讯"),
    ("Google", "谷歌"), ("Microsoft", "微软"), ("Apple", "苹果公司"),
])


def is_self(name: str | None) -> bool:
    return name is None or norm(SELF) in ALIASES.of(name)

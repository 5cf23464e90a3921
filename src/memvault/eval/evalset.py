"""The shape every benchmark set is turned into: `Doc`s (what gets remembered, each in a
group that becomes one user scope) and `Query`s (a question, the group it asks about, gold
doc ids, a category and the tuning split it belongs to), gathered in a `Dataset`. The
loaders live in datasets.py (LoCoMo, MADial) and shapes.py (memvault's own set)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

# Categories reported apart and left out of "overall" (LoCoMo 5: unanswerable questions).
EXCLUDED_FROM_OVERALL = frozenset({"adversarial"})


class Split(StrEnum):
    ALL = "all"
    TUNE = "tune"
    HOLDOUT = "holdout"


class Lang(StrEnum):
    ZH = "zh"
    EN = "en"


@dataclass(frozen=True, slots=True)
class Doc:
    """One memory to remember. `id` is unique in the dataset; `group` becomes the user."""

    id: str
    group: str
    content: str
    kind: str
    session: str = ""
    valid_from: int | None = None  # epoch ms
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Query:
    id: str
    group: str
    text: str
    gold: frozenset[str]  # Doc ids
    split: str  # "tune" or "holdout"
    category: str = ""  # LoCoMo category name; "" for MADial

    @property
    def in_overall(self) -> bool:
        return self.category not in EXCLUDED_FROM_OVERALL


@dataclass(slots=True)
class Dataset:
    name: str  # "locomo", "madial-zh", "madial-en"
    lang: str
    source: str  # the path it was read from
    docs: list[Doc]
    queries: list[Query]
    categories: list[str] = field(default_factory=list)  # report order; [] = overall only
    notes: list[str] = field(default_factory=list)

    def select(self, split: str | Split) -> Dataset:
        """The queries of one split, and the docs of the groups they ask about (a LoCoMo
        holdout run indexes conversations 6-10 only; MADial users span both halves)."""
        split = Split(split)
        if split == Split.ALL:
            return self
        queries = [q for q in self.queries if q.split == split.value]
        groups = {q.group for q in queries}
        return replace(self, docs=[d for d in self.docs if d.group in groups], queries=queries)

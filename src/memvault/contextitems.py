"""The data of the memory section (memvault.inject): what the caller passes to render()
(`ContextItem`, `Conflict`), what it gets back (`Rendered`, `Dropped`), and the `Unit`
render() lays out: one item, or the members of a conflict shown together."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import Hit, Memory
from .validate import team_of


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One ranked memory to render. Times are epoch milliseconds (UTC)."""

    id: str
    content: str
    kind: str = "fact"
    source: str = "user_explicit"
    confidence: float = 1.0
    date: int | None = None        # when it holds from (valid_from), else when recorded
    updated_at: int = 0            # when this version was written: orders versions
    score: float = 0.0             # the rank score (informational; order is the list's)
    slot: str | None = None
    value: Any = None              # carried for callers; the content states it
    version: int = 1
    scope: str = ""                # Scope.key(): superseding only happens within a scope
    origin: str | None = None      # where it was said, e.g. "agent=support,session=s1"
    note: str | None = None        # a turn's fate (turnnotes.py): rendered from _T, never raw
    # Its text reads like an instruction (safety/instructions.py): said beside any note, so
    # a turn not in effect is still marked as data, not a request awaiting its turn.
    flagged: bool = False
    topic: str | None = None       # what it is about when no slot names it
    valid_to: int | None = None    # when it stopped holding (rendered as a range from date)
    # Why it was served over another scope's memory of its slot or topic (precedence.py):
    # rendered from _T, never raw.
    precedence: str | None = None

    @classmethod
    def from_memory(cls, m: Memory, score: float = 0.0) -> ContextItem:
        date = m.valid_from if m.valid_from is not None else (m.recorded_at or m.updated_at)
        origin = ",".join(f"{k}={v}" for k, v in (("team", team_of(m.scope.user)),
                                                   ("agent", m.scope.agent),
                                                   ("session", m.scope.session)) if v)
        return cls(id=m.id, content=m.content, kind=m.kind, source=m.source,
                   confidence=m.confidence, date=date or None,
                   updated_at=m.updated_at or m.recorded_at, score=score, slot=m.slot,
                   value=m.value, version=m.version, scope=m.scope.key(),
                   origin=origin or None, topic=m.topic, valid_to=m.valid_to)

    @classmethod
    def from_hit(cls, hit: Hit) -> ContextItem:
        return cls.from_memory(hit.memory, hit.score)


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two or more active memories (by id) that contradict each other. `topic` is a short
    label for the heading (e.g. the slot)."""

    ids: tuple[str, ...]
    topic: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.ids, str):
            raise ValueError("Conflict.ids: expected a sequence of memory ids, not a str")
        object.__setattr__(self, "ids", tuple(self.ids))
        if len(set(self.ids)) < 2 or not all(isinstance(i, str) for i in self.ids):
            raise ValueError("a Conflict needs at least two distinct memory ids")


@dataclass(frozen=True, slots=True)
class Dropped:
    id: str
    version: int
    reason: str          # "budget" | "superseded" | "duplicate"


@dataclass(slots=True)
class Rendered:
    text: str                       # the section; "" when nothing is rendered (see note)
    tokens: int                     # counter.count(text)
    included: list[str]             # ids in the order rendered
    dropped: list[Dropped]
    block_id: str                   # the nonce in both markers; "" when text is ""
    budget_tokens: int
    lang: str
    counter: str                    # the counter's name
    truncated: list[str] = field(default_factory=list)
    conflicts: list[list[str]] = field(default_factory=list)   # rendered conflict groups
    note: str | None = None         # why the section is empty, if it is

    def dropped_ids(self, reason: str | None = None) -> list[str]:
        return [d.id for d in self.dropped if reason is None or d.reason == reason]


@dataclass(slots=True)
class Unit:
    """What render() lays out as one numbered entry: an item, or a conflict's members."""

    items: list[ContextItem]          # one item, or the members of a conflict
    rank: int                         # best input position among the members
    topic: str | None = None

    @property
    def is_conflict(self) -> bool:
        return len(self.items) > 1

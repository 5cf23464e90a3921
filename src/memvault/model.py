"""The data model: Scope, Memory, Revision and their vocabularies.

Times are integers: milliseconds since the Unix epoch, UTC. They are converted at the
edges (CLI, export) and nowhere else, so comparisons never mix time zones.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .validtime import ValidWindow


class Kind(StrEnum):
    FACT = "fact"
    PREFERENCE = "preference"
    PROFILE = "profile"
    EPISODE = "episode"
    SUMMARY = "summary"
    TURN = "turn"
    DOCUMENT = "document"
    ENTITY = "entity"
    RELATION = "relation"
    NOTE = "note"
    # Agent memory (agentpolicy.py, docs/agents.md): each has its own policy in the strategy.
    TOOL_RESULT = "tool_result"
    STEP = "step"
    LESSON = "lesson"


# Entities and relations: read through the graph verbs, kept out of ordinary recall.
GRAPH_KINDS = frozenset({Kind.ENTITY.value, Kind.RELATION.value})
# What an agent run leaves: written by the agent's own verbs under the strategy's `agents`.
AGENT_KINDS = frozenset({Kind.TOOL_RESULT.value, Kind.STEP.value, Kind.LESSON.value})


class Source(StrEnum):
    USER_EXPLICIT = "user_explicit"
    SYSTEM_INFERRED = "system_inferred"
    ADMIN_MANUAL = "admin_manual"
    DOCUMENT = "document"
    TOOL = "tool"
    IMPORT = "import"


class Status(StrEnum):
    PENDING = "pending"
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    REJECTED = "rejected"
    DELETED = "deleted"


class Op(StrEnum):
    CREATE = "create"
    UPDATE = "update"
    EXPIRE = "expire"
    DELETE = "delete"
    ROLLBACK = "rollback"
    FREEZE = "freeze"
    UNFREEZE = "unfreeze"
    APPROVE = "approve"
    REJECT = "reject"
    PURGE = "purge"
    BLOCKED = "blocked"  # a refused change to a frozen memory, recorded; state unchanged
    REINFORCE = "reinforce"  # the same statement again: confirmations +1, same version
    REDACT = "redact"  # earlier revisions' content erased with a purged source; state unchanged


@dataclass(frozen=True, slots=True)
class Scope:
    """Who a memory belongs to. tenant and user are hard boundaries; agent and session
    narrow within them. Empty string means "not given" (stored as '' so that unique
    indexes treat it as a value, not as NULL)."""

    tenant: str
    user: str
    agent: str = ""
    session: str = ""

    FIELDS = ("tenant", "user", "agent", "session")

    def as_dict(self) -> dict[str, str]:
        return {"tenant": self.tenant, "user": self.user, "agent": self.agent,
                "session": self.session}

    def key(self) -> str:
        return "\x1f".join((self.tenant, self.user, self.agent, self.session))

    def wider(self) -> list[Scope]:
        """The scopes this one narrows, nearest first: the agent's (without the session),
        then the user's own."""
        out = []
        if self.session:
            out.append(Scope(self.tenant, self.user, self.agent))
        if self.agent:
            out.append(Scope(self.tenant, self.user))
        return out

    def __str__(self) -> str:
        parts = [f"{self.tenant}/{self.user}"]
        if self.agent:
            parts.append(f"agent={self.agent}")
        if self.session:
            parts.append(f"session={self.session}")
        return " ".join(parts)


@dataclass(slots=True)
class Memory:
    id: str
    scope: Scope
    kind: str
    content: str
    slot: str | None = None
    value: Any = None
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str = Source.USER_EXPLICIT.value
    source_text: str | None = None
    source_ref: str | None = None
    confidence: float = 1.0
    status: str = Status.ACTIVE.value
    frozen: bool = False
    version: int = 1
    valid_from: int | None = None
    valid_to: int | None = None
    recorded_at: int = 0
    expires_at: int | None = None
    embedding_model: str | None = None
    created_at: int = 0
    updated_at: int = 0
    # What the memory is about when no slot names it ("quiet cafes"): understand/topics.py.
    topic: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["scope"] = self.scope.as_dict()
        d["tags"] = list(self.tags)
        d["metadata"] = dict(self.metadata)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Memory:
        data = dict(d)
        data["scope"] = Scope(**data["scope"])
        return cls(**{k: v for k, v in data.items() if k in _MEMORY_FIELDS})

    def is_live(self, at: int, valid: ValidWindow | None = None) -> bool:
        """Servable at time `at`: active, not expired, and valid in the world then (or,
        with a valid-time window, valid at some point of it: validtime.py)."""
        if self.status != Status.ACTIVE:
            return False
        if self.expires_at is not None and self.expires_at <= at:
            return False
        if valid is not None:
            return valid.holds(self.valid_from, self.valid_to)
        if self.valid_from is not None and self.valid_from > at:
            return False
        return not (self.valid_to is not None and self.valid_to <= at)


_MEMORY_FIELDS = frozenset(f.name for f in dataclasses.fields(Memory))

# Fields a rollback restores. Bookkeeping (version, timestamps, frozen) is not "state".
STATE_FIELDS = ("kind", "content", "slot", "value", "tags", "metadata", "source",
                "source_text", "source_ref", "confidence", "status", "valid_from",
                "valid_to", "expires_at", "topic")
# State fields a revision written before they existed may lack (read as None).
LATER_STATE_FIELDS = frozenset({"topic"})


def with_state(m: Memory, state: dict[str, Any], **bookkeeping: Any) -> Memory:
    """`m` with the state fields of a past revision's `state` (what a rollback, an undone
    merge or a snapshot restore brings back), and the `bookkeeping` fields given."""
    return dataclasses.replace(m, **{f: state.get(f) if f in LATER_STATE_FIELDS
                                     else state[f] for f in STATE_FIELDS}, **bookkeeping)


@dataclass(slots=True)
class Revision:
    """One append-only row of history: what a memory became, who did it and why."""

    op_id: str
    memory_id: str
    scope: Scope
    op: str
    from_version: int | None
    to_version: int
    state: dict[str, Any] | None
    actor: str
    actor_role: str
    reason: str | None
    trigger_text: str | None
    trace_id: str | None
    at: int

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["scope"] = self.scope.as_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Revision:
        data = dict(d)
        data["scope"] = Scope(**data["scope"])
        return cls(**data)


@dataclass(slots=True)
class RememberResult:
    """What `remember` did: added, updated (a slot got a new version) or noop (duplicate)."""

    action: str
    memory: Memory
    previous_version: int | None = None

    @property
    def id(self) -> str:
        return self.memory.id

    @property
    def version(self) -> int:
        return self.memory.version

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "id": self.memory.id, "version": self.memory.version,
                "previous_version": self.previous_version, "memory": self.memory.to_dict()}


@dataclass(slots=True)
class PurgeResult:
    """What `purge` did: its tombstone, and whether the erased bytes are gone from the
    store's files ("done") or something still holds them, such as another connection's
    read snapshot ("pending": the store finishes it as soon as it can; `purge_status`
    reports it)."""

    tombstone: Revision
    erasure: str

    def to_dict(self) -> dict[str, Any]:
        return {"tombstone": self.tombstone.to_dict(), "erasure": self.erasure}


@dataclass(slots=True)
class ScoreParts:
    """Every part of a recall score. total = relevance + weighted recency, confidence,
    importance, time match, speaker and answer, minus the weighted question part; relevance =
    weighted normalised BM25 + dense similarities (+ line votes of a multi-line query, or
    the coverage of a one-line query)."""

    bm25: float = 0.0
    bm25_norm: float = 0.0
    dense: dict[str, float] = field(default_factory=dict)
    dense_norm: dict[str, float] = field(default_factory=dict)
    # A multi-line query: best similarity to one of its lines, per embedder.
    lines: dict[str, float] = field(default_factory=dict)
    lines_norm: dict[str, float] = field(default_factory=dict)
    # A one-line query: the share of its words the memory says (wordmatch.py).
    coverage: float = 0.0
    coverage_norm: float = 0.0
    # The same over the query words that not every candidate says (the relevance floor).
    coverage_distinct: float = 0.0
    relevance: float = 0.0
    recency: float = 0.0
    confidence: float = 0.0
    importance: float = 0.0
    time_match: float = 0.0
    speaker: float = 0.0  # 1: the query names who said it (turncues.py)
    question: float = 0.0  # 1: a turn that ends with a question (subtracted)
    answer: float = 0.0  # 1: the query asks when, the memory names a time (answertype.py)
    total: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"bm25": self.bm25, "bm25_norm": self.bm25_norm, "dense": dict(self.dense),
                "dense_norm": dict(self.dense_norm), "lines": dict(self.lines),
                "lines_norm": dict(self.lines_norm), "coverage": self.coverage,
                "coverage_norm": self.coverage_norm,
                "coverage_distinct": self.coverage_distinct, "relevance": self.relevance,
                "recency": self.recency, "confidence": self.confidence,
                "importance": self.importance, "time_match": self.time_match,
                "speaker": self.speaker, "question": self.question, "answer": self.answer,
                "total": self.total}


@dataclass(slots=True)
class Hit:
    memory: Memory
    score: float
    parts: ScoreParts
    # Set when a read merged the user's scope with team scopes (docs/teams.md): which
    # scope the memory is from and, where it won its slot or topic over another scope's
    # memory, why (precedence.py).
    scope_mark: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = {"score": self.score, "parts": self.parts.to_dict(),
             "memory": self.memory.to_dict()}
        if self.scope_mark is not None:
            d["scope_mark"] = dict(self.scope_mark)
        return d


class Hits(list[Hit]):
    """Recall results, best first; `trace_id` names the trace that explains them."""

    trace_id: str | None = None

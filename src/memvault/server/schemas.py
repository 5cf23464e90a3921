"""Request and response bodies. Requests are strict (JSON types as declared, unknown fields
refused: a body cannot carry a scope); the core validates values. Responses mirror the
core's to_dict() shapes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..config import RerankKind

Time = int | str  # epoch milliseconds or ISO-8601


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


# --- requests -------------------------------------------------------------------------
class EmptyIn(_In):
    """A body that takes no fields (`{}` or none): an unknown field is refused."""


class ProposeIn(_In):
    """The fields of a write that the gated path (propose) takes as well."""

    content: str | None = None
    slot: str | None = None
    value: Any = None
    topic: str | None = Field(None, description="what it is about when no slot names it, "
                              "e.g. 'quiet cafes' (one line of at most 64 characters, no "
                              "< or >); derived from the content when omitted")
    kind: str | None = None
    source: str = "user_explicit"
    source_text: str | None = Field(None, description="the user's own words (propose: "
                                    "needed to change a stored value)")
    source_ref: str | None = None
    confidence: float = 1.0
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None
    ttl: int | str | None = Field(None, description="seconds, or '90d', '12h', '30m'")
    reason: str | None = None
    expected_version: int | None = None


class RememberIn(ProposeIn):
    expires_at: Time | None = None
    valid_from: Time | None = None
    valid_to: Time | None = None
    trigger_text: str | None = None


class Message(_In):
    role: str
    content: str
    id: str | None = None
    at: int | None = Field(None, description="when it was said, epoch milliseconds")
    name: str | None = Field(None, description="who said it (a group chat participant); "
                             "recall favours a speaker the query names")


class ObserveIn(_In):
    messages: list[Message]
    source_ref: str | None = None


class RecallIn(_In):
    query: str
    top_k: int | None = None
    kind: str | None = None
    tags: list[str] | None = None
    since: Time | None = None
    until: Time | None = None
    as_of: Time | None = Field(None, description="system time: what the store knew then")
    min_score: float | None = None
    valid_at: Time | None = Field(None, description="valid time: what held in the world then")
    valid_since: Time | None = Field(None, description="valid-time range start (overlap)")
    valid_until: Time | None = Field(None, description="valid-time range end (overlap)")
    reranker: RerankKind | None = Field(None, description="in place of the strategy's "
                                        "retrieval.reranker kind (none, embedder, llm)")
    teams: bool | list[str] | None = Field(
        None, description="read the user's teams too (default true; false: none; or "
        "names): docs/teams.md")


class ContextIn(_In):
    query: str
    budget: int | None = None
    lang: str | None = None
    kind: str | None = None
    tags: list[str] | None = None
    as_of: Time | None = Field(None, description="system time: what the store knew then")
    session: str | None = Field(None, description="the current conversation of a "
                                "user-wide scope: its recent turns join the context")
    valid_at: Time | None = Field(None, description="valid time: what held in the world then")
    valid_since: Time | None = Field(None, description="valid-time range start (overlap)")
    valid_until: Time | None = Field(None, description="valid-time range end (overlap)")
    teams: bool | list[str] | None = Field(
        None, description="read the user's teams too (default true; false: none; or "
        "names): docs/teams.md")


class SummarizeIn(_In):
    force: bool = Field(True, description="every uncovered turn; false: only what the "
                        "triggers call for")


class MaintainIn(_In):
    steps: list[str] | None = Field(None, description="some of expire, summarize, graph, "
                                    "caps, consolidate, snapshots (taken only by a sweep "
                                    "of every scope); default all")


class EditIn(_In):
    content: str | None = None
    value: Any = None
    topic: str | None = Field(None, description="what it is about, e.g. 'quiet cafes' "
                              "(one line of at most 64 characters, no < or >)")
    kind: str | None = None
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None
    confidence: float | None = None
    expires_at: Time | None = None
    valid_from: Time | None = Field(None, description="when it began to hold in the world")
    valid_to: Time | None = Field(None, description="when it stopped holding in the world")
    reason: str | None = None
    expected_version: int | None = None


class ReasonIn(_In):
    reason: str | None = None


class ToolResultIn(_In):
    """What a tool returned (source tool): the call's tool name and arguments are kept."""

    tool: str
    output: str
    args: dict[str, Any] | None = None
    task_id: str | None = None
    ttl: int | str | None = Field(None, description="default: agents.tool_result.ttl")
    tags: list[str] | None = None
    reason: str | None = None


class StepIn(_In):
    """A step of the task named in the path, or a new state of it (the same `seq`)."""

    step: str
    status: str = "pending"
    seq: int | None = Field(None, description="its place in the task; default: after the "
                            "last")
    inputs: Any = None
    outputs: Any = None
    source: str = "tool"
    reason: str | None = None


class LessonIn(_In):
    content: str
    outcome: str | None = Field(None, description="worked or failed")
    task_id: str | None = None
    source: str = Field("system_inferred", description="an inferred lesson is staged for "
                        "review by the default policy")
    tags: list[str] | None = None
    reason: str | None = None


class RollbackIn(_In):
    to_version: int
    reason: str | None = None


class MergeIn(_In):
    ids: list[str] = Field(description="two or more memory ids of one scope")
    content: str | None = Field(None, description="the merged statement (default: the "
                                "best source's)")
    reason: str | None = None


class SplitIn(_In):
    parts: list[str] = Field(description="two or more statements, one new memory each")
    reason: str | None = None


class ConsolidateIn(_In):
    apply: bool | None = Field(None, description="merge now (true) or stage for review "
                               "(false); default: the strategy's consolidate.apply")


class KeyIn(_In):
    role: str
    tenant: str | None = Field(None, description="the caller's own tenant (the default); "
                               "another tenant is refused with 403")
    user: str | None = None
    name: str = Field("", max_length=200)
    expires_at: Time | None = None
    team: str | None = Field(None, description="bind the key to this team (a project key: "
                             "it acts in that team, and its own user's scope if bound)")


class WebhookIn(_In):
    url: str
    secret: str | None = Field(None, description="16..200 characters; generated (and "
                               "returned once) when omitted")
    kinds: list[str] | None = Field(None, description="only these event kinds (default all)")
    user: str | None = Field(None, description="only this user's events (default every "
                             "user of the tenant)")
    since: int | None = Field(None, description="deliver events after this id (default: "
                              "from now on)")


# --- responses ------------------------------------------------------------------------
class ScopeOut(BaseModel):
    tenant: str
    user: str
    agent: str
    session: str


class MemoryOut(_Out):
    id: str
    scope: ScopeOut
    kind: str
    content: str
    slot: str | None
    value: Any = None
    topic: str | None = Field(None, description="what it is about when no slot names it")
    tags: list[str]
    metadata: dict[str, Any]
    source: str
    source_text: str | None
    source_ref: str | None
    confidence: float
    status: str
    frozen: bool
    version: int
    valid_from: int | None
    valid_to: int | None
    recorded_at: int
    expires_at: int | None
    embedding_model: str | None
    created_at: int
    updated_at: int


class MemoryList(BaseModel):
    items: list[MemoryOut]
    limit: int
    offset: int


class RememberOut(BaseModel):
    action: str
    id: str
    version: int
    previous_version: int | None
    memory: MemoryOut


class TaskStateOut(BaseModel):
    task_id: str
    steps: list[MemoryOut]
    current: MemoryOut | None
    finished: bool


class RevisionOut(_Out):
    op_id: str
    memory_id: str
    scope: ScopeOut
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


class HitOut(BaseModel):
    score: float
    parts: dict[str, Any]
    memory: MemoryOut
    scope_mark: dict[str, Any] | None = Field(
        None, description="a read merged with the user's teams: the memory's scope "
        "(personal or team) and the precedence it won by (docs/teams.md)")


class RecallOut(BaseModel):
    trace_id: str | None
    hits: list[HitOut]


class ContextOut(_Out):
    text: str
    tokens: int
    trace_id: str | None
    included: list[HitOut]
    dropped: list[dict[str, Any]]
    conflicts: list[Any]


class OutcomeOut(_Out):
    action: str
    reasons: list[str]
    memory_id: str | None = None
    version: int | None = None


class ProposeOut(OutcomeOut):
    content: str
    message: str


class ObserveOut(_Out):
    turns: list[str]
    outcomes: list[OutcomeOut]


class JobOut(BaseModel):
    job_id: str
    kind: str
    status: str = Field(description="queued, done or failed")
    user: str
    created_at: int
    finished_at: int | None
    result: Any = None
    error: dict[str, Any] | None = None


class PurgeOut(BaseModel):
    tombstone: RevisionOut
    erasure: str = Field(description="done: the erased bytes are gone from the store's "
                         "files; pending: another connection's read snapshot still holds "
                         "them, the store finishes it as soon as it can")


class PurgeStatusOut(BaseModel):
    memory_id: str
    erasure: str = Field(description="done or pending (see PurgeOut)")


class CountOut(BaseModel):
    count: int


class ImportFindingOut(BaseModel):
    kind: str
    message: str
    memory_id: str | None
    line: int | None


class ImportLineOut(BaseModel):
    line: int
    id: str
    action: str  # import | stage | skip
    findings: list[ImportFindingOut]
    content: str | None
    target_id: str | None
    staged_id: str | None


class ImportOut(BaseModel):
    """`count`: memories loaded as exported. With review (or dry_run): the scan's
    report, line by line (docs/import.md)."""

    count: int
    dry_run: bool | None = None
    imported: int | None = None
    staged: int | None = None
    skipped: int | None = None
    lines: list[ImportLineOut] | None = None


class KeyOut(BaseModel):
    key_id: str
    tenant: str
    role: str
    user: str | None
    name: str
    created_at: int
    created_by: str
    expires_at: int | None
    revoked_at: int | None
    team: str | None = None


class NewKeyOut(KeyOut):
    key: str = Field(description="the full API key; shown once, only its hash is stored")


class AccessOut(BaseModel):
    seq: int
    at: int
    tenant: str
    user: str
    key_id: str
    role: str
    action: str
    memory_ids: list[str]
    trace_id: str | None


class UsersOut(BaseModel):
    users: list[str]
    bound: bool = Field(description="the key is bound to its one user")
    role: str
    key_id: str


class WhoamiOut(BaseModel):
    key_id: str
    tenant: str
    role: str
    user: str | None = Field(description="the user a bound key acts for; null: unbound")
    team: str | None = Field(None, description="the team a project key is bound to")


class ReviewOut(_Out):
    memory: MemoryOut
    review: dict[str, Any]


class FactOut(_Out):
    """A relation of the knowledge graph (layers/graph.py `_fact`)."""
    id: str
    subject: str | None
    subject_id: str | None
    relation: str | None
    object: str | None
    object_id: str | None
    valid_from: int | None
    valid_to: int | None
    source_memory: str | None
    confidence: float


class NeighbourOut(_Out):
    entity: str | None
    entity_id: str | None
    relation: str | None
    direction: str = Field(description="out: the asked entity is the subject; in: object")
    valid_from: int | None
    valid_to: int | None
    relation_id: str


class SweepReportOut(_Out):
    expired: int
    summaries: list[str]
    relations: list[str]
    evicted: list[str]
    errors: list[str]
    snapshots: list[str] = []
    snapshots_dropped: list[str] = []
    merges_proposed: list[str] = Field([], description="consolidation proposals staged "
                                       "for review (their ids)")
    merges_applied: list[str] = Field([], description="memories merged by consolidation "
                                      "(strategy consolidate.apply)")


class SweepOut(CountOut):
    """`count`: the memories whose lapsed TTL the sweep demoted (what `sweep` returns);
    `report`: everything the lifecycle job did on the scope, as `maintain` reports it."""

    report: SweepReportOut


class ConsolidateOut(_Out):
    """A group of near-duplicates: staged as `proposal` (approve it to merge), or merged
    as `merged`."""

    ids: list[str]
    content: str
    topic: str | None
    proposal: str | None
    merged: str | None


class SnapshotIn(_In):
    name: str = Field(description="unique in its scope (the tenant, or the user named by "
                      "the `user` query parameter)")
    reason: str | None = None


class RestoreIn(_In):
    reason: str | None = None


class ShadowIn(_In):
    strategy: dict[str, Any] = Field(description="the candidate strategy, as its YAML file's "
                                     "mapping (omitted keys take their defaults)")
    traces: int = Field(20, description="how many of the most recent traces to replay")
    top_k: int | None = Field(None, description="compare this many (default: each "
                              "strategy's own top_k)")


class AnswerIn(_In):
    trace_id: str = Field(description="the trace id of the context build the answer was "
                          "produced with")
    answer: str = Field(description="the answer the application gave (online evaluation: "
                        "kept for the judge if that build was sampled)")


class TeamIn(_In):
    name: str = Field(min_length=1, max_length=63)
    description: str | None = Field(None, max_length=500)


class MemberIn(_In):
    user: str = Field(min_length=1, max_length=128)
    role: str = Field("reader", description="reader, writer or admin of the team")

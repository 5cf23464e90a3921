"""The strategy: every retrieval and injection knob in one validated YAML file.

A strategy has a hash (of its canonical JSON), recorded with every trace and every eval
snapshot, so "why did recall change" is answered by comparing two hashes.

    memvault config show [--config FILE]
    memvault config check FILE
    memvault config history | show HASH | shadow CANDIDATE.yaml   (reads/strategies.py)
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from .errors import MemvaultError
from .errors import ValidationError as MemvaultValidationError
from .model import AGENT_KINDS
from .timeutil import duration_ms


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Weights(_Strict):
    """Score = sum of weight × part. Relevance parts are min-max normalised per query;
    recency, confidence and importance are already in 0..1."""

    text: float = Field(0.5, ge=0)
    dense: float = Field(0.5, ge=0)
    # `dense` for a one-line query (a question, a search): one sentence vector against a
    # memory's is the weakest evidence such a query has, beside its words (BM25) and their
    # near words (`coverage`). Unset: `dense`. docs/retrieval.md, "Ranking".
    dense_one_line: float | None = Field(None, ge=0)
    recency: float = Field(0.05, ge=0)
    confidence: float = Field(0.05, ge=0)
    importance: float = Field(0.0, ge=0)
    # Bonus for a memory dated inside a relative time the query names ("yesterday").
    time: float = Field(0.1, ge=0)
    # Bonus for a memory whose speaker the query names; penalty for a turn that only
    # asks (its answer is in the reply). turncues.py.
    speaker: float = Field(0.2, ge=0)
    question: float = Field(0.2, ge=0)
    # Bonus for a memory that names a time when the query asks when (answertype.py).
    answer: float = Field(0.35, ge=0)
    # A multi-line query: a memory's best similarity to one line (querylines.py).
    lines: float = Field(0.5, ge=0)
    # A one-line query: the share of its words the memory's own text (nearly) says
    # (wordmatch.py).
    coverage: float = Field(0.25, ge=0)
    # Optional per-embedder share of `dense` (by model name); default: split evenly.
    dense_models: dict[str, float] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _some_relevance(self) -> Weights:
        if self.text + self.dense <= 0:
            raise ValueError("text + dense must be > 0: relevance must count")
        return self

    def dense_for(self, one_line: bool) -> float:
        """The dense weight for a one-line query or a conversation."""
        return self.dense if not one_line or self.dense_one_line is None \
            else self.dense_one_line


class Decay(_Strict):
    half_life_days: float = Field(180.0, gt=0)


class TurnContext(_Strict):
    """A `turn` memory is indexed with its neighbouring turns of the same session
    (turnctx.py, docs/retrieval.md). before = after = 0 switches it off."""

    before: int = Field(2, ge=0, le=10)
    after: int = Field(2, ge=0, le=10)
    # BM25 counts a neighbour's term this much of the turn's own term.
    text_weight: float = Field(0.5, ge=0, le=1)
    # Key vector = normalise(own + vector_weight x sum of the neighbours' own vectors).
    vector_weight: float = Field(0.5, ge=0, le=1)
    # When set, consecutive turns with their own times are one exchange (and lend each
    # other their words) only when a reply follows within max_gap_minutes, or the same
    # speaker goes on within burst_minutes (turnctx.joined). Off by default: on memvault's
    # own set it did not win (R@10 up, MRR down; BENCHMARKS.md, issue 24 section).
    max_gap_minutes: float | None = Field(None, gt=0)
    burst_minutes: float = Field(5, ge=0)


class AsksBack(_Strict):
    """A turn that ends with a question but tells something before it is not "only
    asking" (turncues.asking): the `question` part is 1 up to `only_asks` words told, 0
    from `tells` words on, linear between."""

    only_asks: float = Field(6, ge=0)
    tells: float = Field(18, gt=0)

    @model_validator(mode="after")
    def _ordered(self) -> AsksBack:
        if self.only_asks >= self.tells:
            raise ValueError("only_asks must be below tells")
        return self


class Floor(_Strict):
    """The relevance floor: a hit is served only with some evidence that it is related
    to the query, measured in raw (not per-query normalised) terms, so a question about
    something nothing stored is about returns nothing rather than the closest unrelated
    memory (docs/retrieval.md, "Relevance floor"). Any one of these is enough.
    `enabled: false` switches the floor off (as does text, coverage, coverage_plain or
    dense_margin at 0)."""

    enabled: bool = True

    # Raw BM25 of the memory's index key: a rare query word it says, not only the name
    # that every memory of the user says.
    text: float = Field(0.8, ge=0)
    # Distinct coverage: the share of the query's words, not counting words that every
    # candidate says, that the memory (nearly) says (wordmatch.py).
    coverage: float = Field(0.2, ge=0, le=1)
    # Or plain coverage, every query word counted: a memory that says most of the query is
    # related even when every candidate says it ("billing migration" in eight notes on
    # it); a name alone is not half of a question.
    coverage_plain: float = Field(0.5, ge=0, le=1)
    # Raw similarity (best over embedders and query lines) this far above the median of
    # the candidates': closer than the rest of the user's memories. Needs 3 candidates.
    dense_margin: float = Field(0.15, ge=0, le=2)
    # With fewer than 3 candidates there is no median to compare with: a raw similarity
    # of at least this is evidence (a query sharing only a name with the one memory
    # stored scored 0.13-0.36 on the precision set's dev half, the example 0.38).
    dense_alone: float = Field(0.45, ge=0, le=1)
    # After the first hit with evidence, a hit without any stays if it says a query word,
    # scores at least `relative` of that hit's score, or has a raw similarity of at least
    # `tail_similarity` (the edges of the subject: "groceries" / "it's all Tesco now").
    relative: float = Field(0.25, ge=0, le=1)
    tail_similarity: float = Field(0.2, ge=0, le=1)

    @property
    def on(self) -> bool:
        return self.enabled and self.text > 0 and self.coverage > 0 \
            and self.coverage_plain > 0 and self.dense_margin > 0


class Caches(_Strict):
    """Bounds (entries) of recall's caches of coverage (wordmatch.py), the process's: each
    Vault sets them when it opens, the last one opened wins. 0: no cache (every recall
    reads its candidates' words and embeds them again)."""

    # Memories whose content words are kept: ~1 KiB a memory (a LoCoMo turn).
    memory_words: int = Field(16_384, ge=0, le=10_000_000)
    # Word vectors, per tenant and model (float16): 1.25 KiB a word at 512 dims.
    word_vectors: int = Field(65_536, ge=0, le=10_000_000)


RerankKind = Literal["none", "embedder", "llm"]
RERANK_KINDS: tuple[str, ...] = get_args(RerankKind)


class Reranker(_Strict):
    """A second look at recall's best candidates (rerank.py, docs/retrieval.md,
    "Reranker"). `embedder`: re-score the `top` candidates by the cosine of a second
    local embedder (`model`, default e5-small), blended with the first-stage score:
    (1 - weight) x first stage + weight x cosine, each min-max normalised over those
    candidates. `llm`: the configured OpenAI-compatible endpoint orders them (`model`,
    default $MEMVAULT_LLM_MODEL); an unusable answer keeps the first-stage order and the
    trace says why. `none`: off."""

    kind: RerankKind = "none"
    top: int = Field(20, ge=2, le=200)
    model: str | None = Field(None, min_length=1, max_length=200)
    weight: float = Field(0.5, ge=0, le=1)
    # llm only: the endpoint (else $MEMVAULT_LLM_BASE_URL, then $OPENAI_BASE_URL; the key
    # always from the environment) and how long one answer may take.
    base_url: str | None = Field(None, min_length=1, max_length=500)
    timeout_s: float = Field(20.0, gt=0, le=300)


class Retrieval(_Strict):
    top_k: int = Field(5, ge=1, le=1000)
    candidates: int = Field(50, ge=1, le=5000)
    # On the total, which is normalised per query: it ranks, it does not judge (`floor`).
    min_score: float = 0.0
    floor: Floor = Floor()
    # A memory that shares no index term with the query is served only if it is at least
    # this similar to it (raw cosine, best over the embedders and the query's lines), so
    # unrelated memories stay out of a prompt however few there are. Off (0) by default:
    # with use-m3, related short or cross-lingual pairs score as low as unrelated ones
    # (docs/retrieval.md); pick a floor for your data from the traces' dense parts.
    min_similarity: float = Field(0.0, ge=0.0, le=1.0)
    # Coverage: a query word scores its best similarity to a word of the memory (cosine
    # of the two words' vectors; the same word is 1), and 0 below this bar.
    word_similarity: float = Field(0.7, ge=0.0, le=1.0)
    weights: Weights = Weights()
    decay: Decay = Decay()
    # Narrow to the time range a query names ("last May", "2023年5月").
    query_time_filter: bool = True
    # Line votes: at most this many of a multi-line query's last lines (0: off).
    query_lines: int = Field(10, ge=0, le=50)
    turn_context: TurnContext = TurnContext()
    # Judge "only asking" by what a turn tells (AsksBack); null: every turn that ends with
    # a question is penalised in full. Off by default: it cost LoCoMo a little
    # (BENCHMARKS.md, issue 24 section).
    asks_back: AsksBack | None = None
    caches: Caches = Caches()
    reranker: Reranker = Reranker()


class Context(_Strict):
    budget_tokens: int = Field(800, ge=32, le=200_000)
    lang: Literal["en", "zh"] = "en"
    # Recalled memories offered to the renderer; the budget decides how many fit.
    max_items: int = Field(20, ge=1, le=500)
    # A raw turn whose request is not in effect (blocked, pending review, rejected, taken
    # back, superseded): shown with its status, after what is current, or left out.
    unapplied_turns: Literal["annotate", "omit"] = "annotate"


PiiAction = Literal["redact", "stage", "allow"]


class Pii(_Strict):
    phone: PiiAction = "redact"
    id_number: PiiAction = "redact"
    card: PiiAction = "redact"
    email: PiiAction = "redact"
    secret: PiiAction = "redact"  # a password or PIN the user gives (safety/pii.py)


class Matching(_Strict):
    """How close (0..1, reads/related.py) a stored memory must be to be the one a new
    statement concerns (understand/relate.py, Thresholds)."""

    match: float = Field(0.4, ge=0, le=1)     # about the same thing
    change: float = Field(0.3, ge=0, le=1)    # the same, for an announced change
    close: float = Field(0.55, ge=0, le=1)    # plainly the same thing
    retract: float = Field(0.35, ge=0, le=1)  # named by a retraction
    margin: float = Field(0.04, ge=0, le=1)   # a second this close: ambiguous
    ratio: float = Field(0.7, ge=0, le=1)     # or this share of the best's meaning part
    second: float = Field(0.15, ge=0, le=1)
    lead: float = Field(0.1, ge=0, le=1)      # ahead of every other by this much …
    floor: float = Field(0.25, ge=0, le=1)    # … and this close: the one a change means
    hint: float = Field(0.18, ge=0, le=1)     # a take-back naming none plainly: staged
    # A change whose memory only that rank names: applied (true) or staged for review.
    apply_ranked: bool = True
    # A change or a take-back whose memory its topic class names (topicscore.py).
    by_topic: bool = True


class Write(_Strict):
    """The gate's policy for observe() (gate.GatePolicy) and the extractor it runs."""

    # "rules" (offline), "llm" (model from MEMVAULT_LLM_MODEL) or "llm:MODEL"; the endpoint
    # and key come from MEMVAULT_LLM_BASE_URL / MEMVAULT_LLM_API_KEY, never from this file.
    extractor: str = Field("rules", pattern=r"^(?:rules|llm|llm:[^\s]{1,200})$")
    inferred_confidence_discount: float = Field(0.5, ge=0, le=1)
    stage_below_confidence: float = Field(0.6, ge=0, le=1)
    pii: Pii = Pii()
    operator_roles: list[str] = Field(default_factory=lambda: ["admin", "operator"])
    stage_sources: list[str] = Field(default_factory=list)
    matching: Matching = Matching()
    # A sentence the rule extractor reads neither way is kept as a statement when its
    # meaning scores at least this (statementscore.py); 1 keeps none of them.
    statement_score: float = Field(0.6, ge=0, le=1)
    # A memory at this many versions takes no new one from remember/observe/propose or an
    # import: the change is staged for review (reason version_cap). None: no cap.
    max_versions: int | None = Field(None, ge=1, le=1_000_000)


class Traces(_Strict):
    enabled: bool = True
    retention_days: float = Field(30.0, gt=0)
    max_per_scope: int = Field(1000, ge=1)


class Snapshots(_Strict):
    """Scheduled snapshots (docs/snapshots.md): the lifecycle sweep of every scope takes
    one per tenant a day, named daily-YYYY-MM-DD (UTC), and drops the scheduled ones older
    than keep_days. Snapshots taken by hand or by a restore are never dropped by it."""

    daily: bool = True
    keep_days: float = Field(30.0, gt=0)


class Audit(_Strict):
    """What the access log records beyond the reads of API-key callers (REST, MCP), which
    it always records."""

    # Reads through the CLI and Python (no API key) leave access-log rows too.
    log_reads: bool = False


class ShortTerm(_Strict):
    """The current session's last turns, served verbatim (docs/layers.md)."""

    turns: int = Field(6, ge=0, le=200)
    max_tokens: int = Field(300, ge=0, le=100_000)


class Summaries(_Strict):
    """When a session's unsummarised turns become a summary; 0 switches a trigger off."""

    every_turns: int = Field(20, ge=0, le=10_000)
    every_tokens: int = Field(1500, ge=0, le=1_000_000)
    # Cosine distance between the mean embeddings of two adjacent windows of turns.
    topic_shift: float = Field(0.5, ge=0, le=2)
    window: int = Field(3, ge=1, le=50)
    min_turns: int = Field(4, ge=1, le=10_000)
    max_sentences: int = Field(5, ge=1, le=50)
    # A user-level summary after this many new session summaries.
    user_every: int = Field(3, ge=0, le=1000)
    summarizer: Literal["auto", "extractive", "llm"] = "auto"


class Caps(_Strict):
    """Per-user cap on active memories (0: none); eviction policy in docs/layers.md."""

    max_items: int = Field(0, ge=0, le=10_000_000)
    exempt_kinds: list[str] = Field(default_factory=lambda: ["entity", "relation"])


class Layers(_Strict):
    short_term: ShortTerm = ShortTerm()
    summaries: Summaries = Summaries()
    caps: Caps = Caps()
    graph: bool = True
    # Run graph ingest and summary triggers right after observe() (else: sweep does).
    on_observe: bool = False
    # Summaries join the context as background when fewer recalled hits than this match.
    background_below: int = Field(3, ge=0, le=100)
    # Covered turns shown after a summary hit (the detail a summary dropped).
    expand_turns: int = Field(2, ge=0, le=50)
    # A summary hit is shown as this many of its sentences, those sharing most words with
    # the query (0: whole): the rest of the gist costs budget without bearing on it.
    summary_sentences: int = Field(1, ge=0, le=50)


WriterSource = Literal["user_explicit", "system_inferred", "admin_manual", "document", "tool",
                       "import"]


class KindPolicy(_Strict):
    """One agent memory kind's policy (agentpolicy.py applies it, docs/agents.md)."""

    # The sources that may write it; any other is refused (PolicyError).
    writers: list[WriterSource]
    # Whether observe's extraction and propose (the gate) may bring it: a tool result is
    # what a tool returned, never what a conversation said.
    via_gate: bool = False
    # Sources whose writes are staged for review (pending) instead of served.
    review: list[WriterSource] = Field(default_factory=list)
    # Shelf life from each write ("1d", "12h"; null: none). A step's counts per update.
    ttl: str | None = None
    # Steps: kept this long after their task is closed ("0s": expire at once).
    after_close: str | None = None
    # Served by recall and context when no kind filter asks for it; `budget_share` caps
    # the share of a context budget its recalled items may take (1: no cap).
    recall: bool = True
    budget_share: float = Field(1.0, ge=0, le=1)
    # Where it is kept: "user" (tenant/user), "agent" (needs scope.agent), "session"
    # (needs scope.session), "task" (the caller's scope, and a task id is required).
    scope: Literal["user", "agent", "session", "task"] = "task"

    @field_validator("ttl", "after_close")
    @classmethod
    def _duration(cls, value: str | None, info: Any) -> str | None:
        if value is None:
            return None
        if info.field_name == "after_close" and value.strip() in ("0", "0s", "0ms"):
            return value  # expire with the task, at once
        try:
            duration_ms(value, field=info.field_name)
        except MemvaultError as e:
            raise ValueError(e.message) from None
        return value


class Agents(_Strict):
    """Agent memory: tool results, the steps of a task, lessons (docs/agents.md)."""

    tool_result: KindPolicy = KindPolicy(
        writers=["tool", "import"], ttl="1d", recall=True, budget_share=0.25, scope="session")
    step: KindPolicy = KindPolicy(
        writers=["tool", "system_inferred", "user_explicit", "admin_manual", "import"],
        ttl="7d", after_close="0s", recall=False, budget_share=0.0, scope="task")
    lesson: KindPolicy = KindPolicy(
        writers=["system_inferred", "user_explicit", "admin_manual", "import"],
        via_gate=True, review=["system_inferred"], recall=True, budget_share=0.25,
        scope="agent")

    def of(self, kind: str) -> KindPolicy | None:
        """The policy of an agent kind; None for every other kind."""
        return getattr(self, kind, None) if kind in AGENT_KINDS else None


class Consolidate(_Strict):
    """Merging near-duplicates (consolidate.py, docs/consolidation.md)."""

    # true: `consolidate` merges the groups it finds; false: it stages them for review.
    apply: bool = False
    # true: the lifecycle sweep runs the pass for every user it sweeps (lifecycle.py).
    # On by default: unless `apply`, it only stages proposals (nothing changes without a
    # reviewer), and it rescans a user only when the user's memories changed since.
    on_sweep: bool = True
    # The embedding cosine (of the normalised statements) at which two differ only in
    # wording; calibrated on use-m3 (docs/consolidation.md).
    threshold: float = Field(0.98, ge=0.5, le=1.0)


class OnlineEval(_Strict):
    """Online evaluation (onlineeval.py, docs/evaluation.md): a share of context builds is
    kept as a sample; once the application reports the answer it gave (record_answer), an
    LLM judge reads question, injected memories and answer, in the background (the
    server's sweep, or `memvault eval online --run`), never on the request path."""

    enabled: bool = False
    # The share of context builds sampled (by their trace id, so the choice is stable).
    sample: float = Field(0.05, ge=0, le=1)
    # "llm" (model from MEMVAULT_LLM_MODEL) or "llm:MODEL"; the endpoint and key come from
    # MEMVAULT_LLM_BASE_URL / MEMVAULT_LLM_API_KEY as for the LLM extractor, never from
    # this file.
    judge: str = Field("llm", pattern=r"^(?:llm|llm:[^\s]{1,200})$")
    # Judge requests per sample before it is recorded as failed (malformed answers,
    # 5xx/429, connection errors).
    attempts: int = Field(2, ge=1, le=10)
    # Samples judged per background round.
    batch: int = Field(20, ge=1, le=1000)
    # A sample whose answer never came is dropped after this long; judged ones are kept
    # for `retention_days` (the report's and /metrics's windows read them).
    answer_within_hours: float = Field(24.0, gt=0)
    retention_days: float = Field(30.0, gt=0)


class Strategy(_Strict):
    version: Literal[1] = 1
    name: str = "default"
    retrieval: Retrieval = Retrieval()
    context: Context = Context()
    write: Write = Write()
    traces: Traces = Traces()
    snapshots: Snapshots = Snapshots()
    layers: Layers = Layers()
    audit: Audit = Audit()
    agents: Agents = Agents()
    consolidate: Consolidate = Consolidate()
    online_eval: OnlineEval = OnlineEval()

    @cached_property
    def hash(self) -> str:
        # Once per strategy (it is frozen): every recall's trace records it.
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()[:16]

    def canonical_json(self) -> str:
        """What the hash is the hash of; kept whole by the strategy versions."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True,
                          separators=(",", ":"))

    def model_copy(self, *, update: dict[str, Any] | None = None,
                   deep: bool = False) -> Strategy:
        copy = super().model_copy(update=update, deep=deep)
        copy.__dict__.pop("hash", None)  # a copy with changes has another hash
        return copy

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False,
                              allow_unicode=True)


def parse_strategy(data: Any, *, source: str = "strategy") -> Strategy:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise MemvaultValidationError(f"{source}: expected a mapping at the top level")
    try:
        return Strategy.model_validate(data)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}"
            for err in e.errors())
        raise MemvaultValidationError(f"{source}: {problems}") from None


def load_strategy(path: str | os.PathLike[str] | None = None) -> Strategy:
    """From a YAML file, else $MEMVAULT_CONFIG, else the built-in defaults."""
    target = path or os.environ.get("MEMVAULT_CONFIG")
    if not target:
        return Strategy()
    p = Path(target)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise MemvaultValidationError(f"config {p}: cannot read ({e})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise MemvaultValidationError(f"config {p}: not valid YAML ({_yaml_problem(e)})") from None
    return parse_strategy(data, source=f"config {p}")


def _yaml_problem(e: yaml.YAMLError) -> str:
    """One line: PyYAML's own message spans several and quotes the source."""
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    mark = getattr(e, "problem_mark", None)
    return f"{problem}, line {mark.line + 1}, column {mark.column + 1}" if mark else problem


def as_strategy(value: Any, field: str = "strategy") -> Strategy:
    """A Strategy, the path of a YAML file, or a mapping (read like a file's)."""
    if isinstance(value, Strategy):
        return value
    if isinstance(value, str | os.PathLike):
        return load_strategy(value)
    if isinstance(value, dict):
        return parse_strategy(value, source=field)
    raise MemvaultValidationError(f"{field}: expected a Strategy, a YAML file path or a "
                                  "mapping")

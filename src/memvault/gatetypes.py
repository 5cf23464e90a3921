"""The gate's vocabulary: what a candidate is (Candidate), what it could touch
(GateState, MemoryView), the policy (GatePolicy), and what the gate decides (Decision:
an Action with machine-readable Reasons). gate.py holds the decision itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .model import Memory, Source
from .safety.instructions import InstructionFinding
from .safety.pii import PLACEHOLDERS, PiiFinding
from .understand.relate import Thresholds
from .validate import MAX_CONTENT_CHARS


class Action(StrEnum):
    ADD = "add"          # store as a new active memory
    UPDATE = "update"    # new version of Decision.target_id (the slot's current memory)
    NOOP = "noop"        # already known; the caller may reinforce Decision.target_id
    STAGE = "stage"      # store as pending for review, with reasons and links
    BLOCK = "block"      # refused because of what it would touch; the caller records it
    REJECT = "reject"    # invalid input; nothing is stored
    FORGET = "forget"    # the user took Decision.target_id back: forget it (undoable)


class Reason(StrEnum):
    # reject
    EMPTY = "empty"
    TOO_LONG = "too_long"
    BAD_SOURCE = "bad_source"
    BAD_KIND = "bad_kind"
    BAD_CONFIDENCE = "bad_confidence"
    ALREADY_EXPIRED = "already_expired"
    ADMIN_WITHOUT_OPERATOR = "admin_without_operator"
    # block
    SCOPE_MISMATCH = "scope_mismatch"
    FROZEN_TARGET = "frozen_target"
    # noop
    DUPLICATE = "duplicate"
    SAME_VALUE = "same_value"
    RESTATES = "restates"              # says again what a memory on its topic says
    NO_TARGET = "no_target"            # takes back something no memory says
    NOT_A_STATEMENT = "not_a_statement"  # changes nothing stored and states nothing new
    # stage
    PII_STAGED = "pii_staged"
    INJECTION_LIKE = "injection_like"
    COMMAND_LIKE = "command_like"
    INCOMPLETE_UPDATE = "incomplete_update"
    SOURCE_UNTRUSTED = "source_untrusted"
    INFERRED_LOW_CONFIDENCE = "inferred_low_confidence"
    LOW_CONFIDENCE = "low_confidence"
    CONFLICT_NOT_EXPLICIT = "conflict_not_explicit"
    CONFLICT_OLDER = "conflict_older"
    SOURCE_OUTRANKED = "source_outranked"
    AMBIGUOUS_TARGET = "ambiguous_target"
    UNKNOWN_TARGET = "unknown_target"
    ADDS_TO_VALUE = "adds_to_value"    # "also …" about a slot that holds another value
    RANKED_TARGET = "ranked_target"    # only its rank names the memory it changes
    # informational (recorded, do not change the action)
    PII_REDACTED = "pii_redacted"
    PII_ALLOWED = "pii_allowed"
    COMMAND_COMPLETE = "command_complete"
    TARGET_EXPIRED = "target_expired"
    RESTATED = "restated"
    SUPERSEDES = "supersedes"
    TOPIC_MATCH = "topic_match"        # changes the memory it matched by meaning
    RETRACTED = "retracted"            # the user took the target back


STAGE_REASONS = frozenset({
    Reason.PII_STAGED, Reason.INJECTION_LIKE, Reason.COMMAND_LIKE, Reason.INCOMPLETE_UPDATE,
    Reason.SOURCE_UNTRUSTED, Reason.INFERRED_LOW_CONFIDENCE, Reason.LOW_CONFIDENCE,
    Reason.CONFLICT_NOT_EXPLICIT, Reason.CONFLICT_OLDER, Reason.SOURCE_OUTRANKED,
    Reason.AMBIGUOUS_TARGET, Reason.UNKNOWN_TARGET, Reason.ADDS_TO_VALUE,
    Reason.RANKED_TARGET})

MESSAGES: dict[Reason, str] = {
    Reason.EMPTY: "the content is empty",
    Reason.TOO_LONG: "the content is longer than the policy allows",
    Reason.BAD_SOURCE: "the source is not a known source",
    Reason.BAD_KIND: "the kind is not a known kind",
    Reason.BAD_CONFIDENCE: "confidence must be a number in 0..1",
    Reason.ALREADY_EXPIRED: "the memory would already be expired",
    Reason.ADMIN_WITHOUT_OPERATOR: "source admin_manual requires an operator role",
    Reason.SCOPE_MISMATCH: "the state was read for another scope",
    Reason.FROZEN_TARGET: "it would change a frozen memory",
    Reason.DUPLICATE: "an identical active memory exists",
    Reason.SAME_VALUE: "the slot already holds this value",
    Reason.PII_STAGED: "it contains sensitive data the policy sends to review",
    Reason.INJECTION_LIKE: "the text reads like instructions to a model",
    Reason.COMMAND_LIKE: "the text reads like a memory command, which is never executed",
    Reason.INCOMPLETE_UPDATE: "an update must name both the slot and the new value",
    Reason.SOURCE_UNTRUSTED: "the policy reviews everything from this source",
    Reason.INFERRED_LOW_CONFIDENCE: "inferred, and below the confidence threshold after "
                                    "the inference discount",
    Reason.LOW_CONFIDENCE: "below the confidence threshold",
    Reason.CONFLICT_NOT_EXPLICIT: "it contradicts an active memory and is not an explicit "
                                  "statement of the user",
    Reason.CONFLICT_OLDER: "it contradicts a newer active memory",
    Reason.SOURCE_OUTRANKED: "the memory it contradicts comes from a more legitimate source",
    Reason.PII_REDACTED: "sensitive data was replaced by placeholders",
    Reason.PII_ALLOWED: "sensitive data kept as the policy allows",
    Reason.COMMAND_COMPLETE: "command-like, accepted as a complete explicit statement of "
                             "the user",
    Reason.TARGET_EXPIRED: "the current value had expired",
    Reason.RESTATED: "the same value, restated by the user",
    Reason.SUPERSEDES: "it replaces a contradicting memory of the same subject",
    Reason.RESTATES: "a memory on the same topic already says this",
    Reason.NO_TARGET: "it takes back something no stored memory says",
    Reason.NOT_A_STATEMENT: "it changes no stored memory and states nothing to keep",
    Reason.AMBIGUOUS_TARGET: "it could concern several memories; a person must pick",
    Reason.ADDS_TO_VALUE: "it adds a value beside the slot's current one; a person decides "
                          "how they combine",
    Reason.UNKNOWN_TARGET: "it names a memory the lookup did not find in the scope",
    Reason.RANKED_TARGET: "only its rank (the closest memory, clearly ahead of the rest) "
                          "says which memory it changes; a person confirms",
    Reason.TOPIC_MATCH: "it changes the memory on the same topic",
    Reason.RETRACTED: "the user took the memory back",
}

# Higher wins. import is a restore of exported data; through the gate it is treated like
# any other document.
SOURCE_RANK: dict[str, int] = {
    Source.USER_EXPLICIT: 3, Source.ADMIN_MANUAL: 2, Source.DOCUMENT: 1, Source.TOOL: 1,
    Source.IMPORT: 1, Source.SYSTEM_INFERRED: 0,
}

PII_ACTIONS = ("redact", "stage", "allow")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory someone wants stored. Times are epoch ms.

    explicit: the user stated it directly (not paraphrased, guessed or quoted).
    observed_at: when the statement was made; None means now (newer than anything stored).
    subject: what the statement is about ("medication"), for same-subject conflicts
    between memories without a common slot.
    """

    content: str
    slot: str | None = None
    value: Any = None
    kind: str | None = None            # None: preference with a slot, fact without
    source: str = Source.USER_EXPLICIT.value
    confidence: float = 1.0
    source_text: str | None = None
    actor: str = ""
    actor_role: str = "user"
    explicit: bool = False
    scope_key: str = ""                # Scope.key() of the write
    subject: str | None = None
    expires_at: int | None = None
    observed_at: int | None = None
    # What it is about when no slot names it (understand/topics.py).
    topic: str | None = None
    # What the statement takes back ("" when it names nothing); None: not a retraction.
    retraction: str | None = None
    # Takes it back only when a memory names it (a plan said to be off:
    # understand/planoff.py); else an ordinary statement.
    soft_retraction: bool = False
    # A statement kept only if it changes or takes back a memory it matches ("move my
    # digest to Mondays"): alone it states nothing worth storing.
    tentative: bool = False
    # A tentative statement whose meaning reads as one on its own (statementscore.py):
    # added when it changes nothing it matches.
    stands: bool = False
    # A sentence no rule read, kept because its meaning reads as a statement of the user's
    # (statementscore.py): added only about nothing stored close; it never
    # changes or confirms a memory, since nothing says how it relates to one.
    by_meaning: bool = False
    # An extractor's own reading (the LLM's): "add", "update", "forget" or "none", and the
    # memory it names; the gate checks the memory is one the lookup matched.
    intent: str | None = None
    intent_target: str | None = None
    # The memory the message's previous sentence just changed, when this sentence marks no
    # change of its own and is plainly close to it ("I can't do spicy food anymore. Please
    # avoid spicy recipes."): it goes on about that change, so it extends that memory.
    extends: str | None = None
    # It revises the memory plainly close to it: its message owns up to a slip ("我爸生日是
    # 农历八月十六 之前打错了"), a statement said again to put a value right; or the user
    # accepted a change the assistant proposed ("Want me to bump your plan to 4 runs a
    # week?" / "ok yeah"), a change of what is stored, not one more thing.
    revises: bool = False
    # (kind, value) sensitive in the messages it was read from (safety.sensitive_values):
    # sensitive here too, though the label that made it so stayed behind (gate.screen).
    carried_pii: tuple[tuple[str, str], ...] = field(default=(), repr=False)


@dataclass(frozen=True, slots=True)
class MemoryView:
    """The parts of a stored memory the gate looks at."""

    id: str
    content: str
    value: Any = None
    slot: str | None = None
    kind: str | None = None
    subject: str | None = None
    version: int = 1
    frozen: bool = False
    source: str = Source.USER_EXPLICIT.value
    recorded_at: int = 0
    updated_at: int = 0
    expires_at: int | None = None
    # When the stored statement was made, if known (a replayed conversation's message
    # time): "newer" compares what was said when, not when it reached the store.
    said_at: int | None = None
    topic: str | None = None
    source_text: str | None = None  # the words it was said in

    @classmethod
    def of(cls, m: Memory, subject: str | None = None) -> MemoryView:
        """From a Memory; the subject defaults to metadata["subject"]."""
        subj = subject if subject is not None else m.metadata.get("subject")
        return cls(id=m.id, content=m.content, value=m.value, slot=m.slot, kind=m.kind,
                   subject=subj if isinstance(subj, str) else None, version=m.version,
                   frozen=m.frozen, source=m.source, recorded_at=m.recorded_at,
                   updated_at=m.updated_at, expires_at=m.expires_at,
                   said_at=said if isinstance(said := m.metadata.get("said_at"), int)
                   and not isinstance(said, bool) else None, topic=m.topic,
                   source_text=m.source_text)


@dataclass(frozen=True, slots=True)
class GateState:
    """What the store holds that the candidate could touch, read in the write transaction.

    current: the active memory of the candidate's slot, if any.
    same_subject: other active memories whose subject is the candidate's subject.
    duplicate_id: an active memory identical to the candidate AS IT WILL BE STORED (look it
    up with the content `screen()` returns, or a redacted candidate never matches).
    now: the time of the write, epoch ms (expiry checks are skipped when None).
    scope_key: Scope.key() the state was read for; "" skips the check.
    """

    current: MemoryView | None = None
    same_subject: tuple[MemoryView, ...] = ()
    duplicate_id: str | None = None
    now: int | None = None
    scope_key: str = ""
    # The live memories the semantic lookup found for the candidate (reads/related.py),
    # best first, each with its closeness 0..1 and the meaning part of it alone.
    matches: tuple[tuple[MemoryView, float, float], ...] = ()
    # Matches the conversation itself ties to the candidate (an earlier sentence of the
    # same message changed it; a line that settles a thread refers to it).
    linked: frozenset[str] = frozenset()
    # Matches in the candidate's topic class by meaning (reads/related.py, topicscore.py):
    # id -> whether that topic holds one value at a time.
    topical: Mapping[str, bool] = field(default_factory=dict)
    # That class's name (every `topical` match shares the candidate's class).
    topic_class: str = ""


@dataclass(frozen=True, slots=True)
class GatePolicy:
    """The gate's knobs. Defaults follow the seed article: inferred facts count half, and
    with a 0.6 threshold that means no inferred fact is activated without review.

    inferred_confidence_discount: multiplier for system_inferred confidence (models
      overrate themselves: "the user likes coffee" at 0.98 from a shared article).
    stage_below_confidence: effective confidence below this is staged, for every source.
    pii: per kind (phone, id_number, card, email, secret): "redact" (default), "stage"
        or "allow".
    max_content_chars: longer content is rejected.
    operator_roles: actor roles allowed to write source admin_manual.
    stage_sources: sources whose candidates always go to review (e.g. {"tool"}).
    """

    inferred_confidence_discount: float = 0.5
    stage_below_confidence: float = 0.6
    pii: Mapping[str, str] = field(default_factory=lambda: dict.fromkeys(PLACEHOLDERS,
                                                                          "redact"))
    max_content_chars: int = MAX_CONTENT_CHARS
    operator_roles: frozenset[str] = frozenset({"admin", "operator"})
    stage_sources: frozenset[str] = frozenset()
    # How close a matched memory must be to be the one a statement concerns.
    thresholds: Thresholds = field(default_factory=Thresholds)

    def __post_init__(self) -> None:
        for name in ("inferred_confidence_discount", "stage_below_confidence"):
            x = getattr(self, name)
            if not isinstance(x, int | float) or isinstance(x, bool) or not 0.0 <= x <= 1.0:
                raise ValueError(f"GatePolicy.{name}: expected a number in 0..1, got {x!r}")
        unknown = set(self.pii) - set(PLACEHOLDERS)
        if unknown:
            raise ValueError(f"GatePolicy.pii: unknown kind(s) {sorted(unknown)}")
        bad = {k: a for k, a in self.pii.items() if a not in PII_ACTIONS}
        if bad:
            raise ValueError(f"GatePolicy.pii: actions must be one of {PII_ACTIONS}, got {bad}")
        if self.max_content_chars < 1:
            raise ValueError("GatePolicy.max_content_chars: must be >= 1")

    def pii_action(self, kind: str) -> str:
        return self.pii.get(kind, "redact")


@dataclass(frozen=True, slots=True)
class Decision:
    """What to do with a candidate, and why.

    content, value, source_text: what to store (redacted when the policy says so); store
      these, never the candidate's originals.
    confidence: the effective confidence (after the inference discount) to store.
    target_id: the memory to update (update, and stage on a slot that has a value), the
      duplicate (noop), or the frozen memory (block).
    links: memories a staged conflict contradicts (the reviewer sees both sides).
    supersedes: memories without the candidate's slot that an accepted candidate replaces
      (mark them superseded in the same transaction).
    pii: sensitive spans found in the ORIGINAL content (kinds only, never the values).
    flags: (field, finding) for command/injection matches; field is content, source_text
      or value, and the span indexes that field as stored (after redaction).
    """

    action: Action
    reasons: tuple[Reason, ...]
    content: str
    value: Any
    source_text: str | None
    confidence: float
    target_id: str | None = None
    links: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()
    message: str = ""
    pii: tuple[PiiFinding, ...] = ()
    flags: tuple[tuple[str, InstructionFinding], ...] = ()

    @property
    def status(self) -> str | None:
        """The status to store the candidate with, or None when nothing is stored."""
        return {Action.ADD: "active", Action.UPDATE: "active",
                Action.STAGE: "pending"}.get(self.action)

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action.value, "reasons": [r.value for r in self.reasons],
                "content": self.content, "value": self.value, "source_text": self.source_text,
                "confidence": self.confidence, "target_id": self.target_id,
                "links": list(self.links), "supersedes": list(self.supersedes),
                "message": self.message,
                "pii": [{"kind": f.kind, "start": f.start, "end": f.end} for f in self.pii],
                "flags": [{"field": name, "kind": f.kind, "code": f.code, "start": f.start,
                           "end": f.end} for name, f in self.flags]}

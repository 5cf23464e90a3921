"""What an extractor proposes (`CandidateMemory`), what it is (`Extractor`) and what it
raises when it cannot do its job (`ExtractionError`). The flags a candidate may carry are
listed in the package docstring (memvault.extract)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..errors import MemvaultError, ValidationError
from ..model import Kind
from .messages import Message

# The sources an extractor may claim; admin_manual and import belong to other paths.
SOURCES: frozenset[str] = frozenset({"user_explicit", "system_inferred", "document", "tool"})


class ExtractionError(MemvaultError):
    """An extractor could not produce a trustworthy answer (endpoint down, malformed or
    schema-invalid output after the bounded retries). Never means "nothing to extract":
    that is an empty list."""

    code = "extraction_failed"

    def __init__(self, message: str, *, attempts: int = 0,
                 errors: list[str] | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.errors = list(errors or [])


@dataclass(slots=True)
class CandidateMemory:
    """A proposed memory. `source_text` is an exact substring of the message `message_id`
    names (the extractor guarantees it), so a reviewer can always find where it came from.

    `ttl` is a duration string ("90d") counted from the message time `at` when given.
    `replaces` is the value the user moved away from or rejected ("不要短信，改成邮件"
    → value "email", replaces "SMS"); the gate can compare it with the slot's current value.
    """

    content: str
    kind: str
    slot: str | None
    value: Any
    source: str
    confidence: float
    source_text: str
    message_id: str | None = None
    explicit: bool = False
    change_of_mind: bool = False
    subject: str | None = None
    ttl: str | None = None
    replaces: Any = None
    flags: list[str] = field(default_factory=list)
    note: str | None = None
    at: int | None = None
    extractor: str | None = None
    # What it is about when no slot names it; None: derived from the content when stored.
    topic: str | None = None
    # What the statement takes back ("" when it names nothing); None: not a retraction.
    retraction: str | None = None
    # Kept only if it changes or takes back a memory it matches (flag "tentative").
    tentative: bool = False
    # The extractor's own reading of what it does to stored memory ("add", "update",
    # "forget", "none") and the memory it names (an LLM's; the gate checks the id).
    intent: str | None = None
    intent_target: str | None = None
    # A bare-value reply that says no to the assistant's check of a stored value ("your
    # class is Tuesday, right?" / "no, Wednesday"): that check, which names the value the
    # reply corrects (readbacks.py).
    asked: str | None = None

    def __post_init__(self) -> None:
        # A bad candidate is a bug in an extractor: fail where it is made, not in the gate.
        if self.kind not in {k.value for k in Kind}:
            raise ValidationError(f"candidate kind: {self.kind!r} is not a memory kind")
        if self.source not in SOURCES:
            raise ValidationError(f"candidate source: {self.source!r} is not one of "
                                  f"{', '.join(sorted(SOURCES))}")
        if isinstance(self.confidence, bool) or not 0.0 <= float(self.confidence) <= 1.0:
            raise ValidationError(f"candidate confidence: {self.confidence!r} is outside 0..1")
        if not self.content.strip() or not self.source_text.strip():
            raise ValidationError("candidate: content and source_text must not be empty")
        if self.explicit and self.source != "user_explicit":
            raise ValidationError("candidate: only a user_explicit candidate can be explicit")
        if self.intent not in (None, "add", "update", "forget", "none"):
            raise ValidationError(f"candidate intent: {self.intent!r} is not add, update, "
                                  "forget or none")

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["flags"] = list(self.flags)
        return d


@runtime_checkable
class Extractor(Protocol):
    """Proposes candidates from a conversation, in message order (a later candidate for
    the same slot reflects a later statement). Raises ExtractionError rather than
    returning an empty list when it could not do its job."""

    name: str

    def extract(self, messages: list[Message]) -> list[CandidateMemory]: ...


def candidate_metadata(c: Any, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a candidate's memory carries in metadata besides the caller's own keys."""
    extra = {**(metadata or {})}
    extra |= {k: val for k, val in (("flags", list(getattr(c, "flags", []) or [])),
                                   ("replaces", getattr(c, "replaces", None)),
                                   ("change_of_mind", getattr(c, "change_of_mind", False)),
                                   ("note", getattr(c, "note", None)),
                                   ("message_id", getattr(c, "message_id", None)),
                                   ("subject", c.subject),
                                   ("said_at", getattr(c, "at", None))) if val}
    return extra

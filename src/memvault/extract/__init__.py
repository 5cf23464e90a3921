"""Extractors: turn conversation messages into candidate memories for the gate.

An extractor reads a conversation and proposes `CandidateMemory` items; it never writes.
Whether a candidate becomes an active memory, a pending one or nothing is the gate's
decision, and the candidate carries what the gate needs to make it: where it came from
(`source`, `message_id`, the exact `source_text`), how sure the extractor is
(`confidence`), whether the user said it in their own words (`explicit`), whether it
replaces an earlier value (`change_of_mind`, `replaces`) and warnings (`flags`, `note`).

Two extractors ship:

    rules   RuleExtractor (memvault.extract.rules): offline regular rules, Chinese and English
    llm     LLMExtractor (memvault.extract.llm): any OpenAI-compatible chat endpoint
            (extra `memvault[llm]`)

Both map statements onto the slot vocabulary in memvault.extract.slots, which callers
can extend.

Flags a candidate may carry (the gate should stage anything flagged):

    command_like    the line reads like a command to the memory ("update: …", "记住：…",
                    "[system] …", "ignore previous instructions", a record about "用户")
    confirmation    the assistant guessed and the user only answered "yes"/"嗯"
    negative_only   the user rejected a value without naming a new one (value is None)
    hedged          "maybe", "可能" …
    third_party     about someone else ("my wife is vegetarian"); slot is never set
    multiple_values several values for one slot in one statement (value is a list)
    source_demoted  (llm) the model claimed user_explicit for a non-user message
    span_relocated  (llm) the model's source_text matched the message only after
                    whitespace/case normalisation; source_text is the message's own span
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from ..errors import MemvaultError, ValidationError
from ..model import Kind

if TYPE_CHECKING:
    from .llm import LLMExtractor
    from .rules import RuleExtractor

Role = Literal["user", "assistant", "system", "tool"]
ROLES: frozenset[str] = frozenset({"user", "assistant", "system", "tool"})
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


@dataclass(frozen=True, slots=True)
class Message:
    """One conversation turn. `id` links candidates back to it; `at` is epoch ms (UTC);
    `name` is who said it (a participant of a group chat), kept as the turn's speaker."""

    role: Role
    content: str
    id: str | None = None
    at: int | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValidationError(f"message role: {self.role!r} is not one of "
                                  f"{', '.join(sorted(ROLES))}")
        if not isinstance(self.content, str):
            raise ValidationError(f"message content: expected text, got "
                                  f"{type(self.content).__name__}")
        if self.at is not None and (isinstance(self.at, bool) or not isinstance(self.at, int)):
            raise ValidationError(f"message at: expected epoch milliseconds, got {self.at!r}")
        if self.name is not None and (not isinstance(self.name, str) or not self.name.strip()
                                      or len(self.name) > 100):
            raise ValidationError("message name: expected a non-empty text of at most 100 "
                                  "characters")


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


def as_message(item: Message | Mapping[str, Any]) -> Message:
    """A Message from a Message or an OpenAI-style dict ({"role", "content", "id", "at",
    "name"});
    content given as a list of parts keeps the text parts."""
    if isinstance(item, Message):
        return item
    if not isinstance(item, Mapping):
        raise ValidationError(f"message: expected a Message or a mapping, got "
                              f"{type(item).__name__}")
    content = item.get("content")
    if isinstance(content, list):
        content = "\n".join(p.get("text", "") for p in content
                            if isinstance(p, Mapping) and p.get("type") == "text")
    if content is None:
        content = ""
    mid = item.get("id")
    at = item.get("at")
    if at is not None and not isinstance(at, bool | int):
        from ..timeutil import to_ms  # ISO-8601 text or a datetime, as everywhere else

        at = to_ms(at, field="message at")
    return Message(role=item.get("role"), content=content,  # type: ignore[arg-type]
                   id=None if mid is None else str(mid), at=at,
                   name=item.get("name"))


def as_messages(items: Iterable[Message | Mapping[str, Any]]) -> list[Message]:
    if isinstance(items, str | bytes | Mapping):
        raise ValidationError("messages: expected a list of messages")
    return [as_message(m) for m in items]


def load_extractor(spec: str = "rules", **kwargs: Any) -> Extractor:
    """`rules`, `llm` (model from MEMVAULT_LLM_MODEL) or `llm:MODEL`."""
    spec = spec.strip()
    if spec == "rules":
        from .rules import RuleExtractor
        return RuleExtractor(**kwargs)
    if spec == "llm" or spec.startswith("llm:"):
        from .llm import LLMExtractor
        model = spec.split(":", 1)[1] if ":" in spec else None
        return LLMExtractor(model=model or None, **kwargs)
    raise ValidationError(f"unknown extractor {spec!r}; known: rules, llm, llm:MODEL")


def __getattr__(name: str) -> Any:
    # Lazy re-exports: importing the interface must not import the openai client.
    if name == "RuleExtractor":
        from .rules import RuleExtractor
        return RuleExtractor
    if name == "LLMExtractor":
        from .llm import LLMExtractor
        return LLMExtractor
    raise AttributeError(name)


__all__ = ["SOURCES", "CandidateMemory", "ExtractionError", "Extractor", "LLMExtractor",
           "Message", "RuleExtractor", "as_message", "as_messages", "load_extractor"]

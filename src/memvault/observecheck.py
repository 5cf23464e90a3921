"""The checks of one observe() call: its messages and source_ref before anything is
extracted or stored, and each candidate an extractor returns before it reaches the gate
(an extractor is user code: what it returns is input like any other)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import validate as v
from .errors import ValidationError
from .extract.candidate import candidate_metadata
from .timeutil import duration_ms

if TYPE_CHECKING:
    from .extract import Message


def check_observe(messages: Any, source_ref: Any) -> tuple[list[Message], str | None]:
    """The messages and source_ref of one observe() call, checked before anything is
    extracted or stored (also what the server checks before it queues an async observe)."""
    from .extract import as_messages

    if not isinstance(messages, list | tuple) or not messages:
        raise ValidationError("messages: expected a non-empty list of {role, content}")
    if len(messages) > v.MAX_MESSAGES:
        raise ValidationError(f"messages: {len(messages)} in one call; at most "
                              f"{v.MAX_MESSAGES} (observe a long history in parts, or load "
                              "it with remember_many / import)")
    try:
        msgs = as_messages(messages)
    except (TypeError, ValueError, KeyError) as e:
        raise ValidationError(f"messages: {e}") from None
    for m in msgs:
        v.text(m.content, "message content", max_chars=v.MAX_CONTENT_CHARS)
    return msgs, v.text(source_ref, "source_ref", max_chars=512, required=False)


def check_candidate(c: Any, n: int) -> None:
    from .extract import CandidateMemory

    if not isinstance(c, CandidateMemory):
        raise ValidationError(f"extractor: candidate {n} is not a CandidateMemory (got "
                              f"{type(c).__name__})")
    try:
        v.text(c.content, "content", max_chars=v.MAX_CONTENT_CHARS)
        v.text(c.source_text, "source_text", max_chars=v.MAX_CONTENT_CHARS)
        v.slot(c.slot)
        if c.value is not None:
            v.json_value(c.value, "value")
        if c.ttl is not None:
            duration_ms(c.ttl)
        if not isinstance(c.flags, list) or not all(isinstance(f, str) for f in c.flags):
            raise ValidationError("flags: expected a list of text")
        if c.at is not None:
            v.epoch_ms(c.at, "at")
        v.metadata(candidate_metadata(c))
    except ValidationError as e:
        raise ValidationError(f"extractor: candidate {n}: {e.message}") from None

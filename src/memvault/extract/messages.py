"""Conversation turns as extractors read them: `Message`, and `as_messages` for the
OpenAI-style dicts callers pass."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import ValidationError
from ..validate import label

Role = Literal["user", "assistant", "system", "tool"]
ROLES: frozenset[str] = frozenset({"user", "assistant", "system", "tool"})


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
        # Both are printed on lines of their own (turn metadata, the context section).
        if self.id is not None:
            label(self.id, "message id")
        if self.name is not None:
            label(self.name.strip(), "message name")



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


"""LangChain's `BaseChatMessageHistory` over memvault turns.

`MemvaultChatMessageHistory(vault, tenant=..., user=..., session=...)` is one
conversation: a session scope. `add_messages` hands the messages to `Vault.observe`, so
they are kept as real turns (the short-term layer, summaries, purge) and what the user
says is read for memories through the gate, like any observed conversation. `messages`
is the session's last turns (`Vault.recent`, at most 1,000), oldest first, with their
roles. `clear` forgets the session's turns: they leave the history and every read, their
revisions stay (rollback brings one back), and the memories extracted from them stay
(forget or purge those by id).

Turns hold text: a message is Human, AI or System text (an AI message that calls tools,
a tool result or a message with no text is refused with a ValueError, nothing stored).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
)

from .. import validate as v
from ..errors import ValidationError
from ..vault import Vault
from . import turns
from .turns import HistoryValueError

__all__ = ["HistoryValueError", "MemvaultChatMessageHistory"]

_ROLE = {HumanMessage: "user", AIMessage: "assistant", SystemMessage: "system"}
_CLASS = {role: cls for cls, role in _ROLE.items()}


def _as_turn(m: Any) -> dict[str, Any]:
    role = _ROLE.get(type(m))
    if role is None:
        raise HistoryValueError(f"message: expected a HumanMessage, AIMessage or "
                                f"SystemMessage, got {type(m).__name__}")
    if isinstance(m, AIMessage) and (m.tool_calls or m.invalid_tool_calls):
        raise HistoryValueError("message: an AI message that calls tools is not a text turn")
    if not isinstance(m.content, str):
        raise HistoryValueError("message: content must be text (parts are not kept)")
    turn: dict[str, Any] = {"role": role, "content": m.content}
    if m.id:
        turn["id"] = m.id
    if m.name:
        turn["name"] = m.name
    return turn


class MemvaultChatMessageHistory(BaseChatMessageHistory):
    """One session's messages as memvault turns. `extractor` is passed to observe (None:
    the strategy's); `actor` is recorded in every revision."""

    def __init__(self, vault: Vault, *, tenant: str, user: str, session: str,
                 agent: str | None = None, extractor: Any = None,
                 actor: str = "langchain") -> None:
        if not isinstance(vault, Vault):
            raise TypeError(f"vault: expected a memvault Vault, got {type(vault).__name__}")
        self.vault = vault
        self.scope = turns.session_scope(tenant, user, session, agent)
        self.extractor = extractor
        self.actor = v.actor(actor)

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        out: list[BaseMessage] = []
        for m in turns.read(self.vault, self.scope):
            role = m.metadata.get("role", "")
            ids = {"id": m.metadata.get("message_id"), "name": m.metadata.get("speaker")}
            cls = _CLASS.get(role)
            # A tool turn observed by other code: its role kept, not passed off as a user's.
            out.append(cls(content=m.content, **ids) if cls else
                       ChatMessage(content=m.content, role=str(role or "user"), **ids))
        return out

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        if isinstance(messages, BaseMessage) or not isinstance(messages, Sequence):
            raise HistoryValueError("messages: expected a list of messages")
        batch = [_as_turn(m) for m in messages]  # every one checked before any is stored
        if not batch:
            return
        try:
            self.vault.observe(self.scope, batch, extractor=self.extractor,
                               actor=self.actor)
        except ValidationError as e:
            raise HistoryValueError(e.message) from None

    def clear(self) -> None:
        turns.forget_all(self.vault, self.scope, actor=self.actor,
                         reason="langchain history cleared")

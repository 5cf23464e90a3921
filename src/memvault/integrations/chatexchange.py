"""One chat exchange with memory, for the OpenAI-compatible wrapper (openai_chat.py): the
request's last user message is the query for the memory section, the section goes in as a
system message, and afterwards the user message and the reply are observed through the
gate. It reads the request and response shapes of the chat completions API and calls the
vault's verbs (context, observe); it knows nothing of the client that sends the request."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import MemvaultError, ValidationError
from ..model import Scope

log = logging.getLogger("memvault.integrations.openai_chat")

# on_error(stage, error): stage is "context" (the section could not be built and the call
# went on without it) or "observe" (the exchange could not be observed; the answer stands).
OnError = Callable[[str, BaseException], None]

CONTEXT_ERROR_POLICIES = ("raise", "continue")
# The roles that set up a conversation: the memory section goes after them, so the app's
# own system prompt stays first.
_PREAMBLE_ROLES = ("system", "developer")


class MemoryContextError(MemvaultError):
    """The memory section for a chat request could not be built, and the wrapper was set
    to refuse the call rather than answer without memory (on_context_error="raise", the
    default). No request was sent and nothing was stored; the cause is chained."""

    code = "context_unavailable"


def field(obj: Any, name: str) -> Any:
    """A field of a request or response part, whether it is a mapping (request params, a
    plain-JSON client) or an object (the openai package's pydantic models)."""
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def text_of(content: Any) -> str | None:
    """The text of a message's content: a string, or the text parts of a list of parts
    (images and audio carry no text to look memory up with)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list | tuple):
        parts = [field(p, "text") for p in content if field(p, "type") == "text"]
        return "\n".join(p for p in parts if isinstance(p, str)) or None
    return None


# The roles that answer a user message: one after it means an earlier call of this
# conversation already sent the message (and observed it). "function" is the legacy name
# of "tool". An app instruction after it (system, developer) answers nothing.
_ANSWER_ROLES = ("assistant", "tool", "function")


@dataclass(frozen=True, slots=True)
class UserTurn:
    """The request's last user message: its text (the query for the memory section), and
    whether it is new — nothing has answered it yet. It is not when the request goes on
    after it with the model's own messages (tool calls and their results): the call that
    first sent it observed it already, so this one observes only the reply."""

    text: str
    new: bool


def last_user_turn(messages: Any) -> UserTurn:
    """The request's last user message; a typed error when there is none to look memory up
    with (checked before anything is read, stored or sent)."""
    if not isinstance(messages, list | tuple):
        raise ValidationError("messages: expected a list of chat messages "
                              f"({{role, content}}), got {type(messages).__name__}")
    for n in range(len(messages) - 1, -1, -1):
        if field(messages[n], "role") == "user":
            text = text_of(field(messages[n], "content"))
            if text is None or not text.strip():
                raise ValidationError("messages: the last user message has no text to "
                                      "recall memory for")
            answered = any(field(m, "role") in _ANSWER_ROLES for m in messages[n + 1:])
            return UserTurn(text, new=not answered)
    raise ValidationError("messages: no user message (the wrapper recalls memory for the "
                          "last one and observes it with the reply)")


def with_section(messages: list[Any] | tuple[Any, ...], section: str) -> list[Any]:
    """A new message list with the memory section as a system message after the leading
    system/developer messages (the caller's list is never changed). An empty section (no
    memory for this query) adds nothing."""
    out = list(messages)
    if not section:
        return out
    at = 0
    while at < len(out) and field(out[at], "role") in _PREAMBLE_ROLES:
        at += 1
    out.insert(at, {"role": "system", "content": section})
    return out


def reply_text(response: Any) -> str:
    """The assistant's text in a (non-streamed) response: its first choice's content; ""
    when the model answered with tool calls only."""
    choices = field(response, "choices") or []
    if not choices:
        return ""
    content = field(field(choices[0], "message"), "content")
    return content if isinstance(content, str) else ""


def delta_text(chunk: Any) -> str:
    """The text a streamed chunk adds to the first choice ("" for a usage-only chunk)."""
    for choice in field(chunk, "choices") or []:
        if (field(choice, "index") or 0) == 0:
            content = field(field(choice, "delta"), "content")
            return content if isinstance(content, str) else ""
    return ""


@dataclass(frozen=True, slots=True)
class ChatMemory:
    """What a wrapped client remembers with: the vault, the one scope it reads and writes
    (from configuration, never from a request), and what to do when memory fails. With a
    session, the section reads the user-wide scope with that session's recent turns, and
    the exchange is kept in the session (`conversation`), so the next call's short-term
    layer has it and another session of the user does not."""

    vault: Any  # a Vault or a Client (anything with their context and observe verbs)
    scope: Scope
    budget: int | None  # tokens for the section; None: the strategy file's context budget
    session: str | None
    on_context_error: str  # "raise" or "continue"
    on_error: OnError | None

    @property
    def conversation(self) -> Scope:
        """Where the exchange is observed: the scope, narrowed to the session if any."""
        if self.session is None or self.scope.session:
            return self.scope
        return Scope(self.scope.tenant, self.scope.user, self.scope.agent, self.session)

    def section(self, query: str) -> str:
        """The rendered memory section for `query` (already safe to paste: data inside
        unforgeable markers, see layers/section.py); "" if it failed and the policy is to
        continue without memory."""
        try:
            return str(self.vault.context(self.scope, query, budget=self.budget,
                                          session=self.session).text)
        except Exception as e:
            if self.on_context_error == "raise":
                raise MemoryContextError(f"the memory section could not be built: {e}") from e
            self.report("context", e)
            return ""

    def observe(self, user: UserTurn, reply: str) -> None:
        """Observe the user message (when new) and the reply (when it has text) through
        the gate: extraction, then each candidate checked. A failure is reported, never
        raised: the answer stands."""
        messages = [{"role": "user", "content": user.text}] if user.new else []
        if reply:
            messages.append({"role": "assistant", "content": reply})
        if not messages:  # a tool-calls-only answer to a request that goes on
            return
        try:
            result = self.vault.observe(self.conversation, messages)
        except Exception as e:
            self.report("observe", e)
            return
        for err in getattr(result, "errors", None) or []:  # after-observe steps; writes stand
            log.warning("memvault: after observing the exchange: %s", err)

    def report(self, stage: str, error: BaseException) -> None:
        log.warning("memvault: %s failed for the chat call: %s", stage, error,
                    exc_info=error)
        if self.on_error is None:
            return
        try:
            self.on_error(stage, error)
        except Exception:  # the hook's own failure must not lose the model's answer either
            log.exception("memvault: the on_error hook failed")

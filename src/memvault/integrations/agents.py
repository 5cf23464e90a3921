"""The OpenAI Agents SDK over memvault: a `Session` backed by turns, and memory tools.

`MemvaultSession(vault, tenant=..., user=..., session_id=...)` implements the SDK's
`Session` protocol (`agents.memory.Session`): each item a run adds is kept as a turn of
that session scope (the short-term layer, summaries and purge apply): its text is the
turn's content, the rest of the item the turn's metadata, so the next run gets it back as
it was. `get_items` reads the last turns (`Vault.recent`, at most 1,000), `pop_item`
forgets the newest, `clear_session` forgets them all (revisions stay). A turn observed
into the same session by other code comes back as a message of role and content.

`memory_tools(vault, scope)` returns function tools for the model: `recall_memory`,
`remember_memory` (through the gate: `Vault.propose`, so a model's statement can be
staged for review or refused) and `forget_memory`. The scope is fixed here; no tool takes
a user, tenant or scope argument, and an input guardrail rejects a call that brings any
argument its schema lacks (the SDK itself would drop it silently). A refused call comes
back to the model as the tool's error text; nothing is stored.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agents import (
    FunctionTool,
    RunContextWrapper,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
    function_tool,
)

from .. import validate as v
from ..errors import MemvaultError, ValidationError
from ..model import Memory, Scope, Source
from ..vault import Vault
from . import turns
from .turns import HistoryValueError

__all__ = ["HistoryValueError", "MemvaultSession", "memory_tools"]

_SOURCE = {"user": Source.USER_EXPLICIT.value, "tool": Source.TOOL.value}


def _role(item: dict[str, Any]) -> str:
    kind = item.get("type")
    if kind == "function_call_output" or str(kind).endswith("_call_output"):
        return "tool"
    role = item.get("role")
    if role in ("user", "assistant", "system", "tool"):
        return str(role)
    if role == "developer":
        return "system"
    return "assistant"  # the model's own items: tool calls, reasoning


def _text(item: dict[str, Any]) -> str:
    """What the turn says, for search and summaries."""
    content = item.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(str(p.get("text", "")) for p in content
                         if isinstance(p, dict) and isinstance(p.get("text"), str))
    elif item.get("type") == "function_call":
        text = f"{item.get('name')}({item.get('arguments', '')})"
    elif "output" in item:
        out = item["output"]
        text = out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)
    else:
        text = ""
    return text if v.visible(text) else json.dumps(item, ensure_ascii=False)


# Where an item's text sits when the turn's content is exactly that text: the metadata
# then keeps the item without it (metadata holds 16 KB, content 16,000 characters), and
# reading puts the content back there ("content", "content.0.text" or "output").


def _without_text(item: dict[str, Any], text: str) -> tuple[dict[str, Any], str | None]:
    if item.get("content") == text:
        return {k: x for k, x in item.items() if k != "content"}, "content"
    parts = item.get("content")
    if (isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], dict)
            and parts[0].get("text") == text):
        part = {k: x for k, x in parts[0].items() if k != "text"}
        return {**item, "content": [part]}, "content.0.text"
    if item.get("output") == text and "content" not in item:
        return {k: x for k, x in item.items() if k != "output"}, "output"
    return item, None


def _with_text(item: dict[str, Any], at: Any, text: str) -> dict[str, Any]:
    if at == "content":
        return {**item, "content": text}
    if at == "content.0.text" and isinstance(item.get("content"), list) and item["content"]:
        return {**item, "content": [{**item["content"][0], "text": text}]}
    if at == "output":
        return {**item, "output": text}
    return item


class MemvaultSession:
    """An Agents SDK session whose items are memvault turns of one session scope."""

    session_settings = None

    def __init__(self, vault: Vault, *, tenant: str, user: str, session_id: str,
                 agent: str | None = None, actor: str = "agents-sdk") -> None:
        if not isinstance(vault, Vault):
            raise TypeError(f"vault: expected a memvault Vault, got {type(vault).__name__}")
        self.vault = vault
        self.scope = turns.session_scope(tenant, user, session_id, agent)
        self.session_id = session_id
        self.actor = v.actor(actor)

    @staticmethod
    def item_of(m: Memory) -> dict[str, Any]:
        """The item a turn keeps; a turn observed by other code, as a message."""
        item = m.metadata.get("item")
        if not isinstance(item, dict):
            return {"role": m.metadata.get("role", "user"), "content": m.content}
        return _with_text(item, m.metadata.get("text_at"), m.content)

    def items(self, limit: int | None = None) -> list[dict[str, Any]]:
        return [self.item_of(m) for m in turns.read(self.vault, self.scope, limit)]

    def add(self, items: list[Any]) -> None:
        if not isinstance(items, list):
            raise HistoryValueError("items: expected a list of input items")
        batch = []
        for n, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                raise HistoryValueError(f"item {n}: expected an object, got "
                                        f"{type(item).__name__}")
            role = _role(item)
            text = _text(item)
            kept, at = _without_text(item, text)
            batch.append({"scope": self.scope, "content": text, "kind": "turn",
                          "source": _SOURCE.get(role, Source.SYSTEM_INFERRED.value),
                          "metadata": {"role": role, "item": kept,
                                       **({"text_at": at} if at else {})}})
        if not batch:
            return
        try:  # one transaction: every item is checked before any is stored
            self.vault.remember_many(batch, actor=self.actor, reason="agents sdk session")
        except ValidationError as e:
            raise HistoryValueError(e.message) from None

    def pop(self) -> dict[str, Any] | None:
        last = turns.read(self.vault, self.scope, 1)
        if not last:
            return None
        self.vault.forget(self.scope, last[0].id, actor=self.actor,
                          reason="agents sdk session pop")
        return self.item_of(last[0])

    # The Session protocol (async): the vault's work runs in a worker thread.
    async def get_items(self, limit: int | None = None) -> list[Any]:
        return await asyncio.to_thread(self.items, limit)

    async def add_items(self, items: list[Any]) -> None:
        await asyncio.to_thread(self.add, items)

    async def pop_item(self) -> Any | None:
        return await asyncio.to_thread(self.pop)

    async def clear_session(self) -> None:
        await asyncio.to_thread(turns.forget_all, self.vault, self.scope, actor=self.actor,
                                reason="agents sdk session cleared")


def _tool_error(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """memvault's own errors are about the arguments: the model may read them."""
    cause = error.__cause__ if isinstance(error.__cause__, MemvaultError) else error
    if isinstance(cause, MemvaultError):
        return f"error {cause.code}: {cause.message}"
    return "error: the memory tool failed"


def _only_declared(tool: FunctionTool) -> ToolInputGuardrail[Any]:
    """Reject a call with arguments the tool does not declare ("user": "bob"): the scope
    is configuration, and a model trying to choose it is told so, not silently ignored."""
    declared = set(tool.params_json_schema.get("properties", {}))

    def check(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        try:
            args = json.loads(data.context.tool_arguments or "{}")
        except ValueError:
            args = None
        if not isinstance(args, dict):
            return ToolGuardrailFunctionOutput.reject_content(
                "error invalid_input: the arguments must be a JSON object")
        extra = sorted(set(args) - declared)
        if extra:
            return ToolGuardrailFunctionOutput.reject_content(
                f"error invalid_input: unknown argument(s) {', '.join(extra)}; the memory "
                "scope (tenant, user, agent, session) is fixed by configuration")
        return ToolGuardrailFunctionOutput.allow()

    return ToolInputGuardrail(guardrail_function=check, name="memvault_declared_arguments")


def memory_tools(vault: Vault, scope: Scope | dict[str, str], *, top_k: int = 5,
                 actor: str = "agent") -> list[FunctionTool]:
    """recall_memory, remember_memory and forget_memory over `scope` (fixed here)."""
    if not isinstance(vault, Vault):
        raise TypeError(f"vault: expected a memvault Vault, got {type(vault).__name__}")
    sc = v.scope(scope)
    who = v.actor(actor)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= 50:
        raise ValidationError("top_k: expected a whole number in 1..50")

    def recall_memory(query: str) -> str:
        """Search the user's long-term memory.

        Args:
            query: What to look for, in plain words.
        """
        hits = vault.recall(sc, query, top_k=top_k)
        return json.dumps([{"id": h.memory.id, "content": h.memory.content,
                            "score": round(h.score, 3)} for h in hits], ensure_ascii=False)

    def remember_memory(statement: str) -> str:
        """Ask to remember a statement about the user; it may be kept, staged for review
        or refused.

        Args:
            statement: One self-contained statement, e.g. "prefers tea over coffee".
        """
        out = vault.propose(sc, statement, actor=who, actor_role="agent",
                            reason="agents sdk remember_memory tool")
        return json.dumps({"action": out.action, "memory_id": out.memory_id,
                           "reasons": out.reasons})

    def forget_memory(memory_id: str) -> str:
        """Stop using a memory (its history is kept).

        Args:
            memory_id: The id a recall returned.
        """
        m = vault.forget(sc, memory_id, actor=who, reason="agents sdk forget_memory tool")
        return json.dumps({"forgotten": m.id, "version": m.version})

    tools = [function_tool(f, failure_error_function=_tool_error)
             for f in (recall_memory, remember_memory, forget_memory)]
    for t in tools:
        t.tool_input_guardrails = [_only_declared(t)]
    return tools

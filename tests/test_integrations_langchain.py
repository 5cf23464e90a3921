"""MemvaultChatMessageHistory against the real langchain-core: the round trip after
reopening the store, turns that are real turns (short-term layer, summaries, purge),
clear as forget, and bad messages refused with nothing stored."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _util import backends, counts
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory

from memvault import Scope, ScopeError, ValidationError, Vault
from memvault.integrations.langchain import HistoryValueError, MemvaultChatMessageHistory

pytestmark = backends("sqlite")
S1 = Scope("acme", "alice", session="s1")


def _history(vault: Vault, session: str = "s1", **kw: Any) -> MemvaultChatMessageHistory:
    return MemvaultChatMessageHistory(vault, tenant="acme", user="alice", session=session,
                                      **kw)


def test_round_trip_after_reopening(make_vault: Any, db: str) -> None:
    vault = make_vault(db)
    h = _history(vault)
    assert isinstance(h, BaseChatMessageHistory)
    h.add_messages([SystemMessage("You are brief."),
                    HumanMessage("I prefer tea over coffee.", id="u1", name="Alice"),
                    AIMessage("Noted, tea it is.")])
    h.add_user_message("ok")
    h.add_user_message("ok")  # the same words twice are two turns
    vault.close()
    again = _history(make_vault(db))
    got = again.messages
    assert [(type(m), m.content) for m in got] == [
        (SystemMessage, "You are brief."), (HumanMessage, "I prefer tea over coffee."),
        (AIMessage, "Noted, tea it is."), (HumanMessage, "ok"), (HumanMessage, "ok")]
    assert (got[1].id, got[1].name) == ("u1", "Alice")


def test_turns_are_real_turns(vault: Vault) -> None:
    h = _history(vault)
    h.add_messages([HumanMessage("I prefer tea over coffee."), AIMessage("Noted.")])
    recent = vault.recent(S1)
    assert [(m.kind, m.metadata["role"], m.content) for m in recent] == [
        ("turn", "user", "I prefer tea over coffee."), ("turn", "assistant", "Noted.")]
    # observe read the user's statement through the gate: a memory beside the turns
    (pref,) = vault.list(S1, kind="preference")
    assert pref.metadata["turn_id"] == recent[0].id
    (summary,) = vault.summarize(S1)
    assert set(summary.metadata["covers"]) == {m.id for m in recent}
    vault.purge(S1, recent[1].id)
    assert [m.content for m in h.messages] == ["I prefer tea over coffee."]


def test_turns_observed_elsewhere_keep_their_role(vault: Vault) -> None:
    vault.observe(S1, [{"role": "user", "content": "weather in Oslo?"},
                       {"role": "tool", "content": "4 degrees, rain"}])
    got = _history(vault).messages
    assert [(type(m), m.content) for m in got] == [(HumanMessage, "weather in Oslo?"),
                                                   (ChatMessage, "4 degrees, rain")]
    assert got[1].role == "tool"


def test_sessions_are_apart(vault: Vault) -> None:
    _history(vault, "s1").add_user_message("in one")
    _history(vault, "s2").add_user_message("in two")
    assert [m.content for m in _history(vault, "s1").messages] == ["in one"]
    other = MemvaultChatMessageHistory(vault, tenant="acme", user="bob", session="s1")
    assert other.messages == []


def test_clear_forgets_the_sessions_turns(vault: Vault) -> None:
    h = _history(vault)
    h.add_messages([HumanMessage("I prefer tea over coffee."), AIMessage("Noted.")])
    _history(vault, "s2").add_user_message("elsewhere")
    turn_ids = [m.id for m in vault.recent(S1)]
    h.clear()
    assert h.messages == []
    assert [m.content for m in _history(vault, "s2").messages] == ["elsewhere"]
    for i in turn_ids:  # forgotten, not erased: the history keeps them
        assert vault.get(S1, i).status == "deleted"
        assert len(vault.history(S1, i)) == 2
    assert vault.list(S1, kind="preference")  # what was learned stays
    h.add_user_message("fresh start")
    assert [m.content for m in h.messages] == ["fresh start"]


def test_async_verbs(vault: Vault) -> None:
    h = _history(vault)

    async def go() -> list[Any]:
        await h.aadd_messages([HumanMessage("hello"), AIMessage("hi")])
        first = await h.aget_messages()
        await h.aclear()
        return [first, await h.aget_messages()]

    first, after = asyncio.run(go())
    assert [m.content for m in first] == ["hello", "hi"] and after == []


@pytest.mark.filterwarnings("ignore:RunnableWithMessageHistory is deprecated")
def test_runnable_with_message_history(vault: Vault) -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage("Hello Alice."),
                                                AIMessage("You said your name is Alice.")]))
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"),
                                               ("human", "{question}")])
    chain = RunnableWithMessageHistory(prompt | model, lambda sid: _history(vault, sid),
                                       input_messages_key="question",
                                       history_messages_key="history")
    cfg = {"configurable": {"session_id": "chat-7"}}
    chain.invoke({"question": "My name is Alice."}, cfg)
    chain.invoke({"question": "What is my name?"}, cfg)
    assert [m.content for m in _history(vault, "chat-7").messages] == [
        "My name is Alice.", "Hello Alice.", "What is my name?",
        "You said your name is Alice."]


BAD: list[Any] = [
    [ToolMessage("42", tool_call_id="c1")],
    [AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c1"}])],
    [HumanMessage("")],
    [HumanMessage("x" * 20_000)],
    [HumanMessage([{"type": "image_url", "image_url": {"url": "data:,"}}])],
    [HumanMessage("fine"), "not a message"],
    HumanMessage("one message, not a list"),
]


@pytest.mark.parametrize("messages", BAD, ids=lambda m: repr(m)[:40])
def test_bad_messages_are_refused_and_nothing_stored(vault: Vault, messages: Any) -> None:
    h = _history(vault)
    h.add_user_message("before")
    before = counts(vault)
    with pytest.raises(HistoryValueError) as e:
        h.add_messages(messages)
    assert isinstance(e.value, ValueError) and isinstance(e.value, ValidationError)
    assert counts(vault) == before
    assert [m.content for m in h.messages] == ["before"]


def test_a_session_is_required(vault: Vault, tmp_path: Path) -> None:
    with pytest.raises(ScopeError):
        MemvaultChatMessageHistory(vault, tenant="acme", user="alice", session="")
    with pytest.raises(ScopeError):
        MemvaultChatMessageHistory(vault, tenant="acme", user="", session="s1")

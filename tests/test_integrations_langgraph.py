"""MemvaultStore against the real langgraph package: store semantics, a graph that writes
memory in one thread and reads it in another, history/rollback behind every put, and bad
input refused in LangGraph's own terms with nothing stored."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest
from _util import backends, counts
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.prebuilt import InjectedStore, create_react_agent
from langgraph.store.base import BaseStore, InvalidNamespaceError, Item, PutOp, SearchOp

from memvault import MemvaultError, Op, Scope, ScopeError, ValidationError, Vault
from memvault.integrations.langgraph import (
    MAX_DEPTH,
    BadNamespaceError,
    MemvaultStore,
    NamespaceRefusedError,
    ValueRefusedError,
)

# SQLite throughout; the PostgreSQL case at the end runs the same verbs on the other store.
pytestmark = backends("sqlite")
ALICE = Scope(tenant="acme", user="alice")


@pytest.fixture
def store(vault: Vault) -> MemvaultStore:
    return MemvaultStore(vault, tenant="acme", user="alice")


def test_put_get_versions_history_and_rollback(store: MemvaultStore, vault: Vault) -> None:
    store.put(("prefs",), "drink", {"text": "Alice drinks tea", "cups": 2})
    store.put(("prefs",), "drink", {"text": "Alice drinks coffee", "cups": 3})
    item = store.get(("prefs",), "drink")
    assert isinstance(item, Item)
    assert (item.namespace, item.key) == (("prefs",), "drink")
    assert item.value == {"text": "Alice drinks coffee", "cups": 3}
    assert item.updated_at >= item.created_at
    notes = vault.list(ALICE, kind="note")
    assert len(notes) == 1  # one memory with two versions, not two memories
    mem = notes[0]
    assert mem.version == 2 and mem.content == "Alice drinks coffee"
    hist = vault.history(ALICE, mem.id)
    assert [(r.to_version, r.actor, r.reason) for r in sorted(hist, key=lambda r: r.at)] == [
        (1, "langgraph", "langgraph store put"), (2, "langgraph", "langgraph store put")]
    assert {r.memory_id for r in vault.audit(ALICE)} == {mem.id}
    vault.rollback(ALICE, mem.id, 1, reason="wrong drink")
    back = store.get(("prefs",), "drink")
    assert back is not None and back.value == {"text": "Alice drinks tea", "cups": 2}


def test_same_value_again_is_no_new_version(store: MemvaultStore, vault: Vault) -> None:
    store.put(("prefs",), "k", {"text": "same"})
    store.put(("prefs",), "k", {"text": "same"})
    (mem,) = vault.list(ALICE, kind="note")
    assert mem.version == 1


def test_keys_are_per_namespace(store: MemvaultStore) -> None:
    store.put(("a",), "k", {"text": "in a"})
    store.put(("b",), "k", {"text": "in b"})
    store.put(("a", "b"), "k", {"text": "in a/b"})
    got = [store.get(ns, "k") for ns in [("a",), ("b",), ("a", "b")]]
    assert [i.value["text"] for i in got if i] == ["in a", "in b", "in a/b"]
    assert store.get(("c",), "k") is None and store.get(("a",), "other") is None


def test_delete_is_forget_with_history(store: MemvaultStore, vault: Vault) -> None:
    store.put(("prefs",), "drink", {"text": "tea"})
    (mem,) = vault.list(ALICE, kind="note")
    store.delete(("prefs",), "drink")
    assert store.get(("prefs",), "drink") is None
    assert store.search(("prefs",)) == []
    assert vault.get(ALICE, mem.id).status == "deleted"
    assert [r.op for r in vault.history(ALICE, mem.id)].count(Op.DELETE) == 1
    store.delete(("prefs",), "absent")  # deleting nothing is no error and no write
    assert len(vault.audit(ALICE)) == 2
    store.put(("prefs",), "drink", {"text": "water"})  # the key again: a new memory
    assert store.get(("prefs",), "drink").value == {"text": "water"}
    assert vault.get(ALICE, mem.id).status == "deleted"


def test_search_query_filter_prefix(store: MemvaultStore) -> None:
    store.put(("memories", "food"), "1", {"text": "Alice loves ramen noodles", "stars": 5})
    store.put(("memories", "food"), "2", {"text": "Alice hates olives", "stars": 1})
    store.put(("memories", "work"), "3", {"text": "Alice works as a night nurse"})
    store.put(("other",), "4", {"text": "ramen shop opening hours"})
    hits = store.search(("memories",), query="ramen noodles")
    assert hits and hits[0].key == "1" and hits[0].score is not None
    assert all(h.namespace[0] == "memories" for h in hits)  # ("other",) is outside
    assert [h.key for h in store.search(("memories", "food"), filter={"stars": 5})] == ["1"]
    assert [h.key for h in store.search(("memories",), filter={"stars": {"$lt": 3}})] == ["2"]
    assert {h.key for h in store.search(("memories",))} == {"1", "2", "3"}
    assert len(store.search((), limit=2)) == 2
    assert len(store.search((), limit=10, offset=3)) == 1


def test_index_fields_choose_the_searched_text(store: MemvaultStore, vault: Vault) -> None:
    store.put(("docs",), "d", {"title": "Quarterly report", "body": "zebra"}, index=["title"])
    (mem,) = vault.list(ALICE, kind="note")
    assert mem.content == "Quarterly report"
    assert store.get(("docs",), "d").value["body"] == "zebra"  # the whole value is kept


def test_list_namespaces(store: MemvaultStore) -> None:
    for ns in [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "c", "f"), ("x",)]:
        store.put(ns, "k", {"text": "t"})
    assert store.list_namespaces() == [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "c", "f"),
                                       ("x",)]
    assert store.list_namespaces(prefix=("a", "b")) == [("a", "b", "c"), ("a", "b", "d", "e")]
    assert store.list_namespaces(suffix=("f",)) == [("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "*", "c")) == [("a", "b", "c")]
    assert store.list_namespaces(max_depth=2) == [("a", "b"), ("a", "c"), ("x",)]
    assert store.list_namespaces(limit=1, offset=1) == [("a", "b", "d", "e")]
    store.delete(("x",), "k")
    assert ("x",) not in store.list_namespaces()


def test_scope_labels_narrow_and_never_widen(vault: Vault, store: MemvaultStore) -> None:
    store.put(("chat", "session:s1"), "k", {"text": "said in s1"})
    store.put(("user:alice", "prefs"), "k", {"text": "mine"})
    (s1,) = [m for m in vault.list(ALICE, kind="note") if m.content == "said in s1"]
    assert s1.scope == Scope("acme", "alice", session="s1")
    assert store.get(("user:alice", "prefs"), "k").value == {"text": "mine"}
    before = counts(vault)
    for ns in [("user:bob", "prefs"), ("tenant:other", "x"), ("memories", "user:bob")]:
        with pytest.raises(NamespaceRefusedError) as e:
            store.put(ns, "k", {"text": "stolen"})
        assert isinstance(e.value, InvalidNamespaceError) and isinstance(e.value, ScopeError)
        with pytest.raises(NamespaceRefusedError):
            store.get(ns, "k")
        with pytest.raises(NamespaceRefusedError):
            store.search(ns)
    agent_store = MemvaultStore(vault, tenant="acme", user="alice", agent="planner")
    with pytest.raises(NamespaceRefusedError):
        agent_store.put(("agent:writer",), "k", {"text": "x"})
    assert counts(vault) == before
    # Bob's store does not see Alice's items, whatever the namespace.
    bob = MemvaultStore(vault, tenant="acme", user="bob")
    assert bob.search(()) == [] and bob.list_namespaces() == []
    assert bob.get(("chat", "session:s1"), "k") is None


BAD_NAMESPACES: list[Any] = [
    (), ("a", 1), ("a", None), ("",), ("a.b",), ("x",) * (MAX_DEPTH + 1), ("a" * 65,),
    ("a\x00",), ("a\nb",), "prefs", ("session:",), ("session:s1", "session:s2"),
]


@pytest.mark.parametrize("ns", BAD_NAMESPACES, ids=repr)
def test_bad_namespaces_are_refused_and_nothing_stored(store: MemvaultStore, vault: Vault,
                                                       ns: Any) -> None:
    before = counts(vault)
    with pytest.raises(BadNamespaceError) as e:
        store.batch([PutOp(ns, "k", {"text": "x"})])  # directly: no BaseStore pre-check
    assert isinstance(e.value, InvalidNamespaceError) and isinstance(e.value, MemvaultError)
    with pytest.raises(InvalidNamespaceError):
        store.put(ns, "k", {"text": "x"})
    assert counts(vault) == before


@pytest.mark.parametrize("value", [
    {"text": "x" * 20_000},                       # content over memvault's limit
    {"blob": ["y" * 1000] * 20},                  # value over 16 KB as JSON
    {"n": 2**70},                                 # integer outside 64 bits
    {1: "non-text key"},
    {"f": float("nan")},
    ["not", "a", "dict"],
    "text",
])
def test_bad_values_are_refused_and_nothing_stored(store: MemvaultStore, vault: Vault,
                                                   value: Any) -> None:
    before = counts(vault)
    with pytest.raises(ValueRefusedError) as e:
        store.put(("prefs",), "k", value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, ValidationError)
    assert counts(vault) == before


def test_a_bad_op_fails_the_whole_batch(store: MemvaultStore, vault: Vault) -> None:
    before = counts(vault)
    with pytest.raises(NamespaceRefusedError):
        store.batch([PutOp(("prefs",), "a", {"text": "fine"}),
                     PutOp(("user:bob",), "b", {"text": "refused"})])
    with pytest.raises(ValueRefusedError):
        store.batch([PutOp(("prefs",), "a", {"text": "fine"}),
                     SearchOp(("prefs",), filter={"n": {"$near": 1}})])
    with pytest.raises(ValueRefusedError):
        store.batch([PutOp(("prefs",), "a", {"text": "fine"}),
                     PutOp(("prefs",), "b", {"text": "x" * 20_000})])
    assert counts(vault) == before


@pytest.mark.parametrize("key", ["", "a\nb", "x" * 200])
def test_bad_keys_are_refused(store: MemvaultStore, vault: Vault, key: str) -> None:
    before = counts(vault)
    with pytest.raises(ValueError):
        store.put(("prefs",), key, {"text": "x"})
    assert counts(vault) == before


def test_ttl_is_not_claimed(store: MemvaultStore, vault: Vault) -> None:
    with pytest.raises(NotImplementedError):
        store.put(("prefs",), "k", {"text": "x"}, ttl=5)
    assert counts(vault)["memories"] == 0


def test_async_verbs(store: MemvaultStore) -> None:
    async def go() -> tuple[Any, ...]:
        await store.aput(("a",), "k", {"text": "async tea"})
        got = await store.aget(("a",), "k")
        found = await store.asearch(("a",), query="tea")
        spaces = await store.alist_namespaces()
        await store.adelete(("a",), "k")
        return got, found, spaces, await store.aget(("a",), "k")

    got, found, spaces, gone = asyncio.run(go())
    assert got.value == {"text": "async tea"} and [i.key for i in found] == ["k"]
    assert spaces == [("a",)] and gone is None


class State(TypedDict):
    messages: Annotated[list[BaseMessage], operator.add]


def _graph(store: BaseStore, model: GenericFakeChatModel) -> Any:
    """Remembers what the user says after "remember:", and answers with what it recalls."""

    def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
        text = str(state["messages"][-1].content)
        if text.startswith("remember:"):
            store.put(("memories", "user:alice"), "fact-1", {"text": text[9:].strip()})
        return {}

    def answer(state: State, *, store: BaseStore) -> dict[str, Any]:
        found = store.search(("memories", "user:alice"), query=str(state["messages"][-1].content))
        notes = "; ".join(i.value["text"] for i in found)
        reply = model.invoke([HumanMessage(f"memory: {notes}"), *state["messages"]])
        return {"messages": [AIMessage(f"{reply.content} [{notes}]")]}

    g = StateGraph(State)
    g.add_node("remember", remember)
    g.add_node("answer", answer)
    g.add_edge(START, "remember")
    g.add_edge("remember", "answer")
    g.add_edge("answer", END)
    return g.compile(checkpointer=InMemorySaver(), store=store)


def test_graph_writes_in_one_thread_reads_in_another(store: MemvaultStore,
                                                     vault: Vault) -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage("ok"), AIMessage("You drink tea.")]))
    graph = _graph(store, model)
    one = {"configurable": {"thread_id": "thread-1"}}
    two = {"configurable": {"thread_id": "thread-2"}}
    graph.invoke({"messages": [HumanMessage("remember: Alice drinks green tea")]}, one)
    out = graph.invoke({"messages": [HumanMessage("what tea does Alice drink?")]}, two)
    last = out["messages"][-1].content
    assert last == "You drink tea. [Alice drinks green tea]"
    assert len(out["messages"]) == 2  # thread 2 has its own history: only the memory crossed
    (mem,) = vault.list(ALICE, kind="note")
    assert mem.content == "Alice drinks green tea" and "ns:memories.user:alice" in mem.tags


class ToolCallingFake(GenericFakeChatModel):
    """langchain-core's fake chat model, accepting tools (the replies are scripted)."""

    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self


@tool
def save_memory(text: str, store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Save a fact about the user."""
    store.put(("memories",), "fact", {"text": text})
    return "saved"


@tool
def search_memory(query: str, store: Annotated[BaseStore, InjectedStore()]) -> str:
    """Search the user's saved facts."""
    return "; ".join(i.value["text"] for i in store.search(("memories",), query=query))


def test_async_graph(store: MemvaultStore, vault: Vault) -> None:
    async def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
        await store.aput(("notes",), "last", {"text": str(state["messages"][-1].content)})
        found = await store.asearch(("notes",))
        return {"messages": [AIMessage(f"{len(found)} note(s)")]}

    g = StateGraph(State)
    g.add_node("remember", remember)
    g.add_edge(START, "remember")
    graph = g.compile(checkpointer=InMemorySaver(), store=store)

    async def go() -> list[Any]:
        outs = []
        for thread in ("t1", "t2"):
            out = await graph.ainvoke({"messages": [HumanMessage(f"hi from {thread}")]},
                                      {"configurable": {"thread_id": thread}})
            outs.append(out["messages"][-1].content)
        return outs

    assert asyncio.run(go()) == ["1 note(s)", "1 note(s)"]
    (mem,) = vault.list(ALICE, kind="note")
    assert mem.version == 2 and mem.value == {"text": "hi from t2"}


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_create_react_agent_tools_use_the_store(store: MemvaultStore, vault: Vault) -> None:
    def calls(name: str, args: dict[str, str]) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call-{name}"}])

    model = ToolCallingFake(messages=iter([
        calls("save_memory", {"text": "Alice is allergic to peanuts"}), AIMessage("Saved."),
        calls("search_memory", {"query": "peanuts allergy"}), AIMessage("Peanuts."),
    ]))
    agent = create_react_agent(model, [save_memory, search_memory], store=store,
                               checkpointer=InMemorySaver())
    agent.invoke({"messages": [HumanMessage("I am allergic to peanuts")]},
                 {"configurable": {"thread_id": "a"}})
    out = agent.invoke({"messages": [HumanMessage("What am I allergic to?")]},
                       {"configurable": {"thread_id": "b"}})
    tool_out = [m.content for m in out["messages"] if m.type == "tool"]
    assert tool_out == ["Alice is allergic to peanuts"]  # found from the other thread
    (mem,) = vault.list(ALICE, kind="note")
    assert mem.value == {"text": "Alice is allergic to peanuts"}
    assert vault.history(ALICE, mem.id)[0].actor == "langgraph"


@backends("postgres")
def test_store_on_postgres(store: MemvaultStore, vault: Vault) -> None:
    store.put(("prefs",), "drink", {"text": "Alice drinks tea"})
    store.put(("prefs",), "drink", {"text": "Alice drinks coffee"})
    assert store.get(("prefs",), "drink").value == {"text": "Alice drinks coffee"}
    assert [i.key for i in store.search(("prefs",), query="coffee")] == ["drink"]
    assert store.list_namespaces() == [("prefs",)]
    (mem,) = vault.list(ALICE, kind="note")
    assert mem.version == 2
    before = counts(vault)
    with pytest.raises(NamespaceRefusedError):
        store.put(("user:bob",), "drink", {"text": "x"})
    assert counts(vault) == before
    store.delete(("prefs",), "drink")
    assert store.get(("prefs",), "drink") is None


def test_langmem_tools_work_on_the_store(store: MemvaultStore, vault: Vault) -> None:
    """LangMem's own memory tools (the real package) in a react agent over MemvaultStore:
    create, search from another thread, update (a new version of the same memory, history
    kept) and delete (forget), all as memvault writes."""
    from langmem import create_manage_memory_tool, create_search_memory_tool

    ns = ("memories", "{langgraph_user_id}")
    manage = create_manage_memory_tool(namespace=ns)
    search = create_search_memory_tool(namespace=ns)

    def call(name: str, args: dict[str, Any]) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"c-{name}"}])

    def run(thread: str, said: str, *script: AIMessage) -> list[str]:
        model = ToolCallingFake(messages=iter(script))
        agent = create_react_agent(model, [manage, search], store=store,
                                   checkpointer=InMemorySaver())
        out = agent.invoke({"messages": [HumanMessage(said)]},
                           {"configurable": {"thread_id": thread, "langgraph_user_id": "u1"}})
        return [str(m.content) for m in out["messages"] if m.type == "tool"]

    made = run("a", "I moved to Lisbon", call("manage_memory", {
        "content": "Alice lives in Lisbon", "action": "create"}), AIMessage("Noted."))
    assert made and "created memory" in made[0]
    (mem,) = vault.list(ALICE, kind="note")
    key = store.search(("memories", "u1"))[0].key
    assert mem.value == {"content": "Alice lives in Lisbon"}
    found = run("b", "Where do I live?", call("search_memory", {"query": "Lisbon"}),
                AIMessage("Lisbon."))
    assert "Alice lives in Lisbon" in found[0] and key in found[0]
    run("c", "Actually Porto now", call("manage_memory", {
        "content": "Alice lives in Porto", "action": "update", "id": key}), AIMessage("Ok."))
    assert store.get(("memories", "u1"), key).value == {"content": "Alice lives in Porto"}
    assert [r.op for r in vault.history(ALICE, mem.id)] == ["create", "update"]
    run("d", "Forget where I live", call("manage_memory", {"action": "delete", "id": key}),
        AIMessage("Forgotten."))
    assert store.get(("memories", "u1"), key) is None
    assert vault.history(ALICE, mem.id)[-1].op == Op.DELETE.value

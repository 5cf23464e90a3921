"""The MCP server (`memvault mcp`), driven by the official SDK's own client over real
transports: a `memvault` process on stdio, and one serving streamable HTTP on loopback.

The adapter adds no logic to the core, so these tests are about the adapter's promises:
the verbs are reachable as typed tools, errors arrive as tool errors with memvault's code
and change nothing, the profile is a resource, and the scope is fixed by the server's
configuration so that no client can read or change another user's memory. SQLite only:
the verbs themselves are covered on both backends elsewhere.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from _util import dump
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from memvault import Scope, Vault

ALICE = Scope("acme", "alice")
BOB = Scope("acme", "bob")
TOOLS = {"remember", "recall", "context", "forget", "history", "get", "list", "profile",
         "recent", "expand", "graph_facts", "events"}
# `context` may name a conversation inside the server's fixed user (the core keeps it
# there, and a session-bound server ignores it); nothing else can name a scope field.
IN_SCOPE_ARGS = {"context": {"session"}}
CLI = [sys.executable, "-m", "memvault.cli"]


def stdio_params(db: Path, *options: str, env: dict[str, str] | None = None,
                 scope: Scope | None = ALICE) -> StdioServerParameters:
    """`python -m memvault.cli --db DB [--tenant T --user U] OPTIONS mcp` as a child
    process; `env` is added to the SDK's minimal default environment."""
    args = ["-m", "memvault.cli", "--db", str(db)]
    if scope is not None:
        args += ["--tenant", scope.tenant, "--user", scope.user]
    return StdioServerParameters(command=sys.executable, args=[*args, *options, "mcp"],
                                 env=env, cwd=str(db.parent))


@asynccontextmanager
async def stdio_session(params: StdioServerParameters) -> AsyncIterator[ClientSession]:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        yield s


async def call(s: ClientSession, tool: str, **args: Any) -> tuple[bool, dict[str, Any]]:
    """(is_error, body): the structured result, or {"error": {code, message}} for a
    memvault error; an SDK-level rejection has only text, returned as {"text": ...}."""
    r = await s.call_tool(tool, args)
    if r.structured_content is not None:
        # The text block carries the same JSON, for clients that read only text.
        assert json.loads(r.content[0].text) == r.structured_content  # type: ignore[union-attr]
        return r.is_error, r.structured_content
    return r.is_error, {"text": " ".join(getattr(c, "text", "") for c in r.content)}


def run(fn: Callable[[], Awaitable[None]]) -> None:
    anyio.run(fn)


# --- stdio --------------------------------------------------------------------------------

def test_stdio_lists_typed_tools_and_round_trips(tmp_path: Path) -> None:
    db = tmp_path / "m.db"

    async def main() -> None:
        async with stdio_session(stdio_params(db)) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert set(tools) >= TOOLS
            remember = tools["remember"].input_schema
            assert remember["properties"]["content"]["anyOf"][0] == {"type": "string"}
            assert remember["properties"]["confidence"]["type"] == "number"
            assert tools["recall"].input_schema["required"] == ["query"]
            assert tools["forget"].input_schema["required"] == ["memory_id"]
            for t in tools.values():  # nothing in any schema can name another scope
                assert not ({"tenant", "user", "agent", "session", "scope"}
                            - IN_SCOPE_ARGS.get(t.name, set())) & set(
                    t.input_schema.get("properties", {})), t.name

            err, r = await call(s, "remember", content="用户希望报表导出为 XLSX",
                                slot="report.format", value="XLSX", reason="user asked")
            assert not err and r["action"] == "added" and r["version"] == 1
            assert r["memory"]["scope"]["user"] == "alice"
            mid = r["id"]

            err, r = await call(s, "recall", query="报表导出格式")
            assert not err and r["trace_id"]
            assert [h["memory"]["id"] for h in r["hits"]] == [mid]
            assert r["hits"][0]["parts"]["total"] == r["hits"][0]["score"]

            # An agent's write passes the gate: a change to a stored value in the agent's
            # words only, or worded as a command, waits for review; with the user's own
            # words it applies.
            for args in ({}, {"source_text": "update: 用户要 CSV"}):
                err, r = await call(s, "remember", content="用户希望报表导出为 CSV",
                                    slot="report.format", value="CSV", **args)
                assert not err and r["action"] == "stage", r
                assert "conflict_not_explicit" in r["reasons"]
                assert r["memory"]["status"] == "pending"
            err, r = await call(s, "remember", content="用户希望报表导出为 CSV",
                                slot="report.format", value="CSV",
                                source_text="以后报表都导出成 CSV 吧")
            assert not err and (r["action"], r["id"], r["version"]) == ("updated", mid, 2)

            err, r = await call(s, "history", memory_id=mid)
            assert not err and [x["to_version"] for x in r["revisions"]] == [1, 2]
            assert r["revisions"][0]["reason"] == "user asked (gate: accepted)"

            err, r = await call(s, "context", query="export format", budget=400)
            assert not err and "CSV" in r["text"] and r["tokens"] <= 400
            assert [h["memory"]["id"] for h in r["included"]] == [mid]  # nothing pending

            # What changed: the staged candidates (the reviewers' notices), the update.
            err, r = await call(s, "events", since=0, limit=100)
            assert not err and [e["kind"] for e in r["events"]][-3:] == [
                "staged", "staged", "update"]
            assert {e["user"] for e in r["events"]} == {"alice"}
            err, again = await call(s, "events", since=r["next"])
            assert not err and (again["events"], again["next"]) == ([], r["next"])

    run(main)
    # What the server wrote, read back through the core in this process: the right scope,
    # the server's actor, and nothing in any other scope.
    with Vault(db) as v:
        m = v.get(ALICE, v.list(ALICE)[0].id)
        assert (m.value, m.version) == ("CSV", 2)
        assert {(r.actor, r.actor_role) for r in v.history(ALICE, m.id)} == {("mcp", "agent")}
        assert v.list(BOB) == []


def test_stdio_get_list_forget(tmp_path: Path) -> None:
    db = tmp_path / "m.db"

    async def main() -> None:
        async with stdio_session(stdio_params(db)) as s:
            _, a = await call(s, "remember", content="Has a cat named Miso", tags=["pets"])
            _, b = await call(s, "remember", content="Works at the harbour office")
            err, r = await call(s, "list", tags=["pets"])
            assert not err and [m["id"] for m in r["memories"]] == [a["id"]]
            err, r = await call(s, "forget", memory_id=a["id"], reason="user asked")
            assert not err and r["status"] == "deleted" and r["version"] == 2
            err, r = await call(s, "get", memory_id=a["id"])
            assert not err and r["status"] == "deleted"
            _, r = await call(s, "recall", query="cat named Miso")
            assert a["id"] not in [h["memory"]["id"] for h in r["hits"]]
            _, r = await call(s, "list", status="active")
            assert [m["id"] for m in r["memories"]] == [b["id"]]

    run(main)


def test_stdio_remember_and_list_by_topic(tmp_path: Path) -> None:
    db = tmp_path / "m.db"

    async def main() -> None:
        async with stdio_session(stdio_params(db)) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            for tool in ("remember", "list"):
                prop = tools[tool].input_schema["properties"]["topic"]
                assert {"type": "string"} in prop["anyOf"], (tool, prop)
                assert "topic" not in tools[tool].input_schema.get("required", [])
            err, cafe = await call(s, "remember", content="I like quiet cafes for work",
                                   topic="quiet cafes")
            assert not err and cafe["action"] == "added", cafe
            assert cafe["memory"]["topic"] == "quiet cafes"
            _, hike = await call(s, "remember", content="I love hiking in the mountains")
            assert hike["memory"]["topic"] and hike["memory"]["topic"] != "quiet cafes"
            err, r = await call(s, "list", topic="quiet cafes")
            assert not err and [m["id"] for m in r["memories"]] == [cafe["id"]]
            assert r["memories"][0]["topic"] == "quiet cafes"
            _, r = await call(s, "list", topic=hike["memory"]["topic"])
            assert [m["id"] for m in r["memories"]] == [hike["id"]]
            _, r = await call(s, "list", topic="quiet")  # exact, not a substring
            assert r["memories"] == []
            _, r = await call(s, "list")
            assert {m["id"]: m["topic"] for m in r["memories"]} == {
                cafe["id"]: "quiet cafes", hike["id"]: hike["memory"]["topic"]}
            _, got = await call(s, "get", memory_id=cafe["id"])
            assert got["topic"] == "quiet cafes"
            # A bad topic is a tool error with the core's code, and stores nothing.
            before = dump(db)
            for tool, args in (("remember", {"content": "x", "topic": "quiet\ncafes"}),
                               ("remember", {"content": "x", "topic": "<i>x</i>"}),
                               ("list", {"topic": "quiet\ncafes"})):
                err, r = await call(s, tool, **args)
                assert err and r["error"]["code"] == "invalid_input", (tool, args, r)
            assert dump(db) == before

    run(main)
    with Vault(db) as v:
        assert [m.content for m in v.list(ALICE, topic="quiet cafes")] == [
            "I like quiet cafes for work"]


# --- layers -------------------------------------------------------------------------------

def test_layer_tools_round_trip(tmp_path: Path) -> None:
    """recent, expand and graph_facts on what the core built (turns, a summary, the
    graph), and context with a session; a session-bound server cannot be steered into
    another session, and another user's layers are not found."""
    db = tmp_path / "m.db"
    s1 = Scope("acme", "alice", session="s1")
    with Vault(db) as v:
        v.observe(s1, [{"role": "user", "content": "I live in Shanghai"},
                       {"role": "assistant", "content": "Shanghai is lovely in spring."}])
        time.sleep(0.02)  # the move is a later millisecond of valid time
        v.observe(s1, [{"role": "user", "content": "I moved to Hangzhou"},
                       {"role": "assistant", "content": "Enjoy the West Lake!"}])
        (summary,) = v.summarize(s1)
        v.graph_ingest(ALICE)
        turns = [m.id for m in v.expand(s1, summary.id)]
        old = next(f for f in v.graph_facts(ALICE, "user", history=True)
                   if f["object"] == "Shanghai")
    assert len(turns) == 4

    async def main() -> None:
        async with stdio_session(stdio_params(db)) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert "session" in tools["context"].input_schema["properties"]
            assert tools["expand"].input_schema["required"] == ["summary_id"]
            assert tools["graph_facts"].input_schema["required"] == ["entity"]

            err, r = await call(s, "recent", n=2)
            assert not err and [m["id"] for m in r["turns"]] == turns[-2:]
            err, r = await call(s, "expand", summary_id=summary.id)
            assert not err and [m["id"] for m in r["turns"]] == turns
            assert r["summary_id"] == summary.id
            err, r = await call(s, "graph_facts", entity="user")
            assert not err and [(f["relation"], f["object"]) for f in r["facts"]] == [
                ("lives_in", "Hangzhou")]
            err, r = await call(s, "graph_facts", entity="我", valid_at=str(old["valid_from"]))
            assert not err and [f["object"] for f in r["facts"]] == ["Shanghai"]
            err, r = await call(s, "context", query="what did we just talk about?",
                                session="s1", budget=600)
            assert not err and turns[-1] in {h["memory"]["id"] for h in r["included"]}
            before = dump_once_traced(db, r["trace_id"])
            for tool, args, code in (("expand", {"summary_id": turns[0]}, "invalid_input"),
                                     ("expand", {"summary_id": "m_nope"}, "not_found"),
                                     ("graph_facts", {"entity": "Atlantis"}, "not_found"),
                                     ("graph_facts", {"entity": "user", "as_of": "someday"},
                                      "invalid_input"),
                                     ("recent", {"n": -1}, "invalid_input")):
                err, r = await call(s, tool, **args)
                assert err and r["error"]["code"] == code, (tool, args, r)
            assert dump(db) == before

        # Bound to another session: `session` cannot switch it (the core keeps the
        # server's own), and its recent turns are its own (none).
        other = stdio_params(db, env={"MEMVAULT_SESSION": "s2"})
        async with stdio_session(other) as s:
            err, r = await call(s, "recent")
            assert not err and r["turns"] == []
            err, r = await call(s, "context", query="what did we just talk about?",
                                session="s1")
            assert not err and not set(turns) & {h["memory"]["id"] for h in r["included"]}
        bob = stdio_params(db, scope=BOB)
        async with stdio_session(bob) as s:
            err, r = await call(s, "expand", summary_id=summary.id)
            assert err and r["error"]["code"] == "not_found"
            err, r = await call(s, "graph_facts", entity="user")
            assert err and r["error"]["code"] == "not_found"
            err, r = await call(s, "recent")
            assert not err and r["turns"] == []

    run(main)


def dump_once_traced(db: Path, trace_id: str, timeout: float = 10.0) -> dict[str, Any]:
    """The store as it is once the server's queued trace `trace_id` is written: the server
    writes a recall's trace on its own thread after answering (store/tracequeue.py), so a
    snapshot taken at once may miss a row that lands later and is no change of ours."""
    deadline = time.monotonic() + timeout
    while True:
        out = dump(db)
        if any(trace_id in row for row in out.get("traces", [])):
            return out
        assert time.monotonic() < deadline, f"trace {trace_id} never written"
        time.sleep(0.05)


# --- errors -------------------------------------------------------------------------------

def test_bad_input_is_a_tool_error_with_the_code_and_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "m.db"

    async def main() -> None:
        async with stdio_session(stdio_params(db)) as s:
            _, ok = await call(s, "remember", content="Prefers tea", slot="drink",
                               value="tea")
            before = dump(db)
            cases: list[tuple[str, dict[str, Any], str]] = [
                ("remember", {"content": ""}, "invalid_input"),
                ("remember", {"content": "   "}, "invalid_input"),
                ("remember", {"content": "x", "confidence": 7}, "invalid_input"),
                ("remember", {"content": "x", "ttl": "soon"}, "invalid_input"),
                ("remember", {"content": "Prefers coffee", "slot": "drink",
                              "value": "coffee", "expected_version": 5}, "conflict"),
                ("forget", {"memory_id": "m_0000000000000000000000000000"}, "not_found"),
                ("history", {"memory_id": "m_0000000000000000000000000000"}, "not_found"),
                ("get", {"memory_id": ""}, "invalid_input"),
                ("recall", {"query": ""}, "invalid_input"),
                ("recall", {"query": "tea", "top_k": 0}, "invalid_input"),
                ("context", {"query": "tea", "budget": 0}, "invalid_input"),
                ("list", {"limit": 0}, "invalid_input"),
            ]
            for tool, args, code in cases:
                err, r = await call(s, tool, **args)
                assert err, (tool, args)
                assert r["error"]["code"] == code, (tool, args, r)
                assert r["error"]["message"]
            # A value outside the schema (an unknown kind or reranker) is refused by the
            # SDK before the core sees it: the same typed tool error, not a crash, and
            # nothing stored.
            for tool, args, name in (("remember", {"content": "x", "kind": "bogus"}, "kind"),
                                     ("recall", {"query": "x", "reranker": "bogus"},
                                      "reranker")):
                err, r = await call(s, tool, **args)
                assert err and r["error"]["code"] == "invalid_input", r
                assert name in r["error"]["message"]
                assert "errors.pydantic.dev" not in r["error"]["message"]
            # A model may not claim an operator's or a restore's source.
            for source in ("admin_manual", "import"):
                err, r = await call(s, "remember", content="x", source=source)
                assert err and "source" in r["error"]["message"]
            assert dump(db) == before
            # The server is still serving after all that.
            err, r = await call(s, "get", memory_id=ok["id"])
            assert not err and r["value"] == "tea" and r["version"] == 1

    run(main)


def test_missing_scope_refuses_to_start(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    env = {k: val for k, val in os.environ.items() if not k.startswith("MEMVAULT_")}
    p = subprocess.run([*CLI, "--db", str(db), "--user", "alice", "mcp"], env=env,
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 1 and "[invalid_scope]" in p.stderr and p.stdout == ""
    p = subprocess.run([*CLI, "--db", str(db), "--tenant", "acme", "--user", "alice", "mcp",
                        "--transport", "tcp"], env=env, capture_output=True, text=True,
                       timeout=120, stdin=subprocess.DEVNULL)
    assert p.returncode == 1 and "[invalid_input]" in p.stderr
    assert not db.exists()  # refused before the store was opened


# --- scope --------------------------------------------------------------------------------

def test_two_servers_on_one_db_cannot_see_each_other(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    # Bob's server takes its scope from the environment, as MCP client configs do.
    bob = stdio_params(db, scope=None, env={"MEMVAULT_TENANT": BOB.tenant,
                                            "MEMVAULT_USER": BOB.user})

    async def main() -> None:
        async with stdio_session(stdio_params(db)) as a, stdio_session(bob) as b:
            _, secret = await call(a, "remember", content="Alice's door code is 4711",
                                   slot="door.code", value="4711")
            _, mine = await call(b, "remember", content="Bob's door code is 1234",
                                 slot="door.code", value="1234")
            assert secret["memory"]["scope"]["user"] == "alice"
            assert mine["memory"]["scope"]["user"] == "bob"
            assert mine["id"] != secret["id"] and mine["action"] == "added"

            # Naming another scope in extra arguments does not widen it: they are ignored.
            for args in ({}, {"tenant": "acme", "user": "alice"},
                         {"scope": {"tenant": "acme", "user": "alice"}}):
                err, r = await call(b, "recall", query="door code 4711", **args)
                assert not err and [h["memory"]["id"] for h in r["hits"]] == [mine["id"]]
            _, r = await call(b, "list")
            assert [m["id"] for m in r["memories"]] == [mine["id"]]
            for tool in ("get", "history", "forget"):
                err, r = await call(b, tool, memory_id=secret["id"])
                assert err and r["error"]["code"] == "not_found", tool
            b_profile = json.loads((await b.read_resource("memvault://profile"))
                                   .contents[0].text)  # type: ignore[union-attr]
            assert b_profile["door.code"]["value"] == "1234"
            scope = json.loads((await b.read_resource("memvault://scope"))
                               .contents[0].text)  # type: ignore[union-attr]
            assert (scope["tenant"], scope["user"]) == ("acme", "bob")

            _, r = await call(a, "recall", query="door code")
            assert [h["memory"]["id"] for h in r["hits"]] == [secret["id"]]

    run(main)
    with Vault(db) as v:  # Bob's forget did not touch Alice's memory
        m = v.get(ALICE, v.profile(ALICE)["door.code"]["memory_id"])
        assert (m.status, m.version, m.value) == ("active", 1, "4711")


def test_agent_scope_from_environment(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    params = stdio_params(db, env={"MEMVAULT_AGENT": "reporter"})

    async def main() -> None:
        async with stdio_session(params) as s:
            _, r = await call(s, "remember", content="Weekly report goes out on Mondays")
            assert r["memory"]["scope"] == {"tenant": "acme", "user": "alice",
                                            "agent": "reporter", "session": ""}

    run(main)
    with Vault(db) as v:
        assert [m.content for m in v.list(Scope("acme", "alice", agent="reporter"))] == [
            "Weekly report goes out on Mondays"]
        assert v.list(Scope("acme", "alice", agent="other")) == []


# --- resources ----------------------------------------------------------------------------

def test_profile_resource_returns_the_active_slots(tmp_path: Path) -> None:
    db = tmp_path / "m.db"

    async def main() -> None:
        async with stdio_session(stdio_params(db)) as s:
            listed = {str(r.uri): r for r in (await s.list_resources()).resources}
            assert listed["memvault://profile"].mime_type == "application/json"
            await call(s, "remember", slot="report.format", value="CSV")
            _, fmt = await call(s, "remember", slot="report.format", value="XLSX",
                                source_text="make it XLSX from now on")
            _, ch = await call(s, "remember", content="Notify me by SMS",
                               slot="notify.channel", value="sms")
            _, gone = await call(s, "remember", slot="diet", value="vegan")
            await call(s, "forget", memory_id=gone["id"])
            await call(s, "remember", content="Has a cat named Miso")  # no slot

            res = await s.read_resource("memvault://profile")
            content = res.contents[0]
            assert content.mime_type == "application/json"
            prof = json.loads(content.text)  # type: ignore[union-attr]
            assert list(prof) == ["notify.channel", "report.format"]
            assert prof["report.format"]["value"] == "XLSX"
            assert prof["report.format"]["version"] == 2
            assert prof["report.format"]["memory_id"] == fmt["id"]
            assert prof["notify.channel"]["memory_id"] == ch["id"]
            # The profile tool serves the same thing, for clients that only call tools.
            err, tool = await call(s, "profile")
            assert not err and tool == prof

    run(main)
    with Vault(db) as v:
        assert {k: x["value"] for k, x in v.profile(ALICE).items()} == {
            "notify.channel": "sms", "report.format": "XLSX"}


# --- streamable HTTP ----------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server(tmp_path: Path) -> Any:
    """`memvault … mcp --transport http --no-auth` (the fixed scope, loopback only) on a
    free port; yields its /mcp URL. Keys over HTTP: tests/test_mcp_http_auth.py."""
    db = tmp_path / "m.db"
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen([*CLI, "--db", str(db), "--tenant", "acme", "--user", "alice",
                             "mcp", "--transport", "http", "--no-auth", "--port", str(port)],
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server did not start"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", db
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_streamable_http_round_trip(http_server: tuple[str, Path]) -> None:
    url, db = http_server

    async def main() -> None:
        async with streamable_http_client(url) as (read, write), \
                ClientSession(read, write) as s:
            init = await s.initialize()
            assert init.server_info.name == "memvault"
            assert {t.name for t in (await s.list_tools()).tools} >= TOOLS
            err, r = await call(s, "remember", content="Notify me by e-mail",
                                slot="notify.channel", value="email")
            assert not err and r["action"] == "added"
            err, hits = await call(s, "recall", query="how to notify")
            assert not err and [h["memory"]["id"] for h in hits["hits"]] == [r["id"]]
            err, e = await call(s, "forget", memory_id="m_0000000000000000000000000000")
            assert err and e["error"]["code"] == "not_found"
            prof = json.loads((await s.read_resource("memvault://profile"))
                              .contents[0].text)  # type: ignore[union-attr]
            assert prof["notify.channel"]["value"] == "email"

    run(main)
    with Vault(db) as v:
        assert [m.value for m in v.list(ALICE)] == ["email"]

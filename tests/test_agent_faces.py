"""Agent memory on every face: REST (a real `memvault serve` on loopback) and
memvault.Client over it, the CLI (a real `memvault` process) and MCP (the official SDK's
client over stdio). Each face reaches the same verbs, and bad input (an unknown kind, a step
without its task, oversized or invalid fields, a source or role the policy refuses) is a
typed error in the face's own terms with nothing stored. The verbs' semantics are covered
on both backends in test_agent_memory.py; these run on SQLite."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from _server import Server, new_key
from mcp.client.session import ClientSession
from test_mcp import stdio_params, stdio_session

from memvault import Client, PolicyError, Scope, ValidationError, Vault

RUN = {"user": "alice", "agent": "planner", "session": "run-1"}


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(str(tmp_path_factory.mktemp("agents") / "s.db"))
    yield s
    s.stop()


def _revisions(admin: httpx.Client) -> int:
    return len(admin.get("/v1/audit", params={"user": "alice", "limit": 10_000}).json())


# --- REST ---------------------------------------------------------------------------------

def test_rest_tool_result_steps_resume_lesson_promote(admin: httpx.Client) -> None:
    r = admin.post("/v1/tool-results", params=RUN, json={
        "tool": "flight_search", "output": "3 flights to Lisbon, cheapest 89 EUR",
        "args": {"to": "LIS"}, "task_id": "trip"})
    assert r.status_code == 200, r.text
    tool = r.json()
    assert tool["memory"]["kind"] == "tool_result" and tool["memory"]["source"] == "tool"
    assert tool["memory"]["expires_at"] is not None and "task:trip" in tool["memory"]["tags"]
    hist = admin.get(f"/v1/memories/{tool['id']}/history", params=RUN).json()
    assert hist[0]["trigger_text"] == 'tool flight_search({"to": "LIS"})'

    for body in ({"step": "pay", "seq": 2}, {"step": "search", "seq": 0, "status": "done"},
                 {"step": "book", "seq": 1, "status": "running", "inputs": {"n": 2}}):
        assert admin.post("/v1/tasks/trip/steps", params=RUN, json=body).status_code == 200
    steps = admin.get("/v1/tasks/trip/steps", params=RUN).json()
    assert [m["metadata"]["seq"] for m in steps] == [0, 1, 2]
    state = admin.get("/v1/tasks/trip/resume", params=RUN).json()
    assert state["current"]["metadata"]["step"] == "book" and state["finished"] is False

    r = admin.post("/v1/lessons", params={"user": "alice", "agent": "planner"},
                   json={"content": "Book flights before hotels", "outcome": "worked"})
    assert r.status_code == 200 and r.json()["action"] == "staged", r.text

    r = admin.post(f"/v1/memories/{tool['id']}/promote", params=RUN, json={"reason": "keep"})
    assert r.status_code == 200 and r.json()["expires_at"] is None, r.text

    closed = admin.post("/v1/tasks/trip/close", params=RUN, json={}).json()
    assert {m["status"] for m in closed} == {"expired"}
    assert admin.get("/v1/tasks/trip/resume", params=RUN).json()["steps"] == []


@pytest.mark.parametrize(("method", "path", "params", "body", "status", "code"), [
    ("POST", "/v1/memories", RUN, {"content": "x", "kind": "memo"}, 422, "invalid_input"),
    ("POST", "/v1/memories", RUN, {"content": "x", "kind": "step", "source": "tool",
                                   "metadata": {"seq": 0, "step": "a", "status": "pending"}},
     422, "invalid_input"),
    ("POST", "/v1/memories", RUN, {"content": "forged", "kind": "tool_result",
                                   "metadata": {"tool": "search"}}, 422, "policy_refused"),
    ("POST", "/v1/tool-results", {"user": "alice"}, {"tool": "s", "output": "no session"},
     422, "policy_refused"),
    ("POST", "/v1/tool-results", RUN, {"tool": "s", "output": "x" * 16_001}, 422,
     "invalid_input"),
    ("POST", "/v1/tool-results", RUN, {"tool": "s", "output": "x", "args": [1]}, 422,
     "invalid_input"),
    ("POST", "/v1/tool-results", RUN, {"tool": "s", "output": "x", "scope": {"user": "b"}},
     422, "invalid_input"),
    ("POST", "/v1/tasks/trip/steps", RUN, {"step": "a", "status": "paused"}, 422,
     "invalid_input"),
    ("POST", "/v1/tasks/trip/steps", RUN, {"step": "a", "seq": -1}, 422, "invalid_input"),
    ("POST", f"/v1/tasks/{'t' * 60}/steps", RUN, {"step": "a"}, 422, "invalid_input"),
    ("POST", "/v1/tasks/trip/steps", RUN, {"step": "a", "source": "admin_manual"}, None,
     None),
    ("POST", "/v1/lessons", {"user": "alice"}, {"content": "no agent"}, 422,
     "policy_refused"),
    ("POST", "/v1/lessons", RUN, {"content": "x", "outcome": "meh"}, 422, "invalid_input"),
])
def test_rest_bad_input_is_a_json_4xx_and_stores_nothing(
        admin: httpx.Client, method: str, path: str, params: dict[str, str], body: Any,
        status: int | None, code: str | None) -> None:
    before = _revisions(admin)
    r = admin.request(method, path, params=params, json=body)
    if status is None:  # an admin may claim admin_manual: the control case
        assert r.status_code == 200, r.text
        return
    assert r.status_code == status, r.text
    assert r.json()["code"] == code, r.text
    assert _revisions(admin) == before


def test_an_async_write_the_policy_refuses_is_a_422_not_a_queued_job(
        admin: httpx.Client) -> None:
    before = _revisions(admin)
    r = admin.post("/v1/memories", params={**RUN, "async": "true"},
                   json={"content": "forged", "kind": "tool_result",
                         "metadata": {"tool": "search"}})
    assert r.status_code == 422 and r.json()["code"] == "policy_refused", r.text
    assert _revisions(admin) == before


def test_a_user_key_may_not_write_a_tool_result_by_any_route(srv: Server,
                                                             admin: httpx.Client) -> None:
    with srv.client(new_key(admin, role="user", user="alice")) as alice:
        before = _revisions(admin)
        params = {"agent": "planner", "session": "run-1"}
        for path, body in (("/v1/tool-results", {"tool": "s", "output": "forged"}),
                           ("/v1/memories", {"content": "forged", "kind": "tool_result",
                                             "source": "tool",
                                             "metadata": {"tool": "s"}})):
            r = alice.post(path, params=params, json=body)
            assert r.status_code == 403 and r.json()["code"] == "forbidden", r.text
        assert _revisions(admin) == before
        # Its own steps and lessons it may keep.
        r = alice.post("/v1/tasks/mine/steps", params=params, json={"step": "plan"})
        assert r.status_code == 200, r.text


def test_a_user_keys_edit_of_an_agent_memory_needs_that_kinds_permissions(
        srv: Server, admin: httpx.Client) -> None:
    """PATCH of an agent kind needs its verb's cell (docs/server.md), and promote's when it
    moves the expiry later; a shorter shelf life or a step's own correction is an edit."""
    params = {"agent": "planner", "session": "run-1"}
    tr = admin.post("/v1/tool-results", params=RUN,
                    json={"tool": "price", "output": "TP123 costs 200 EUR"}).json()["memory"]
    with srv.client(new_key(admin, role="user", user="alice")) as alice:
        step = alice.post("/v1/tasks/fix/steps", params=params,
                          json={"step": "plan"}).json()["memory"]
        before = _revisions(admin)
        for mem, body in ((tr, {"tags": ["seen"]}),
                          (step, {"expires_at": "2099-01-01T00:00:00Z"})):
            r = alice.patch(f"/v1/memories/{mem['id']}", params=params, json=body)
            assert r.status_code == 403 and r.json()["code"] == "forbidden", r.text
        assert "promote" in r.json()["message"]
        assert _revisions(admin) == before
        sooner = step["expires_at"] - 60_000
        r = alice.patch(f"/v1/memories/{step['id']}", params=params,
                        json={"content": "plan the fix", "expires_at": sooner})
        assert r.status_code == 200, r.text
        assert (r.json()["content"], r.json()["expires_at"]) == ("plan the fix", sooner)
    # An admin may promote by PATCH, but no role rewrites a tool's output (the core's
    # policy: only the tool path writes it).
    r = admin.patch(f"/v1/memories/{tr['id']}", params=RUN,
                    json={"expires_at": "2099-01-01T00:00:00Z"})
    assert r.status_code == 200 and r.json()["source"] == "tool", r.text
    r = admin.patch(f"/v1/memories/{tr['id']}", params=RUN, json={"content": "forged"})
    assert r.status_code == 422 and r.json()["code"] == "policy_refused", r.text


def test_client_mirrors_the_agent_verbs(srv: Server) -> None:
    assert srv.admin_key
    me = Scope("acme", "carol", "planner", "run-7")
    with Client(srv.url, srv.admin_key) as c:
        t = c.tool_result(me, "calc", "42", args={"expr": "6*7"}, task_id="sum")
        assert t.action == "added" and t.memory.metadata["args"] == {"expr": "6*7"}
        c.record_step(me, "sum", "multiply", seq=0, status="done")
        c.record_step(me, "sum", "report", seq=1, status="running")
        state = c.resume(me, "sum")
        assert [m.metadata["seq"] for m in state.steps] == [0, 1]
        assert state.current is not None and state.current.metadata["step"] == "report"
        assert [m.id for m in c.task_steps(me, "sum")] == [m.id for m in state.steps]
        assert c.promote(me, t.id).expires_at is None
        assert c.learn(Scope("acme", "carol", "planner"), "Multiply first").action == "staged"
        assert len(c.close_task(me, "sum")) == 2
        with pytest.raises(PolicyError) as e:
            c.learn(Scope("acme", "carol"), "no agent")
        assert e.value.status == 422
        with pytest.raises(ValidationError):
            c.record_step(me, "sum", "x", status="paused")


# --- CLI ----------------------------------------------------------------------------------

def _cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memvault.cli", "--db", str(db), "--tenant",
                           "acme", "--user", "alice", "--agent", "planner", "--session",
                           "run-1", *args], capture_output=True, text=True, timeout=300)


def test_cli_agent_commands_and_their_errors(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    p = _cli(db, "--json", "tool-result", "search", "two hotels", "--args", '{"q": "x"}',
             "--task", "trip")
    assert p.returncode == 0, p.stderr
    tool_id = json.loads(p.stdout)["id"]
    for args in (("--seq", "1", "--status", "running"), ("--seq", "0", "--status", "done")):
        p = _cli(db, "task", "step", "trip", f"step {args[1]}", *args)
        assert p.returncode == 0 and p.stdout.startswith("added"), p.stderr
    p = _cli(db, "--json", "task", "resume", "trip")
    state = json.loads(p.stdout)
    assert [m["metadata"]["seq"] for m in state["steps"]] == [0, 1]
    assert state["current"]["metadata"]["step"] == "step 1"
    p = _cli(db, "lesson", "check the dates twice")
    assert p.returncode == 0 and p.stdout.startswith("staged"), p.stderr
    p = _cli(db, "promote", tool_id)
    assert p.returncode == 0, p.stderr
    with Vault(str(db)) as v:
        before = len(v.audit(Scope("acme", "alice"), limit=10_000))
    for args, code in ((("remember", "x", "--kind", "memo"), "invalid_input"),
                       (("remember", "x", "--kind", "tool_result", "--metadata",
                         '{"tool": "s"}'), "policy_refused"),
                       (("remember", "x", "--kind", "step", "--source", "tool"),
                        "invalid_input"),
                       (("task", "step", "trip", "x", "--status", "paused"), "invalid_input"),
                       (("task", "step", "t" * 60, "x"), "invalid_input"),
                       (("tool-result", "search", "x", "--args", "[1]"), "invalid_input"),
                       (("tool-result", "search", "x" * 16_001), "invalid_input"),
                       (("lesson", "x", "--outcome", "meh"), "invalid_input")):
        p = _cli(db, *args)
        assert p.returncode == 1 and f"[{code}]" in p.stderr, (args, p.stderr)
    with Vault(str(db)) as v:
        assert len(v.audit(Scope("acme", "alice"), limit=10_000)) == before


def test_cli_config_check_names_a_bad_agent_policy(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("agents:\n  tool_result:\n    writers: [tool]\n    ttl: soon\n",
                   encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "memvault.cli", "config", "check", str(bad)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "[invalid_input]" in p.stderr, p.stderr
    assert "agents.tool_result.ttl" in p.stderr and "soon" in p.stderr


# --- MCP ----------------------------------------------------------------------------------

async def call(s: ClientSession, name: str, /, **args: Any) -> tuple[bool, dict[str, Any]]:
    """(is_error, structured body) of one tool call (the tool_result tool has an argument
    named `tool`, which test_mcp.call's own parameter would take)."""
    r = await s.call_tool(name, args)
    if r.structured_content is not None:
        return r.is_error, r.structured_content
    return r.is_error, {"text": " ".join(getattr(c, "text", "") for c in r.content)}


def test_mcp_agent_tools_and_their_errors(tmp_path: Path) -> None:
    db = tmp_path / "mcp.db"
    # The SDK starts the server with a minimal environment: name this checkout's source.
    src = str(Path(__file__).parents[1] / "src")
    params = stdio_params(db, "--agent", "planner", "--session", "run-1",
                          env={"PYTHONPATH": src})

    async def main() -> None:
        async with stdio_session(params) as s:
            tools = {t.name for t in (await s.list_tools()).tools}
            assert {"tool_result", "record_step", "resume", "close_task", "learn"} <= tools
            err, r = await call(s, "tool_result", tool="search", output="Casa do Rio, 120 EUR",
                                args={"city": "Lisbon"}, task_id="trip")
            assert not err and r["memory"]["kind"] == "tool_result", r
            for seq, status in ((1, "running"), (0, "done")):
                err, r = await call(s, "record_step", task_id="trip", step=f"s{seq}",
                                    seq=seq, status=status)
                assert not err, r
            err, r = await call(s, "resume", task_id="trip")
            assert not err and r["current"]["metadata"]["step"] == "s1", r
            err, r = await call(s, "learn", content="Lisbon hotels fill up in June")
            assert not err and r["action"] == "staged", r  # a model's lesson waits
            # Bad input: a tool error with memvault's code, nothing stored.
            for tool, args, code in (
                    ("record_step", {"task_id": "", "step": "x"}, "invalid_input"),
                    ("record_step", {"task_id": "t" * 60, "step": "x"}, "invalid_input"),
                    ("tool_result", {"tool": "s", "output": "x" * 16_001}, "invalid_input"),
                    ("remember", {"content": "forged", "kind": "tool_result",
                                  "source": "tool"}, None)):
                err, r = await call(s, tool, **args)
                if code is None:  # through the gate: rejected by the kind's policy
                    assert not err and r["action"] == "reject", r
                    assert r["reasons"] == ["kind_policy"] and r["id"] is None
                else:
                    assert err and r["error"]["code"] == code, (tool, r)
            err, r = await call(s, "record_step", task_id="trip", step="x", status="paused")
            assert err, r  # refused by the tool's schema or the core

    anyio.run(main)
    with Vault(str(db)) as v:
        kinds = sorted(m.kind for m in v.list(Scope("acme", "alice"), limit=100))
        assert kinds == ["lesson", "step", "step", "tool_result"]


@pytest.mark.backends("sqlite")
def test_mcp_over_http_follows_the_permission_table(vault: Vault) -> None:
    """Over streamable HTTP the roles are the REST matrix's: a user key may record its
    task's steps but not write a tool result (the application's tool runner does), a
    reader key may resume but not record; refused calls store nothing."""
    from test_mcp_http_auth import key, serving, session

    user_key, reader_key = key(vault, "user", "alice"), key(vault, "reader", "alice")
    run = {"agent": "planner", "session": "run-1"}

    async def main() -> None:
        async with session(url, user_key, **run) as s:
            err, e = await call(s, "tool_result", tool="search", output="forged")
            assert err and e["error"]["code"] == "forbidden", e
            err, r = await call(s, "record_step", task_id="trip", step="plan",
                                status="running")
            assert not err and r["action"] == "added", r
        async with session(url, reader_key, **run) as s:
            err, e = await call(s, "record_step", task_id="trip", step="more")
            assert err and e["error"]["code"] == "forbidden", e
            err, r = await call(s, "resume", task_id="trip")
            assert not err and r["current"]["metadata"]["step"] == "plan", r

    with serving(vault) as url:
        anyio.run(main)
    assert [m.kind for m in vault.list(Scope("acme", "alice"))] == ["step"]

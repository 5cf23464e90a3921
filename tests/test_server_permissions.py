"""The permission matrix, every cell: each role × each action over real HTTP (a real
`memvault serve` on loopback, SQLite), with real keys. Allowed → 2xx; denied → 403
`forbidden` and nothing changed. The table in docs/server.md must be the code's table."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from _server import Server, new_key

from memvault.server.permissions import PERMISSIONS, ROLES

ALICE = {"user": "alice"}


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # One attempt per webhook delivery: the retry cell needs a dead letter, at once.
    s = Server(str(tmp_path_factory.mktemp("perm") / "s.db"),
               extra=["--webhook-attempts", "1"])
    yield s
    s.stop()


@pytest.fixture(scope="module")
def clients(srv: Server) -> Iterator[dict[str, httpx.Client]]:
    assert srv.admin_key
    admin = srv.client(srv.admin_key)
    keys = {"admin": srv.admin_key,
            "service": new_key(admin, role="service", name="app"),
            "user": new_key(admin, role="user", user="alice"),
            "reader": new_key(admin, role="reader")}
    out = {role: srv.client(k) for role, k in keys.items()}
    yield out
    for c in out.values():
        c.close()


def _uid() -> str:
    return uuid.uuid4().hex[:10]


class Fixtures:
    """Fresh targets made with the admin key, so each cell acts on its own data."""

    def __init__(self, admin: httpx.Client) -> None:
        self.a = admin
        r = admin.post("/v1/recall", params=ALICE, json={"query": "tea"})
        self.trace_id = r.json()["trace_id"]
        self.staged_alice = self.staged("alice")[1]
        r = admin.post("/v1/memories", params={**ALICE, "async": "true"},
                       json={"content": "queued for the jobs cell"})
        self.job_id = r.json()["job_id"]
        # The layers: a session with turns, its summary, and alice's graph.
        conv = {**ALICE, "session": "perm"}
        r = admin.post("/v1/observe", params=conv, json={"messages": [
            {"role": "user", "content": "I live in Shanghai"},
            {"role": "assistant", "content": "Noted, Shanghai it is."}]})
        assert r.status_code == 200, r.text
        r = admin.post("/v1/summarize", params=conv, json={"force": True})
        assert r.status_code == 200 and r.json(), r.text
        self.summary_id = str(r.json()[0]["id"])
        r = admin.post("/v1/maintain", params=ALICE, json={"steps": ["graph"]})
        assert r.status_code == 200 and r.json()["relations"], r.text

    def mem(self) -> str:
        r = self.a.post("/v1/memories", params=ALICE, json={"content": f"fact {_uid()}"})
        assert r.status_code == 200, r.text
        return str(r.json()["id"])

    def frozen(self) -> str:
        mid = self.mem()
        assert self.a.post(f"/v1/memories/{mid}/freeze", params=ALICE, json={}).is_success
        return mid

    def two_versions(self) -> str:
        slot = f"pref.x{_uid()}"
        self.a.post("/v1/memories", params=ALICE, json={"slot": slot, "value": "A"})
        r = self.a.post("/v1/memories", params=ALICE, json={"slot": slot, "value": "B"})
        assert r.json()["version"] == 2
        return str(r.json()["id"])

    def merged(self) -> str:
        r = self.a.post("/v1/merge", params=ALICE, json={"ids": [self.mem(), self.mem()]})
        assert r.status_code == 200, r.text
        return str(r.json()["id"])

    def split_source(self) -> str:
        mid = self.mem()
        r = self.a.post(f"/v1/memories/{mid}/split", params=ALICE,
                        json={"parts": ["perm part one", "perm part two"]})
        assert r.status_code == 200, r.text
        return mid

    def staged(self, user: str) -> tuple[str, str]:
        p = {"user": user}
        self.a.post("/v1/observe", params=p,
                    json={"messages": [{"role": "user", "content": "后续使用短信接收进度通知"}]})
        r = self.a.post("/v1/observe", params=p, json={"messages": [
            {"role": "user", "content": "update: 用户不喜欢任何形式的推送通知"}]})
        staged = [o for o in r.json()["outcomes"] if o["action"] == "stage"]
        assert staged, r.text
        return user, str(staged[0]["memory_id"])

    def import_body(self) -> str:
        mid = self.mem()
        lines = self.a.get("/v1/export", params=ALICE).text.splitlines()
        line = next(ln for ln in lines[1:] if json.loads(ln)["id"] == mid)
        new = f"m_imported{_uid()}"
        line = line.replace(mid, new)
        for op in set(re.findall(r'"op_id": "([^"]+)"', line)):
            line = line.replace(op, f"op_imported{_uid()}")
        return lines[0] + "\n" + line + "\n"

    def tool_result(self) -> str:
        r = self.a.post("/v1/tool-results", params={**ALICE, "session": "perm"},
                        json={"tool": "search", "output": f"result {_uid()}"})
        assert r.status_code == 200 and r.json()["memory"]["expires_at"], r.text
        return str(r.json()["id"])

    def task(self) -> str:
        task = f"perm-{_uid()}"
        r = self.a.post(f"/v1/tasks/{task}/steps", params=ALICE, json={"step": "first"})
        assert r.status_code == 200, r.text
        return task

    def webhook(self) -> str:
        # Port 9 on loopback: nothing listens, every delivery fails at once.
        r = self.a.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/perm"})
        assert r.status_code == 201, r.text
        return str(r.json()["webhook_id"])

    def dead_letter(self) -> str:
        """A webhook with a dead delivery; the path that retries it."""
        hook = self.webhook()
        self.mem()  # an event after the webhook began
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            dead = self.a.get(f"/v1/webhooks/{hook}/deliveries",
                              params={"status": "dead"}).json()
            if dead:
                return f"/v1/webhooks/{hook}/deliveries/{dead[0]['event_id']}/retry"
            time.sleep(0.05)
        raise AssertionError("no dead letter")

    def snap(self) -> str:
        name = f"perm-{_uid()}"
        r = self.a.post("/v1/snapshots", params=ALICE, json={"name": name})
        assert r.status_code == 201, r.text
        return name

    def strategy_hash(self) -> str:
        r = self.a.get("/v1/strategies")
        return str(next(x["hash"] for x in r.json() if x["current"]))

    def team(self) -> str:
        """A fresh team whose admin is alice (the user key's user)."""
        name = f"perm-{_uid()}"
        assert self.a.post("/v1/teams", json={"name": name}).status_code == 201
        r = self.a.post(f"/v1/teams/{name}/members", json={"user": "alice", "role": "admin"})
        assert r.status_code == 200, r.text
        return name

    def team_with_member(self) -> str:
        name = self.team()
        r = self.a.post(f"/v1/teams/{name}/members", json={"user": "dave"})
        assert r.status_code == 200, r.text
        return f"/v1/teams/{name}/members/dave"

    def key_id(self) -> str:
        r = self.a.post("/v1/keys", json={"role": "reader", "name": "to revoke"})
        return str(r.json()["key_id"])


Call = Callable[[httpx.Client, Fixtures, bool], httpx.Response]


def _scoped(method: str, path: str, **kw: Any) -> Call:
    params = {**ALICE, **kw.pop("params", {})}  # popped once, here: each call reuses it
    return lambda c, f, ok: c.request(method, path, params=params, **kw)


def _on(action: str, make: Callable[[Fixtures], str], body: Any = None) -> Call:
    def call(c: httpx.Client, f: Fixtures, ok: bool) -> httpx.Response:
        return c.post(f"/v1/memories/{make(f)}/{action}", params=ALICE, json=body or {})
    return call


def _review(verb: str) -> Call:
    def call(c: httpx.Client, f: Fixtures, ok: bool) -> httpx.Response:
        user, mid = f.staged(f"rv{_uid()}") if ok else ("alice", f.staged_alice)
        return c.post(f"/v1/review/{mid}/{verb}", params={"user": user},
                      json={"reason": "perm"})
    return call


CALLS: dict[str, Call] = {
    "remember": _scoped("POST", "/v1/memories", json={"content": "perm remember"}),
    "observe": _scoped("POST", "/v1/observe",
                       json={"messages": [{"role": "user", "content": "I like green tea"}]}),
    "propose": _scoped("POST", "/v1/propose", json={"content": "perm propose"}),
    "edit": lambda c, f, ok: c.patch(f"/v1/memories/{f.mem()}", params=ALICE,
                                     json={"content": "edited", "reason": "perm"}),
    "forget": _on("forget", Fixtures.mem),
    "rollback": _on("rollback", Fixtures.two_versions, {"to_version": 1}),
    "merge": lambda c, f, ok: c.post("/v1/merge", params=ALICE,
                                     json={"ids": [f.mem(), f.mem()], "reason": "perm"}),
    "split": _on("split", Fixtures.mem, {"parts": ["perm one", "perm two"]}),
    "unmerge": _on("unmerge", Fixtures.merged),
    "unsplit": _on("unsplit", Fixtures.split_source),
    "consolidate": _scoped("POST", "/v1/consolidate", json={"apply": False}),
    "freeze": _on("freeze", Fixtures.mem),
    "unfreeze": _on("unfreeze", Fixtures.frozen),
    "expire": _on("expire", Fixtures.mem),
    "sweep": _scoped("POST", "/v1/sweep"),
    "purge": _on("purge", Fixtures.mem),
    "import": lambda c, f, ok: c.post("/v1/import", params=ALICE, content=f.import_body(),
                                      headers={"content-type": "application/x-ndjson"}),
    "review.approve": _review("approve"),
    "review.reject": _review("reject"),
    "get": lambda c, f, ok: c.get(f"/v1/memories/{f.mem()}", params=ALICE),
    "list": _scoped("GET", "/v1/memories"),
    "recall": _scoped("POST", "/v1/recall", json={"query": "fact"}),
    "context": _scoped("POST", "/v1/context", json={"query": "fact"}),
    "history": lambda c, f, ok: c.get(f"/v1/memories/{f.mem()}/history", params=ALICE),
    "diff": lambda c, f, ok: c.get(f"/v1/memories/{f.two_versions()}/diff",
                                   params={**ALICE, "from_version": 1, "to_version": 2}),
    "profile": _scoped("GET", "/v1/profile"),
    "traces": _scoped("GET", "/v1/traces"),
    "trace": lambda c, f, ok: c.get(f"/v1/traces/{f.trace_id}", params=ALICE),
    "replay": lambda c, f, ok: c.post("/v1/replay", params=ALICE, json={
        "queries": ["tea"], "from": 0}),
    "review.list": _scoped("GET", "/v1/review"),
    "review.show": lambda c, f, ok: c.get(f"/v1/review/{f.staged_alice}", params=ALICE),
    "export": _scoped("GET", "/v1/export"),
    "audit": _scoped("GET", "/v1/audit"),
    "jobs.get": lambda c, f, ok: c.get(f"/v1/jobs/{f.job_id}"),
    "users": lambda c, f, ok: c.get("/v1/users"),
    "whoami": lambda c, f, ok: c.get("/v1/whoami"),
    "recent": _scoped("GET", "/v1/recent", params={"session": "perm"}),
    "expand": lambda c, f, ok: c.get(f"/v1/memories/{f.summary_id}/expand", params=ALICE),
    "graph.entity": _scoped("GET", "/v1/graph/entities/Shanghai"),
    "graph.facts": _scoped("GET", "/v1/graph/facts", params={"entity": "user"}),
    "graph.neighbours": _scoped("GET", "/v1/graph/neighbours", params={"entity": "user"}),
    "summarize": _scoped("POST", "/v1/summarize", json={"force": False}),
    "maintain": _scoped("POST", "/v1/maintain", json={"steps": ["expire"]}),
    "tool_result": _scoped("POST", "/v1/tool-results", params={"session": "perm"},
                           json={"tool": "search", "output": "perm tool result",
                                 "args": {"q": "perm"}}),
    "task.step": lambda c, f, ok: c.post(f"/v1/tasks/perm-{_uid()}/steps", params=ALICE,
                                         json={"step": "perm step", "status": "running"}),
    "task.close": lambda c, f, ok: c.post(f"/v1/tasks/{f.task()}/close", params=ALICE,
                                          json={"reason": "perm"}),
    "task.steps": _scoped("GET", "/v1/tasks/perm/steps"),
    "task.resume": _scoped("GET", "/v1/tasks/perm/resume"),
    "lesson": _scoped("POST", "/v1/lessons", params={"agent": "perm"},
                      json={"content": "perm lesson", "source": "user_explicit"}),
    "promote": _on("promote", Fixtures.tool_result),
    "keys.create": lambda c, f, ok: c.post("/v1/keys", json={"role": "reader"}),
    "keys.list": lambda c, f, ok: c.get("/v1/keys"),
    "keys.revoke": lambda c, f, ok: c.delete(f"/v1/keys/{f.key_id()}"),
    "access_log": lambda c, f, ok: c.get("/v1/access-log"),
    "events": lambda c, f, ok: c.get("/v1/events"),
    "webhooks.create": lambda c, f, ok: c.post("/v1/webhooks",
                                               json={"url": "http://127.0.0.1:9/perm"}),
    "webhooks.list": lambda c, f, ok: c.get(f"/v1/webhooks/{f.webhook()}/deliveries"),
    "webhooks.remove": lambda c, f, ok: c.delete(f"/v1/webhooks/{f.webhook()}"),
    "webhooks.retry": lambda c, f, ok: c.post(f.dead_letter()),
    "snapshots.create": lambda c, f, ok: c.post("/v1/snapshots", params=ALICE,
                                                json={"name": f"perm-{_uid()}"}),
    "snapshots.list": _scoped("GET", "/v1/snapshots"),
    "answer": lambda c, f, ok: c.post("/v1/answers", params=ALICE, json={
        "trace_id": f.trace_id, "answer": "an answer (online evaluation is off here)"}),
    "eval.online": lambda c, f, ok: c.get("/v1/eval/online"),
    "snapshots.diff": lambda c, f, ok: c.get(f"/v1/snapshots/{f.snap()}/diff", params=ALICE),
    "snapshots.restore": lambda c, f, ok: c.post(f"/v1/snapshots/{f.snap()}/restore",
                                                 params=ALICE, json={"reason": "perm"}),
    "snapshots.drop": lambda c, f, ok: c.delete(f"/v1/snapshots/{f.snap()}", params=ALICE),
    "strategies.history": lambda c, f, ok: c.get("/v1/strategies"),
    "strategies.show": lambda c, f, ok: c.get(f"/v1/strategies/{f.strategy_hash()}"),
    "strategies.shadow": lambda c, f, ok: c.post(
        "/v1/strategies/shadow", params=ALICE,
        json={"strategy": {"retrieval": {"top_k": 2}}, "traces": 5}),

    "teams.create": lambda c, f, ok: c.post("/v1/teams", json={"name": f"perm-{_uid()}"}),
    "teams.drop": lambda c, f, ok: c.delete(f"/v1/teams/{f.team()}"),
    "teams.list": lambda c, f, ok: c.get("/v1/teams"),
    "teams.members": lambda c, f, ok: c.get(f"/v1/teams/{f.team()}/members"),
    "teams.add_member": lambda c, f, ok: c.post(f"/v1/teams/{f.team()}/members",
                                                json={"user": "dave", "role": "writer"}),
    "teams.remove_member": lambda c, f, ok: c.delete(f.team_with_member()),
}


@pytest.fixture(scope="module")
def fx(clients: dict[str, httpx.Client]) -> Fixtures:
    return Fixtures(clients["admin"])


def _state(admin: httpx.Client) -> tuple[int, int]:
    """(revisions in alice's scope, keys in the tenant): what a denied call must not move."""
    revs = admin.get("/v1/audit", params={**ALICE, "limit": 10_000}).json()
    return len(revs), len(admin.get("/v1/keys").json())


def test_every_action_has_a_call() -> None:
    assert set(CALLS) == set(PERMISSIONS)


class Recorder:
    """Stands in for the client while a call builds its request (and its fixtures), so
    the state snapshot is taken after the fixtures exist and only the call is measured."""

    def request(self, method: str, url: str, **kw: Any) -> Any:
        self.sent = (method, url, kw)

    def get(self, url: str, **kw: Any) -> Any:
        return self.request("GET", url, **kw)

    def post(self, url: str, **kw: Any) -> Any:
        return self.request("POST", url, **kw)

    def patch(self, url: str, **kw: Any) -> Any:
        return self.request("PATCH", url, **kw)

    def delete(self, url: str, **kw: Any) -> Any:
        return self.request("DELETE", url, **kw)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", sorted(PERMISSIONS))
def test_cell(role: str, action: str, clients: dict[str, httpx.Client], fx: Fixtures) -> None:
    ok = role in PERMISSIONS[action]
    rec = Recorder()
    CALLS[action](rec, fx, ok)  # type: ignore[arg-type]
    method, url, kw = rec.sent
    before = None if ok else _state(clients["admin"])
    r = clients[role].request(method, url, **kw)
    if ok:
        assert 200 <= r.status_code < 300, (r.status_code, r.text)
    else:
        assert r.status_code == 403, (r.status_code, r.text)
        assert r.json()["code"] == "forbidden"
        assert _state(clients["admin"]) == before


def test_docs_table_is_the_code_table() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "server.md").read_text(encoding="utf-8")
    section = doc.split("## Permission matrix", 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in section.splitlines() if ln.startswith("| `")]
    header = next(ln for ln in section.splitlines() if ln.startswith("| action"))
    roles = [h.strip() for h in header.strip("|").split("|")[1:]]
    assert roles == list(ROLES)
    table = {}
    for ln in rows:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        table[cells[0].strip("`")] = {r for r, c in zip(roles, cells[1:], strict=True)
                                      if c == "✓"}
    assert table == {a: set(r) for a, r in PERMISSIONS.items()}

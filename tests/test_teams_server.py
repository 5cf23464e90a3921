"""Teams over real HTTP (a `memvault serve` on loopback, SQLite; docs/teams.md): the second
permission table, every cell (each memory action in a team's scope × no membership,
reader, writer, admin; with user keys bound to the member, and with a service key acting
for the member); project keys; isolation and scope marks through REST and the Client."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from _server import Server, new_key
from test_server_permissions import CALLS, Fixtures, Recorder

from memvault import Client
from memvault.errors import PermissionDeniedError
from memvault.server.permissions import PERMISSIONS, TEAM_NEEDS

TEAM = "proj"
STANDINGS = ("none", "reader", "writer", "admin")
_RANK = {"none": -1, "reader": 0, "writer": 1, "admin": 2}
_NEED = {"read": "reader", "write": "writer", "govern": "writer", "policy": "admin",
         "manage": "admin"}
MEMORY_ACTIONS = sorted(a for a in TEAM_NEEDS if not a.startswith("teams."))


class InTeam:
    """A client whose requests for alice's scope go to the team's instead (`team=`), for
    the member `acting` when given (an unbound key naming the member)."""

    def __init__(self, c: Any, acting: str | None = None) -> None:
        self.c, self.acting = c, acting

    def request(self, method: str, url: str, **kw: Any) -> Any:
        params = dict(kw.pop("params", None) or {})
        if params.get("user") == "alice":
            del params["user"]
            params["team"] = TEAM
            if self.acting:
                params["user"] = self.acting
        return self.c.request(method, url, params=params, **kw)

    def get(self, url: str, **kw: Any) -> Any:
        return self.request("GET", url, **kw)

    def post(self, url: str, **kw: Any) -> Any:
        return self.request("POST", url, **kw)

    def patch(self, url: str, **kw: Any) -> Any:
        return self.request("PATCH", url, **kw)

    def delete(self, url: str, **kw: Any) -> Any:
        return self.request("DELETE", url, **kw)


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(str(tmp_path_factory.mktemp("teams") / "s.db"))
    yield s
    s.stop()


@pytest.fixture(scope="module")
def keys(srv: Server, admin: httpx.Client) -> dict[str, str]:
    r = admin.post("/v1/teams", json={"name": TEAM})
    assert r.status_code == 201, r.text
    for user, role in (("m-reader", "reader"), ("m-writer", "writer"), ("m-admin", "admin")):
        r = admin.post(f"/v1/teams/{TEAM}/members", json={"user": user, "role": role})
        assert r.status_code == 200, r.text
    out = {s: new_key(admin, role="user", user=f"m-{s}") for s in STANDINGS}
    out["service"] = new_key(admin, role="service", name="app")
    return out


@pytest.fixture(scope="module")
def fx(admin: httpx.Client, keys: dict[str, str]) -> Fixtures:
    return Fixtures(InTeam(admin))  # type: ignore[arg-type]


def _team_revisions(admin: httpx.Client) -> int:
    return len(admin.get("/v1/audit", params={"team": TEAM, "limit": 10_000}).json())


def _review(verb: str) -> Any:
    """A fresh candidate staged in the team's scope (the Fixtures admin writes there)."""
    def call(c: Any, f: Fixtures, ok: bool) -> Any:
        mid = f.staged("alice")[1] if ok else f.staged_alice
        return c.post(f"/v1/review/{mid}/{verb}", params={"user": "alice"},
                      json={"reason": "perm"})
    return call


TEAM_CALLS = {"review.approve": _review("approve"), "review.reject": _review("reject")}


@pytest.mark.parametrize("key", ["user", "service"])
@pytest.mark.parametrize("standing", STANDINGS)
@pytest.mark.parametrize("action", MEMORY_ACTIONS)
def test_team_cell(action: str, standing: str, key: str, srv: Server, admin: httpx.Client,
                   keys: dict[str, str], fx: Fixtures) -> None:
    """Allowed iff the key's role may do the action (the first table) and the member's
    team role reaches the action's need (the second); else 403 and nothing changed."""
    ok = key in PERMISSIONS[action] and _RANK[standing] >= _RANK[_NEED[TEAM_NEEDS[action]]]
    rec = Recorder()
    (TEAM_CALLS.get(action) or CALLS[action])(InTeam(rec), fx, ok)  # type: ignore[arg-type]
    method, url, kw = rec.sent
    before = None if ok else _team_revisions(admin)
    member = f"m-{standing}"
    with srv.client(keys[standing if key == "user" else "service"]) as c:
        params = dict(kw.pop("params", None) or {})
        if key == "service":
            params["user"] = member
        r = c.request(method, url, params=params, **kw)
    if ok:
        assert 200 <= r.status_code < 300, (r.status_code, r.text)
    else:
        assert r.status_code == 403, (r.status_code, r.text)
        assert r.json()["code"] == "forbidden"
        assert _team_revisions(admin) == before


# Actions with no team form: administration, the tenant's streams and snapshots, the key.
NOT_IN_TEAMS = {"keys.create", "keys.list", "keys.revoke", "access_log", "events",
                "webhooks.create", "webhooks.list", "webhooks.remove", "webhooks.retry",
                "snapshots.create", "snapshots.list", "snapshots.diff", "snapshots.restore",
                "snapshots.drop", "users", "whoami", "jobs.get", "teams.create",
                "teams.drop", "teams.list",
                # the tenant's configuration and figures, and what replays or feeds them
                "strategies.history", "strategies.show", "strategies.shadow",
                "eval.online", "answer", "replay"}


def test_every_action_is_classified_for_teams() -> None:
    """A new action must say what it needs in a team's scope, or that it has no team form."""
    assert set(PERMISSIONS) - NOT_IN_TEAMS == set(TEAM_NEEDS)
    assert set(MEMORY_ACTIONS) <= set(CALLS)


def test_docs_team_table_is_the_code_table() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "server.md").read_text(encoding="utf-8")
    section = doc.split("### Teams: the second table", 1)[1].split("\n## ", 1)[0]
    table: dict[str, str] = {}
    for ln in section.splitlines():
        m = re.match(r"\| (read|write|govern|policy|manage) \| (\w+) \| (.*) \|$", ln)
        if m:
            assert _NEED[m.group(1)] == m.group(2)
            for name in re.findall(r"`([a-z_.*]+)`", m.group(3)):
                table[name] = m.group(1)
    graph = {a: n for a, n in TEAM_NEEDS.items() if a.startswith("graph.")}
    assert {**{a: n for a, n in table.items() if a != "graph.*"}, **graph} == TEAM_NEEDS


def test_isolation_and_marks_over_http(srv: Server, admin: httpx.Client,
                                       keys: dict[str, str]) -> None:
    w = srv.client(keys["writer"])
    rd = srv.client(keys["reader"])
    out = srv.client(keys["none"])
    tag = uuid.uuid4().hex[:6]
    r = w.post("/v1/memories", params={"team": TEAM},
               json={"content": f"Release train {tag} leaves on Thursdays"})
    assert r.status_code == 200, r.text
    shared = r.json()["id"]
    r = w.post("/v1/memories", json={"content": f"My own release {tag} notes: private"})
    mine = r.json()["id"]
    hits = rd.post("/v1/recall", json={"query": f"release train {tag}"}).json()["hits"]
    ids = [h["memory"]["id"] for h in hits]
    assert shared in ids and mine not in ids
    mark = next(h["scope_mark"] for h in hits if h["memory"]["id"] == shared)
    assert mark == {"scope": "team", "team": TEAM}
    assert rd.get(f"/v1/memories/{mine}").status_code == 404
    # The reader may not write into the team; no membership: not even read.
    r = rd.post("/v1/memories", params={"team": TEAM}, json={"content": "nope"})
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    assert out.get("/v1/memories", params={"team": TEAM}).status_code == 403
    hits = out.post("/v1/recall", json={"query": f"release train {tag}"}).json()["hits"]
    assert shared not in [h["memory"]["id"] for h in hits]
    # A team's scope is never named as a user.
    r = admin.get("/v1/memories", params={"user": f"team:{TEAM}"})
    assert r.status_code == 403 and r.json()["code"] == "invalid_scope"
    r = admin.post("/v1/keys", json={"role": "user", "user": f"team:{TEAM}"})
    assert r.status_code == 403
    assert admin.get("/v1/memories", params={"team": "nosuch"}).status_code == 404
    r = admin.post("/v1/teams", json={"name": "Bad Name"})
    assert r.status_code == 422
    assert admin.post("/v1/teams", json={"name": TEAM}).status_code == 409
    r = admin.post(f"/v1/teams/{TEAM}/members", json={"user": "x", "role": "owner"})
    assert r.status_code == 422
    for c in (w, rd, out):
        c.close()


def test_project_keys_stay_in_their_team(srv: Server, admin: httpx.Client,
                                         keys: dict[str, str]) -> None:
    assert admin.post("/v1/teams", json={"name": "side"}).status_code == 201
    for team in (TEAM, "side"):
        admin.post(f"/v1/teams/{team}/members", json={"user": "pm", "role": "writer"})
    tag = uuid.uuid4().hex[:6]
    admin.post("/v1/memories", params={"team": "side"},
               json={"content": f"Side project {tag} budget is small"})
    admin.post("/v1/memories", params={"team": TEAM},
               json={"content": f"Main project {tag} budget is large"})
    r = admin.post("/v1/keys", json={"role": "user", "user": "pm", "team": TEAM})
    assert r.status_code == 201 and r.json()["team"] == TEAM, r.text
    with srv.client(r.json()["key"]) as pk:
        assert pk.get("/v1/whoami").json()["team"] == TEAM
        assert pk.post("/v1/memories", params={"team": TEAM},
                       json={"content": "from the project key"}).status_code == 200
        assert pk.post("/v1/memories", json={"content": "pm's own"}).status_code == 200
        r = pk.post("/v1/memories", params={"team": "side"}, json={"content": "x"})
        assert r.status_code == 403 and r.json()["code"] == "scope_denied"
        hits = pk.post("/v1/recall", json={"query": f"project {tag} budget"}).json()["hits"]
        teams = {h["scope_mark"]["team"] for h in hits}
        assert teams == {TEAM}  # pm belongs to side too, but this key reads its project
        r = pk.post("/v1/recall", json={"query": "budget", "teams": ["side"]})
        assert r.status_code == 403
        for path in ("/v1/keys", "/v1/events", "/v1/snapshots"):
            assert pk.get(path).status_code == 403, path
        assert [t["name"] for t in pk.get("/v1/teams").json()] == [TEAM]
    r = admin.post("/v1/keys", json={"role": "service", "team": TEAM})
    with srv.client(r.json()["key"]) as sk:
        r = sk.post("/v1/memories", params={"user": "pm"}, json={"content": "x"})
        assert r.status_code == 403 and r.json()["code"] == "scope_denied"
        r = sk.post("/v1/memories", params={"team": TEAM}, json={"content": "svc"})
        assert r.status_code == 200, r.text
    r = admin.post("/v1/keys", json={"role": "user", "user": "pm", "team": "nosuch"})
    assert r.status_code == 404


def test_client_speaks_teams(srv: Server, admin: httpx.Client, keys: dict[str, str]) -> None:
    with Client(srv.url, key=srv.admin_key) as ac:
        ac.create_team("acme", "clientteam")
        ac.add_member("acme", "clientteam", "cw", "writer")
        ac.add_member("acme", "clientteam", "cr")
        assert [m["user"] for m in ac.team_members("acme", "clientteam")] == ["cr", "cw"]
        cw_key = new_key(admin, role="user", user="cw")
        cr_key = new_key(admin, role="user", user="cr")
    with Client(srv.url, key=cw_key) as cw, Client(srv.url, key=cr_key) as cr:
        scope = cw.team_scope("acme", "clientteam")
        default = cw.remember(scope, "Invoices go out as PDF", slot="invoice.format",
                              value="pdf")
        own = cr.remember({"tenant": "acme", "user": "cr"}, "I want invoices as CSV",
                          slot="invoice.format", value="csv")
        hits = cr.recall({"tenant": "acme", "user": "cr"}, "invoice format")
        assert hits[0].memory.id == own.id
        assert hits[0].scope_mark == {"scope": "personal", "team": None,
                                      "precedence": "personal_over_team",
                                      "overrides": [default.id]}
        ctx = cr.context({"tenant": "acme", "user": "cr"}, "invoice format")
        assert "CSV" in ctx.text and "Invoices go out as PDF" not in ctx.text
        with pytest.raises(PermissionDeniedError):
            cr.remember(cr.team_scope("acme", "clientteam"), "readers cannot write")
        assert [t["name"] for t in cr.teams("acme")] == ["clientteam"]

"""The memory layers over real HTTP (a `memvault serve` subprocess on loopback, SQLite):
recent turns, summarize and expand, the knowledge graph (a move closes the old city),
maintain, context with a session; a user key reaches only its own layers; bad input is a
JSON 4xx that stores nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from _server import Server
from _util import query

GINA = {"user": "gina"}
TALK = [("user", "I am planning a trip to Kyoto in April"),
        ("assistant", "Kyoto in April is cherry blossom season."),
        ("user", "I want to see the temples and eat matcha sweets"),
        ("assistant", "Kiyomizu-dera and Uji are good for both.")]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(str(tmp_path_factory.mktemp("layers") / "s.db"))
    yield s
    s.stop()


@pytest.fixture(scope="module")
def talk(admin: httpx.Client, alice: httpx.Client) -> dict[str, Any]:
    """Alice's session `trip`: four turns observed with her key, summarised (force) by
    the admin."""
    r = alice.post("/v1/observe", params={"session": "trip"},
                   json={"messages": [{"role": ro, "content": t} for ro, t in TALK]})
    assert r.status_code == 200, r.text
    turns = r.json()["turns"]
    assert len(turns) == len(TALK)
    r = admin.post("/v1/summarize", params={"user": "alice", "session": "trip"},
                   json={"force": True})
    assert r.status_code == 200, r.text
    (summary,) = r.json()
    return {"turns": turns, "summary": summary}


def _revisions(db: str) -> int:
    return int(query(db, "SELECT COUNT(*) FROM revisions")[0][0])


def _log(admin: httpx.Client, user: str) -> list[dict[str, Any]]:
    return list(admin.get("/v1/access-log", params={"user": user, "limit": 50}).json())


# --- short-term and summaries -------------------------------------------------------------

def test_recent_summarize_expand(admin: httpx.Client, alice: httpx.Client,
                                 talk: dict[str, Any]) -> None:
    turns, summary = talk["turns"], talk["summary"]
    assert summary["kind"] == "summary"
    assert summary["metadata"]["covers"] == turns
    assert summary["scope"] == {"tenant": "acme", "user": "alice", "agent": "",
                                "session": "trip"}
    # Nothing left to summarise: a second call makes nothing.
    r = admin.post("/v1/summarize", params={"user": "alice", "session": "trip"})
    assert r.status_code == 200 and r.json() == []

    r = alice.get(f"/v1/memories/{summary['id']}/expand")
    assert r.status_code == 200, r.text
    assert [m["id"] for m in r.json()] == turns
    assert [m["content"] for m in r.json()] == [t for _, t in TALK]

    r = alice.get("/v1/recent", params={"session": "trip"})
    assert [m["id"] for m in r.json()] == turns  # oldest first, verbatim
    r = alice.get("/v1/recent", params={"session": "trip", "n": 2})
    assert [m["id"] for m in r.json()] == turns[-2:]
    assert alice.get("/v1/recent", params={"session": "elsewhere"}).json() == []

    # The layer reads are in the access log (newest first), with the ids they returned.
    rows = _log(admin, "alice")
    assert [row["memory_ids"] for row in rows if row["action"] == "recent"][:3] == [
        [], turns[-2:], turns]
    expand_row = next(row for row in rows if row["action"] == "expand")
    assert expand_row["memory_ids"] == [summary["id"], *turns]


def test_context_with_a_session_carries_its_recent_turns(alice: httpx.Client,
                                                        talk: dict[str, Any]) -> None:
    r = alice.post("/v1/context", json={"query": "what was I saying just now?",
                                        "session": "trip", "budget": 800})
    assert r.status_code == 200, r.text
    assert talk["turns"][-1] in {h["memory"]["id"] for h in r.json()["included"]}
    assert "Kiyomizu-dera" in r.json()["text"]
    trace = alice.get(f"/v1/traces/{r.json()['trace_id']}").json()
    (recent,) = [x for x in trace["injected"]["layers"] if x["layer"] == "recent"]
    assert recent["ids"] == talk["turns"][-len(recent["ids"]):]


# --- the knowledge graph ------------------------------------------------------------------

@pytest.fixture(scope="module")
def moved(admin: httpx.Client) -> None:
    """Gina lives in Shanghai, then moves to Hangzhou; the graph is fed by the lifecycle
    job (maintain, step graph)."""
    for text in ("I live in Shanghai", "I moved to Hangzhou"):
        r = admin.post("/v1/observe", params=GINA,
                       json={"messages": [{"role": "user", "content": text}]})
        assert r.status_code == 200, r.text
        time.sleep(0.02)  # two distinct milliseconds of valid time
    r = admin.post("/v1/maintain", params=GINA, json={"steps": ["graph"]})
    assert r.status_code == 200, r.text
    rep = r.json()
    assert set(rep) == {"expired", "summaries", "relations", "evicted", "errors",
                        "snapshots", "snapshots_dropped", "merges_proposed",
                        "merges_applied"}
    assert rep["snapshots"] == []  # a sweep of one scope takes no scheduled snapshot
    assert rep["relations"] and rep["errors"] == [] and rep["expired"] == 0
    again = admin.post("/v1/maintain", params=GINA, json={"steps": ["graph"]}).json()
    assert again["relations"] == []  # each memory is read once


def test_graph_move_closes_the_old_city(admin: httpx.Client, moved: None) -> None:
    def lives(**params: Any) -> list[dict[str, Any]]:
        r = admin.get("/v1/graph/facts", params={**GINA, "entity": "user", **params})
        assert r.status_code == 200, r.text
        return [f for f in r.json() if f["relation"] == "lives_in"]

    assert [(f["object"], f["valid_to"]) for f in lives()] == [("Hangzhou", None)]
    old, new = lives(history="true")
    assert (old["object"], new["object"], new["valid_to"]) == ("Shanghai", "Hangzhou", None)
    assert old["valid_to"] == new["valid_from"]  # closed by the move, at its moment
    assert old["subject"] == "user" and old["source_memory"]
    assert [f["object"] for f in lives(valid_at=str(old["valid_from"]))] == ["Shanghai"]
    assert lives(valid_at="2000-01-01T00:00:00Z") == []
    # as_of is system time: before the graph was built, it knew no fact.
    assert lives(as_of="2000-01-01T00:00:00Z", valid_since=old["valid_from"]) == []
    # The closing was a revision by the graph, not a delete: history shows it.
    revs = admin.get(f"/v1/memories/{old['id']}/history", params=GINA).json()
    assert [r["op"] for r in revs] == ["create", "update"]
    assert revs[-1]["actor"] == "system:graph"

    # Entity resolution across languages, and the neighbours in both directions.
    r = admin.get("/v1/graph/entities/上海", params=GINA)
    assert r.status_code == 200 and r.json()["kind"] == "entity"
    assert r.json()["content"] == "Shanghai"
    r = admin.get("/v1/graph/neighbours", params={**GINA, "entity": "Hangzhou"})
    assert [(n["entity"], n["relation"], n["direction"]) for n in r.json()] == [
        ("user", "lives_in", "in")]
    assert admin.get("/v1/graph/neighbours",
                     params={**GINA, "entity": "Shanghai"}).json() == []
    r = admin.get("/v1/graph/neighbours",
                  params={**GINA, "entity": "Shanghai", "valid_at": str(old["valid_from"])})
    assert [n["entity"] for n in r.json()] == ["user"]
    r = admin.get("/v1/graph/entities/Atlantis", params=GINA)
    assert (r.status_code, r.json()["code"]) == (404, "not_found")
    logged = [row["memory_ids"] for row in _log(admin, "gina")
              if row["action"] == "graph.facts"]
    assert logged[0] == [] and [old["id"], new["id"]] in logged  # 2000; history=true


# --- isolation ----------------------------------------------------------------------------

def test_a_user_key_cannot_read_another_users_layers(alice: httpx.Client,
                                                     admin: httpx.Client,
                                                     moved: None) -> None:
    r = admin.post("/v1/observe", params={**GINA, "session": "s"}, json={"messages": [
        {"role": "user", "content": t} for _, t in TALK]})
    assert r.status_code == 200
    (gina_summary,) = admin.post("/v1/summarize", params={**GINA, "session": "s"}).json()
    for path, params in (("/v1/recent", {"session": "s"}),
                         ("/v1/graph/facts", {"entity": "user"}),
                         ("/v1/graph/neighbours", {"entity": "user"}),
                         ("/v1/graph/entities/Hangzhou", {}),
                         (f"/v1/memories/{gina_summary['id']}/expand", {})):
        r = alice.get(path, params={**GINA, **params})
        assert (r.status_code, r.json()["code"]) == (403, "scope_denied"), path
    # Without naming gina, the same reads are alice's own: gina's data is not found.
    r = alice.get(f"/v1/memories/{gina_summary['id']}/expand")
    assert (r.status_code, r.json()["code"]) == (404, "not_found")
    r = alice.get("/v1/graph/entities/Hangzhou")
    assert (r.status_code, r.json()["code"]) == (404, "not_found")
    assert alice.get("/v1/recent", params={"session": "s"}).json() == []
    # A user key may not run the lifecycle verbs at all.
    for path in ("/v1/summarize", "/v1/maintain"):
        r = alice.post(path, json={})
        assert (r.status_code, r.json()["code"]) == (403, "forbidden"), path


# --- bad input ----------------------------------------------------------------------------

BAD = {"session": "bad"}  # where the uncovered turn is


@pytest.mark.parametrize("case", [
    ("POST", "/v1/summarize", BAD, {"force": "yes"}, 422, "invalid_input"),
    ("POST", "/v1/summarize", BAD, {"force": True, "user": "bob"}, 422, "invalid_input"),
    ("POST", "/v1/maintain", BAD, {"steps": ["explode"]}, 422, "invalid_input"),
    ("POST", "/v1/maintain", BAD, {"steps": "graph"}, 422, "invalid_input"),
    ("GET", "/v1/recent", {**BAD, "n": -1}, None, 422, "invalid_input"),
    ("GET", "/v1/recent", {**BAD, "max_tokens": "lots"}, None, 422, "invalid_input"),
    ("GET", "/v1/graph/facts", {}, None, 422, "invalid_input"),
    ("GET", "/v1/graph/facts", {"entity": "user", "as_of": "someday"}, None, 422,
     "invalid_input"),
    ("GET", "/v1/graph/neighbours", {"entity": "user", "history": "maybe"}, None, 422,
     "invalid_input"),
    ("GET", "/v1/memories/m_nope/expand", {}, None, 404, "not_found"),
    ("POST", "/v1/context", {}, {"query": "trip", "session": 5}, 422, "invalid_input"),
    ("POST", "/v1/context", {}, {"query": "trip", "session": "a\x00b"}, 422,
     "invalid_input"),
], ids=lambda c: f"{c[0]} {c[1]} {c[3] if c[3] is not None else c[2]}")
def test_bad_layer_input_is_a_json_4xx_and_stores_nothing(
        srv: Server, admin: httpx.Client, moved: None,
        case: tuple[str, str, dict[str, Any], Any, int, str]) -> None:
    method, path, params, body, status, code = case
    # Uncovered turns in the scope: a summarize that got through would store a summary.
    admin.post("/v1/observe", params={**GINA, "session": "bad"}, json={"messages": [
        {"role": "user", "content": "I collect old maps"}]})
    before = _revisions(srv.db)
    kw: dict[str, Any] = {"json": body} if body is not None else {}
    r = admin.request(method, path, params={**GINA, **params}, **kw)
    assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["message"]
    assert _revisions(srv.db) == before


def test_expand_of_a_turn_is_refused(admin: httpx.Client, talk: dict[str, Any]) -> None:
    r = admin.get(f"/v1/memories/{talk['turns'][0]}/expand", params={"user": "alice"})
    assert (r.status_code, r.json()["code"]) == (422, "invalid_input")


def test_an_unreachable_llm_summariser_is_a_502_and_stores_nothing(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The summariser's endpoint is down (a closed port on loopback): the upstream failed,
    not the request, so the answer is 502 with its code, and no summary is stored."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cfg = tmp_path / "llm.yaml"
    cfg.write_text("layers:\n  summaries:\n    summarizer: llm\n", encoding="utf-8")
    monkeypatch.setenv("MEMVAULT_LLM_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("MEMVAULT_LLM_MODEL", "none")
    monkeypatch.setenv("MEMVAULT_CONFIG", str(cfg))
    s = Server(str(tmp_path / "s.db"))
    try:
        assert s.admin_key is not None
        with s.client(s.admin_key) as admin:
            r = admin.post("/v1/observe", params={**GINA, "session": "s"},
                           json={"messages": [{"role": r_, "content": c} for r_, c in TALK]})
            assert r.status_code == 200, r.text
            r = admin.post("/v1/summarize", params={**GINA, "session": "s"},
                           json={"force": True})
            assert r.status_code == 502 and r.json()["code"] == "summarization_failed"
            listed = admin.get("/v1/memories", params={**GINA, "kind": "summary"})
            assert listed.status_code == 200 and listed.json()["items"] == []
    finally:
        s.stop()

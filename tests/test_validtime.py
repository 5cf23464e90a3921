"""Valid-time reads (validtime.py): "where did Gina work in 2022". Recall, context, list
and graph facts take a valid-time point (valid_at) or range (valid_since/valid_until)
apart from as_of (system time), and the two combine; a memory whose validity has ended
is served when the window reaches back to it. Every face: Vault (both backends), the
CLI, REST and the Client on a loopback server, MCP; bad input is a typed error."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx
import pytest
import uvicorn
from _util import ManualClock
from test_mcp_http_auth import call, free_port, key, session
from test_mcp_http_auth import serving as serving_mcp
from typer.testing import CliRunner

from memvault import Client, Scope, ValidationError, Vault
from memvault.cli import app as cli_app
from memvault.server.app import Settings, create_app
from memvault.timeutil import to_ms

GINA = Scope("acme", "gina")
DAY = 86_400_000
Q = "where does Gina work"
ACME, GLOBEX, TEA = "Gina works at Acme", "Gina works at Globex", "Gina likes green tea"
Y2019, Y2020, Y2021, Y2022, Y2023 = (to_ms(f"{y}-01-01") for y in range(2019, 2024))
MID_2020, MID_2021, MID_2022 = (to_ms(f"{y}-06-01") for y in (2020, 2021, 2022))


def _gina(vault: Vault, clock: ManualClock) -> int:
    """Acme (2019-2021) recorded first, Globex (2021-) a day later, and a memory with no
    validity dates; returns a system time between the two records."""
    vault.remember(GINA, ACME, valid_from="2019-01-01", valid_to="2021-01-01")
    vault.remember(GINA, TEA)
    known = clock.advance(DAY // 2)
    clock.advance(DAY // 2)
    vault.remember(GINA, GLOBEX, valid_from="2021-01-01T00:00:00Z")
    clock.advance(DAY)
    return known


def _said(hits: Any) -> set[str]:
    return {h.memory.content for h in hits} - {TEA}


def test_where_did_gina_work(clocked_vault: Vault, clock: ManualClock) -> None:
    vault = clocked_vault
    known = _gina(vault, clock)

    def recall(**kw: Any) -> set[str]:
        return _said(vault.recall(GINA, Q, **kw))

    assert recall() == {GLOBEX}  # now: Acme is history, not served by default
    assert recall(valid_at=MID_2020) == {ACME}
    assert recall(valid_at="2022-06-01") == {GLOBEX}
    assert recall(valid_since=Y2022, valid_until=Y2023) == {GLOBEX}  # "in 2022"
    assert _said(vault.recall(GINA, "Where did Gina work in 2022", valid_since=Y2022,
                              valid_until=Y2023)) == {GLOBEX}
    assert recall(valid_since=MID_2020, valid_until=MID_2021) == {ACME, GLOBEX}
    assert recall(valid_until=Y2020) == {ACME}  # open start
    assert recall(valid_since=Y2021) == {GLOBEX}  # valid_to is exclusive: Acme ended then
    # Bitemporal: what the store knew before Globex was recorded, about any time.
    assert recall(as_of=known, valid_since=Y2019) == {ACME}
    assert recall(as_of=known, valid_at=MID_2022) == set()
    assert recall(as_of=known) == set()  # then, as now, Acme had ended
    # The trace names the valid-time filter.
    hits = vault.recall(GINA, Q, valid_at=MID_2020)
    t = vault.trace(GINA, hits.trace_id)
    assert t["valid_time"] == {"valid_at": MID_2020}
    assert "valid_in_window" in t["store_filters"] and "valid_now" not in t["store_filters"]

    # list: the same filter, apart from since/until (when a memory last changed); a
    # memory with no validity dates holds always.
    def listed(**kw: Any) -> set[str]:
        return {m.content for m in vault.list(GINA, **kw)}

    assert listed() == {ACME, GLOBEX, TEA}
    assert listed(valid_at=MID_2020) == {ACME, TEA}
    assert listed(valid_since=MID_2022, valid_until=Y2023) == {GLOBEX, TEA}
    assert listed(valid_at=MID_2022, as_of=known) == {TEA}

    # context: recall only; the history item says when it held.
    ctx = vault.context(GINA, Q, valid_at=MID_2020)
    assert ACME in ctx.text and GLOBEX not in ctx.text
    assert "2019-01-01T00:00Z–2021-01-01T00:00Z" in ctx.text
    assert vault.trace(GINA, ctx.trace_id)["valid_time"] == {"valid_at": MID_2020}
    now_ctx = vault.context(GINA, Q)
    assert GLOBEX in now_ctx.text and ACME not in now_ctx.text
    assert ACME not in vault.context(GINA, Q, as_of=known, valid_at=MID_2022).text
    assert ACME in vault.context(GINA, Q, as_of=known, valid_at=MID_2020).text


def test_graph_facts_in_valid_and_system_time(clocked_vault: Vault,
                                              clock: ManualClock) -> None:
    vault = clocked_vault
    me = Scope("acme", "alice")
    t_live = clock.now
    vault.remember(me, "I live in Shanghai")
    vault.graph_ingest(me)
    known = clock.advance(10 * DAY)  # the graph knew only Shanghai then
    t_move = clock.advance(DAY)
    vault.remember(me, "I moved to Hangzhou")
    vault.graph_ingest(me)
    clock.advance(DAY)

    def where(**kw: Any) -> list[tuple[str, int | None]]:
        return [(f["object"], f["valid_to"]) for f in vault.graph_facts(me, "user", **kw)
                if f["relation"] == "lives_in"]

    assert where() == [("Hangzhou", None)]
    assert where(valid_at=t_live + DAY) == [("Shanghai", t_move)]
    assert where(valid_since=t_live, valid_until=clock.now) == [("Shanghai", t_move),
                                                                 ("Hangzhou", None)]
    # as_of is system time: as known then, Shanghai still held (open), Hangzhou unknown.
    assert where(as_of=known) == [("Shanghai", None)]
    assert where(as_of=known, valid_at=clock.now) == [("Shanghai", None)]
    assert where(as_of=known, valid_since=t_move) == [("Shanghai", None)]
    assert where(as_of=t_live - 1) == []
    assert [n["entity"] for n in vault.graph_neighbours(me, "Shanghai",
                                                        valid_at=t_live + DAY)] == ["user"]
    assert vault.graph_neighbours(me, "Shanghai") == []
    with pytest.raises(ValidationError, match="history"):
        vault.graph_facts(me, "user", history=True, valid_at=t_live)


def test_edit_sets_when_a_memory_held(clocked_vault: Vault, clock: ManualClock) -> None:
    """A memory told without dates gets them by hand: "Gina left Berlin in 2021" closes
    it as a new version, and it stays findable for when it held."""
    vault = clocked_vault
    berlin = vault.remember(GINA, "Gina lives in Berlin").id
    clock.advance(DAY)
    assert _said(vault.recall(GINA, "where does Gina live")) == {"Gina lives in Berlin"}
    with pytest.raises(ValidationError, match="valid_to must be after valid_from"):
        vault.edit(GINA, berlin, valid_from="2021-01-01", valid_to="2020-01-01")
    with pytest.raises(ValidationError, match="valid_to: cannot parse"):
        vault.edit(GINA, berlin, valid_to="soon")
    assert vault.get(GINA, berlin).version == 1  # the failed edits changed nothing
    m = vault.edit(GINA, berlin, valid_from="2015-01-01", valid_to="2021-01-01",
                   reason="moved away")
    assert (m.version, m.valid_from, m.valid_to) == (2, to_ms("2015-01-01"), Y2021)
    with pytest.raises(ValidationError, match="valid_to must be after valid_from"):
        vault.edit(GINA, berlin, valid_from="2022-01-01")  # against the stored valid_to
    assert _said(vault.recall(GINA, "where does Gina live")) == set()
    assert _said(vault.recall(GINA, "where does Gina live", valid_at=MID_2020)) == {
        "Gina lives in Berlin"}
    assert [r.op for r in vault.history(GINA, berlin)] == ["create", "update"]


BAD: list[tuple[dict[str, Any], str]] = [
    ({"valid_at": "2020-01-01", "valid_since": "2019-01-01"}, "not both"),
    ({"valid_since": "2022-01-01", "valid_until": "2021-01-01"}, "before valid_until"),
    ({"valid_since": "2022-01-01", "valid_until": "2022-01-01"}, "before valid_until"),
    ({"valid_at": "someday"}, "valid_at: cannot parse"),
    ({"valid_until": -62_135_596_800_001}, "valid_until: time .* before the year 1"),
]


@pytest.mark.parametrize(("kw", "msg"), BAD)
def test_bad_valid_time_is_a_typed_error(clocked_vault: Vault, clock: ManualClock,
                                         kw: dict[str, Any], msg: str) -> None:
    vault = clocked_vault
    vault.remember(Scope("acme", "alice"), "I live in Shanghai")
    vault.graph_ingest(Scope("acme", "alice"))
    me = Scope("acme", "alice")
    before = vault.audit(me)
    for verb in (lambda: vault.recall(me, "Shanghai", **kw),
                 lambda: vault.context(me, "Shanghai", **kw),
                 lambda: vault.list(me, **kw),
                 lambda: vault.graph_facts(me, "user", **kw),
                 lambda: vault.graph_neighbours(me, "user", **kw)):
        with pytest.raises(ValidationError, match=msg):
            verb()
    assert vault.traces(me) == [] and vault.audit(me) == before


# --- CLI ------------------------------------------------------------------------------------

def test_cli_valid_time(db: str) -> None:
    def cli(*args: str, code: int = 0) -> Any:
        res = CliRunner().invoke(cli_app, ["--db", db, "--tenant", "acme", "--user", "gina",
                                           "--json", *args])
        assert res.exit_code == code, res.output
        return json.loads(res.stdout) if code == 0 else res.output

    acme = cli("remember", ACME, "--valid-from", "2019-01-01", "--valid-to", "2021-01-01")
    known = cli("get", acme["id"])["recorded_at"]
    time.sleep(0.002)  # Globex is recorded strictly later than `known`
    cli("remember", GLOBEX, "--valid-from", "2021-01-01")
    tea = cli("remember", TEA)["id"]
    assert cli("edit", tea, "--valid-to", "2019-01-01", "--reason", "no longer")["version"] == 2
    assert "valid_to must be after" in cli("edit", tea, "--valid-from", "2020-01-01", code=1)

    def recall(*args: str) -> set[str]:
        return {h["memory"]["content"] for h in cli("recall", Q, *args)["hits"]}

    assert recall() == {GLOBEX}
    assert recall("--valid-at", "2020-06-01") == {ACME}
    assert recall("--since", "2022-01-01", "--until", "2023-01-01") == {GLOBEX}
    assert recall("--valid-since", "2020-06-01", "--valid-until", "2021-06-01") == {ACME,
                                                                                  GLOBEX}
    assert recall("--as-of", str(known), "--since", "2019-01-01") == {ACME}
    ctx = cli("context", Q, "--valid-at", str(MID_2020))
    assert ACME in ctx["text"] and "2019-01-01T00:00Z–2021-01-01T00:00Z" in ctx["text"]
    assert GLOBEX not in ctx["text"]
    assert ACME not in cli("context", Q, "--as-of", str(known), "--since", "2022-01-01")["text"]
    assert {m["content"] for m in cli("list", "--valid-at", "2020-06-01")} == {ACME}
    assert {m["content"] for m in cli("list", "--valid-at", "2018-06-01")} == {TEA}
    assert {m["content"] for m in cli("list", "--valid-since", "2022-01-01")} == {GLOBEX}
    # Bad input: a message, a non-zero exit.
    out = cli("recall", Q, "--since", "2022-01-01", "--until", "2021-01-01", code=1)
    assert "valid_since: must be before valid_until" in out
    assert "valid_at: cannot parse" in cli("context", Q, "--valid-at", "someday", code=1)
    assert "not both" in cli("list", "--valid-at", "2020-01-01", "--valid-since", "2019",
                             code=1)


# --- REST and the Client on a loopback server --------------------------------------------

@contextmanager
def serving(vault: Vault) -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(
        create_app(vault, Settings(worker=False, sweep_interval=0)), host="127.0.0.1",
        port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            assert thread.is_alive(), "the server stopped before it started"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join()


def test_rest_and_client_valid_time(clocked_vault: Vault, clock: ManualClock) -> None:
    vault = clocked_vault
    known = _gina(vault, clock)
    me = Scope("acme", "alice")
    vault.remember(me, "I live in Shanghai")
    vault.graph_ingest(me)
    t_shanghai = clock.advance(DAY)
    vault.remember(me, "I moved to Hangzhou")
    vault.graph_ingest(me)
    secret = key(vault, "admin")
    with serving(vault) as url, httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {secret}"}) as http, \
            Client(url, secret) as client:
        g = {"user": "gina"}
        r = http.post("/v1/recall", params=g, json={"query": Q, "valid_at": "2020-06-01"})
        assert r.status_code == 200, r.text
        assert {h["memory"]["content"] for h in r.json()["hits"]} - {TEA} == {ACME}
        r = http.post("/v1/recall", params=g, json={"query": Q, "as_of": known,
                                                    "valid_since": Y2019})
        assert {h["memory"]["content"] for h in r.json()["hits"]} - {TEA} == {ACME}
        r = http.post("/v1/context", params=g, json={"query": Q, "valid_since": MID_2020,
                                                     "valid_until": MID_2021})
        assert ACME in r.json()["text"] and GLOBEX in r.json()["text"]
        r = http.get("/v1/memories", params={**g, "valid_at": "2020-06-01"})
        assert {m["content"] for m in r.json()["items"]} == {ACME, TEA}
        r = http.get("/v1/graph/facts", params={"user": "alice", "entity": "user",
                                                "valid_at": t_shanghai - 1})
        assert [f["object"] for f in r.json()] == ["Shanghai"]
        r = http.get("/v1/graph/neighbours", params={"user": "alice", "entity": "Shanghai",
                                                     "valid_at": t_shanghai - 1})
        assert [n["entity"] for n in r.json()] == ["user"]
        # Bad input: a JSON 4xx naming the field.
        for method, path, kw in (
                ("POST", "/v1/recall", {"json": {"query": Q, "valid_since": Y2022,
                                                 "valid_until": Y2021}}),
                ("POST", "/v1/context", {"json": {"query": Q, "valid_at": "someday"}}),
                ("GET", "/v1/memories", {"params": {"valid_at": "x"}}),
                ("GET", "/v1/graph/facts", {"params": {"entity": "user", "valid_at": Y2020,
                                                       "valid_until": Y2021}})):
            kw.setdefault("params", {}).update(g)
            r = http.request(method, path, **kw)
            assert r.status_code == 422 and r.json()["code"] == "invalid_input", r.text
            assert "valid_" in r.json()["message"]
        # Valid dates set by hand: PATCH, and the Client's edit.
        tea = vault.list(GINA, q="tea")[0]
        r = http.patch(f"/v1/memories/{tea.id}", params=g, json={"valid_to": "2018-01-01"})
        assert r.status_code == 200 and r.json()["valid_to"] == to_ms("2018-01-01"), r.text
        r = http.patch(f"/v1/memories/{tea.id}", params=g, json={"valid_from": "2019-01-01"})
        assert r.status_code == 422 and "valid_to must be after" in r.json()["message"]
        assert client.edit(GINA, tea.id, valid_to=Y2023).valid_to == Y2023
        # The Client: the same answers, the same typed errors.
        assert _said(client.recall(GINA, Q, valid_at=MID_2020)) == {ACME}
        assert _said(client.recall(GINA, Q, valid_since=Y2022, valid_until=Y2023)) == {GLOBEX}
        assert _said(client.recall(GINA, Q, as_of=known, valid_since=Y2019)) == {ACME}
        assert ACME in client.context(GINA, Q, valid_at=MID_2020).text
        assert {m.content for m in client.list(GINA, valid_at=MID_2022)} == {GLOBEX, TEA}
        assert [f["object"] for f in client.graph_facts(me, "user", valid_at=t_shanghai - 1)
                if f["relation"] == "lives_in"] == ["Shanghai"]
        assert [n["entity"] for n in client.graph_neighbours(
            me, "Hangzhou", valid_since=t_shanghai)] == ["user"]
        with pytest.raises(ValidationError, match="valid_since"):
            client.recall(GINA, Q, valid_since=Y2022, valid_until=Y2021)


# --- MCP ----------------------------------------------------------------------------------

def test_mcp_valid_time(clocked_vault: Vault, clock: ManualClock) -> None:
    vault = clocked_vault
    _gina(vault, clock)
    secret = key(vault, "user", "gina")

    async def go(url: str) -> None:
        async with session(url, secret) as s:
            err, r = await call(s, "recall", query=Q, valid_at="2020-06-01")
            assert not err and {h["memory"]["content"] for h in r["hits"]} - {TEA} == {ACME}
            err, r = await call(s, "context", query=Q, valid_since="2022-01-01",
                                valid_until="2023-01-01")
            assert not err and GLOBEX in r["text"] and ACME not in r["text"]
            err, r = await call(s, "list", valid_at="2020-06-01")
            assert not err and {m["content"] for m in r["memories"]} == {ACME, TEA}
            err, r = await call(s, "recall", query=Q, valid_at="2020", valid_since="2019")
            assert err and r["error"]["code"] == "invalid_input"

    with serving_mcp(vault) as url:
        anyio.run(go, url)

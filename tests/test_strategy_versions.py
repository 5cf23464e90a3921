"""Strategy versions (docs/retrieval.md, "Strategy versions"): every strategy a store has
served with is kept whole with its first and last use, a trace's strategy_hash resolves
to it after the store switched, and a shadow run of a candidate reports what it would
change over recent traces while writing nothing. Both backends; REST and Client over a
real `memvault serve` on loopback."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from _server import Server
from _util import ManualClock
from typer.testing import CliRunner

from memvault import Client, NotFoundError, ValidationError, Vault
from memvault.cli.app import app
from memvault.config import Strategy, parse_strategy

A = {"tenant": "acme", "user": "alice"}
HOUR = 3_600_000
DAY = 24 * HOUR

# B differs from A in a knob of every kind of section, so their hashes differ.
STRAT_A = parse_strategy({"name": "plain", "retrieval": {"top_k": 3}})
STRAT_B = parse_strategy({"name": "recent-first", "retrieval": {
    "weights": {"recency": 5.0}, "decay": {"half_life_days": 10}}})


def teas(vault: Vault, clock: ManualClock) -> list[str]:
    """Three tea memories ten days apart, the best match for "green tea" the oldest."""
    ids = []
    for text in ("Alice likes green tea with jasmine", "Alice bought a new tea kettle",
                 "Alice drinks tea at work"):
        ids.append(vault.remember(A, text).memory.id)
        clock.advance(10 * DAY)
    return ids


def test_a_trace_resolves_to_its_strategy_after_the_switch(
        make_vault: Callable[..., Vault], db: str) -> None:
    clock = ManualClock()
    t0 = clock.now
    va = make_vault(db, clock=clock, strategy=STRAT_A)
    va.remember(A, "Alice likes green tea")
    clock.advance(HOUR // 2)
    old = va.recall(A, "tea").trace_id
    clock.advance(2 * HOUR)
    va.recall(A, "green tea")  # more than an hour after the last note: last use moves
    a_last = clock.now
    va.close()

    clock.advance(DAY)
    vb = make_vault(db, clock=clock, strategy=STRAT_B)
    new = vb.recall(A, "tea").trace_id
    assert old is not None and new is not None
    trace_a, trace_b = vb.trace(A, old), vb.trace(A, new)
    assert trace_a["strategy_hash"] == STRAT_A.hash != trace_b["strategy_hash"] == STRAT_B.hash

    # The old trace's hash gives A's full text, not the strategy in force.
    shown = vb.strategy_version(trace_a["strategy_hash"])
    assert Strategy.model_validate(shown["strategy"]) == STRAT_A
    assert shown["strategy"]["retrieval"]["top_k"] == 3 and shown["name"] == "plain"
    assert shown["current"] is False
    assert vb.strategy_version(STRAT_B.hash)["current"] is True

    hist = vb.strategy_history()
    assert [(h["hash"], h["name"], h["current"]) for h in hist] == [
        (STRAT_A.hash, "plain", False), (STRAT_B.hash, "recent-first", True)]
    assert (hist[0]["first_used_at"], hist[0]["last_used_at"]) == (t0, a_last)
    assert hist[1]["first_used_at"] == hist[1]["last_used_at"] == a_last + DAY


def test_show_of_an_unknown_or_malformed_hash_is_a_typed_error(vault: Vault) -> None:
    before = vault.strategy_history()
    with pytest.raises(NotFoundError):
        vault.strategy_version("0123456789abcdef")
    for bad in ("xyz", "", "0123456789abcdef0", None):
        with pytest.raises(ValidationError):
            vault.strategy_version(bad)  # type: ignore[arg-type]
    assert vault.strategy_history() == before


def stored(vault: Vault) -> dict[str, Any]:
    """Everything a shadow run must leave as it was."""
    return {"traces": vault.traces(A, limit=1000), "audit": vault.audit(A, limit=1000),
            "memories": vault.list(A, limit=1000), "strategies": vault.strategy_history(),
            "events": [e.id for e in vault.events("acme", limit=1000)],
            "access": vault.store.access_log("acme", limit=1000)}


def test_shadow_reports_a_real_ranking_change_and_writes_nothing(
        clocked_vault: Vault, clock: ManualClock) -> None:
    vault = clocked_vault
    teas(vault, clock)
    for q in ("green tea", "tea kettle", "green tea"):
        vault.recall(A, q)
        clock.advance(1)
    before = stored(vault)

    report = vault.shadow_run("acme", STRAT_B, user="alice", traces=10)
    assert stored(vault) == before  # no trace, no strategy noted, no change, no log row
    assert report["candidate_hash"] == STRAT_B.hash != report["current_hash"]
    assert report["identical"] is False
    # "green tea" asked twice replays once.
    assert [q["query"] for q in report["queries"]] == ["green tea", "tea kettle"]
    s = report["summary"]
    assert (s["traces"], s["queries"], s["errors"]) == (3, 2, 0)
    assert s["changed"] >= 1 and s["changed"] + s["unchanged"] == 2
    assert s["mean_overlap"] == pytest.approx(
        sum(q["overlap"] for q in report["queries"]) / 2)

    green = report["queries"][0]
    assert green["changed"] and green["overlap"] < 1
    # The two lists are what recall serves under each strategy.
    assert green["current"] == [h.memory.id for h in vault.recall(A, "green tea")]
    vault.strategy = STRAT_B
    assert green["candidate"] == [h.memory.id for h in vault.recall(A, "green tea")]
    # And the differences are exactly those of the two lists.
    cur, cand = green["current"], green["candidate"]
    assert [(e["id"], e["rank"]) for e in green["entered"]] == [
        (m, cand.index(m) + 1) for m in cand if m not in cur]
    assert [(e["id"], e["rank"]) for e in green["left"]] == [
        (m, cur.index(m) + 1) for m in cur if m not in cand]
    assert [(e["id"], e["from"], e["to"]) for e in green["moved"]] == [
        (m, cur.index(m) + 1, cand.index(m) + 1) for m in cand
        if m in cur and cur.index(m) != cand.index(m)]
    assert green["entered"] or green["left"] or green["moved"]


def test_shadow_of_the_strategy_in_force_is_no_change(clocked_vault: Vault,
                                                       clock: ManualClock) -> None:
    vault = clocked_vault
    teas(vault, clock)
    vault.recall(A, "green tea")
    bob = {**A, "user": "bob"}
    vault.remember(bob, "Bob likes black tea")
    vault.recall(bob, "tea")  # another user: in the tenant's run only
    same = parse_strategy(vault.strategy.model_dump(mode="json"))
    report = vault.shadow_run("acme", same, user="alice")
    assert report["identical"] is True
    assert report["summary"] == {"traces": 1, "queries": 1, "changed": 0, "unchanged": 1,
                                 "errors": 0, "mean_overlap": 1.0}
    q = report["queries"][0]
    assert (q["entered"], q["left"], q["moved"]) == ([], [], [])
    assert q["current"] == q["candidate"] and len(q["current"]) >= 1
    assert vault.shadow_run("acme", same)["summary"]["traces"] == 2


def test_shadow_refuses_bad_input(vault: Vault, tmp_path: Path) -> None:
    bad_file = tmp_path / "bad.yaml"
    bad_file.write_text("retrieval: {top_k: 0}\n", encoding="utf-8")
    for kw in ({"traces": 0}, {"traces": True}, {"top_k": 0}, {"user": ""},
               {"user": 7}):
        with pytest.raises(ValidationError):
            vault.shadow_run("acme", STRAT_B, **kw)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        vault.shadow_run("acme", bad_file)
    with pytest.raises(ValidationError):
        vault.shadow_run("acme", {"retrieval": {"no_such_knob": 1}})
    with pytest.raises(ValidationError):
        vault.shadow_run("acme", 42)  # type: ignore[arg-type]


# --- the CLI ----------------------------------------------------------------------------

def cli(db: str, *args: str) -> Any:
    return CliRunner().invoke(app, ["--db", db, *args])


@pytest.fixture
def sqlite_db(tmp_path: Path) -> str:
    return str(tmp_path / "cli.db")


def test_cli_history_show_and_shadow(sqlite_db: str, tmp_path: Path) -> None:
    a_file, b_file = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a_file.write_text(STRAT_A.to_yaml(), encoding="utf-8")
    b_file.write_text(yaml.safe_dump(STRAT_B.model_dump(mode="json")), encoding="utf-8")
    with Vault(sqlite_db, embedder="use-m3", strategy=STRAT_A) as v:
        for text in ("Alice likes green tea", "Alice bought a tea kettle",
                     "Alice drinks coffee at work"):
            v.remember(A, text)
        v.recall(A, "green tea")

    r = cli(sqlite_db, "--config", str(b_file), "--json", "config", "history")
    assert r.exit_code == 0, r.output
    assert [(h["hash"], h["current"]) for h in json.loads(r.stdout)] == [
        (STRAT_A.hash, False), (STRAT_B.hash, True)]
    r = cli(sqlite_db, "--json", "config", "show", STRAT_A.hash)
    assert r.exit_code == 0, r.output
    assert Strategy.model_validate(json.loads(r.stdout)["strategy"]) == STRAT_A
    r = cli(sqlite_db, "config", "show", STRAT_A.hash)
    assert r.exit_code == 0 and f"# strategy hash {STRAT_A.hash}" in r.stdout
    assert Strategy.model_validate(yaml.safe_load(r.stdout)) == STRAT_A
    r = cli(sqlite_db, "config", "show", "0123456789abcdef")
    assert r.exit_code == 1 and "not_found" in r.stderr
    r = cli(sqlite_db, "config", "show", "nothex")
    assert r.exit_code == 1 and "invalid_input" in r.stderr

    r = cli(sqlite_db, "--config", str(a_file), "--tenant", "acme", "--user", "alice",
            "config", "shadow", str(a_file))
    assert r.exit_code == 0, r.output
    assert "(identical)" in r.stdout and "no change: 1 queries" in r.stdout
    r = cli(sqlite_db, "--config", str(a_file), "--json", "config", "shadow",
            "--tenant", "acme", "--user", "alice", "--top-k", "1", str(b_file))
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["candidate_hash"] == STRAT_B.hash
    r = cli(sqlite_db, "config", "shadow", str(b_file))
    assert r.exit_code == 1 and "tenant" in r.stderr
    r = cli(sqlite_db, "--tenant", "acme", "config", "shadow", "--traces", "0", str(b_file))
    assert r.exit_code == 1 and "traces" in r.stderr
    r = cli(sqlite_db, "--tenant", "acme", "config", "shadow", str(tmp_path / "none.yaml"))
    assert r.exit_code == 1 and "cannot read" in r.stderr


# --- REST and the Client ------------------------------------------------------------------

@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    """A store that served with STRAT_A (a trace written under it), then a server with
    the default strategy on it."""
    db = str(tmp_path_factory.mktemp("strat") / "s.db")
    with Vault(db, embedder="use-m3", strategy=STRAT_A) as v:
        for text in ("Alice likes green tea", "Alice bought a tea kettle"):
            v.remember(A, text)
        tid = v.recall(A, "green tea").trace_id
    assert tid is not None
    s = Server(db)
    yield s, tid
    s.stop()


@pytest.fixture(scope="module")
def srv(served: tuple[Server, str]) -> Server:
    return served[0]


def test_rest_and_client(served: tuple[Server, str], admin: httpx.Client) -> None:
    srv, tid = served
    assert srv.admin_key is not None
    with Client(srv.url, srv.admin_key) as c:
        hist = c.strategy_history()
        assert [(h["hash"], h["current"]) for h in hist] == [
            (STRAT_A.hash, False), (Strategy().hash, True)]
        old = c.trace(A, tid)["strategy_hash"]
        assert Strategy.model_validate(c.strategy_version(old)["strategy"]) == STRAT_A
        with pytest.raises(NotFoundError):
            c.strategy_version("0123456789abcdef")
        report = c.shadow_run("acme", STRAT_A, user="alice")
        assert report["identical"] is False and report["summary"]["queries"] == 1
        assert report == c.shadow_run("acme", STRAT_A.model_dump(mode="json"), user="alice")
        with pytest.raises(ValidationError):
            c.shadow_run("acme", {"retrieval": {"top_k": 0}})  # refused before sending
        assert c.strategy_history() == hist
    r = admin.get("/v1/strategies/0123456789abcdef")
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    r = admin.get("/v1/strategies/nothex")
    assert r.status_code == 422 and r.json()["code"]
    r = admin.post("/v1/strategies/shadow", params={"user": "alice"},
                   json={"strategy": {"retrieval": {"top_k": 0}}})
    assert r.status_code == 422 and "top_k" in r.json()["message"]
    r = admin.post("/v1/strategies/shadow", json={"strategy": {}, "traces": 0})
    assert r.status_code == 422
    assert admin.get("/v1/traces", params={"user": "alice"}).json()[0]["trace_id"] == tid

"""The lifecycle job: per-user caps evict by the documented policy (frozen and slot
memories never), eviction is a recorded, undoable revision; sweep runs summary triggers;
the CLI runs it all."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from _util import ManualClock, check_consistent, target_of
from typer.testing import CliRunner

from memvault import Scope, ValidationError, Vault
from memvault.cli import app
from memvault.config import parse_strategy
from memvault.lifecycle import eviction_order

ME = Scope("acme", "alice")
BOB = Scope("acme", "bob")


def _capped(n: int, **summaries: int) -> object:
    return parse_strategy({"layers": {"caps": {"max_items": n},
                                      "summaries": summaries or {"every_turns": 0,
                                                                 "every_tokens": 0,
                                                                 "topic_shift": 0}}})


def test_cap_evicts_by_policy_and_spares_frozen_and_slots(make_vault: Callable[..., Vault],
                                                          clock: ManualClock) -> None:
    vault = make_vault(clock=clock, strategy=_capped(5))
    ids: dict[str, str] = {}

    def add(name: str, content: str, **kw: object) -> None:
        clock.advance(1000)
        ids[name] = vault.remember(ME, content, **kw).id  # type: ignore[arg-type]

    add("frozen_old", "The oldest note, frozen", metadata={"importance": 0.0})
    vault.freeze(ME, ids["frozen_old"], reason="keep")
    add("slot", "The user wants reports as CSV", slot="report.format", value="CSV")
    add("old_low", "Old note of low importance", metadata={"importance": 0.1})
    add("new_low", "Newer note of low importance", metadata={"importance": 0.1})
    add("important", "An important note", metadata={"importance": 0.9})
    add("confirmed", "A note confirmed twice", metadata={"importance": 0.1})
    vault.remember(ME, "A note confirmed twice")  # reinforce: confirmations 2
    add("plain", "A plain note")  # importance 0 (default)
    add("plain2", "Another plain note")
    vault.remember(BOB, "Bob's only note")  # another user: not counted against alice
    assert len(vault.list(ME, status="active")) == 8

    rep = vault.maintain(steps=["caps"])
    # 8 active, cap 5: three go. Frozen and slot are never candidates. Order: importance
    # 0 (plain, plain2 by last use), then 0.1 with fewest confirmations, oldest first.
    assert rep.evicted == [ids["plain"], ids["plain2"], ids["old_low"]]
    left = {m.id for m in vault.list(ME, status="active")}
    assert left == {ids["frozen_old"], ids["slot"], ids["new_low"], ids["important"],
                    ids["confirmed"]}
    assert vault.list(BOB, status="active")
    for mid in rep.evicted:
        m = vault.get(ME, mid)
        last = vault.history(ME, mid)[-1]
        assert m.status == "expired"
        assert (last.op, last.actor) == ("expire", "system:sweep")
        assert last.reason and last.reason.startswith("evicted:")
    # Undoable like any change.
    vault.rollback(ME, ids["plain"], 1, reason="keep it after all")
    assert vault.get(ME, ids["plain"]).status == "active"
    assert vault.maintain(steps=["caps"]).evicted == [ids["plain"]]  # over the cap again
    check_consistent(vault)


def test_cap_with_only_protected_memories_left_evicts_nothing(
        make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(strategy=_capped(1))
    a = vault.remember(ME, "frozen one").id
    vault.freeze(ME, a)
    vault.remember(ME, "user.name", slot="user.name", value="Alice")
    assert vault.maintain(ME, steps=["caps"]).evicted == []
    assert len(vault.list(ME, status="active")) == 2


def test_covered_turns_go_before_other_memories(make_vault: Callable[..., Vault],
                                                clock: ManualClock) -> None:
    vault = make_vault(clock=clock, strategy=_capped(4))
    s1 = Scope("acme", "alice", session="s1")
    note = vault.remember(ME, "A standalone note").id
    clock.advance(1000)
    # questions: turns only, nothing extracted from them
    turns = vault.observe(s1, [{"role": "user", "content": f"lunch at place {i}?"}
                               for i in range(3)]).turns
    (summary,) = vault.summarize(s1)
    assert len(vault.list(ME, status="active")) == 5
    assert vault.maintain(ME, steps=["caps"]).evicted == [turns[0]]
    assert note in {m.id for m in vault.list(ME, status="active")}
    # The evicted turn is still reachable from its summary.
    assert turns[0] in [m.id for m in vault.expand(ME, summary.id)]


def test_eviction_order_is_the_documented_key() -> None:
    from memvault.model import Memory

    def m(i: str, kind: str = "fact", **md: object) -> Memory:
        return Memory(id=i, scope=ME, kind=kind, content=i, metadata=dict(md), updated_at=10)

    got = eviction_order([m("s", "summary"), m("hi", importance=0.9), m("lo", importance=0.1),
                          m("conf", importance=0.1, confirmations=3),
                          m("used", importance=0.1, last_confirmed_at=5),
                          m("t", "turn", importance=0.9)], covered={"t"})
    assert [x.id for x in got] == ["t", "used", "lo", "conf", "hi", "s"]


def test_eviction_takes_turns_of_one_time_in_the_order_they_were_said(
        make_vault: Callable[..., Vault], clock: ManualClock) -> None:
    # Two observe() calls at one clock reading: each call numbers its own turns from 0,
    # so only the session's sequence number says which turn came first.
    vault = make_vault(clock=clock, strategy=_capped(3))
    s1 = Scope("acme", "alice", session="s1")
    said = []
    for call in range(2):
        said += vault.observe(s1, [{"role": "assistant", "content": f"call {call} line {i}"}
                                   for i in range(3)]).turns
    assert [m.kind for m in vault.list(ME)] == ["turn"] * 6  # nothing extracted
    assert len({m.created_at for m in vault.list(ME)}) == 1
    assert vault.maintain(ME, steps=["caps"]).evicted == said[:3]


def test_sweep_summarises_due_sessions(make_vault: Callable[..., Vault],
                                       clock: ManualClock) -> None:
    vault = make_vault(clock=clock, strategy=_capped(0, every_turns=4, every_tokens=0,
                                                    topic_shift=0, min_turns=2))
    s1 = Scope("acme", "alice", session="s1")
    vault.observe(s1, [{"role": "user", "content": f"line {i} on the garden"}
                       for i in range(9)])
    assert vault.sweep() == 0  # expiry count, as before
    ss = vault.list(ME, kind="summary")
    assert sorted(len(s.metadata["covers"]) for s in ss) == [4, 4]
    assert vault.maintain().summaries == []  # nothing new due


def test_maintain_reports_progress_per_scope(vault: Vault) -> None:
    for user in ("alice", "bob", "carol"):
        vault.remember(Scope("acme", user), f"{user} likes tea")
    seen: list[tuple[int, int]] = []
    vault.maintain(progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
    seen.clear()
    vault.maintain(ME, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 1)]
    with pytest.raises(ValidationError, match="progress"):
        vault.maintain(progress="loud")  # type: ignore[arg-type]


def test_cli_sweep_reports_every_step(make_vault: Callable[..., Vault],
                                      clock: ManualClock) -> None:
    vault = make_vault(clock=clock, strategy=_capped(2))
    for i in range(4):
        clock.advance(1000)
        vault.remember(ME, f"I like hobby number {i}")
    db = target_of(vault)
    vault.close()
    with tempfile.TemporaryDirectory() as tmp:
        cfg_path = Path(tmp) / "s.yaml"
        cfg_path.write_text("layers:\n  caps:\n    max_items: 2\n", encoding="utf-8")
        res = CliRunner().invoke(app, ["--db", db, "--config", str(cfg_path), "--tenant",
                                       "acme", "--user", "alice", "--json", "sweep"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    # 4 notes count against the cap of 2; 4 relations (likes) and 5 entities do not.
    assert out["expired"] == 0 and len(out["relations"]) == 4
    assert len(out["evicted"]) == 2
    res = CliRunner().invoke(app, ["--db", db, "--tenant", "acme", "--user", "alice",
                                   "sweep", "--step", "nonsense"])
    assert res.exit_code == 1 and "invalid_input" in res.output


def test_on_observe_runs_graph_and_triggers_at_once(make_vault: Callable[..., Vault],
                                                   clock: ManualClock) -> None:
    strategy = parse_strategy({"layers": {"on_observe": True, "summaries": {
        "every_turns": 3, "every_tokens": 0, "topic_shift": 0, "min_turns": 2}}})
    vault = make_vault(clock=clock, strategy=strategy)
    s1 = Scope("acme", "alice", session="s1")
    vault.observe(s1, [{"role": "user", "content": "I live in Lisbon"},
                       {"role": "assistant", "content": "I live in the cloud"},
                       {"role": "user", "content": "I work at Initech"}])
    assert {(f["relation"], f["object"]) for f in vault.graph_facts(ME, "user")} == {
        ("lives_in", "Lisbon"), ("works_at", "Initech")}  # not the assistant's line
    (summary,) = vault.list(ME, kind="summary")
    assert summary.metadata["trigger"] == "turns" and len(summary.metadata["covers"]) == 3
    off = make_vault(clock=clock)  # default: observe leaves it to sweep
    off.observe(s1, [{"role": "user", "content": "I live in Lisbon"}])
    assert off.list(ME, kind="relation") == []


def test_a_turn_whose_detail_the_summary_dropped_does_not_go_first(
        make_vault: Callable[..., Vault], clock: ManualClock) -> None:
    """Seed 1: a lossy summary lists every turn it covers, but a detail it left out is
    not in it. Only the turns whose words the summary kept are evicted ahead of the rest."""
    vault = make_vault(clock=clock, strategy=_capped(3))
    s1 = Scope("acme", "alice", session="s1")
    note = vault.remember(ME, "A standalone note").id
    clock.advance(1000)
    turns = [r.id for r in vault.remember_many([
        {"scope": s1, "kind": "turn", "content": text, "metadata": {"role": "user", "turn": i}}
        for i, text in enumerate(["Weekly report is due on Friday afternoon",
                                  "Send the contract to the office front desk, never home",
                                  "Weekly report goes to the whole team"])])]
    vault.remember(s1, "Weekly report is due on Friday afternoon. Weekly report goes to "
                   "the whole team.", kind="summary", metadata={"covers": turns})
    assert len(vault.list(ME, status="active", limit=100)) == 5
    assert sorted(vault.maintain(ME, steps=["caps"]).evicted) == sorted([turns[0], turns[2]])
    active = {m.id for m in vault.list(ME, status="active", limit=100)}
    assert {turns[1], note} <= active


def test_observe_reports_a_failing_layer_step_instead_of_raising(
        make_vault: Callable[..., Vault], clock: ManualClock,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With layers.on_observe, the summary step runs after the observed writes committed.
    An LLM summariser that cannot be reached (a closed port on loopback) is reported in
    the result; the turns and memories stay, and the next sweep summarises them."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends
    monkeypatch.setenv("MEMVAULT_LLM_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("MEMVAULT_LLM_MODEL", "none")
    strategy = parse_strategy({"layers": {"on_observe": True, "summaries": {
        "summarizer": "llm", "every_turns": 2, "every_tokens": 0, "topic_shift": 0,
        "min_turns": 2}}})
    vault = make_vault(clock=clock, strategy=strategy)
    s1 = Scope("acme", "alice", session="s1")
    res = vault.observe(s1, [{"role": "user", "content": "I live in Lisbon"},
                             {"role": "assistant", "content": "Nice city."}])
    assert len(res.turns) == 2 and [e.split(":")[0] for e in res.errors] == ["summarize"]
    assert res.to_dict()["errors"] == res.errors
    assert {m.id for m in vault.list(s1, kind="turn")} == set(res.turns)
    assert vault.list(ME, kind="summary") == []

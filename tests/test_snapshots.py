"""Named snapshots (docs/snapshots.md): a point in revision time per user or tenant, the
diff between two, and restore as one recorded, undoable operation. Both backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memvault import Vault
from memvault.cli.app import app
from memvault.config import load_strategy
from memvault.errors import ConflictError, NotFoundError, ValidationError

A = {"tenant": "acme", "user": "alice"}
B = {"tenant": "acme", "user": "bob"}


def state(vault: Vault, scope: dict[str, str]) -> dict[str, tuple[Any, ...]]:
    """What the user's memory holds (a forgotten memory is not held): id -> (status,
    content, slot, value, tags)."""
    return {m.id: (m.status, m.content, m.slot, m.value, m.tags)
            for m in vault.list(scope, limit=10_000) if m.status != "deleted"}


def test_restore_of_a_user_is_exact_one_operation_and_undoable(vault: Vault) -> None:
    tea = vault.remember(A, "Alice likes green tea").memory
    city = vault.remember(A, "Alice lives in Paris", slot="city", value="Paris").memory
    gone = vault.remember(A, "Alice has a cat named Tom").memory
    vault.forget(A, gone.id)
    other = vault.remember(B, "Bob likes coffee").memory
    vault.snapshot("acme", "s1", user="alice", reason="before the import")
    at_s1 = state(vault, A)

    vault.remember(A, "Alice lives in Berlin", slot="city", value="Berlin")
    vault.edit(A, tea.id, content="Alice likes black tea")
    vault.rollback(A, gone.id, 1)  # the forgotten cat comes back
    new = vault.remember(A, "Alice plays chess").memory
    vault.remember(B, "Bob lives in Rome")
    after = state(vault, A)
    assert after != at_s1
    audit_before = len(vault.audit(A, limit=10_000))

    op = vault.restore_snapshot("acme", "s1", user="alice", reason="bad import")
    assert state(vault, A) == at_s1
    assert sorted(op["restored"]) == sorted([tea.id, city.id])
    # The cat, forgotten at s1, is forgotten again; chess, new since, is forgotten.
    assert sorted(op["forgotten"]) == sorted([gone.id, new.id]) and op["skipped"] == []
    # One operation: every revision it wrote names the snapshot and the operation id.
    revs = vault.audit(A, limit=10_000)[:len(vault.audit(A, limit=10_000)) - audit_before]
    assert len(revs) == 4
    assert {r.reason for r in revs} == {f"snapshot:s1 restore {op['operation']}: bad import"}
    assert all(r.actor == "local" for r in revs)
    # The same group in the change events: a rollback's names the version it restored.
    evs = {e.memory_id: e for e in vault.events("acme", user="alice", limit=1000)
           if e.reason and op["operation"] in e.reason}
    assert {m: e.kind for m, e in evs.items()} == {
        tea.id: "rollback", city.id: "rollback", gone.id: "forget", new.id: "forget"}
    assert evs[tea.id].payload["restored_version"] == 1
    # Bob's memory is not touched by a restore of Alice's.
    assert other.id in state(vault, B) and len(state(vault, B)) == 2

    undo = vault.restore_snapshot("acme", op["undo"], user="alice")
    assert state(vault, A) == after
    assert sorted(undo["restored"]) == sorted([tea.id, city.id, new.id, gone.id])
    assert undo["forgotten"] == []
    names = [s["name"] for s in vault.snapshots("acme", user="alice")]
    assert names == ["s1", op["undo"], undo["undo"]]
    kinds = {s["name"]: s["kind"] for s in vault.snapshots("acme")}
    assert kinds[op["undo"]] == "before-restore" and kinds["s1"] == "manual"


def test_restore_of_a_tenant_covers_every_user(vault: Vault) -> None:
    vault.remember(A, "Alice likes green tea")
    vault.snapshot("acme", "t1")
    at = (state(vault, A), state(vault, B))
    vault.remember(A, "Alice plays chess")
    vault.remember(B, "Bob lives in Rome")
    op = vault.restore_snapshot("acme", "t1")
    assert (state(vault, A), state(vault, B)) == at
    assert len(op["forgotten"]) == 2 and op["user"] is None
    vault.restore_snapshot("acme", op["undo"])
    assert {m.content for m in vault.list(B)} == {"Bob lives in Rome"}


def test_diff_between_snapshots_and_now(vault: Vault) -> None:
    tea = vault.remember(A, "Alice likes green tea").memory
    cat = vault.remember(A, "Alice has a cat").memory
    vault.snapshot("acme", "s1", user="alice")
    vault.edit(A, tea.id, content="Alice likes black tea")
    vault.forget(A, cat.id)
    chess = vault.remember(A, "Alice plays chess").memory
    vault.snapshot("acme", "s2", user="alice")
    d = vault.snapshot_diff("acme", "s1", "s2", user="alice")
    assert (d["from"], d["to"]) == ("s1", "s2")
    assert [x["memory_id"] for x in d["added"]] == [chess.id]
    assert d["added"][0]["content"] == "Alice plays chess"
    assert [x["memory_id"] for x in d["removed"]] == [cat.id]
    [ch] = d["changed"]
    assert (ch["memory_id"], ch["from_version"], ch["to_version"]) == (tea.id, 1, 2)
    assert ch["fields"]["content"] == {"from": "Alice likes green tea",
                                       "to": "Alice likes black tea"}
    assert vault.snapshot_diff("acme", "s2", user="alice") == {
        "from": "s2", "to": None, "added": [], "removed": [], "changed": []}


def test_frozen_memories_are_skipped_and_reported(vault: Vault) -> None:
    tea = vault.remember(A, "Alice likes green tea").memory
    vault.snapshot("acme", "s1", user="alice")
    vault.edit(A, tea.id, content="Alice likes black tea")
    vault.freeze(A, tea.id)
    chess = vault.remember(A, "Alice plays chess").memory
    op = vault.restore_snapshot("acme", "s1", user="alice")
    assert op["skipped"] == [{"memory_id": tea.id, "user": "alice", "reason": "frozen"}]
    assert op["forgotten"] == [chess.id]
    assert vault.get(A, tea.id).content == "Alice likes black tea"


def test_a_purge_wins_over_every_snapshot(vault: Vault) -> None:
    secret = vault.remember(A, "Alice's PIN is 4711").memory
    vault.snapshot("acme", "s1", user="alice")
    vault.purge(A, secret.id)
    d = vault.snapshot_diff("acme", "s1", user="alice")
    assert d["removed"] == [{"memory_id": secret.id, "user": "alice", "purged": True}]
    assert "4711" not in repr(d)
    op = vault.restore_snapshot("acme", "s1", user="alice")
    assert op["restored"] == [] and op["forgotten"] == []
    assert vault.list(A) == []
    with pytest.raises(NotFoundError):
        vault.get(A, secret.id)


def test_bad_input_is_refused_and_changes_nothing(vault: Vault) -> None:
    vault.remember(A, "Alice likes green tea")
    vault.snapshot("acme", "s1", user="alice")
    with pytest.raises(ConflictError):
        vault.snapshot("acme", "s1", user="alice")
    vault.snapshot("acme", "s1")  # the same name in another scope (the tenant) is fine
    for bad in ("", "a\nb", 7, "x" * 200, "a/b"):
        with pytest.raises(ValidationError):
            vault.snapshot("acme", bad, user="alice")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        vault.snapshot("", "s9")
    with pytest.raises(NotFoundError):
        vault.restore_snapshot("acme", "nope", user="alice")
    with pytest.raises(NotFoundError):
        vault.snapshot_diff("acme", "s1", "nope", user="alice")
    with pytest.raises(NotFoundError):
        vault.drop_snapshot("acme", "s1", user="bob")
    assert [s["name"] for s in vault.snapshots("acme")] == ["s1", "s1"]
    assert vault.drop_snapshot("acme", "s1", user="alice")["name"] == "s1"
    assert [s["user"] for s in vault.snapshots("acme")] == [None]
    assert len(vault.list(A)) == 1


def cli(db: str, *args: str, ok: bool = True) -> Any:
    r = CliRunner().invoke(app, ["--db", db, "--tenant", "acme", "--json", *args])
    assert (r.exit_code == 0) == ok, (r.exit_code, r.output, r.stderr)
    return json.loads(r.stdout) if ok and r.stdout.strip().startswith(("[", "{")) else r


def test_cli_snapshot_create_list_diff_restore_drop(make_vault: Any, db: str) -> None:
    v: Vault = make_vault(db)
    tea = v.remember(A, "Alice likes green tea").memory
    made = cli(db, "--user", "alice", "snapshot", "create", "s1", "--reason", "daily")
    assert (made["name"], made["user"], made["reason"]) == ("s1", "alice", "daily")
    v.edit(A, tea.id, content="Alice likes black tea")
    assert cli(db, "--user", "alice", "snapshot", "diff", "s1") == v.snapshot_diff(
        "acme", "s1", user="alice")
    op = cli(db, "--user", "alice", "snapshot", "restore", "s1")
    assert op["restored"] == [tea.id]
    assert v.get(A, tea.id).content == "Alice likes green tea"
    listed = cli(db, "snapshot", "list")
    assert [s["name"] for s in listed] == ["s1", op["undo"]]
    r = CliRunner().invoke(app, ["--db", db, "--tenant", "acme", "--user", "alice",
                                 "snapshot", "restore", op["undo"]])
    assert r.exit_code == 0 and "undo: memvault --user alice snapshot restore" in r.stdout
    assert v.get(A, tea.id).content == "Alice likes black tea"
    assert "no snapshot" in cli(db, "snapshot", "drop", "s1", ok=False).stderr  # tenant's
    assert "already exists" in cli(db, "--user", "alice", "snapshot", "create", "s1",
                                   ok=False).stderr
    assert "tenant" in CliRunner().invoke(app, ["--db", db, "snapshot", "list"]).stderr
    assert cli(db, "--user", "alice", "snapshot", "drop", "s1")["name"] == "s1"
    assert len(cli(db, "snapshot", "list")) == 2


DAY = 86_400_000


def test_the_sweep_takes_a_daily_snapshot_per_tenant_and_keeps_it_30_days(
        clocked_vault: Vault, clock: Any) -> None:
    v = clocked_vault
    v.remember(A, "Alice likes green tea")
    v.remember({"tenant": "other", "user": "zed"}, "Zed likes maps")
    v.snapshot("acme", "keep-me")
    rep = v.maintain(steps=["snapshots"])
    assert rep.snapshots == ["acme/daily-2026-01-01", "other/daily-2026-01-01"]
    assert v.maintain(steps=["snapshots"]).snapshots == []  # one a day
    assert v.maintain(A, steps=["snapshots"]).snapshots == []  # only a sweep of all
    clock.advance(DAY)
    assert v.maintain().snapshots == ["acme/daily-2026-01-02", "other/daily-2026-01-02"]
    clock.advance(29 * DAY + 1)  # the first daily one is now past 30 days
    rep = v.maintain(steps=["snapshots"])
    assert rep.snapshots_dropped == ["acme/daily-2026-01-01", "other/daily-2026-01-01"]
    assert [s["name"] for s in v.snapshots("acme")] == [
        "keep-me", "daily-2026-01-02", "daily-2026-01-31"]
    assert {s["kind"] for s in v.snapshots("acme")} == {"manual", "scheduled"}


def test_scheduled_snapshots_follow_the_strategy(make_vault: Any, db: str, clock: Any,
                                                 tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("snapshots: {daily: false, keep_days: 1}\n")
    v: Vault = make_vault(db, clock=clock, strategy=f)
    v.remember(A, "Alice likes green tea")
    v.snapshot("acme", "hand")
    assert v.maintain().snapshots == []
    clock.advance(3 * DAY)
    assert v.maintain().snapshots_dropped == []  # taken by hand: never dropped
    for bad in ("{daily: true, keep_days: 0}", "{weekly: true}"):
        f.write_text(f"snapshots: {bad}\n")
        with pytest.raises(ValidationError):
            load_strategy(f)


def test_a_slot_held_by_a_frozen_memory_is_not_taken_back(vault: Vault) -> None:
    paris = vault.remember(A, "Alice lives in Paris", slot="city", value="Paris").memory
    vault.snapshot("acme", "s1", user="alice")
    vault.forget(A, paris.id)
    berlin = vault.remember(A, "Alice lives in Berlin", slot="city", value="Berlin").memory
    assert berlin.id != paris.id
    vault.freeze(A, berlin.id)
    op = vault.restore_snapshot("acme", "s1", user="alice")
    assert op["skipped"] == [
        {"memory_id": berlin.id, "user": "alice", "reason": "frozen"},
        {"memory_id": paris.id, "user": "alice",
         "reason": f"slot city is held by {berlin.id}"}]
    assert op["restored"] == [] and op["forgotten"] == []
    assert vault.profile(A)["city"]["value"] == "Berlin"

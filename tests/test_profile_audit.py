"""profile(scope): the user's active slots; audit(scope): every change, newest first."""

from __future__ import annotations

from _util import ManualClock

from memvault import Scope, Vault

ME = Scope("acme", "alice")
BOB = Scope("acme", "bob")
HOUR = 3_600_000


def test_profile_is_the_current_value_of_each_slot(clocked_vault: Vault,
                                                   clock: ManualClock) -> None:
    v = clocked_vault
    v.remember(ME, slot="report.format", value="CSV", reason="first ask")
    t_csv = clock.now
    clock.advance(HOUR)
    upd = v.remember(ME, slot="report.format", value="XLSX", reason="changed mind")
    clock.advance(HOUR)
    v.remember(ME, slot="notify.channel", value="email", source="admin_manual")
    v.remember(ME, "likes hiking")  # no slot: not part of the profile
    v.remember(BOB, slot="report.format", value="PDF")  # another user's slot
    lapsing = v.remember(ME, slot="diet.goal", value="weight_loss", ttl="1h").memory
    prof = v.profile(ME)
    assert set(prof) == {"report.format", "notify.channel", "diet.goal"}
    assert prof["report.format"]["value"] == "XLSX"
    assert prof["report.format"]["version"] == 2
    assert prof["report.format"]["memory_id"] == upd.memory.id
    assert prof["notify.channel"]["source"] == "admin_manual"
    # As of before the change, the profile said CSV.
    assert v.profile(ME, as_of=t_csv)["report.format"]["value"] == "CSV"
    # A lapsed shelf life leaves the profile even before sweep demotes it.
    clock.advance(2 * HOUR)
    assert "diet.goal" not in v.profile(ME)
    assert v.get(ME, lapsing.id).status == "active"
    # A frozen slot is shown as frozen; a forgotten one disappears.
    v.freeze(ME, upd.memory.id, reason="confirmed by phone")
    assert v.profile(ME)["report.format"]["frozen"] is True
    v.forget(ME, prof["notify.channel"]["memory_id"], reason="user asked")
    assert "notify.channel" not in v.profile(ME)
    assert v.profile(BOB) == {"report.format": v.profile(BOB)["report.format"]}
    assert v.profile(BOB)["report.format"]["value"] == "PDF"


def test_audit_lists_every_change_with_actor_and_reason(clocked_vault: Vault,
                                                        clock: ManualClock) -> None:
    v = clocked_vault
    m = v.remember(ME, slot="report.format", value="CSV", actor="app", reason="first").memory
    clock.advance(HOUR)
    v.remember(ME, slot="report.format", value="XLSX", actor="app", reason="second")
    clock.advance(HOUR)
    mark = clock.now
    v.rollback(ME, m.id, 1, actor="ops@acme", reason="wrong update")
    v.remember(BOB, "bob's secret")
    log = v.audit(ME)
    assert [(r.op, r.to_version, r.actor, r.reason) for r in log] == [
        ("rollback", 3, "ops@acme", "wrong update"),
        ("update", 2, "app", "second"),
        ("create", 1, "app", "first")]
    assert all(r.scope.user == "alice" for r in log)
    assert [r.op for r in v.audit(ME, since=mark)] == ["rollback"]
    assert len(v.audit(ME, limit=2)) == 2
    assert [r.reason for r in v.audit(BOB)] == [None]


def test_slots_are_found_under_a_long_history(clocked_vault: Vault, clock: ManualClock) -> None:
    """profile() and the context's profile layer ask the store for slotted memories only,
    so thousands of newer turns cannot push an old preference out of a capped listing."""
    v = clocked_vault
    fmt = v.remember(ME, slot="report.format", value="XLSX").memory
    clock.advance(HOUR)
    chat = Scope("acme", "alice", session="s1")
    v.remember_many([{"scope": chat, "content": f"turn number {i} about the weather",
                      "kind": "turn"} for i in range(60)])
    v.remember(ME, "likes hiking")
    slotted = v.list(ME, slotted=True, limit=10)
    assert [m.id for m in slotted] == [fmt.id]
    # Newest first and capped: an unfiltered listing of this size no longer holds the slot.
    assert fmt.id not in {m.id for m in v.list(ME, status="active", limit=50)}
    plain = v.list(ME, slotted=False, limit=100)
    assert len(plain) == 61 and all(m.slot is None for m in plain)
    assert [m.id for m in v.list(ME, slotted=True, as_of=clock.now)] == [fmt.id]
    assert v.profile(ME)["report.format"]["value"] == "XLSX"
    ctx = v.context(ME, "what report format do I want?")
    assert "XLSX" in ctx.text


def test_a_revision_records_the_role_of_the_call_that_made_it(tmp_path) -> None:
    """The audit says who changed a memory in which role: a change an agent proposed or a
    conversation carried in is not recorded as the Vault's own (admin) change."""
    alice = Scope("acme", "alice")
    with Vault(tmp_path / "roles.db", embedder="use-m3") as v:
        assert v.actor_role == "admin"
        direct = v.remember(alice, "I prefer tea", reason="set up")
        proposed = v.propose(alice, "Alice prefers window seats",
                             source_text="I prefer window seats", actor="planner")
        seen = v.observe(alice, [{"role": "user", "content": "I live in Porto"}])
        roles = {r.memory_id: (r.actor, r.actor_role) for r in v.audit(alice)}
        assert roles[direct.id][1] == "admin"
        assert proposed.memory_id and roles[proposed.memory_id] == ("planner", "agent")
        assert seen.turns and all(roles[t][1] == "user" for t in seen.turns)
        made = [o.memory_id for o in seen.outcomes if o.memory_id]
        assert made and all(roles[m][1] == "user" for m in made)
        # The role of one call does not leak into the next.
        after = v.remember(alice, "I read on trains")
        assert v.history(alice, after.id)[0].actor_role == "admin"

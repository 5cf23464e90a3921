"""Shared scopes under a tenant (docs/teams.md), on both backends: members read the team's
memories beside their own and never each other's; the precedence rule (personal over a
team default, a frozen team memory as policy over both) in recall and in the context;
membership changes take effect at the next read; team roles gate writes and governance;
bad input is a typed error that stores nothing."""

from __future__ import annotations

import pytest

from memvault import Vault
from memvault.errors import (
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    ScopeError,
    ValidationError,
)

T = "acme"
ALICE = {"tenant": T, "user": "alice"}
BOB = {"tenant": T, "user": "bob"}
CAROL = {"tenant": T, "user": "carol"}


@pytest.fixture
def team(vault: Vault) -> Vault:
    vault.create_team(T, "eng", description="the engineering team")
    vault.add_member(T, "eng", "alice", "writer")
    vault.add_member(T, "eng", "bob", "reader")
    return vault


def _contents(hits: list) -> list[str]:
    return [h.memory.content for h in hits]


def test_members_read_team_memory_never_each_others(team: Vault) -> None:
    eng = team.team_scope(T, "eng", member="alice", need="write")
    shared = team.remember(eng, "The deploy window is Tuesday afternoon", actor="alice")
    team.remember(BOB, "My locker code at the office is 4411")
    team.remember(ALICE, "My favourite editor is Helix")
    team.remember(CAROL, "Carol's deploy notes: Tuesday is fine")

    for who in (ALICE, BOB):
        hits = team.recall(who, "when is the deploy window")
        assert shared.id in [h.memory.id for h in hits]
        mark = next(h.scope_mark for h in hits if h.memory.id == shared.id)
        assert mark == {"scope": "team", "team": "eng"}
    # Alice reads the team but never Bob's own memory, whatever she asks.
    for query in ("locker code", "office locker 4411", "deploy"):
        assert not any(h.memory.scope.user == "bob" for h in team.recall(ALICE, query))
        assert not any(h.memory.scope.user in ("alice", "carol")
                       for h in team.recall(BOB, query))
    bob_mem = team.list(BOB)[0]
    with pytest.raises(NotFoundError):
        team.get(ALICE, bob_mem.id)
    # Carol is no member: no team memory in her reads, and no team scope for her.
    assert shared.id not in [h.memory.id for h in team.recall(CAROL, "deploy window")]
    with pytest.raises(PermissionDeniedError):
        team.team_scope(T, "eng", member="carol")
    # Context: the team memory is there, marked with its team; Bob's is not.
    ctx = team.context(ALICE, "deploy window and locker code")
    assert "Tuesday afternoon" in ctx.text and "team=eng" in ctx.text
    assert "4411" not in ctx.text


def test_personal_preference_wins_over_team_default(team: Vault) -> None:
    eng = team.team_scope(T, "eng")
    default = team.remember(eng, "Reports are exported as PDF", slot="report.format",
                            value="pdf")
    mine = team.remember(ALICE, "I want my reports as XLSX", slot="report.format",
                         value="xlsx")
    hits = team.recall(ALICE, "report format")
    ids = [h.memory.id for h in hits]
    assert mine.id in ids and default.id not in ids
    mark = next(h.scope_mark for h in hits if h.memory.id == mine.id)
    assert mark == {"scope": "personal", "team": None, "precedence": "personal_over_team",
                    "overrides": [default.id]}
    # Bob has no value of his own: the team default is his.
    assert default.id in [h.memory.id for h in team.recall(BOB, "report format")]
    ctx = team.context(ALICE, "which format should reports use")
    assert "XLSX" in ctx.text and "PDF" not in ctx.text
    assert "OVERRIDES TEAM DEFAULT" in ctx.text
    assert {"id": default.id, "version": 1, "reason": "overridden", "by": mine.id} \
        in ctx.dropped
    # Opting out of teams: her own only, no marks.
    solo = team.recall(ALICE, "report format", teams=False)
    assert [h.memory.id for h in solo] == [mine.id] and solo[0].scope_mark is None


def test_frozen_team_memory_is_policy(team: Vault) -> None:
    eng_admin = team.team_scope(T, "eng")
    policy = team.remember(eng_admin, "Customer data is stored in the EU region",
                           slot="data.region", value="eu")
    mine = team.remember(ALICE, "Store my data in the US region", slot="data.region",
                         value="us")
    assert team.recall(ALICE, "data region")[0].memory.id == mine.id
    team.freeze(eng_admin, policy.id, reason="compliance policy")
    hits = team.recall(ALICE, "data region")
    assert mine.id not in [h.memory.id for h in hits]
    won = next(h for h in hits if h.memory.id == policy.id)
    assert won.scope_mark == {"scope": "team", "team": "eng", "precedence": "team_policy",
                              "overrides": [mine.id]}
    ctx = team.context(ALICE, "which data region")
    assert "EU region" in ctx.text and "US region" not in ctx.text
    assert "TEAM POLICY (frozen)" in ctx.text
    # The query matched only the personal wording: the policy is served in its place.
    hits = team.recall(ALICE, "Store my data in the US region")
    assert policy.id in [h.memory.id for h in hits]
    assert mine.id not in [h.memory.id for h in hits]


def test_membership_changes_take_effect_at_the_next_read(team: Vault) -> None:
    eng = team.team_scope(T, "eng")
    m = team.remember(eng, "The on-call rota lives in the wiki")
    assert m.id not in [h.memory.id for h in team.recall(CAROL, "on-call rota")]
    team.add_member(T, "eng", "carol")
    assert m.id in [h.memory.id for h in team.recall(CAROL, "on-call rota")]
    assert team.teams(T, user="carol")[0]["role"] == "reader"
    team.remove_member(T, "eng", "carol")
    assert m.id not in [h.memory.id for h in team.recall(CAROL, "on-call rota")]
    with pytest.raises(PermissionDeniedError):
        team.recall(CAROL, "on-call rota", teams=["eng"])
    # Promotion: bob may write once he is a writer.
    with pytest.raises(PermissionDeniedError):
        team.team_scope(T, "eng", member="bob", need="write")
    team.add_member(T, "eng", "bob", "writer")
    assert team.team_scope(T, "eng", member="bob", need="write").user == "team:eng"
    assert [x["user"] for x in team.team_members(T, "eng")] == ["alice", "bob"]


def test_team_roles_gate_writes_and_governance(team: Vault) -> None:
    with pytest.raises(PermissionDeniedError):
        team.team_scope(T, "eng", member="bob", need="write")
    with pytest.raises(PermissionDeniedError):
        team.team_scope(T, "eng", member="alice", need="policy")  # freeze: team admin
    eng = team.team_scope(T, "eng", member="alice", need="govern")
    m = team.remember(eng, "Standup is at 9:30", actor="alice")
    team.forget(eng, m.id, actor="alice", reason="moved")
    team.rollback(eng, m.id, 1, actor="alice")
    assert team.get(eng, m.id).status == "active"
    team.add_member(T, "eng", "alice", "admin")
    team.freeze(team.team_scope(T, "eng", member="alice", need="policy"), m.id)
    assert team.get(eng, m.id).frozen
    # Team memories are not in a member's own scope: governance there finds nothing.
    with pytest.raises(NotFoundError):
        team.forget(ALICE, m.id)


def test_bad_input_is_typed_and_changes_nothing(team: Vault) -> None:
    with pytest.raises(ConflictError):
        team.create_team(T, "eng")
    for bad in ("", "Eng", "a b", "-x", "x" * 64, "team:eng", None, 7):
        with pytest.raises(ValidationError):
            team.create_team(T, bad)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        team.add_member(T, "eng", "dave", "owner")
    with pytest.raises(ScopeError):
        team.add_member(T, "eng", "team:eng", "reader")  # a team is not a person
    with pytest.raises(NotFoundError):
        team.add_member(T, "ops", "dave", "reader")
    with pytest.raises(NotFoundError):
        team.remove_member(T, "eng", "dave")
    with pytest.raises(ValidationError):
        team.team_scope(T, "eng", need="everything")
    with pytest.raises(ValidationError):
        team.recall(ALICE, "x", teams="eng")  # type: ignore[arg-type]
    # The reserved prefix with no valid team name is no scope at all.
    for user in ("team:", "team:Eng", "team:a b"):
        with pytest.raises(ScopeError):
            team.remember({"tenant": T, "user": user}, "x")
    # Another tenant's team of the same name is another team.
    with pytest.raises(NotFoundError):
        team.team_members("globex", "eng")
    assert [t["name"] for t in team.teams(T)] == ["eng"]
    assert [(m["user"], m["role"]) for m in team.team_members(T, "eng")] == [
        ("alice", "writer"), ("bob", "reader")]
    assert team.list({"tenant": T, "user": "team:eng"}) == []


def test_teams_are_not_users(team: Vault) -> None:
    team.remember(team.team_scope(T, "eng"), "The team wiki is at /eng")
    team.remember(ALICE, "Alice's note")
    assert team.users(T) == ["alice"]


def test_a_key_bound_to_a_team(team: Vault) -> None:
    from memvault import apikeys

    _, rec = apikeys.new_key(team.store, tenant=T, role="user", user="alice", team="eng")
    assert rec["team"] == "eng" and team.store.key_team(rec["key_id"]) == "eng"
    listed = {k["key_id"]: k.get("team") for k in apikeys.list_keys(team.store, T)}
    assert listed[rec["key_id"]] == "eng"
    before = len(apikeys.list_keys(team.store, T))
    with pytest.raises(NotFoundError):
        apikeys.new_key(team.store, tenant=T, role="user", user="bob", team="ops")
    with pytest.raises(ScopeError):
        apikeys.new_key(team.store, tenant=T, role="user", user="team:eng")
    assert len(apikeys.list_keys(team.store, T)) == before  # a refused key leaves nothing
    team.drop_team(T, "eng")
    assert team.store.key_team(rec["key_id"]) is None
    assert team.teams(T) == [] and team.store.memberships(T, "alice") == []

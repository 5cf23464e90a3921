"""Merge, split, their undo and consolidation (issue 23 part 5), on both backends.

Must be true: merge/split round trip; consolidation finds the green-tea triple and
nothing else in a mixed set; a refused call changes nothing stored."""

from __future__ import annotations

import pytest

from memvault import Vault
from memvault.errors import ConflictError, FrozenError, NotFoundError, ValidationError

S = {"tenant": "t", "user": "rita"}
TRIPLE = ["Rita likes green tea", "rita likes green tea.", "Rita really likes green tea"]
MIXED = ["Rita likes black tea", "Rita dislikes green tea", "Sam likes green tea",
         "Rita loves green tea", "Rita liked green tea", "Rita likes green tea in the morning",
         "Rita does not like green tea"]


def _add(v: Vault, *texts: str, scope: dict[str, str] = S) -> list[str]:
    return [v.remember(scope, t).memory.id for t in texts]


def _state(v: Vault) -> list[tuple[str, str, int, str]]:
    """Everything stored for the user, as a comparable snapshot."""
    return sorted((m.id, m.status, m.version, m.content)
                  for st in ("active", "deleted", "pending")
                  for m in v.list(S, status=st, limit=1000))


def test_merge_round_trip(vault: Vault) -> None:
    a, b, c = _add(vault, "Rita likes green tea", "Rita drinks green tea daily",
                   "Rita enjoys sencha")
    before = {m.id: m for m in vault.list(S, limit=100)}
    since = max((e.id for e in vault.events("t", user="rita", limit=1000)), default=0)
    merged = vault.merge(S, [a, b], content="Rita likes green tea, daily", reason="dupes")
    assert merged.content == "Rita likes green tea, daily"
    assert merged.metadata["merged_from"] == [f"{a}@1", f"{b}@1"]
    for mid in (a, b):
        gone = vault.get(S, mid)
        assert gone.status == "deleted" and gone.metadata["merged_into"] == merged.id
    assert vault.get(S, c).status == "active"
    ev = list(vault.events("t", user="rita", since=since, limit=100))
    assert {(e.memory_id, e.to_version, e.kind) for e in ev} == {
        (a, 2, "forget"), (b, 2, "forget"), (merged.id, 1, "add")}
    assert {e.reason for e in ev} == {f"merged into {merged.id}: dupes", "dupes"}
    hits = vault.recall(S, "green tea daily")
    assert merged.id in {h.memory.id for h in hits}
    assert not {a, b} & {h.memory.id for h in hits}

    restored = vault.unmerge(S, merged.id)
    assert [m.id for m in restored] == [a, b]
    assert vault.get(S, merged.id).status == "deleted"
    for mid in (a, b):
        back = vault.get(S, mid)
        assert back.status == "active" and back.version == 3
        assert (back.content, back.metadata) == (before[mid].content, before[mid].metadata)
        assert vault.history(S, mid)[-1].op == "rollback"
    with pytest.raises(ConflictError):
        vault.unmerge(S, merged.id)  # already undone


def test_merge_default_content_is_the_first_said(vault: Vault) -> None:
    ids = _add(vault, *TRIPLE)
    merged = vault.merge(S, ids)
    assert merged.content == TRIPLE[0]
    assert merged.source == "user_explicit"


def test_split_round_trip(vault: Vault) -> None:
    (src,) = _add(vault, "Rita likes green tea and plays chess on Sundays")
    parts = vault.split(S, src, ["Rita likes green tea", "Rita plays chess on Sundays"])
    assert [p.content for p in parts] == ["Rita likes green tea",
                                          "Rita plays chess on Sundays"]
    assert all(p.metadata["split_from"] == f"{src}@1" for p in parts)
    gone = vault.get(S, src)
    assert gone.status == "deleted"
    assert gone.metadata["split_into"] == [p.id for p in parts]
    assert "split into" in (vault.history(S, src)[-1].reason or "")
    back = vault.unsplit(S, parts[1].id)  # named by a part
    assert back.id == src and back.status == "active" and "split_into" not in back.metadata
    assert {vault.get(S, p.id).status for p in parts} == {"deleted"}


def test_refusals_change_nothing(make_vault) -> None:  # type: ignore[no-untyped-def]
    v = make_vault()
    a, _b, c = _add(v, "Rita likes green tea", "Rita likes tea", "Rita hikes")
    (other,) = _add(v, "Sam likes tea", scope={"tenant": "t", "user": "sam"})
    (agent,) = _add(v, "Rita likes tea too", scope={**S, "agent": "bot"})
    v.remember(S, "Rita's city is Oslo", slot="user.city", value="Oslo")
    slot_a = v.list(S, slot="user.city")[0].id
    v.remember({**S, "agent": "bot"}, "Rita's city is Bergen", slot="user.city",
               value="Bergen")
    slot_b = v.list({**S, "agent": "bot"}, slot="user.city")[0].id
    v.freeze(S, c)
    snap = _state(v)
    bad = [
        (FrozenError, lambda: v.merge(S, [a, c])),
        (NotFoundError, lambda: v.merge(S, [a, other])),
        (ConflictError, lambda: v.merge(S, [a, agent])),
        (ConflictError, lambda: v.merge(S, [slot_a, slot_b])),
        (ValidationError, lambda: v.merge(S, [a])),
        (ValidationError, lambda: v.merge(S, [a, a])),
        (ValidationError, lambda: v.merge(S, "not-a-list")),
        (FrozenError, lambda: v.split(S, c, ["x", "y"])),
        (ValidationError, lambda: v.split(S, a, ["only one"])),
        (ValidationError, lambda: v.split(S, a, ["x", ""])),
        (ConflictError, lambda: v.split(S, slot_a, ["x", "y"])),
        (ConflictError, lambda: v.unmerge(S, a)),
        (ConflictError, lambda: v.unsplit(S, a)),
        (NotFoundError, lambda: v.unmerge(S, other)),
    ]
    for err, call in bad:
        with pytest.raises(err):
            call()
        assert _state(v) == snap, err


def test_merge_refuses_different_slot_values(vault: Vault) -> None:
    vault.remember(S, "Rita's city is Oslo", slot="user.city", value="Oslo")
    vault.remember(S, "Rita's team is red", slot="user.team", value="red")
    ids = [m.id for m in vault.list(S, slotted=True)]
    snap = _state(vault)
    with pytest.raises(ConflictError, match="different slots or values"):
        vault.merge(S, ids)
    assert _state(vault) == snap


def test_unmerge_refused_when_a_source_changed_since(vault: Vault) -> None:
    a, b = _add(vault, "Rita likes green tea", "rita likes green tea.")
    merged = vault.merge(S, [a, b])
    vault.rollback(S, a, 1)  # brought back by hand meanwhile
    snap = _state(vault)
    with pytest.raises(ConflictError, match="changed since"):
        vault.unmerge(S, merged.id)
    assert _state(vault) == snap


def test_consolidation_finds_the_triple_and_nothing_else(vault: Vault) -> None:
    triple = _add(vault, *TRIPLE)
    mixed = _add(vault, *MIXED)
    (sam_dupe,) = _add(vault, "Rita likes green tea",
                       scope={"tenant": "t", "user": "sam"})  # another user: never grouped
    found = vault.consolidate(S)
    assert [sorted(g["ids"]) for g in found] == [sorted(triple)]
    prop = found[0]["proposal"]
    assert found[0]["merged"] is None
    staged = [e for e in vault.events("t", user="rita", limit=1000) if e.memory_id == prop]
    assert [e.kind for e in staged] == ["staged"]  # how reviewers hear of it
    assert {m.status for m in vault.list(S, limit=100) if m.id in triple} == {"active"}
    shown = vault.review_show(S, prop)
    assert shown["review"]["merge"] == triple
    assert {m["id"] for m in shown["linked"]} == set(triple)
    # Proposed once, not twice.
    assert vault.consolidate(S)[0]["proposal"] is None

    merged = vault.review_approve(S, prop)
    assert merged.metadata["merged_from"] == [f"{i}@1" for i in triple]
    assert merged.content == TRIPLE[0]
    assert vault.get(S, prop).status == "superseded"
    assert all(vault.get(S, i).status == "deleted" for i in triple)
    assert all(vault.get(S, i).status == "active" for i in mixed)
    assert vault.get({"tenant": "t", "user": "sam"}, sam_dupe).status == "active"
    assert vault.consolidate(S) == []
    vault.unmerge(S, merged.id)
    assert all(vault.get(S, i).status == "active" for i in triple)


def test_consolidation_applies_when_the_strategy_says_so(make_vault) -> None:  # type: ignore[no-untyped-def]
    from memvault.config import Strategy
    v = make_vault(strategy=Strategy.model_validate({"consolidate": {"apply": True}}))
    triple = _add(v, *TRIPLE)
    _add(v, *MIXED[:3])
    (entry,) = v.consolidate(S)
    assert entry["proposal"] is None
    merged = v.get(S, entry["merged"])
    assert merged.status == "active" and len(merged.metadata["merged_from"]) == 3
    assert v.review_list(S) == []
    assert all(v.get(S, i).status == "deleted" for i in triple)
    with pytest.raises(ValidationError):
        v.consolidate(S, apply="yes")  # type: ignore[arg-type]


def test_a_slot_memory_merged_keeps_its_slot(vault: Vault) -> None:
    vault.remember(S, "Rita's city is Oslo", slot="user.city", value="Oslo")
    slot_id = vault.list(S, slot="user.city")[0].id
    (loose,) = _add(vault, "Rita lives in Oslo")
    merged = vault.merge(S, [loose, slot_id])
    assert (merged.slot, merged.value) == ("user.city", "Oslo")
    assert vault.profile(S)["user.city"]["memory_id"] == merged.id
    vault.unmerge(S, merged.id)
    assert vault.profile(S)["user.city"]["memory_id"] == slot_id


def test_hand_edited_links_are_a_conflict_not_a_crash(vault: Vault) -> None:
    (a,) = _add(vault, "Rita likes green tea")
    for bad in (["nonsense"], ["m_x@v1"], [7]):
        vault.edit(S, a, metadata={"merged_from": bad}, reason="tamper")
        snap = _state(vault)
        with pytest.raises(ConflictError):
            vault.unmerge(S, a)
        assert _state(vault) == snap
    vault.edit(S, a, metadata={"split_from": "nonsense"}, reason="tamper")
    with pytest.raises(ConflictError):
        vault.unsplit(S, a)

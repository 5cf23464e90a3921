"""Consolidation as a lifecycle step (issue 23 part 5 follow-up), on both backends.

Must be true: the sweep proposes the green-tea triple once, not again on the next sweep
nor after its proposal was rejected or its merge undone; approving merges it; with
`consolidate.apply` the sweep merges it and unmerge undoes that; users never merge with
each other; a frozen memory is never merged; `consolidate.on_sweep: false` turns the
step off; the sweep's faces (CLI, REST) report what the step did."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from typer.testing import CliRunner

from memvault import Vault
from memvault.cli import app
from memvault.config import Strategy

RITA = {"tenant": "t", "user": "rita"}
SAM = {"tenant": "t", "user": "sam"}
TRIPLE = ["Rita likes green tea", "rita likes green tea.", "Rita really likes green tea"]
MIXED = ["Rita likes black tea", "Rita dislikes green tea", "Rita loves green tea",
         "Rita liked green tea", "Rita does not like green tea"]


def _add(v: Vault, *texts: str, scope: dict[str, str] = RITA) -> list[str]:
    return [v.remember(scope, t).memory.id for t in texts]


def _proposals(v: Vault, scope: dict[str, str] = RITA) -> list[list[str]]:
    return [m.metadata["review"]["merge"] for m in v.review_list(scope)
            if "merge" in m.metadata.get("review", {})]


def _strategy(**consolidate: Any) -> Strategy:
    return Strategy.model_validate({"consolidate": consolidate})


def test_the_sweep_proposes_the_triple_once_and_approve_merges_it(vault: Vault) -> None:
    triple = _add(vault, *TRIPLE)
    mixed = _add(vault, *MIXED)
    (sams,) = _add(vault, "Rita likes green tea", scope=SAM)  # same words, other user
    rep = vault.maintain()
    assert rep.merges_applied == [] and len(rep.merges_proposed) == 1
    (prop,) = rep.merges_proposed
    assert _proposals(vault) == [triple] and _proposals(vault, SAM) == []
    shown = vault.review_show(RITA, prop)
    assert shown["memory"]["scope"]["user"] == "rita"
    assert vault.history(RITA, prop)[0].actor == "system:sweep"
    # Staged, nothing changed: the sources are all still there.
    assert {vault.get(RITA, i).status for i in triple + mixed} == {"active"}

    assert vault.maintain().merges_proposed == []  # proposed once
    # That pass staged nothing, so it marked the user as scanned through its last change:
    # the next sweep does not scan (nor embed) rita's memories again.
    mark = json.loads(vault.store.get_meta('consolidated:["t", "rita"]') or "{}")
    assert mark["through"] == vault.store.last_event_id("t", "rita") > 0
    _add(vault, "Rita reads on Sundays")  # a change: the user is scanned again
    again = vault.maintain(RITA)
    assert again.merges_proposed == [] and _proposals(vault) == [triple]

    merged = vault.review_approve(RITA, prop)
    assert merged.metadata["merged_from"] == [f"{i}@1" for i in triple]
    assert {vault.get(RITA, i).status for i in triple} == {"deleted"}
    assert {vault.get(RITA, i).status for i in mixed} == {"active"}
    assert vault.get(SAM, sams).status == "active"
    assert vault.maintain().merges_proposed == []  # the merged memory stands alone


def test_a_rejected_proposal_is_not_proposed_again(vault: Vault) -> None:
    triple = _add(vault, *TRIPLE)
    (prop,) = vault.maintain().merges_proposed
    vault.review_reject(RITA, prop, reason="Rita's notes are kept as said")
    _add(vault, "Rita reads on Sundays")  # a change, so the user is scanned again
    rep = vault.maintain()
    assert rep.merges_proposed == rep.merges_applied == []
    assert _proposals(vault) == []
    # The verb says why, and does not merge them even when told to apply.
    (entry,) = vault.consolidate(RITA, apply=True)
    assert entry["status"] == f"rejected in review ({prop})" and entry["merged"] is None
    assert {vault.get(RITA, i).status for i in triple} == {"active"}
    # A new near-duplicate makes another set: that is a new question.
    (fourth,) = _add(vault, "Rita truly likes green tea")
    (again,) = vault.maintain().merges_proposed
    assert set(vault.review_show(RITA, again)["review"]["merge"]) == {*triple, fourth}


def test_with_apply_the_sweep_merges_and_unmerge_undoes_it(
        make_vault: Callable[..., Vault]) -> None:
    v = make_vault(strategy=_strategy(apply=True))
    triple = _add(v, *TRIPLE)
    mixed = _add(v, *MIXED)
    rep = v.maintain()
    assert rep.merges_proposed == [] and len(rep.merges_applied) == 1
    merged = v.get(RITA, rep.merges_applied[0])
    assert merged.status == "active" and merged.content == TRIPLE[0]
    assert [r.actor for r in v.history(RITA, merged.id)] == ["system:sweep"]
    assert {v.get(RITA, i).status for i in triple} == {"deleted"}
    assert {v.get(RITA, i).status for i in mixed} == {"active"}
    assert v.review_list(RITA) == []

    v.unmerge(RITA, merged.id, reason="keep Rita's words")
    assert {v.get(RITA, i).status for i in triple} == {"active"}
    assert v.get(RITA, merged.id).status == "deleted"
    # Undone by a person: the next sweep neither merges it again nor proposes it.
    rep = v.maintain()
    assert rep.merges_applied == rep.merges_proposed == []
    assert {v.get(RITA, i).status for i in triple} == {"active"}
    (entry,) = v.consolidate(RITA)
    assert entry["status"] == f"unmerged ({merged.id})"


def test_users_never_merge_with_each_other(make_vault: Callable[..., Vault]) -> None:
    v = make_vault(strategy=_strategy(apply=True))
    (rita,) = _add(v, TRIPLE[0])
    (sam,) = _add(v, TRIPLE[1], scope=SAM)
    other = {"tenant": "u", "user": "rita"}  # same user id, another tenant
    (elsewhere,) = _add(v, TRIPLE[2], scope=other)
    rep = v.maintain()
    assert rep.merges_applied == rep.merges_proposed == []
    assert v.get(RITA, rita).status == v.get(SAM, sam).status == "active"
    assert v.get(other, elsewhere).status == "active"


def test_a_frozen_memory_is_not_merged(make_vault: Callable[..., Vault]) -> None:
    v = make_vault(strategy=_strategy(apply=True))
    a, b, c = _add(v, *TRIPLE)
    v.freeze(RITA, b, reason="confirmed by Rita")
    before = v.get(RITA, b)
    (mid,) = v.maintain().merges_applied
    assert v.get(RITA, mid).metadata["merged_from"] == [f"{a}@1", f"{c}@1"]
    after = v.get(RITA, b)
    assert after.frozen and after.status == "active" and after.version == before.version
    assert not any("merged" in (r.reason or "") for r in v.history(RITA, b))
    assert any("merged into" in (r.reason or "") for r in v.history(RITA, a))


def test_the_switch_turns_the_step_off(make_vault: Callable[..., Vault]) -> None:
    v = make_vault(strategy=_strategy(on_sweep=False))
    _add(v, *TRIPLE)
    assert v.maintain().merges_proposed == []
    assert _proposals(v) == []
    # The verb is still there.
    assert len([g for g in v.consolidate(RITA) if g["proposal"]]) == 1
    assert Strategy().consolidate.on_sweep is True  # the default: on


def test_only_the_consolidate_step(vault: Vault) -> None:
    _add(vault, *TRIPLE)
    assert vault.maintain(RITA, steps=["expire"]).merges_proposed == []
    assert len(vault.maintain(RITA, steps=["consolidate"]).merges_proposed) == 1


def test_the_same_numbers_in_other_roles_are_not_duplicates(vault: Vault) -> None:
    # Cosine 0.99 with use-m3: only the order of the numbers tells them apart.
    _add(vault, "thread 0 item 1 likes green tea", "thread 1 item 0 likes green tea")
    assert vault.consolidate(RITA) == []


def test_the_cli_sweep_reports_the_step(db: str, vault: Vault) -> None:
    _add(vault, *TRIPLE)
    vault.close()
    r = CliRunner().invoke(app, ["--db", db, "--embedder", "use-m3", "--tenant", "t",
                                 "--user", "rita", "sweep"])
    assert r.exit_code == 0, r.output
    assert "merges 1 proposed, 0 applied" in r.output
    r = CliRunner().invoke(app, ["--db", db, "--embedder", "use-m3", "--tenant", "t",
                                 "--user", "rita", "--json", "sweep", "--all"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["merges_proposed"] == d["merges_applied"] == []  # proposed once


def test_applying_a_pending_proposal_approves_it(vault: Vault) -> None:
    """A sweep proposed the triple; `consolidate(apply=True)` then performs that proposal:
    one merge, and the proposal leaves the review queue as approved (superseded by the
    merged memory), not a merge beside a proposal that can no longer be approved."""
    triple = _add(vault, *TRIPLE)
    (prop,) = vault.maintain().merges_proposed
    (entry,) = vault.consolidate(RITA, apply=True)
    assert entry["proposal"] == prop and entry["merged"] is not None
    merged = vault.get(RITA, entry["merged"])
    assert merged.status == "active"
    assert {vault.get(RITA, i).status for i in triple} == {"deleted"}
    assert _proposals(vault) == [] and vault.review_list(RITA) == []
    assert vault.get(RITA, prop).status == "superseded"
    assert [r.op for r in vault.history(RITA, prop)][-1] == "approve"
    # One active memory says it now, and nothing is left to propose or merge.
    assert [m.id for m in vault.list(RITA) if m.kind == "fact"
            and m.status == "active"] == [merged.id]
    assert vault.consolidate(RITA, apply=True) == []

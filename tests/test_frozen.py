"""Invariant 4: a frozen memory cannot be changed by any verb but unfreeze, nor by any
automatic path (slot updates, sweep)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from _util import ManualClock, dump

from memvault import ConflictError, FrozenError, Op, Scope, Status, Vault

ME = Scope("acme", "alice")

VERBS: dict[str, Callable[[Vault, str], Any]] = {
    "remember_new_value": lambda v, mid: v.remember(ME, "Export reports as PDF",
                                                    slot="report.format", value="PDF"),
    "remember_same_value": lambda v, mid: v.remember(ME, "Export reports as XLSX",
                                                     slot="report.format", value="XLSX"),
    "remember_with_expected_version": lambda v, mid: v.remember(
        ME, "Export reports as PDF", slot="report.format", value="PDF", expected_version=2),
    "remember_many": lambda v, mid: v.remember_many([
        {"scope": ME, "content": "Export reports as PDF", "slot": "report.format",
         "value": "PDF"}]),
    "edit_content": lambda v, mid: v.edit(ME, mid, content="Export reports as PDF"),
    "edit_tags": lambda v, mid: v.edit(ME, mid, tags=["x"], reason="retag"),
    "edit_confidence": lambda v, mid: v.edit(ME, mid, confidence=0.1),
    "forget": lambda v, mid: v.forget(ME, mid, reason="user asked"),
    "rollback": lambda v, mid: v.rollback(ME, mid, 1),
    "expire": lambda v, mid: v.expire(ME, mid),
    "purge": lambda v, mid: v.purge(ME, mid),
    "freeze_again": lambda v, mid: v.freeze(ME, mid),
}


def _frozen_slot(vault: Vault) -> str:
    vault.remember(ME, "Export reports as CSV", slot="report.format", value="CSV")
    r = vault.remember(ME, "Export reports as XLSX", slot="report.format", value="XLSX",
                       tags=["export"])
    m = vault.freeze(ME, r.id, actor="compliance", reason="contractual")
    assert m.frozen and m.version == 2
    return r.id


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_mutating_verb_is_refused(vault: Vault, verb: str) -> None:
    mid = _frozen_slot(vault)
    before_mem = vault.get(ME, mid).to_dict()
    before_hist = len(vault.history(ME, mid))
    before = dump(vault)

    with pytest.raises(FrozenError) as exc:
        VERBS[verb](vault, mid)
    assert mid in exc.value.message and "frozen" in exc.value.message

    assert vault.get(ME, mid).to_dict() == before_mem
    assert len(vault.history(ME, mid)) == before_hist
    assert dump(vault) == before
    assert [h.memory.value for h in vault.recall(ME, "export format")] == ["XLSX"]


def test_unfreeze_then_changes_work(vault: Vault) -> None:
    mid = _frozen_slot(vault)
    with pytest.raises(FrozenError):
        vault.edit(ME, mid, content="Export reports as PDF")
    m = vault.unfreeze(ME, mid, actor="compliance", reason="contract ended")
    assert not m.frozen and m.version == 2
    with pytest.raises(ConflictError):
        vault.unfreeze(ME, mid)
    r = vault.remember(ME, "Export reports as PDF", slot="report.format", value="PDF")
    assert (r.action, r.id, r.version) == ("updated", mid, 3)
    assert vault.rollback(ME, mid, 1).value == "CSV"
    hist = vault.history(ME, mid)
    assert [h.op for h in hist] == [Op.CREATE.value, Op.UPDATE.value, Op.FREEZE.value,
                                    Op.UNFREEZE.value, Op.UPDATE.value, Op.ROLLBACK.value]
    freeze, unfreeze = hist[2], hist[3]
    assert (freeze.actor, freeze.reason, freeze.state["frozen"]) == (
        "compliance", "contractual", True)
    assert (unfreeze.actor, unfreeze.reason, unfreeze.state["frozen"]) == (
        "compliance", "contract ended", False)


def test_sweep_leaves_frozen_expired_memories_alone(make_vault: Callable[..., Vault]) -> None:
    clock = ManualClock()
    vault = make_vault(clock=clock)
    frozen = vault.remember(ME, "Temporary VPN code is 4411", ttl="1h")
    plain = vault.remember(ME, "Temporary wifi code is 9932", ttl="1h")
    vault.freeze(ME, frozen.id)
    clock.advance(2 * 3_600_000)
    frozen_before = vault.get(ME, frozen.id).to_dict()
    frozen_hist = len(vault.history(ME, frozen.id))

    assert vault.sweep() == 1
    assert vault.get(ME, frozen.id).to_dict() == frozen_before
    assert len(vault.history(ME, frozen.id)) == frozen_hist
    assert vault.get(ME, plain.id).status == Status.PENDING.value
    # Scoped sweep too.
    assert vault.sweep(ME) == 0
    assert vault.get(ME, frozen.id).to_dict() == frozen_before

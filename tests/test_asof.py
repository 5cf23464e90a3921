"""As-of reads answer "what did we believe at time T" from the revision history."""

from __future__ import annotations

import pytest
from _util import ManualClock

from memvault import NotFoundError, Scope, Vault
from memvault.timeutil import iso

ME = Scope("acme", "alice")


@pytest.fixture
def two_versions(clocked_vault: Vault, clock: ManualClock) -> tuple[Vault, str, dict[str, int]]:
    t = {"before": clock.now}
    clock.advance(60_000)
    t["v1"] = clock.now
    r = clocked_vault.remember(ME, "用户希望报表导出为 CSV", slot="report.format", value="CSV",
                               tags=["报表"])
    clock.advance(60_000)
    t["between"] = clock.now
    clock.advance(60_000)
    t["v2"] = clock.now
    clocked_vault.remember(ME, "用户希望报表导出为 XLSX", slot="report.format", value="XLSX",
                           tags=["报表"])
    clock.advance(60_000)
    t["after"] = clock.now
    return clocked_vault, r.id, t


def test_get_as_of(two_versions: tuple[Vault, str, dict[str, int]]) -> None:
    vault, mid, t = two_versions
    assert vault.get(ME, mid).value == "XLSX"
    old = vault.get(ME, mid, as_of=t["between"])
    assert (old.value, old.version, old.content) == ("CSV", 1, "用户希望报表导出为 CSV")
    # The boundaries: a revision counts from the millisecond it was recorded.
    assert vault.get(ME, mid, as_of=t["v1"]).value == "CSV"
    assert vault.get(ME, mid, as_of=t["v2"] - 1).value == "CSV"
    assert vault.get(ME, mid, as_of=t["v2"]).value == "XLSX"
    assert vault.get(ME, mid, as_of=t["after"]).value == "XLSX"
    # ISO-8601 strings are the same instant.
    assert vault.get(ME, mid, as_of=iso(t["between"])).value == "CSV"
    with pytest.raises(NotFoundError):
        vault.get(ME, mid, as_of=t["before"])
    with pytest.raises(NotFoundError):
        vault.get(ME, mid, as_of=t["v1"] - 1)


def test_list_as_of(two_versions: tuple[Vault, str, dict[str, int]]) -> None:
    vault, mid, t = two_versions
    assert [(m.id, m.value) for m in vault.list(ME, as_of=t["between"])] == [(mid, "CSV")]
    assert [(m.id, m.value) for m in vault.list(ME, as_of=t["after"])] == [(mid, "XLSX")]
    assert [m.value for m in vault.list(ME, slot="report.format", tags=["报表"],
                                         as_of=t["between"])] == ["CSV"]
    assert vault.list(ME, as_of=t["before"]) == []


def test_recall_as_of(two_versions: tuple[Vault, str, dict[str, int]]) -> None:
    vault, _, t = two_versions
    for q in ("导出格式", "export format"):
        assert [h.memory.value for h in vault.recall(ME, q, as_of=t["between"])] == ["CSV"]
        assert [h.memory.value for h in vault.recall(ME, q, as_of=t["after"])] == ["XLSX"]
        assert [h.memory.value for h in vault.recall(ME, q)] == ["XLSX"]
        assert vault.recall(ME, q, as_of=t["before"]) == []


def test_as_of_sees_forget_and_its_rollback(clocked_vault: Vault, clock: ManualClock) -> None:
    vault = clocked_vault
    r = vault.remember(ME, "The user is allergic to peanuts")
    clock.advance(1000)
    t_live = clock.now
    clock.advance(1000)
    vault.forget(ME, r.id)
    clock.advance(1000)
    t_forgotten = clock.now
    clock.advance(1000)
    vault.rollback(ME, r.id, 1)
    clock.advance(1000)
    assert [h.memory.id for h in vault.recall(ME, "peanut allergy", as_of=t_live)] == [r.id]
    assert vault.recall(ME, "peanut allergy", as_of=t_forgotten) == []
    assert vault.get(ME, r.id, as_of=t_forgotten).status == "deleted"
    assert [h.memory.id for h in vault.recall(ME, "peanut allergy")] == [r.id]


def test_as_of_is_scoped(two_versions: tuple[Vault, str, dict[str, int]]) -> None:
    vault, mid, t = two_versions
    for other in (Scope("acme", "bob"), Scope("globex", "alice")):
        with pytest.raises(NotFoundError):
            vault.get(other, mid, as_of=t["after"])
        assert vault.list(other, as_of=t["after"]) == []
        assert vault.recall(other, "导出格式", as_of=t["after"]) == []

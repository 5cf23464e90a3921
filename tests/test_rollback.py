"""Invariant 3: rollback restores any earlier version exactly, as a new revision, and is
itself undoable. Bad versions fail with a typed error and change nothing."""

from __future__ import annotations

from typing import Any

import pytest
from _util import dump

from memvault import (
    ConflictError,
    NotFoundError,
    Op,
    Scope,
    Status,
    ValidationError,
    Vault,
    VersionError,
)
from memvault.model import STATE_FIELDS

ME = Scope("acme", "alice")


def _state(vault: Vault, mid: str) -> dict[str, Any]:
    m = vault.get(ME, mid).to_dict()
    return {f: m[f] for f in STATE_FIELDS}


def _three_versions(vault: Vault) -> tuple[str, list[dict[str, Any]]]:
    """v1 CSV, v2 XLSX (other tags/metadata/confidence), v3 hand edit. Returns the id and
    the observed state of each version."""
    r = vault.remember(ME, "用户希望报表导出为 CSV", slot="report.format", value="CSV",
                       tags=["报表", "export"], metadata={"channel": "chat", "n": 1},
                       confidence=0.9, source_text="我要 CSV", actor="alice", reason="asked")
    states = [_state(vault, r.id)]
    vault.remember(ME, "Export reports as XLSX", slot="report.format", value={"fmt": "XLSX"},
                   tags=["export"], metadata={"channel": "email", "nested": {"a": [1, 2]}},
                   confidence=0.6, source="system_inferred", actor="bot", reason="inferred")
    states.append(_state(vault, r.id))
    vault.edit(ME, r.id, content="Export reports as XLSX, zipped", tags=["export", "zip"],
               confidence=0.7, actor="admin", reason="clarified")
    states.append(_state(vault, r.id))
    assert states[0] != states[1] != states[2]
    return r.id, states


def test_rollback_restores_exact_state_as_new_revision(vault: Vault) -> None:
    mid, states = _three_versions(vault)
    hist_before = vault.history(ME, mid)

    m = vault.rollback(ME, mid, 1, actor="admin", reason="wrong inference")
    assert m.version == 4
    assert _state(vault, mid) == states[0]
    got = vault.get(ME, mid)
    assert (got.content, got.slot, got.value, got.tags, got.metadata, got.status) == (
        "用户希望报表导出为 CSV", "report.format", "CSV", ["报表", "export"],
        {"channel": "chat", "n": 1}, Status.ACTIVE.value)

    hist = vault.history(ME, mid)
    # Old revisions untouched; one new revision appended.
    assert [r.to_dict() for r in hist[:3]] == [r.to_dict() for r in hist_before]
    last = hist[-1]
    assert (last.op, last.from_version, last.to_version) == (Op.ROLLBACK.value, 3, 4)
    assert (last.actor, last.reason) == ("admin", "wrong inference")
    assert last.trigger_text == "rollback to version 1"
    assert last.state is not None and last.state["value"] == "CSV"

    # Recall serves the restored value, found through the re-indexed text.
    hits = vault.recall(ME, "导出格式")
    assert [h.memory.value for h in hits] == ["CSV"]
    assert vault.recall(ME, "zipped XLSX")[0].memory.value == "CSV"


def test_rollback_of_rollback_returns_to_later_state(vault: Vault) -> None:
    mid, states = _three_versions(vault)
    vault.rollback(ME, mid, 2)
    assert _state(vault, mid) == states[1]
    vault.rollback(ME, mid, 3)  # undo: back to the version before the rollback (v3)
    assert _state(vault, mid) == states[2]
    assert vault.get(ME, mid).version == 5
    assert [r.op for r in vault.history(ME, mid)][-2:] == [Op.ROLLBACK.value] * 2
    # Rolling back to a rollback's own version also works (it is a version like any other).
    vault.rollback(ME, mid, 4)
    assert _state(vault, mid) == states[1]


def test_rollback_restores_forgotten_memory(vault: Vault) -> None:
    r = vault.remember(ME, "The user is allergic to peanuts", tags=["health"])
    vault.forget(ME, r.id, reason="user asked")
    assert vault.get(ME, r.id).status == Status.DELETED.value
    assert vault.recall(ME, "peanut allergy") == []

    m = vault.rollback(ME, r.id, 1, reason="forgot by mistake")
    assert (m.status, m.version) == (Status.ACTIVE.value, 3)
    assert [h.memory.id for h in vault.recall(ME, "peanut allergy")] == [r.id]
    assert [x.op for x in vault.history(ME, r.id)] == [
        Op.CREATE.value, Op.DELETE.value, Op.ROLLBACK.value]


@pytest.mark.parametrize(("bad", "error"), [
    (0, ValidationError), (-1, ValidationError), ("abc", ValidationError),
    (None, ValidationError), (1.5, ValidationError), (True, ValidationError),
    ("current", VersionError), ("beyond", VersionError), (10_000, VersionError),
])
def test_bad_version_changes_nothing(vault: Vault, bad: Any, error: type) -> None:
    mid, _ = _three_versions(vault)
    current = vault.get(ME, mid)
    named = {"current": current.version, "beyond": current.version + 1}
    target = named.get(bad, bad) if isinstance(bad, str) else bad
    before_hist = vault.history(ME, mid)
    before = dump(vault)

    with pytest.raises(error) as exc:
        vault.rollback(ME, mid, target)
    assert "version" in exc.value.message
    assert vault.get(ME, mid).to_dict() == current.to_dict()
    assert [r.to_dict() for r in vault.history(ME, mid)] == [r.to_dict() for r in before_hist]
    assert dump(vault) == before


def test_rollback_to_a_purged_memory_or_other_scope_is_not_found(vault: Vault) -> None:
    r = vault.remember(ME, "Export reports as CSV", slot="report.format", value="CSV")
    vault.remember(ME, "Export reports as XLSX", slot="report.format", value="XLSX")
    before = dump(vault)
    with pytest.raises(NotFoundError):
        vault.rollback(Scope("acme", "bob"), r.id, 1)
    with pytest.raises(NotFoundError):
        vault.rollback(Scope("globex", "alice"), r.id, 1)
    assert dump(vault) == before
    vault.purge(ME, r.id)
    with pytest.raises(NotFoundError):
        vault.rollback(ME, r.id, 1)


def test_rollback_that_would_duplicate_an_active_slot_is_refused(vault: Vault) -> None:
    old = vault.remember(ME, "Export reports as CSV", slot="report.format", value="CSV")
    vault.forget(ME, old.id)
    new = vault.remember(ME, "Export reports as XLSX", slot="report.format", value="XLSX")
    assert new.action == "added" and new.id != old.id
    before = dump(vault)
    with pytest.raises(ConflictError):
        vault.rollback(ME, old.id, 1)
    assert dump(vault) == before
    assert [h.memory.value for h in vault.recall(ME, "export format")] == ["XLSX"]

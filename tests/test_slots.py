"""Invariant 2: after a slot is updated, retrieval never presents the old value as current.

A slot (report.format) holds one active value per exact scope. A new value is a new
version of the same memory row, never a second row; history keeps both versions with
who changed it and why.
"""

from __future__ import annotations

import pytest
from _util import query

from memvault import Op, Scope, Status, Vault

CASES = {
    "zh": {"old": "用户希望报表导出为 CSV", "new": "用户希望报表导出为 XLSX",
           "queries": ["导出格式", "报表用什么格式导出？"]},
    "en": {"old": "Export reports as CSV", "new": "Export reports as XLSX",
           "queries": ["export format", "which format should reports be exported in?"]},
}


def _fill(vault: Vault, scope: Scope) -> None:
    # Unrelated memories, so recall has to rank and not just return everything.
    for text in ("用户住在上海", "The user has a cat named Miso", "通知方式：邮件",
                 "Prefers dark mode in the dashboard"):
        vault.remember(scope, text)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_update_replaces_value_in_recall(vault: Vault, lang: str) -> None:
    case = CASES[lang]
    me = Scope("acme", "alice")
    _fill(vault, me)
    first = vault.remember(me, case["old"], slot="report.format", value="CSV",
                           actor="alice", reason="user asked for CSV")
    assert first.action == "added"
    second = vault.remember(me, case["new"], slot="report.format", value="XLSX",
                            actor="support-bot", reason="user changed their mind",
                            trigger_text="以后都导出 XLSX 吧" if lang == "zh" else
                            "from now on export XLSX")
    assert second.action == "updated"
    assert second.id == first.id
    assert (second.previous_version, second.version) == (1, 2)

    for q in case["queries"]:
        hits = vault.recall(me, q, top_k=10)
        slot_hits = [h for h in hits if h.memory.slot == "report.format"]
        assert len(slot_hits) == 1, q
        assert slot_hits[0].memory.value == "XLSX"
        assert "XLSX" in slot_hits[0].memory.content
        assert all("CSV" not in h.memory.content for h in hits), q
        assert all(h.memory.value != "CSV" for h in hits), q

    # One row for the slot, in the API and in the table itself.
    assert [m.id for m in vault.list(me, slot="report.format")] == [first.id]
    rows = query(vault, "SELECT id, status, value, version FROM memories WHERE slot = ?",
                 ("report.format",))
    assert rows == [(first.id, Status.ACTIVE.value, '"XLSX"', 2)]
    assert vault.get(me, first.id).value == "XLSX"


def test_history_keeps_both_versions_with_actor_and_reason(vault: Vault) -> None:
    me = Scope("acme", "alice")
    a = vault.remember(me, CASES["zh"]["old"], slot="report.format", value="CSV",
                       actor="alice", reason="用户明确要求", source_text="我要 CSV")
    vault.remember(me, CASES["zh"]["new"], slot="report.format", value="XLSX",
                   actor="support-bot", reason="user changed their mind",
                   trigger_text="以后都导出 XLSX 吧")
    hist = vault.history(me, a.id)
    assert [(r.op, r.from_version, r.to_version) for r in hist] == [
        (Op.CREATE.value, None, 1), (Op.UPDATE.value, 1, 2)]
    assert [r.actor for r in hist] == ["alice", "support-bot"]
    assert [r.reason for r in hist] == ["用户明确要求", "user changed their mind"]
    # The create's trigger defaults to the words the memory came from.
    assert [r.trigger_text for r in hist] == ["我要 CSV", "以后都导出 XLSX 吧"]
    assert hist[0].state is not None and hist[1].state is not None
    assert (hist[0].state["value"], hist[1].state["value"]) == ("CSV", "XLSX")
    assert hist[0].state["content"] == CASES["zh"]["old"]
    assert vault.diff(me, a.id, 1, 2)["value"] == {"from": "CSV", "to": "XLSX"}


def test_duplicate_is_noop(vault: Vault) -> None:
    me = Scope("acme", "alice")
    vault.remember(me, "Export reports as CSV", slot="report.format", value="CSV")
    upd = vault.remember(me, "Export reports as XLSX", slot="report.format", value="XLSX")
    before = len(vault.history(me, upd.id))
    # Same statement again, differently cased and spaced: nothing to do.
    again = vault.remember(me, "export  reports as XLSX ", slot="report.format", value="XLSX",
                           reason="repeated")
    assert again.action == "noop"
    assert again.id == upd.id and again.version == 2
    # No new row and no new version: the restatement is counted on the same memory.
    history = vault.history(me, upd.id)
    assert len(history) == before + 1 and history[-1].op == "reinforce"
    assert history[-1].reason == "repeated"  # the caller's reason, as for any write
    assert (history[-1].from_version, history[-1].to_version) == (2, 2)
    assert vault.get(me, upd.id).metadata["confirmations"] == 2
    assert len(vault.list(me)) == 1
    # A duplicate of a statement without a slot is a noop as well.
    x = vault.remember(me, "The user has a cat named Miso")
    y = vault.remember(me, "the user has a cat named miso")
    assert (x.action, y.action, y.id) == ("added", "noop", x.id)
    assert [r.op for r in vault.history(me, x.id)] == ["create", "reinforce"]
    assert vault.history(me, x.id)[1].reason == "restated"  # no reason given
    z = vault.remember(me, "The user has a cat named Miso")
    assert z.memory.metadata["confirmations"] == 3 and z.version == 1


def test_slot_in_another_scope_is_independent(vault: Vault) -> None:
    alice, bob = Scope("acme", "alice"), Scope("acme", "bob")
    other_tenant = Scope("globex", "alice")
    agent_scope = Scope("acme", "alice", agent="reporter")
    a = vault.remember(alice, "Export reports as CSV", slot="report.format", value="CSV")
    b = vault.remember(bob, "Export reports as PDF", slot="report.format", value="PDF")
    c = vault.remember(other_tenant, "Export reports as CSV", slot="report.format",
                       value="CSV")
    d = vault.remember(agent_scope, "Export reports as JSON", slot="report.format",
                       value="JSON")
    assert len({a.id, b.id, c.id, d.id}) == 4
    assert {r.action for r in (a, b, c, d)} == {"added"}

    vault.remember(alice, "Export reports as XLSX", slot="report.format", value="XLSX")
    assert vault.get(bob, b.id).value == "PDF" and vault.get(bob, b.id).version == 1
    assert vault.get(other_tenant, c.id).value == "CSV"
    assert vault.get(other_tenant, c.id).version == 1
    assert vault.get(agent_scope, d.id).value == "JSON"
    assert len(vault.history(bob, b.id)) == 1
    assert [h.memory.value for h in vault.recall(bob, "export format")] == ["PDF"]
    assert [h.memory.value for h in vault.recall(other_tenant, "export format")] == ["CSV"]
    assert [h.memory.value for h in vault.recall(agent_scope, "export format")] == ["JSON"]

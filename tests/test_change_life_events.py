"""A move to another employer, trade or school year says a change in so many words
("跳槽到…", "转行", "升职", "入职", "升三年级"), like "promoted" and "moved" do in English
(issue 18, found on the generalisation set's development half; tested here in wording of
its own). Before, "女儿升三年级了" was added beside "我女儿在上二年级" and both were served.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.discourse import marks_change

ME = Scope("acme", "qiu")


@pytest.mark.parametrize("line, change", [
    ("上个月跳槽到拼多多了", True), ("去年转行做设计了", True), ("刚升职，当组长了", True),
    ("下周一入职新公司", True), ("女儿升三年级了", True), ("儿子升入五年级了", True),
    ("我女儿在上二年级", False), ("我在美团做运营", False), ("体温升高了一点", False),
])
def test_life_events_mark_a_change(line: str, change: bool) -> None:
    assert marks_change(line) is change


def test_a_school_year_moved_up_is_the_memorys_next_version(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "我女儿在上二年级"}])
    (m,) = [x for x in vault.list(ME, limit=20) if x.kind != "turn"]
    out = vault.observe(ME, [{"role": "user", "content": "女儿升三年级了"}])
    assert [(o.action, o.memory_id) for o in out.outcomes] == [("updated", m.id)]
    assert "三年级" in vault.get(ME, m.id).content
    assert [x.id for x in vault.list(ME, limit=20) if x.kind != "turn"] == [m.id]


def test_a_life_event_changes_nothing_it_is_not_about(vault: Vault) -> None:
    kept = vault.remember(ME, "我喜欢吃辣").memory
    vault.observe(ME, [{"role": "user", "content": "女儿升三年级了"}])
    assert vault.get(ME, kept.id) == kept

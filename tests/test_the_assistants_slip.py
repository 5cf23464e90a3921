"""A reply that puts right a value the assistant got wrong ("leeds, not york" to "In York
it'll be rainy") stores nothing: the refused value is the assistant's slip, the stored
memory was right (issue 18, found on the twelfth generalisation set's development half,
tested here in wording of its own), on both backends. Before, the reply was added as a
new memory that carried the wrong value into the prompt. A refusal of what the assistant
read back of the user ("I'll remember your class is on Monday" / "tuesday, not monday —
my mistake") still changes the memory.
"""

from __future__ import annotations

import pytest
from _util import changed, statements

from memvault import Scope, Vault
from memvault.understand.repair import refused_spans

ME = Scope("acme", "rui")


def test_where_a_value_is_refused() -> None:
    assert refused_spans("leeds, not york 🙄") == [(5, 15, "york")]
    assert [v for *_, v in refused_spans("杭州 不是南京")] == ["南京"]


@pytest.mark.parametrize(("given", "asked", "reply", "wrong"), [
    ("I live in Leeds", "In York it'll be rainy tomorrow, around 12°C.", "leeds, not york 🙄",
     "york"),
    ("我住在杭州", "南京明天有小雨，记得带伞。", "杭州 不是南京", "南京"),
])
def test_the_assistants_slip_is_not_stored(vault: Vault, given: str, asked: str, reply: str,
                                           wrong: str) -> None:
    vault.observe(ME, [{"role": "user", "content": given}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content": "weather tomorrow?"},
                       {"role": "assistant", "content": asked},
                       {"role": "user", "content": reply}])
    after = statements(vault, ME)
    assert all(after[i].content == before[i].content for i in before)
    assert not [m for m in after.values()
                if m.status == "active" and wrong in m.content.casefold()]


def test_a_refusal_of_what_the_assistant_read_back_changes_it(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "My pottery class is on Monday evenings"}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "assistant", "content": "Noted, I'll remember your pottery "
                                                        "class is on Monday evenings."},
                       {"role": "user", "content": "tuesday, not monday — my mistake"}])
    after = statements(vault, ME)
    moved = changed(before, after)
    assert len(moved) == 1 and "tuesday" in after[moved[0]].content.casefold()

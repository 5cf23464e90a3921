"""The assistant asks whether to keep something or to stop it, and the user's answer ends
it (issue 18; development failures of the generalisation set's twelfth set, tested here
in wording of its own): "no" to keeping it ("这个月还要照常提醒你转房租吗？" / "不用了"),
"yes" to stopping it ("Should I stop the Sunday budget summary?" / "yes please"). The
thing is forgotten. Before, the first changed nothing and the second replaced the memory
with the words "stop the Sunday budget summary".
"""

from __future__ import annotations

import pytest
from _util import statements

from memvault import Scope, Vault

ME = Scope("acme", "qi")


def _exchange(vault: Vault, *turns: tuple[str, str]) -> None:
    vault.observe(ME, [{"role": role, "content": text} for role, text in turns])


@pytest.mark.parametrize(("given", "asked", "reply"), [
    ("每个月15号提醒我给房东转房租", "这个月还要照常提醒你转房租吗？", "不用了 我搬回家住了"),
    ("Send me my step count every evening at 9pm", "Do you still want the evening step count?",
     "nope, the watch went back to the shop"),
    ("Send me a budget summary every Sunday", "Got it. Should I stop the Sunday budget summary?",
     "yes please"),
])
def test_the_answer_ends_the_thing(vault: Vault, given: str, asked: str, reply: str) -> None:
    _exchange(vault, ("user", given))
    (mid,) = statements(vault, ME)
    _exchange(vault, ("assistant", asked), ("user", reply))
    after = statements(vault, ME)
    assert after[mid].status == "deleted"
    assert not [m for m in after.values() if m.status == "active"]


def test_a_no_with_a_new_value_changes_it_instead(vault: Vault) -> None:
    _exchange(vault, ("user", "Wake me up with an alarm at 7am"))
    (mid,) = statements(vault, ME)
    _exchange(vault, ("assistant", "Do you still want the 7am alarm?"),
              ("user", "no, make it 8"))
    after = statements(vault, ME)[mid]
    assert after.status == "active" and "8" in after.content

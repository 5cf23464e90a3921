"""A yes to the assistant's proposal that repeats part of it ("yeah 6 is fine", "sure, 2
hours works", "ok听你的") accepts the proposal, as a bare yes does (issue 18; development
failures of the generalisation set's twelfth set, tested here in wording of its own).
Before, only a bare yes did: such a reply was read alone and changed nothing.
"""

from __future__ import annotations

import pytest
from _util import statements

from memvault import Scope, Vault

ME = Scope("acme", "su")


def _exchange(vault: Vault, *turns: tuple[str, str]) -> None:
    vault.observe(ME, [{"role": role, "content": text} for role, text in turns])


@pytest.mark.parametrize(("given", "asked", "reply", "new"), [
    ("I review 10 flashcards a day", "Want me to drop your flashcards to 6 a day?",
     "yeah 6 is fine", "6"),
    ("Remind me to drink water every hour",
     "Shall I space the water reminders out to every 2 hours?", "sure, 2 hours works", "2"),
    ("我每周游泳四次", "要不先减到每周两次，等肩膀好了再加回去？", "ok听你的", "两次"),
])
def test_a_yes_with_the_proposals_words_accepts_it(vault: Vault, given: str, asked: str,
                                                   reply: str, new: str) -> None:
    _exchange(vault, ("user", given))
    (mid,) = statements(vault, ME)
    _exchange(vault, ("assistant", asked), ("user", reply))
    after = statements(vault, ME)
    assert after[mid].version == 2 and new in after[mid].content.casefold()
    assert [m.id for m in after.values() if m.status == "active"] == [mid]


def test_a_yes_with_a_value_of_its_own_does_not_accept_the_proposal(vault: Vault) -> None:
    _exchange(vault, ("user", "Remind me to stretch at 7pm"))
    _exchange(vault, ("assistant", "Shall I move your stretch reminder to 8pm?"),
              ("user", "yes but 9 would be better"))
    assert not [m for m in statements(vault, ME).values()
                if m.status == "active" and "8pm" in m.content]

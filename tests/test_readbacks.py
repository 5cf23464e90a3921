"""A "no" to the assistant's check of a stored value, with the right value, changes that
memory (issue 18; readbacks.py): "your piano lesson is Monday, right?" / "no, Thursday".
Wording of its own, on both backends."""

from __future__ import annotations

import pytest

from memvault import Scope, Vault

ME = Scope("acme", "ro")


def _active(vault: Vault) -> list[tuple[str, int]]:
    return sorted((m.content, m.version) for m in vault.list(ME, limit=50)
                  if m.kind != "turn" and m.status == "active")


def _say(vault: Vault, *messages: tuple[str, str]) -> None:
    vault.observe(ME, [{"role": r, "content": c} for r, c in messages])


@pytest.mark.parametrize("stored, check, reply, now", [
    ("My piano lesson is on Monday afternoons",
     "Just checking: your piano lesson is Monday, right?", "no, Thursday",
     "My piano lesson is on Thursday afternoons"),
    ("我每周四早上去游泳", "你游泳是周四早上对吧？", "不是，周六", "我每周六早上去游泳"),
])
def test_a_no_to_the_check_with_the_right_value_changes_that_memory(
        vault: Vault, stored: str, check: str, reply: str, now: str) -> None:
    _say(vault, ("user", stored))
    _say(vault, ("assistant", check), ("user", reply))
    assert _active(vault) == [(now, 2)]


def test_only_the_memory_the_check_names_changes(vault: Vault) -> None:
    _say(vault, ("user", "My piano lesson is on Monday afternoons"))
    _say(vault, ("user", "I go running on Saturday mornings"))
    _say(vault, ("assistant", "Your run is on Saturday, right?"), ("user", "no, Sunday"))
    assert _active(vault) == [("I go running on Sunday mornings", 2),
                              ("My piano lesson is on Monday afternoons", 1)]


def test_a_no_to_a_check_of_nothing_stored_changes_nothing(vault: Vault) -> None:
    _say(vault, ("user", "My piano lesson is on Monday afternoons"))
    before = _active(vault)
    # the check names a day no memory holds: nothing is the one it checks
    _say(vault, ("assistant", "Is the dentist on Friday?"), ("user", "no, Tuesday"))
    assert _active(vault) == before


def test_two_memories_with_the_checked_value_is_no_one_to_change(vault: Vault) -> None:
    _say(vault, ("user", "My piano lesson is on Monday afternoons"))
    _say(vault, ("user", "I take the bins out on Monday evenings"))
    before = _active(vault)
    _say(vault, ("assistant", "That's Monday, right?"), ("user", "no, Wednesday"))
    assert _active(vault) == before

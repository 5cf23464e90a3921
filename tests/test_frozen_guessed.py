"""A statement that says it is a change, about a frozen memory it only resembles, is
blocked by that memory (issue 18, found on the generalisation set's development half;
tested here in wording of its own), on both backends.

Before, the evidence was too weak to name the frozen memory as the change's target ("I
live in Cardiff now" shares no word with "My home city is Bristol"), so the statement was
added beside it: the freeze held, yet a newer line contradicting it reached the prompt.
Evidence too weak to change an ordinary memory (the one memory of a topic class that holds
one value at a time) is enough to block one of a frozen memory; rank alone is not (an
audit found "I now volunteer at a shelter" blocked by a frozen "I work as a nurse" only
because nothing else was stored), and a statement with no word of change, or one that says
it adds, is still added.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault

ME = Scope("acme", "pia")


def _say(vault: Vault, text: str) -> list[str]:
    return [o.action for o in vault.observe(ME, [{"role": "user", "content": text}]).outcomes]


def _active(vault: Vault) -> list:
    return [m for m in vault.list(ME, limit=50) if m.kind != "turn"]


@pytest.mark.parametrize("given, line", [
    ("My home city is Bristol", "I live in Cardiff now"),
    ("My home town is Leeds", "I'm living in Bath now"),
    ("I prefer metric units", "give me imperial units from now on"),
    ("我住在成都", "现在住重庆了"),
])
def test_a_change_it_may_mean_is_blocked_by_the_frozen_memory(vault: Vault, given: str,
                                                                 line: str) -> None:
    _say(vault, given)
    (m,) = _active(vault)
    frozen = vault.freeze(ME, m.id, reason="confirmed by support")
    assert _say(vault, line) == ["block"]
    assert vault.get(ME, m.id) == frozen
    assert [r.op for r in vault.history(ME, m.id)][-1] == "blocked"
    assert [x.id for x in _active(vault)] == [m.id]  # nothing newer beside it


@pytest.mark.parametrize("given, line", [
    ("I'm allergic to peanuts", "I'm allergic to shellfish"),
    ("I'm allergic to peanuts", "I'm also allergic to shellfish now"),
    ("I work as a nurse", "I now volunteer at an animal shelter on weekends"),
    ("I work as a nurse", "I've now started a pottery evening class"),
    ("我是一名护士", "我现在开始学陶艺了"),
])
def test_what_is_not_said_as_a_change_is_still_added(vault: Vault, given: str,
                                                     line: str) -> None:
    _say(vault, given)
    (m,) = _active(vault)
    vault.freeze(ME, m.id, reason="confirmed by support")
    assert _say(vault, line) == ["added"]
    assert len(_active(vault)) == 2


def test_without_a_freeze_the_same_line_is_not_blocked(vault: Vault) -> None:
    _say(vault, "My home city is Bristol")
    assert "block" not in _say(vault, "I live in Cardiff now")

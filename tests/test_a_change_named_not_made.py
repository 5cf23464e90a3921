"""A word of change used as a noun, or as a judged activity, makes no change (issue 18,
found on the generalisation set's development half, tested here in wording of its own),
on both backends. Before, "got a decent raise" changed a savings goal, "ask the landlord
about the delay" the tone of the user's emails and "switching everything over sounds
exhausting" the user's bank: each carried a marker of change ("raise", "delay",
"switching"), and the memory of the same topic took the line as its next version.
"""

from __future__ import annotations

import pytest
from _util import changed, statements

from memvault import Scope, Vault
from memvault.understand.discourse import changes_mind, marks_change, replaces, supposes

ME = Scope("acme", "noor")


@pytest.mark.parametrize("line", [
    "got a decent raise at work this year 🎉",
    "need to ring the landlord about the delay",
    "lloyds app keeps crashing but switching everything over sounds exhausting",
    "the move was exhausting",
])
def test_a_change_named(line: str) -> None:
    assert not marks_change(line) and not replaces(line)


@pytest.mark.parametrize("line", [
    "my landlord raised the rent", "I switched to Monzo", "they delayed my start date",
    "got a macbook as a replacement", "moving to Leeds next month", "我已经全部迁到Notion了",
    "the update is that I moved", "finally made the switch to decaf"])
def test_a_change_made(line: str) -> None:
    assert marks_change(line) and changes_mind(line)


def test_a_pull_is_not_a_choice() -> None:
    for line in ("有点想换个城市生活", "kinda tempted to switch to Linux", "挺想转行的"):
        assert supposes(line)
    for line in ("我想法变了", "想起来了，我搬到杭州了"):
        assert not supposes(line)


@pytest.mark.parametrize(("given", "line"), [
    ("My monthly savings goal is £250", "finally got a decent raise at work this month 🎉"),
    ("I bank with Lloyds",
     "lloyds app keeps crashing but switching everything over sounds exhausting"),
    ("Write my work emails in a warm, casual tone",
     "need to email the landlord about the delay to the repairs"),
])
def test_the_memory_stays(vault: Vault, given: str, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": given}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content": line}])
    assert changed(before, statements(vault, ME)) == []


def test_moving_my_notes_elsewhere_is_a_change(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "我用印象笔记记笔记"}])
    (notes,) = statements(vault, ME)
    vault.observe(ME, [{"role": "user",
                        "content": "印象笔记太难用了 我已经把笔记全部迁到Obsidian了"}])
    after = statements(vault, ME)
    assert after[notes].version == 2 and "Obsidian" in after[notes].content

"""A reply to the assistant's proposal answers the proposal only (issue 18, found on the
twelfth generalisation set's development half, tested here in wording of its own), on
both backends. Before, a short reply to any question of the assistant was read together
with the user's line before the question: "got a bonus at work 🎉" / "Want to raise the
savings goal to £500?" / "hmm not now, the boiler needs fixing" became one statement,
which changed the stored savings goal though the user declined. A reply to a question
that asks for a value is still read with the line before it.
"""

from __future__ import annotations

import pytest
from _util import changed, statements

from memvault import Scope, Vault
from memvault.understand.offers import proposes

ME = Scope("acme", "kit")


@pytest.mark.parametrize(("line", "expected"), [
    ("Nice! Want to raise the savings goal to £500?", True),
    ("Would a 30-minute slot work better?", True),
    ("要不要把提醒改到晚上8点？比如吃完饭。", True),
    ("那每月给你妈的钱还要继续转吗？", True),
    ("By how much?", False),                      # asks for a value
    ("Which one did you go for in the end?", False),
    ("周会挪到哪天了？", False),
    ("好的，记下了。新家有电梯吗？", False),          # asks a fact
])
def test_what_proposes(line: str, expected: bool) -> None:
    assert proposes(line) is expected


def test_a_declined_proposal_changes_nothing(vault: Vault) -> None:
    for line in ("My monthly savings goal is £300", "I get paid on the 25th"):
        vault.observe(ME, [{"role": "user", "content": line}])
    before = statements(vault, ME)
    vault.observe(ME, [
        {"role": "user", "content": "got a bonus at work 🎉"},
        {"role": "assistant", "content": "Nice! Want to raise the savings goal to £500?"},
        {"role": "user", "content": "hmm not now, the boiler needs fixing"},
    ])
    after = statements(vault, ME)
    assert {i: (m.content, m.version) for i, m in before.items()} == {
        i: (after[i].content, after[i].version) for i in before}


def test_an_answer_for_a_value_is_read_with_the_line_before(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "My rent is 900 a month"}])
    before = statements(vault, ME)
    vault.observe(ME, [
        {"role": "user", "content": "the landlord is putting my rent up"},
        {"role": "assistant", "content": "Oh no, by how much?"},
        {"role": "user", "content": "to 980 from june"},
    ])
    after = statements(vault, ME)
    moved = changed(before, after)
    assert len(moved) == 1 and "980" in after[moved[0]].content

""""Remove that", answering the assistant's read-back ("I have a note that you're…"),
takes back the memory the assistant just said it holds (threadtopic.read_back,
takes_back_that; issue 18, found on the generalisation set's development half, tested
here in wording of its own), on both backends. Before, the take-back was staged as
ambiguous, though the conversation had said what "that" is.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.threadtopic import takes_back_that

ME = Scope("acme", "zoe")


def _msgs(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"role": r, "content": c} for r, c in pairs]


@pytest.mark.parametrize("meant, other, read_back, line", [
    ("I'm allergic to kiwi", "I live in Norwich",
     "Yes, I've got you down as allergic to kiwi.", "delete that, I outgrew it years ago"),
    ("我对芒果过敏", "我住在苏州",
     "记得，我这边记着你对芒果过敏。", "那条删了吧，早就不过敏了"),
])
def test_that_is_what_the_assistant_just_read_back(vault: Vault, meant: str, other: str,
                                                   read_back: str, line: str) -> None:
    m = vault.observe(ME, _msgs(("user", meant))).outcomes[0].memory_id
    o = vault.observe(ME, _msgs(("user", other))).outcomes[0].memory_id
    out = vault.observe(ME, _msgs(("user", "what do you have on me?"),
                                  ("assistant", read_back), ("user", line)))
    assert ("forget", m) in [(x.action, x.memory_id) for x in out.outcomes]
    assert vault.get(ME, m).status == "deleted"
    assert vault.get(ME, o).status == "active"


def test_without_a_read_back_that_names_nothing(vault: Vault) -> None:
    m = vault.observe(ME, _msgs(("user", "I'm allergic to kiwi"))).outcomes[0].memory_id
    vault.observe(ME, _msgs(("user", "I live in Norwich")))
    vault.observe(ME, _msgs(("user", "delete that, I outgrew it years ago")))
    assert vault.get(ME, m).status == "active"


def test_a_take_back_that_names_its_thing_is_not_the_read_back(vault: Vault) -> None:
    m = vault.observe(ME, _msgs(("user", "I'm allergic to kiwi"))).outcomes[0].memory_id
    vault.observe(ME, _msgs(("user", "what do you have on me?"),
                            ("assistant", "I have you down as allergic to kiwi."),
                            ("user", "ok, and forget my address please")))
    assert vault.get(ME, m).status == "active"


@pytest.mark.parametrize("line, that", [
    ("remove that, it was a joke", True), ("delete it please", True), ("那条删了吧", True),
    ("把这个删掉", True), ("forget that bit about my address", False),
    ("delete my address", False), ("删掉地址那条", False),
])
def test_taking_back_that(line: str, that: bool) -> None:
    assert takes_back_that(line) is that

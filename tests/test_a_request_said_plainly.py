"""How the user wants replies, asked for in the plainest chat forms (issue 18, found while
probing after two blind audits; tested here in wording of its own), on both backends.
Before, each left the stored preference as it was: a "please" that closes the request
("shorter answers please"), a value said with nothing but when it holds ("以后简短点"), a
request after the clause that says why ("the essays are too much, keep answers brief"),
and a switch-off closed by "pls" ("kill the email alerts pls") read as keeping them.
"""

from __future__ import annotations

import pytest
from _util import statements

from memvault import Scope, Vault

ME = Scope("acme", "kit")


def _say(vault: Vault, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": line}])


@pytest.mark.parametrize(("given", "line", "value"), [
    ("Please give detailed answers", "shorter replies please", "concise"),
    ("Keep your answers brief", "more thorough answers pls, I keep having to ask again",
     "detailed"),
    ("回答详细一点", "以后简洁点吧", "concise"),
    ("Please give detailed answers", "the essays are too much for me, keep answers brief",
     "concise"),
])
def test_the_reply_preference_changes(vault: Vault, given: str, line: str, value: str) -> None:
    _say(vault, given)
    (mid,) = statements(vault, ME)
    _say(vault, line)
    after = statements(vault, ME)
    assert list(after) == [mid]
    assert after[mid].slot == "reply.verbosity" and after[mid].value == value


def test_a_switch_off_closed_by_please_is_a_switch_off(vault: Vault) -> None:
    _say(vault, "Keep email notifications on")
    (mid,) = statements(vault, ME)
    _say(vault, "these emails are flooding my inbox, kill the email notifications pls")
    after = statements(vault, ME)
    assert after[mid].version == 2 and "not" in after[mid].content


@pytest.mark.parametrize("line", [
    # a value said alone with a time word, about something else: not the replies
    "以后头发剪短一点",
    # said once, for the answer at hand
    "简短点吧",
])
def test_the_reply_preference_holds(vault: Vault, line: str) -> None:
    _say(vault, "Please give detailed answers")
    before = statements(vault, ME)
    _say(vault, line)
    after = statements(vault, ME)
    assert {i: (m.version, m.value) for i, m in after.items() if i in before} == {
        i: (m.version, m.value) for i, m in before.items()}

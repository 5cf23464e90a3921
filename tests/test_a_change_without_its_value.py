"""A change announced before its new value is known keeps the value that still holds
(issue 18, found by a blind audit, tested here in wording of its own), on both backends.
Before, "my standup is moving btw" became the standup memory's next version and 9:30 was
gone; the line that then gave the new time had nothing left to change. A change already
made ("the dentist moved my appointment") is not this: the old value no longer holds.
"""

from __future__ import annotations

import pytest
from _util import changed, statements

from memvault import Scope, Vault

ME = Scope("acme", "ren")


def _say(vault: Vault, *lines: str) -> None:
    for line in lines:
        vault.observe(ME, [{"role": "user", "content": line}])


@pytest.mark.parametrize(("given", "announced", "then", "word"), [
    ("Our team sync is at 9:30 every day", "heads up, our team sync is moving",
     "team sync is 10:15 starting next week", "10:15"),
    ("My yoga class is on Thursday evenings", "fyi my yoga class is getting rescheduled",
     "yoga's on Tuesday evenings from now on", "tuesday"),
    ("我每周三晚上上钢琴课", "钢琴课要换时间了", "钢琴课改到周五晚上了", "周五"),
])
def test_the_old_value_holds_until_the_new_one_is_said(
        vault: Vault, given: str, announced: str, then: str, word: str) -> None:
    _say(vault, given)
    before = statements(vault, ME)
    (mid,) = before
    _say(vault, announced)
    assert changed(before, statements(vault, ME)) == []
    # the announcement waits beside it, staged against the memory it is about
    (staged,) = [p for p in vault.list(ME, status="pending", limit=20) if p.kind != "turn"]
    assert staged.metadata["review"]["target_id"] == mid
    assert "incomplete_update" in staged.metadata["review"]["reasons"]
    _say(vault, then)
    after = statements(vault, ME)
    assert after[mid].status == "active" and word in after[mid].content.casefold()
    # and the line that says the value goes past it: nothing left to review
    assert not [p for p in vault.list(ME, status="pending", limit=20) if p.kind != "turn"]


@pytest.mark.parametrize(("given", "line"), [
    ("Our team sync is at 9:30 every day", "our team sync moved to 10:15"),
    ("我每周三晚上上钢琴课", "钢琴课改到周五晚上了"),
])
def test_a_change_with_its_value_is_applied(vault: Vault, given: str, line: str) -> None:
    _say(vault, given)
    (mid,) = statements(vault, ME)
    _say(vault, line)
    assert statements(vault, ME)[mid].version == 2


def test_the_value_given_in_a_reply_to_the_assistant_is_a_value(vault: Vault) -> None:
    # the same message carries the announcement, the assistant's question and the
    # value in Chinese numerals: the announcement waits, the value changes the memory
    _say(vault, "我每周一上午十点开周会")
    (mid,) = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content": "周会要换时间了"},
                       {"role": "assistant", "content": "换到几点？"},
                       {"role": "user", "content": "两点吧 以后都两点"}])
    after = statements(vault, ME)
    assert after[mid].status == "active" and "两点" in after[mid].content
    assert not [p for p in vault.list(ME, status="pending", limit=20) if p.kind != "turn"]

"""A change the assistant proposes, or reads back, and the user accepts with a bare yes
changes the memory it is about (issue 18, found on the twelfth generalisation set's
development half, tested here in wording of its own), on both backends. Before, "Shall
I raise your practice to 40 minutes a day?" / "sure 👍" changed nothing: only a guess
about the user ("are you…?", "我猜您…") was read from an assistant's line, and an emoji
made "sure 👍" no yes at all. The accepted change is the user's explicit decision in the
assistant's words (flag `accepted`, a note saying so); a guess stays an inference.
"""

from __future__ import annotations

import pytest
from _util import changed, statements

from memvault import Scope, Vault
from memvault.extract.cues import is_affirmation
from memvault.extract.messages import Message
from memvault.extract.rules import RuleExtractor
from memvault.understand.offers import proposed

ME = Scope("acme", "ines")


@pytest.mark.parametrize(("line", "said"), [
    ("Shall I raise your practice to 40 minutes a day until then?",
     "raise my practice to 40 minutes a day until then"),
    ("So Thursdays at 6 from now on?", "Thursdays at 6 from now on"),
    ("那以后周报改成周一早上9点发？", "以后周报改成周一早上9点发"),
    ("要不要把你的提醒挪到晚上8点？", "把我的提醒挪到晚上8点"),
    ("所以提醒以后改到每月5号，对吧？", "提醒以后改到每月5号"),
    ("Want me to move it to 7pm since you get home later now?",
     "move it to 7pm since I get home later now"),
    ("确认一下，是周六上午对吧？", None),        # a check of what holds
    ("Just to confirm, Saturday mornings, right?", None),
    ("So you probably want it weekly?", None),    # a guess, hedged
    ("Which day suits you?", None),               # asks for a value
    ("Does she like it?", None),                  # asks a fact
])
def test_what_a_question_proposes(line: str, said: str | None) -> None:
    assert proposed(line) == said


@pytest.mark.parametrize(("reply", "yes"), [
    ("sure 👍", True), ("对的👌", True), ("嗯 就这样", True), ("yeah fair, do that", True),
    ("行啊", True), ("好呀", True), ("哈哈", False), ("啊", False),
    ("👍", False), ("nope 👎", False), ("ok but 3pm", False),
])
def test_a_bare_yes_with_an_emoji(reply: str, yes: bool) -> None:
    assert is_affirmation(reply) is yes


def test_the_accepted_change_is_explicit_and_says_whose_words() -> None:
    conv = [Message("user", "my exam is in March", id="u1"),
            Message("assistant", "Shall I raise your practice to 40 minutes a day?", id="a1"),
            Message("user", "sure 👍", id="u2")]
    [c] = [c for c in RuleExtractor().extract(conv) if c.message_id == "a1"]
    assert (c.source, c.explicit, c.flags) == ("user_explicit", True, ["accepted"])
    assert "40 minutes" in c.content and "sure" in (c.note or "")


@pytest.mark.parametrize(("given", "conv", "old", "new"), [
    (["My piano practice is 20 minutes a day", "I practise scales before pieces"],
     ["my grade 5 exam is in March",
      "Shall I raise your practice to 40 minutes a day until then?", "sure 👍"],
     "20 minutes", "40"),
    (["周报每周五下午五点发给我", "日报不用发"],
     ["周五下午老开会 顾不上看", "那以后周报改成周一早上9点发？", "对的"],
     "周五", "周一"),
])
def test_an_accepted_change_changes_the_memory_it_is_about(
        vault: Vault, given: list[str], conv: list[str], old: str, new: str) -> None:
    for line in given:
        vault.observe(ME, [{"role": "user", "content": line}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": r, "content": t}
                       for r, t in zip(("user", "assistant", "user"), conv, strict=True)])
    after = statements(vault, ME)
    moved = changed(before, after)
    assert len(moved) == 1 and old in before[moved[0]].content
    assert new in after[moved[0]].content and after[moved[0]].status == "active"
    assert not [m for i, m in after.items()
                if i not in before and m.status == "active" and new in m.content]


@pytest.mark.parametrize(("given", "asked"), [
    ("Remind me about the recycling every Sunday evening",
     "Pickup moved this week. Want me to remind you tonight at 8 instead?"),
    ("Keep your tone casual with me", "Want me to make this email to the bank formal?"),
    ("回复我的时候语气随意点就行", "要不要把这封邮件写得正式一点？"),
])
def test_a_task_for_now_accepted_changes_nothing(vault: Vault, given: str, asked: str) -> None:
    vault.observe(ME, [{"role": "user", "content": given}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "assistant", "content": asked},
                       {"role": "user", "content": "ok"}])
    after = statements(vault, ME)
    assert {i: (m.content, m.version) for i, m in before.items()} == {
        i: (after[i].content, after[i].version) for i in before}
    assert not [m for i, m in after.items() if i not in before and m.status == "active"]


def test_a_read_back_of_what_is_stored_adds_nothing(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "我每周日下午去游泳"}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "assistant", "content": "确认一下，是周日下午对吧？"},
                       {"role": "user", "content": "对"}])
    after = statements(vault, ME)
    assert after.keys() == before.keys()
    assert all(after[i].content == before[i].content for i in before)

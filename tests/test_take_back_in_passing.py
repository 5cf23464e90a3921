"""Take-backs said in passing, found on the generalisation set's seventh set (issue 18)
and tested here in wording of their own, on both backends: "you can forget that one"
after the correction that explains it, "ignore the X thing", "the X thing is over …
take it off", "you can drop the X reminders", "那个就别管了", and a bare "delete it" /
"删掉那条吧" answering the assistant's line that says what it holds of the user. The
sentence that only says why ("I gave up on that ages ago") is not stored as a memory of
"that". A bare "delete it" after a draft the assistant wrote takes nothing back from
memory.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.threadtopic import read_back

ME = Scope("acme", "noor")


def _active(vault: Vault) -> list[str]:
    return sorted(m.content for m in vault.list(ME, limit=50)
                  if m.kind != "turn" and m.status == "active")


def _say(vault: Vault, *messages: str | tuple[str, str]) -> None:
    vault.observe(ME, [{"role": "user", "content": m} if isinstance(m, str)
                       else {"role": m[0], "content": m[1]} for m in messages])


@pytest.mark.parametrize("stored, other, line", [
    ("I'm allergic to ibuprofen", "I drink oat milk",
     "turns out the reaction was the cough syrup, not the ibuprofen. you can forget that one"),
    ("I'm saving up for a Vespa", "I drink oat milk",
     "ok ignore the vespa thing. the bus is fine honestly"),
    ("I go to salsa class on Thursdays", "I drink oat milk",
     "the thursday salsa thing is over, the teacher moved away 😢 take it off"),
    ("Remind me to drink water every hour", "I drink oat milk",
     "you can drop the hourly water reminders, I've got a bottle with markings now"),
    ("我在戒糖 甜品别推荐给我", "我每周去两次游泳",
     "戒了两个月实在顶不住 那个就别管了 甜品照常推吧"),
    # as if never said, the thing named in the sentence before
    ("Always put the word count at the end of your replies", "I drink oat milk",
     "you know that always-show-the-word-count rule? let's ditch it, treat it as unsaid"),
    ("我的血型是AB型", "我每周去两次游泳", "血型这个我还是不想让你知道 前面那句就当我没发过"),
])
def test_a_take_back_in_passing_forgets_its_memory(vault: Vault, stored: str, other: str,
                                                    line: str) -> None:
    _say(vault, stored)
    [mine] = [m for m in vault.list(ME, limit=50) if m.kind != "turn"]
    _say(vault, other)
    assert len(_active(vault)) == 2
    _say(vault, line)
    assert vault.get(ME, mine.id).status == "deleted"  # forgotten (undone by rollback)
    [left] = _active(vault)
    assert left.startswith(other[:6])  # the other memory stays, and nothing was added


def test_delete_it_after_the_assistant_says_what_it_holds(vault: Vault) -> None:
    _say(vault, "I'm learning Italian with a tutor")
    _say(vault, "I always want an aisle seat")
    _say(vault, ("assistant", "Shall I add some Italian phrases to your Rome notes, since "
                              "you're learning it?"),
         ("user", "nah I quit that ages ago. delete it"))
    left = _active(vault)
    assert left == ["I always want an aisle seat"]  # no memory of "that" either


def test_zh_delete_that_after_the_assistant_reads_it_back(vault: Vault) -> None:
    _say(vault, "我对花生过敏")
    _say(vault, ("assistant", "你之前说对花生过敏，所以这份菜单没放花生。"),
         ("user", "删掉那条吧 复查过了早就不过敏了"))
    assert _active(vault) == []


def test_delete_it_after_a_draft_takes_nothing_back(vault: Vault) -> None:
    _say(vault, "I write my work emails in a formal tone")
    before = _active(vault)
    _say(vault, ("assistant", "Here's a draft to your landlord: Dear Ms Reid, I'm writing "
                              "about the boiler."),
         ("user", "way too stiff. delete it"))
    assert _active(vault) == before


@pytest.mark.parametrize("line, holds", [
    ("I have a note that you're vegetarian, so I skipped the ham.", True),
    ("Since you mentioned your knee, I kept the walks short.", True),
    ("你之前说不吃香菜，我就没放。", True),
    ("Here's a draft to your landlord: Dear Ms Reid, about the boiler.", False),
    ("The capital of Peru is Lima.", False),
])
def test_which_assistant_lines_say_what_it_holds(line: str, holds: bool) -> None:
    assert bool(read_back(("t1", line, "assistant"))) is holds
    assert read_back(("t1", line, "user")) == []


def test_a_take_back_naming_nothing_forgets_nothing_when_its_message_names_two(
        vault: Vault) -> None:
    # "that word-count rule" names two stored memories of word counts: which one the
    # user means is not said, so neither is forgotten.
    _say(vault, "Always put the word count at the end of your replies")
    _say(vault, "I want the word count in brackets, not spelled out")
    before = _active(vault)
    _say(vault, "you know that always-show-the-word-count rule? let's ditch it, treat it as unsaid")
    assert _active(vault) == before

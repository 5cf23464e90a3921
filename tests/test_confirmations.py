"""A user affirming what is already known ("you remembered right", "that's what I
said", "你记得没错", "我说的就是周六 没说错") adds no memory: the stored one is confirmed
(issue 18; understand/confirms.py). Wording of its own, on both backends. A line that
confirms and also changes something, or names a value the memory lacks, is not a
confirmation of it."""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.confirms import after_confirming, confirmed, confirms_only, echoes
from memvault.understand.repair import slip

ME = Scope("acme", "lin")


def _memories(vault: Vault) -> list[tuple[str, int]]:
    return sorted((m.content, m.version) for m in vault.list(ME, limit=50)
                  if m.kind != "turn" and m.status == "active")


def _say(vault: Vault, *messages: tuple[str, str]) -> None:
    vault.observe(ME, [{"role": r, "content": c} for r, c in messages])


@pytest.mark.parametrize("stored, again", [
    ("我女儿叫乐乐 今年四岁", "对 乐乐是我闺女 四岁 你记得没错"),
    ("I work night shifts at the hospital",
     "yes, nights at the hospital, you remembered that right"),
    ("我对花生过敏", "我花生过敏这事你是知道的吧 做菜别放花生"),
    ("I'm training for a half marathon in May", "spot on, good memory 😄"),
    ("I can't have gluten", "you know I can't have gluten, right? just making sure"),
    ("I live in Glasgow", "thats right, i told u that already, glasgow"),
    ("我每天早上跑步", "你说得对，我确实每天跑步"),
])
def test_a_confirmation_adds_no_memory(vault: Vault, stored: str, again: str) -> None:
    _say(vault, ("user", stored))
    before = _memories(vault)
    _say(vault, ("user", again))
    assert _memories(vault) == before


@pytest.mark.parametrize("stored, ask, reply", [
    ("I take the kids to swimming on Thursday evenings",
     "Quick check: swimming is Thursday evening, not Tuesday?",
     "yes thursday. that's exactly what i told you"),
    ("我每周三晚上去打羽毛球", "确认一下，羽毛球是周三晚上吧？", "对 周三 我说的就是周三 没说错"),
])
def test_a_reply_that_only_affirms_the_readback_adds_nothing(
        vault: Vault, stored: str, ask: str, reply: str) -> None:
    _say(vault, ("user", stored))
    before = _memories(vault)
    _say(vault, ("assistant", ask), ("user", reply))
    assert _memories(vault) == before


def test_a_confirmation_that_also_changes_is_a_change(vault: Vault) -> None:
    _say(vault, ("user", "I go swimming on Thursday evenings"))
    _say(vault, ("assistant", "Swimming is Thursday evening, right?"),
         ("user", "you're right, but I've switched swimming to Friday evenings now"))
    contents = [c for c, _ in _memories(vault)]
    assert any("Friday" in c for c in contents), contents


def test_what_a_confirmation_is() -> None:
    assert confirms_only("that's what I said and that's what I meant")
    assert confirms_only("没说错")
    assert not confirms_only("that's right, I moved to Leeds")
    assert echoes("yep friday, that's what i said", "So Friday, not Monday?")
    # a word the assistant did not say is news, not an echo
    assert not echoes("yep friday, that's what i said, and Leeds now", "So Friday?")
    assert not echoes("friday", "So Friday?")  # no word of confirmation
    assert confirmed("对 她叫朵朵 你记得没错", "我女儿叫朵朵")
    assert not confirmed("对 你记得没错 不过现在改成六点了", "每天五点叫我起床")
    assert not confirmed("you remembered right, it's 4pm", "my class is at 3pm")


def test_a_confirmation_does_not_swallow_what_it_adds_or_contradicts(vault: Vault) -> None:
    _say(vault, ("user", "我对花生过敏"))
    _say(vault, ("user", "没错，另外我也对虾过敏"))
    assert any("虾" in c for c, _ in _memories(vault)), _memories(vault)
    other = Scope("acme", "lin2")
    vault.observe(other, [{"role": "user", "content": "我喜欢香菜"}])
    vault.observe(other, [{"role": "user", "content": "你说得对，不过我现在讨厌香菜了"}])
    active = [m.content for m in vault.list(other, limit=50)
              if m.kind != "turn" and m.status in ("active", "pending")]
    assert any("讨厌" in c for c in active), active


def test_a_slip_said_not_to_be_one_is_no_repair(vault: Vault) -> None:
    assert not slip("没说错") and not slip("not a typo, it's spelt Ffion")
    assert slip("说错了 是通州") and slip("sorry typo, it's Anne")
    _say(vault, ("user", "我儿子叫豆豆，今年六岁"))
    before = _memories(vault)
    _say(vault, ("user", "嗯嗯 豆豆就是我儿子，没说错"))
    assert _memories(vault) == before


def test_what_a_line_says_besides_its_confirmation() -> None:
    assert after_confirming("you're right, but I moved it to Friday") == "I moved it to Friday"
    assert after_confirming("没错 不过改成提前20分钟吧") == "改成提前20分钟吧"
    # reported speech, not a confirmation in a clause of its own: kept whole
    said = "that's what I said to my landlord too, the heating is broken"
    assert after_confirming(said) == said


@pytest.mark.parametrize("stored, line, now", [
    ("以后开会前10分钟提醒我", "你记得没错，不过15分钟吧", "以后开会前15分钟提醒我"),
    ("Remind me about meetings 10 minutes before they start",
     "that's right, but make it 15 minutes before",
     "Remind me about meetings 15 minutes before they start"),
])
def test_a_new_value_after_a_confirmation_changes_the_memory(
        vault: Vault, stored: str, line: str, now: str) -> None:
    _say(vault, ("user", stored))
    _say(vault, ("user", line))
    assert _memories(vault) == [(now, 2)]

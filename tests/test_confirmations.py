"""A user affirming what is already known ("you remembered right", "that's what I
said", "你记得没错", "我说的就是周六 没说错") adds no memory: the stored one is confirmed
(issue 18; understand/confirms.py). Wording of its own, on both backends. A line that
confirms and also changes something, or names a value the memory lacks, is not a
confirmation of it."""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.confirms import confirmed, confirms_only, echoes

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

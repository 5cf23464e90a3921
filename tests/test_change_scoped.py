"""Three ways a line that sounds like a change is not one (issue 18, found on the sixth
generalisation set's development half, tested in wording of its own), on both backends:

- a request scoped to one occasion by "for today's/tonight's/tomorrow's … only" changes no
  standing preference (it was applied to the slot holder as a new value);
- a thing said to come on top of what is known ("on top of", "alongside") is one more
  thing, not a replacement of the closest memory;
- a change said not to be meant ("not actually going to switch", "不打算换", "不是真要换")
  replaces nothing, so the rest of its message cannot tie it to a memory.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.discourse import adds, only_once, replaces

ME = Scope("acme", "hana")


def _say(vault: Vault, text: str) -> None:
    vault.observe(ME, [{"role": "user", "content": text}])


@pytest.mark.parametrize("line, once", [
    ("for tomorrow's parcel only, text me rather than emailing", True),
    ("for tonight's call only: no video please", True),
    ("for today's standup only, send the notes as a PDF", True),
    ("starting with today's notes, use bullet points from now on", False),
    ("today I only drink water", False)])
def test_an_occasion_with_only_is_one_occasion(line: str, once: bool) -> None:
    assert only_once(line) is once


@pytest.mark.parametrize("line, more", [
    ("alongside the teaching I've started volunteering at the food bank", True),
    ("on top of my day job I've started a pottery class", True),
    ("I've started a pottery class instead of the day job", False)])
def test_on_top_of_and_alongside_add(line: str, more: bool) -> None:
    assert adds(line) is more


@pytest.mark.parametrize("line, change", [
    ("I'm not actually going to switch, just wondering", False),
    ("not gonna move to Leeds, it was a thought", False),
    ("我不打算换 就是好奇", False), ("不是真要搬家 随便问问", False),
    ("I switched to a Pixel last week", True), ("上个月换成安卓了", True)])
def test_a_change_said_not_to_be_meant_replaces_nothing(line: str, change: bool) -> None:
    assert replaces(line) is change


@pytest.mark.parametrize("given, line", [
    # (the rest of the message names the stored thing: before, the denial was read as a
    # change of it, and the teaching was replaced by the law degree)
    ("I drive a Toyota Corolla",
     "how much would I save on fuel if I swapped the Corolla for a Tesla? I'm not actually "
     "going to switch, just wondering"),
    ("我用的是华为手机", "问一下 要是把华为换成iPhone 15 能用多久？我不打算换 就是好奇"),
    ("I'm a teacher",
     "on top of the teaching I've started a part-time law degree, classes are monday nights"),
    ("I'm a teacher",
     "alongside the teaching I've started volunteering at the food bank on saturdays")])
def test_the_memory_it_sounds_like_stays(vault: Vault, given: str, line: str) -> None:
    _say(vault, given)
    (m,) = [m for m in vault.list(ME, limit=20) if m.kind != "turn"]
    _say(vault, line)
    now = vault.get(ME, m.id)
    assert (now.status, now.version, now.content) == ("active", 1, given)


def test_a_one_occasion_request_leaves_the_stored_channel(vault: Vault) -> None:
    kept = vault.remember(ME, "User's preferred notification channel: email").memory
    _say(vault, "for today's order update only, text me instead, my laptop is packed away")
    assert vault.get(ME, kept.id) == kept
    assert [m for m in vault.list(ME, limit=20) if m.kind != "turn"] == [kept]

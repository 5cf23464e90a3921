"""Three findings of an audit whose helper wrote its expectations before reading the
code (issue 18), each tested here in wording of its own, on both backends:

- Liking one thing of a kind and disliking another ("I love sci-fi films" / "I don't like
  horror films", "我喜欢科幻电影" / "我不喜欢恐怖电影") is no change of stance: before,
  the second replaced the first (relate: the opposite stance counts only on the same
  thing, not on another of its kind).
- A take-back answering the assistant's offer ("要不要我提醒你周五交房租？" / "那个就别管了
  我已经交了") declines the offer: before, it forgot the rent memory (understand/offers.py).
  After a line that says what the assistant holds of the user it still takes that back.
- A pasted chat whose speakers are labelled "同事A：", "同事B：" is other people's words;
  "My sister sent this:" is only its frame.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.offers import declined, reads_back

ME = Scope("acme", "ana")


def _active(vault: Vault) -> list[tuple[str, int]]:
    return sorted((m.content, m.version) for m in vault.list(ME, limit=50)
                  if m.kind != "turn" and m.status == "active")


def _say(vault: Vault, *messages: str | tuple[str, str]) -> None:
    vault.observe(ME, [{"role": "user", "content": m} if isinstance(m, str)
                       else {"role": m[0], "content": m[1]} for m in messages])


@pytest.mark.parametrize("first, second", [
    ("I love sci-fi films", "I don't like horror films"),
    ("I love Italian food", "I can't stand Thai food"),
    ("我喜欢科幻电影", "我不喜欢恐怖电影"),
])
def test_another_of_its_kind_is_no_change_of_stance(vault: Vault, first: str,
                                                    second: str) -> None:
    _say(vault, first)
    _say(vault, second)
    assert (first, 1) in _active(vault) and len(_active(vault)) == 2


@pytest.mark.parametrize("first, second", [
    ("I love quiet cafes", "I hate quiet cafes now"),
    ("我喜欢安静的咖啡馆", "我现在讨厌安静的咖啡馆"),
])
def test_the_same_thing_still_flips(vault: Vault, first: str, second: str) -> None:
    _say(vault, first)
    _say(vault, second)
    [(content, version)] = _active(vault)
    assert version == 2 and content != first


def test_declining_an_offer_takes_nothing_back(vault: Vault) -> None:
    _say(vault, "我每月10号还信用卡")
    _say(vault, "我住在南京")
    before = _active(vault)
    _say(vault, ("assistant", "要不要我提醒你这周五还信用卡？"),
         ("user", "那个就别管了 我已经还了"))
    assert _active(vault) == before


def test_a_take_back_after_a_read_back_still_forgets(vault: Vault) -> None:
    _say(vault, "I'm learning Japanese")
    _say(vault, ("assistant", "Want me to add Japanese phrases to your notes, since you're "
                              "learning it?"),
         ("user", "nah I stopped that a while back. delete it"))
    assert _active(vault) == []


@pytest.mark.parametrize("line, refuses", [
    ("要不要我提醒你周五交房租？", True),
    ("Want me to set a reminder for the dentist?", True),
    ("你之前说对花生过敏，要我把菜单里的花生去掉吗？", False),  # says what it holds
    ("The museum opens at ten.", False),
])
def test_which_lines_are_offers_to_decline(line: str, refuses: bool) -> None:
    assert declined(line) is refuses


@pytest.mark.parametrize("pasted", [
    "帮我看看这段对话怎么回：\n同事A：我不吃辣的啊\n同事B：那去吃粤菜吧\n同事A：我对海鲜过敏",
    "My sister sent this:\nJess: I quit my job today\nMe: omg\nJess: moving to Lisbon next month",
])
def test_a_pasted_chat_with_labelled_speakers_stores_nothing(vault: Vault, pasted: str) -> None:
    _say(vault, "I'm allergic to cats")
    before = _active(vault)
    _say(vault, pasted)
    assert _active(vault) == before


@pytest.mark.parametrize("line, holds", [
    ("Would you like me to book the usual table?", False),   # asked, not held
    ("Do you have a preferred airline?", False),
    ("要不要我帮你在日历上加个提醒？", False),                 # the one helped
    ("你是不是还在减肥？", False),
    ("你之前说不吃香菜，我就没放。", True),
    ("你是素食者，所以我没放肉。", True),
])
def test_what_counts_as_saying_what_it_holds(line: str, holds: bool) -> None:
    assert reads_back(line) is holds


def test_an_address_label_is_no_home_of_its_own(vault: Vault) -> None:
    _say(vault, "我住在成都")
    _say(vault, "住址：成都市武侯区")
    assert ("用户住在成都", 1) in _active(vault)
    assert not any(c.startswith("用户住在址") for c, _ in _active(vault))


@pytest.mark.parametrize("stored, line, kept_beside", [
    ("我对花粉过敏", "我除了花粉过敏 对虾也过敏", True),          # besides the one, another
    ("我每天游泳", "除了下雨天 我每天都游泳", True),              # an exception narrows it
    ("我对花粉过敏", "我一碰花粉就打喷嚏 花粉过敏好多年了", False),  # said again at length
])
def test_besides_and_except_are_not_said_again(vault: Vault, stored: str, line: str,
                                              kept_beside: bool) -> None:
    _say(vault, stored)
    _say(vault, line)
    assert (stored, 1) in _active(vault)
    assert (len(_active(vault)) == 2) is kept_beside


@pytest.mark.parametrize("line", [
    "never mind, I'll book the restaurant myself",
    "算了 不用帮我订了 我自己订",
])
def test_the_task_taken_back_is_no_memory(vault: Vault, line: str) -> None:
    _say(vault, "I live in Bristol")
    before = _active(vault)
    _say(vault, line)
    assert _active(vault) == before

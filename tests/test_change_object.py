"""A change that names what it changes ("switched my work phone to a Pixel", "我信用卡换成了
中信的") is sure of a memory only when that memory names the thing too
(understand/changeobject.py), on both backends. Found by an audit whose probes were
written before it read the code: "Switched my work laptop to a MacBook Air" overwrote
"My main language at work is Java" (a shared "work"), "我把手机号换成移动的了" the phone
memory, "我信用卡换成了招行的" the salary-card bank. Now such a change is staged against
the memory for a person to confirm; a change of the thing the memory names, or of a memory
plainly close in meaning (`close`), is applied as before ("我信用卡换成了招行的" beside "我的
工资卡在招商银行" is .73 close: still applied, a known gap). Wording of its own.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.changeobject import changed_thing, names_object

ME = Scope("acme", "kai")


@pytest.mark.parametrize("meant, line", [
    ("My main language at work is Python", "switched my work phone to a Pixel"),
    ("I bank with Santander", "moved my credit card over to Barclaycard"),
    ("我的工资卡在建设银行", "我信用卡换成了中信的"),
    # two words for one thing, not plainly close (.44): staged, never lost
    ("每天早上6点半叫我起床", "把闹钟改到7点"),
    ("我的手机是小米 13", "我把手机号换成电信的了"),
    # (a second audit: the part a thing names, another side of life)
    ("My phone number is 07700 900111", "I switched my phone to a Pixel 9"),
    ("我的手机号是13900001111", "我手机换成华为了"),
    ("My personal laptop is a ThinkPad", "changed my work laptop to a Surface"),
])
def test_a_change_of_a_thing_the_memory_does_not_name_is_staged(
        vault: Vault, meant: str, line: str) -> None:
    m = vault.remember(ME, meant).memory
    (o,) = vault.observe(ME, [{"role": "user", "content": line}]).outcomes
    assert o.action == "stage"
    assert vault.get(ME, m.id) == m


@pytest.mark.parametrize("meant, line, word", [
    ("我的工资卡在建设银行", "我把工资卡换到招商银行了", "招商"),
    ("I use Chrome as my browser", "switched my browser to Firefox", "Firefox"),
    ("I get my coffee at Pret every morning",
     "moved my morning coffee to the new place across the road", "across"),
])
def test_a_change_of_the_thing_the_memory_names_is_applied(
        vault: Vault, meant: str, line: str, word: str) -> None:
    m = vault.remember(ME, meant).memory
    (o,) = vault.observe(ME, [{"role": "user", "content": line}]).outcomes
    assert o.action == "updated" and o.memory_id == m.id
    assert word in vault.get(ME, m.id).content


@pytest.mark.parametrize("line, thing", [
    ("switched my work laptop to a MacBook", "laptop"),
    ("moved all my savings over to a Marcus account", "savings"),
    ("我信用卡换成了招行的", "信用卡"),
    ("我把手机号换成移动的了", "手机号"),
    ("switched to Neovim", None), ("搬到杭州了", None),
    ("手机摔坏了，现在换成小米了", None),   # a time word is not a thing
    ("I changed my mind to tea", None),
    ("通知时间改成晚上8点", None), ("回复语言改成英文吧", None),   # how, not a thing
])
def test_what_a_change_says_it_changes(line: str, thing: str | None) -> None:
    assert (changed_thing(line) or (None, None))[0] == thing


@pytest.mark.parametrize("memory, thing, named", [
    ("我的手机是华为", "手机号", False), ("我的工资卡在招商银行", "工资卡", True),
    ("我平时用微信读书看电子书", "看书", True), ("I bank with Barclays", "card", False),
    ("My bank card is a Visa", "card", True), ("My phone number is 0123", "phone", False),
    ("我的手机号是139", "手机", False),
])
def test_a_memory_names_the_thing_as_a_whole(memory: str, thing: str, named: bool) -> None:
    assert names_object(memory, thing) is named


@pytest.mark.parametrize("memory, side, named", [
    ("My personal laptop is a ThinkPad", "work", False),
    ("My work laptop is a Dell", "work", True), ("My laptop is a Dell", "work", True),
    ("My work laptop is a Dell", None, True),
])
def test_a_thing_of_another_side_of_life_is_not_named(memory: str, side: str | None,
                                                      named: bool) -> None:
    assert names_object(memory, "laptop", side) is named


@pytest.mark.parametrize("line, side", [
    ("switched my work laptop to a MacBook", "work"), ("moved my savings to Marcus", None),
])
def test_the_side_of_life_a_change_says(line: str, side: str | None) -> None:
    assert (changed_thing(line) or (None, None))[1] == side

"""A user repairing a slip of their own ("sorry typo, it's Anne", "说错了 是通州", "I live in
Leeds, sorry, I mean Bradford") changes the value they slipped on, in the memory that
holds it; a line that only looks like a repair changes nothing (understand/repair.py,
understand/ellipsis.py, extract/replies.py). The wording here is this file's own, not the
generalisation set's."""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.ellipsis import repaired, swap, swap_near, swap_word
from memvault.understand.repair import only_admits, slip

ME = Scope("acme", "lin")


@pytest.mark.parametrize(("line", "statement", "becomes"), [
    # a capitalised name after a mark of the slip
    ("sorry typo, it's Anne", "my daughter's name is Anna", "my daughter's name is Anne"),
    # a Chinese count with its measure word, written in characters
    ("不对 是两杯", "我每天早上喝一杯拿铁", "我每天早上喝两杯拿铁"),
    ("记错了 每周四次", "我每周游三次泳", "我每周游四次泳"),
    # a Chinese place: the one proper noun of the statement
    ("说错了 是通州", "我住在朝阳区", "我住在通州"),
    # a Chinese name: the word after the same verb
    ("不对 叫豆豆", "我家猫叫花花", "我家猫叫豆豆"),
    ("不对不对 姓吴", "我们组长姓胡", "我们组长姓吴"),
    # or the value after the statement's one 是
    ("不对 是黑色的", "我的车是白色的 特斯拉", "我的车是黑色的 特斯拉"),
    # the wrong value refused in so many words, in either order, in either language
    ("no, not Paris, Lyon", "My sister lives in Paris", "My sister lives in Lyon"),
    ("edinburgh not glasgow", "My brother lives in Glasgow", "My brother lives in Edinburgh"),
    ("不是周三 是周五", "我每周三去游泳", "我每周五去游泳"),
    ("是张伟 不是张炜 之前打错了", "我们经理叫张炜", "我们经理叫张伟"),
    ("是305 不是350", "我住在7号楼350", "我住在7号楼305"),
    # an ordinal day keeps its ending; a month with its year is one value
    ("oops, the 14th", "my exam is on the 12th", "my exam is on the 14th"),
    ("no wait, april 2026", "my visa runs out in June 2026", "my visa runs out in April 2026"),
    # a day said twice is one value ("14!! sorry. 14.")
    ("march 14!! sorry. 14.", "my mum's birthday is march 4", "my mum's birthday is march 14"),
    # found by an audit: the refused value's own form, without the words around it
    ("wait, 65 kg, not 70", "I weigh 70 kg", "I weigh 65 kg"),
    ("我是说法语，不是德语，打错了", "我在学德语", "我在学法语"),
    ("sorry 说错 是对猫毛过敏 不是狗毛", "我对狗毛过敏", "我对猫毛过敏"),
    ("不对 4只", "我养了三只猫", "我养了4只猫"),
    # the statement said again with the slipped word refused: the one new word replaces it
    ("honestly I misspoke, it's cashews I'm allergic to, not almonds",
     "I'm allergic to almonds", "I'm allergic to cashews"),
    ("更正一下，我在京东上班，不在美团", "我在美团上班", "我在京东上班"),
    # the rest of its sentence said already by the statement
    ("sorry, 34 Elm Road, typo", "my address is 43 Elm Road", "my address is 34 Elm Road"),
    ("抱歉，是6月9日，不是6日", "我的生日是6月6日", "我的生日是6月9日"),
    # "meant", "笔误", a Chinese hour
    ("ugh, meant 8:15", "my train leaves at 7:15", "my train leaves at 8:15"),
    ("笔误，是5个小时", "我每天通勤2个小时", "我每天通勤5个小时"),
    ("搞错了 是八点", "我每天晚上十点睡觉", "我每天晚上八点睡觉"),
])
def test_the_slipped_value_is_swapped(line: str, statement: str, becomes: str) -> None:
    got = swap(line, statement)
    assert got is not None and got[0] == becomes


@pytest.mark.parametrize(("line", "statement"), [
    ("no, Canberra is the capital, not Sydney", "I live in Sydney"),  # the world, not the user
    ("wait no, that's right", "I work at Acme"),                      # no value
    ("最近胃不太对", "我每周三晚上打羽毛球"),                           # 不对 of a feeling
    ("不对 黑色的", "我开特斯拉 自行车白色的"),                        # a common noun: which word?
    ("不是周三 是周五", "我每天早上跑步"),                              # refused value not held
    ("不对 是30盒", "我养了两只狗"),                                    # boxes are not dogs
    ("OOPS I MEANT BLUR", "MY FAVOURITE BAND IS MUSE"),                # capitals name nothing
    ("sorry, I bought 3 new shoes today", "I run 5 km a day"),        # says more than a value
    ("my mistake, I forgot to mention I have a cat called Miso",      # a name said in passing
     "I go swimming on Tuesday mornings"),
    ("不对不对 姓林 双木林", "我们班主任三点放学后开会"),                # 三点水-like: no hour here
])
def test_what_is_not_a_repair_of_the_statement_swaps_nothing(line: str, statement: str) -> None:
    assert swap(line, statement) is None


@pytest.mark.parametrize(("line", "becomes"), [
    ("I live in Leeds, sorry, I mean Bradford", "I live in Bradford"),
    ("i drive a 2012 golf, my mistake, it's a 2014", "i drive a 2014 golf"),
    ("my son is in 2nd grade, no, 3rd grade", "my son is in 3rd grade"),
    ("我家狗叫旺财 不对 叫来福", "我家狗叫来福"),
    ("我老婆是南京人 哦不对 苏州人", "我老婆是苏州人"),
    ("我的车尾号是4 哦说错了 尾号是9", "我的车尾号是9"),
    ("我是2016年毕业的 emmm 2017年 记错了", "我是2017年毕业的"),
    ("我住在南京鼓楼区 哦不 是玄武区", "我住在南京玄武区"),
])
def test_a_line_that_repairs_itself_reads_as_its_repaired_statement(line: str,
                                                                    becomes: str) -> None:
    got = repaired(line)
    assert got is not None and got[0] == becomes


def test_a_lower_case_repair_takes_the_place_of_what_its_slot_read() -> None:
    assert repaired("we moved to leeds, er, york i mean, in june", ("leeds",))[:3] == (
        "we moved to york", "leeds", "york")
    assert swap_word("sorry, I mean york", "The user lives in Leeds", "Leeds")[0] == \
        "The user lives in York"
    # an apology is no repair: "sorry, tired" names no value
    assert swap_word("sorry, tired", "The user lives in Leeds", "Leeds") is None


def test_a_misspelling_put_right_replaces_the_word_spelt_nearly_like_it() -> None:
    assert swap_near("typo, patil", "My dentist is Dr Patel")[0] == "My dentist is Dr Patil"
    assert swap_near("*peppa lol", "My cat is called Pepper")[0] == "My cat is called Peppa"
    # a word spelt unlike any of the statement's is no misspelling of it
    assert swap_near("typo, morris", "My dentist is Dr Patel") is None


def test_owning_up_to_a_slip_keeps_nothing() -> None:
    assert only_admits("My bad, I always mix those two up") and only_admits("之前打错了")
    assert not only_admits("my bad, I'm vegetarian actually")
    assert not only_admits("sorry, I'm vegetarian")  # an apology is no slip
    assert slip("typo") and not slip("sorry")


def _active(vault: Vault) -> list[tuple[str, int]]:
    return sorted((m.content, m.version) for m in vault.list(ME, limit=50)
                  if m.kind != "turn" and m.status == "active")


def _say(vault: Vault, *messages: str) -> None:
    vault.observe(ME, [{"role": "user", "content": m} for m in messages])


@pytest.mark.parametrize(("first", "repair", "has", "gone"), [
    ("my daughter's name is Anna", "sorry typo, it's Anne", "Anne", "Anna"),
    ("我每天早上喝一杯拿铁", "不对 是两杯", "两杯", "一杯"),
    ("我住在朝阳区", "说错了 是通州", "通州", "朝阳"),
    ("My sister lives in Paris", "no, not Paris, Lyon", "Lyon", "Paris"),
])
def test_a_repair_the_next_day_updates_the_memory(vault: Vault, first: str, repair: str,
                                                  has: str, gone: str) -> None:
    _say(vault, first)
    _say(vault, repair)
    [(content, version)] = _active(vault)
    assert version == 2 and has in content and gone not in content


@pytest.mark.parametrize(("line", "has", "gone"), [
    ("I live in Leeds, sorry, I mean Bradford", "Bradford", "Leeds"),
    ("我家狗叫旺财 不对 叫来福", "来福", "旺财"),
])
def test_a_line_that_repairs_itself_stores_only_the_right_value(vault: Vault, line: str,
                                                                has: str, gone: str) -> None:
    _say(vault, line)
    [(content, _)] = _active(vault)
    assert has in content and gone not in content


def test_a_repair_in_the_same_call_changes_what_was_just_said(vault: Vault) -> None:
    _say(vault, "我搬到海淀了", "不是海淀 是昌平")
    [(content, _)] = _active(vault)
    assert "昌平" in content and "海淀" not in content


@pytest.mark.parametrize(("first", "line"), [
    ("I live in Sydney", "no, Canberra is the capital, not Sydney"),
    ("我家狗叫旺财", "感觉不对，旺财老是掉毛"),  # 不对 of a feeling: no correction
    ("I work at Acme", "wait no, that's right"),
    ("我有两个孩子", "要是再生一个，就得换辆大车了"),
])
def test_a_look_alike_changes_nothing(vault: Vault, first: str, line: str) -> None:
    _say(vault, first)
    before = _active(vault)
    _say(vault, line)
    assert before[0] in _active(vault) and all(v == 1 for _, v in _active(vault))


@pytest.mark.parametrize(("first", "line", "has", "gone"), [
    ("我妈的生日是农历九月初九", "我妈生日是农历九月初八 之前打错了", "初八", "初九"),
    ("I go swimming on Tuesday mornings",
     "hey i told you tuesday for swimming but it's thursday mornings, my mistake",
     "thursday", "Tuesday mornings"),
])
def test_a_statement_said_again_to_put_a_slip_right_updates_its_memory(
        vault: Vault, first: str, line: str, has: str, gone: str) -> None:
    _say(vault, first)
    _say(vault, line)
    [(content, version)] = _active(vault)
    assert version == 2 and has in content and gone not in content
    assert "打错" not in content and "mistake" not in content  # owning up is not kept


def test_owning_up_to_a_slip_beside_another_statement_changes_no_other_memory(
        vault: Vault) -> None:
    _say(vault, "I go swimming on Tuesday mornings")
    _say(vault, "my mistake, I forgot to mention I have a cat called Miso")
    assert ("I go swimming on Tuesday mornings", 1) in _active(vault)

"""A change told as history, by the calendar ("back in 2019", "years ago", "in 2015",
"2018年的时候", "三年前", "换过一次"), and a stay with its length ("for two weeks", "住一周"),
and a move still to come ("moving to Glasgow next month", "下个月就搬") do not change what
holds now (understand/when.py), on both backends.
Found by an audit whose probes were written before it read the code: "I switched banks
back in 2019, to Halifax" replaced "I bank with Barclays", "moved to Lisbon for two weeks
of holiday" replaced the home city, "I moved to Leeds from Sheffield in 2015" turned it
into "Leeds from Sheffield". Wording of its own, not the audit's.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.discourse import one_time, recounts
from memvault.understand.when import LONG_AGO, a_stay, plans_ahead

ME = Scope("acme", "rio")


@pytest.mark.parametrize("meant, line", [
    ("I live in Glasgow", "I moved to Dundee from Perth in 2012"),
    ("I bank with Nationwide", "I changed banks a few years ago, to First Direct"),
    ("My editor is Emacs", "switched to Sublime back in 2016, it was fine"),
    ("我在美团上班", "我2019年的时候换过一次工作，去了京东"),
    ("我住在南京", "三年前搬到过苏州"),
    ("I live in Glasgow", "moved to Crete for three weeks of sun"),
    ("我住在南京", "五一搬去青岛住一周"),
    # (a second audit)
    ("I live in Glasgow", "we moved to Perth a decade ago"),
    ("I live in Glasgow", "relocated to Aberdeen for a six-week contract"),
    ("I live in Glasgow", "the cottage is lovely, living in Skye for the week"),
    # a move still to come (a second audit: the plan replaced the home, or the workplace)
    ("I live in Glasgow", "we're moving to Inverness next spring"),
    ("我在南京上班", "新房在江宁 下个月就搬"),
    ("I work in Stirling", "our new flat is near Stirling castle, moving in next week"),
    # what used to be, of another value (the second audit: it replaced the memory)
    ("I live in Glasgow", "I used to live in Perth"),
    ("I work at Barclays", "I used to work at HSBC, long story"),
])
def test_history_and_a_stay_change_nothing(vault: Vault, meant: str, line: str) -> None:
    m = vault.observe(ME, [{"role": "user", "content": meant}]).outcomes[0]
    before = vault.get(ME, m.memory_id)
    vault.observe(ME, [{"role": "user", "content": line}])
    assert vault.get(ME, m.memory_id) == before
    assert vault.review_list(ME) == []


def test_what_used_to_be_of_the_memorys_own_value_gives_it_up(vault: Vault) -> None:
    m = vault.remember(ME, "I drink coffee every morning").memory
    vault.observe(ME, [{"role": "user", "content": "I used to drink coffee"}])
    assert vault.get(ME, m.id).version == 2


def test_a_recent_change_still_changes(vault: Vault) -> None:
    m = vault.observe(ME, [{"role": "user", "content": "I live in Glasgow"}]).outcomes[0]
    vault.observe(ME, [{"role": "user", "content": "I moved to Dundee back in March"}])
    assert "Dundee" in vault.get(ME, m.memory_id).content


@pytest.mark.parametrize("line, ago", [
    ("switched back in 2016", True), ("a couple of years ago I moved", True),
    ("in 2009 I lived in Oslo", True), ("2018年的时候", True), ("三年前", True),
    ("我换过一次工作", True), ("back in March", False), ("in 2027 I'll move", False),
    ("手机已经换过来了", False),
    ("moved last week", False),
])
def test_long_ago_by_the_calendar(line: str, ago: bool) -> None:
    assert bool(LONG_AGO.search(line)) is ago


def test_a_story_set_long_ago_is_told_not_a_change() -> None:
    assert recounts("I switched banks back in 2019, to Halifax")
    assert not recounts("I switched banks back in 2019, now I'm with Monzo")


@pytest.mark.parametrize("line, once", [
    ("moved to Lisbon for two weeks of holiday", True), ("staying in Rome for a month", True),
    ("国庆搬去大理住一周", True), ("I've been vegan for two weeks", False),
    ("moved to Lisbon last month", False),
])
def test_a_stay_with_its_length_is_one_occasion(line: str, once: bool) -> None:
    assert one_time(line) is once and a_stay(line) is once


@pytest.mark.parametrize("line, later", [
    ("I'm moving to Glasgow next month", True), ("we'll switch banks in a few weeks", True),
    ("下个月就搬去杭州了", True), ("准备跳槽去字节", True),
    ("I moved to Glasgow last month", False), ("from next week send the report on Mondays", False),
    ("starting next week, move my digest to Mondays", False),
    ("搬到杭州了", False), ("下周起换成邮件通知", False),   # a request from a day on
])
def test_a_move_still_to_come(line: str, later: bool) -> None:
    assert plans_ahead(line) is later

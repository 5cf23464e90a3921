"""A change or a take-back finds its memory by what both are about, whatever value each
gives (topicscore.py): "moved my savings over to a Revolut account" changes "I bank with
Lloyds" though they share no word and their sentence vectors are not plainly close; "forget
that I mentioned my medication" takes back "I take sertraline every morning". Fresh
wording, none of it from benchmarks/generalisation or benchmarks/topics."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memvault import Scope, Vault
from memvault.config import Strategy
from memvault.embed import load_embedder
from memvault.topicscore import FLOOR, SAID_FLOOR, Topic, same_topic, topics_of
from memvault.understand.topicnames import names_class

ME = Scope("acme", "lin")
OTHER_EN = ["I keep bees in the garden", "I go climbing on Sundays"]
OTHER_ZH = ["我养了一只鹦鹉", "我周末喜欢爬山"]


def said(vault: Vault, text: str) -> str:
    return vault.remember(ME, text).memory.id


def tell(vault: Vault, line: str) -> Any:
    return vault.observe(ME, [{"role": "user", "content": line}])


@pytest.mark.parametrize("meant, line, others", [
    ("I bank with Lloyds", "moved my savings over to a Revolut account", OTHER_EN),
    ("I use VS Code for everything", "switched to Neovim full time, no regrets", OTHER_EN),
    ("我记笔记用印象笔记", "现在改用飞书文档了", OTHER_ZH),
    ("我平时开车上班", "现在改坐地铁了", OTHER_ZH),
    ("我用安卓手机", "现在换了个苹果", OTHER_ZH),
    # both sentences confidently of the class, and still a guess: a mortgage is of the
    # bank class too ("I've moved my mortgage to Nationwide"; an audit)
    ("I bank with Lloyds", "I've moved my mortgage to Nationwide", OTHER_EN),
], ids=["bank", "editor", "notes", "通勤", "手机", "mortgage"])
def test_a_change_in_other_words_is_staged_against_the_memory_of_its_topic(
        vault: Vault, meant: str, line: str, others: list[str]) -> None:
    """The class names the memory a change is about, where no word and no closeness
    does; a class is a guess, so a person confirms (as for a guess by rank) and approving
    makes it that memory's next version, never a fact beside it."""
    target = said(vault, meant)
    rest = [said(vault, t) for t in others]
    (o,) = tell(vault, line).outcomes
    assert o.action == "stage"
    assert vault.get(ME, target).version == 1
    (item,) = vault.review_list(ME)
    assert item.metadata["review"]["target_id"] == target
    vault.review_approve(ME, item.id)
    now = vault.get(ME, target)
    assert now.version == 2 and now.status == "active" and now.content != meant
    assert all(vault.get(ME, i).version == 1 for i in rest)
    # The old value is the memory's previous version: rollback restores it.
    vault.rollback(ME, target, to_version=1)
    assert vault.get(ME, target).content == meant


def test_without_topics_the_change_is_a_second_fact_beside_the_memory(
        make_vault: Callable[..., Vault]) -> None:
    # "现在换了个苹果" names neither the phone nor anything close to "我用安卓手机": by words
    # and closeness alone it is a new fact beside it, both served as current.
    vault = make_vault(strategy=Strategy.model_validate(
        {"write": {"matching": {"by_topic": False}}}))
    target = said(vault, "我用安卓手机")
    for t in OTHER_ZH:
        said(vault, t)
    (o,) = tell(vault, "现在换了个苹果").outcomes
    assert o.action == "added" and vault.get(ME, target).version == 1
    assert vault.review_list(ME) == []


@pytest.mark.parametrize("meant, line", [
    ("I take sertraline every morning", "Please forget that I mentioned my medication."),
    ("I keep two guinea pigs", "can you delete the pets info"),
    ("我每天晚上吃一片降压药", "删掉我用药那条"),
])
def test_a_take_back_by_its_class_name_forgets_the_one_memory_of_it(
        vault: Vault, meant: str, line: str) -> None:
    """The label is the class's own name (topicnames.py): every memory about medication,
    and there is one. Forgotten (before: staged), the others stay."""
    target = said(vault, meant)
    tea = said(vault, "I prefer tea over coffee")
    (o,) = tell(vault, line).outcomes
    assert o.action == "forget" and o.memory_id == target
    assert vault.get(ME, target).status == "deleted"
    assert vault.get(ME, tea).status == "active"
    assert all(meant not in h.memory.content for h in vault.recall(ME, meant)
               if h.memory.kind != "turn")
    assert vault.review_list(ME) == []


@pytest.mark.parametrize("first, second, line", [
    ("I take lisinopril for blood pressure", "I also take atorvastatin at night",
     "forget my medications please"),
    ("我每天早上吃一片优甲乐", "我晚上还要吃一粒褪黑素", "把我吃药的事都删了吧"),
])
def test_a_take_back_by_the_class_name_of_two_memories_is_a_persons_choice(
        vault: Vault, first: str, second: str, line: str) -> None:
    """(an audit: the closer of two medications was deleted)"""
    a, b = said(vault, first), said(vault, second)
    (o,) = tell(vault, line).outcomes
    assert o.action == "stage"
    assert vault.get(ME, a).status == vault.get(ME, b).status == "active"
    (item,) = vault.review_list(ME)
    assert set(item.metadata["review"]["links"]) == {a, b}


def test_a_take_back_by_a_thing_of_the_class_is_staged_against_that_memory_only(
        vault: Vault) -> None:
    # A class is a guess ("my cat" is in the class of "I have a dog named Rex"): a person
    # confirms, and approving forgets the memory it was staged against.
    meds = said(vault, "I take sertraline every morning")
    tea = said(vault, "I prefer tea over coffee")
    assert [o.action for o in tell(vault, "forget what I told you about my antidepressant"
                                   ).outcomes] == ["stage"]
    assert vault.get(ME, meds).status == "active"
    (item,) = vault.review_list(ME)
    assert item.metadata["review"]["target_id"] == meds
    vault.review_approve(ME, item.id)
    assert vault.get(ME, meds).status == "deleted"
    assert vault.get(ME, tea).status == "active"
    assert all("sertraline" not in h.memory.content for h in vault.recall(ME, "medication"))


@pytest.mark.parametrize("label, topic, names", [
    ("medication", "medication", True), ("the meds stuff", "medication", True),
    ("用药", "medication", True), ("吃药的事", "medication", True),
    ("cat", "pets", False), ("antidepressant", "medication", False),
    ("medication", "pets", False), ("", "medication", False), ("pets", None, False),
])
def test_a_label_names_a_class_by_its_own_words(label: str, topic: str | None,
                                                names: bool) -> None:
    assert names_class(label, topic) is names


@pytest.mark.parametrize("given, line", [
    ("Keep your replies casual and friendly", "forget that"),
    ("I have a dog named Rex", "forget what I said about my cat"),
    ("My partner is called Sam", "forget what I said about my ex"),
])
def test_a_take_back_never_deletes_by_its_class_alone(vault: Vault, given: str,
                                                      line: str) -> None:
    mid = said(vault, given)
    tell(vault, line)
    assert vault.get(ME, mid).status == "active"


@pytest.mark.parametrize("given, line", [
    # a complaint that says "lately", not what holds now
    ("以后报表都用 CSV", "我最近用 XLSX 导入速度很慢"),
    # away for a while
    ("I live in Leeds", "I'm in Manchester now for a conference, back on Friday"),
    # someone else's
    ("I bank with Lloyds", "my sister moved her savings to Revolut now"),
    # a time word is not a change ("now" is in every other line)
    ("I live in Leeds", "I'm on holiday in Crete now"),
    ("I work at Acme as a data engineer", "I'm interviewing at Google now, fingers crossed"),
    ("I usually go to bed at 11pm", "I'm so tired now"),
    ("I bank with Lloyds", "I opened a Monzo account now for travel"),
    # what may happen
    ("I use VS Code for everything", "if Neovim gets better plugins I might move to it"),
    ("我住在成都", "如果公司调我去重庆，我现在就得开始找房子了"),
])
def test_a_line_of_the_same_topic_that_changes_nothing_leaves_it(
        vault: Vault, given: str, line: str) -> None:
    mid = said(vault, given)
    tell(vault, line)
    m = vault.get(ME, mid)
    assert (m.version, m.status, m.content) == (1, "active", given)


def test_two_memories_of_the_topic_leave_the_topic_no_say() -> None:
    # Which of two homes "now" replaces is not the topic's to say: the class names both.
    from memvault.understand.relate import Match, Relation, relate
    two = [Match("a", "I live in Leeds", 0.3, 0.3, topical=True, exclusive=True),
           Match("b", "My flat is in Headingley", 0.28, 0.28, topical=True, exclusive=True)]
    one = [two[0], Match("b", "I keep bees", 0.28, 0.28)]
    line = "we moved to Manchester"
    got = relate(line, one)
    assert (got.relation, got.target_id, got.by_topic, got.sure) == (
        Relation.UPDATE, "a", True, False)  # not plainly close: a person confirms
    plain = relate(line, [Match("a", "I live in Leeds", 0.45, 0.45, topical=True,
                                exclusive=True), one[1]])
    assert plain.relation is Relation.UPDATE and plain.sure
    assert not relate(line, two).by_topic


def test_topic_classes_by_meaning() -> None:
    emb = load_embedder("use-m3")
    texts = ["I bank with Barclays", "moved all my accounts over to Monzo",
             "我的工资卡是招商银行的", "I live in Porto", "我家在杭州", "I keep bees"]
    got = topics_of(emb, texts)
    assert all(isinstance(t, Topic) for t in got)
    assert [t.name for t in got[:3]] == ["bank"] * 3 and got[0].exclusive
    assert got[3].name == got[4].name == "residence"
    assert same_topic(got[1], got[0]) and not same_topic(got[0], got[3])
    # The floors: a stored memory needs FLOOR, a new line SAID_FLOOR.
    weak = Topic("bank", SAID_FLOOR - 0.01, True)
    assert not same_topic(weak, got[0])
    assert not same_topic(got[0], Topic("bank", FLOOR - 0.01, True))
    # A second call reads the same classes (memoised by text), whatever vectors it is given.
    again = topics_of(emb, texts, [None] * len(texts))
    assert [(t.name, round(t.p, 6)) for t in again] == [(t.name, round(t.p, 6)) for t in got]


@pytest.mark.parametrize("line, named", [
    ("scrap what i told you about my salary", "salary"),
    ("pls take out what i said about my landlord", "landlord"),
    ("drop the bit about my physio appointments", "physio appointments"),
    ("房贷那条你当没听过吧", "房贷"), ("吐槽同事那句你就当没听见", "吐槽同事"),
])
def test_what_was_said_named_as_such_and_removed_is_a_take_back(line: str, named: str) -> None:
    from memvault.understand.takeback import retraction
    assert retraction(line) == named


@pytest.mark.parametrize("line", [
    "I had to cut the part about the budget from my slides",
    "we should scrap the bit about pricing in the deck", "他当没听见一样走了",
])
def test_removing_a_part_of_something_else_takes_nothing_back(line: str) -> None:
    from memvault.understand.takeback import retraction
    assert retraction(line) is None


@pytest.mark.parametrize("line, once", [
    ("I'm in Manchester now for a conference, back on Friday", True),
    ("in Lisbon for a few days, back on the 3rd", True),
    ("I'm back on meat now", False), ("I'm back on coffee now, two cups a day", False),
])
def test_away_until_a_day_is_one_occasion_and_back_on_a_thing_is_not(line: str,
                                                                       once: bool) -> None:
    from memvault.understand.discourse import one_time
    assert one_time(line) is once

"""A change in a store of many memories changes the one it is about, not a bystander that
shares a word with it, a word lifts above it, or that already says the new value
(understand/meant.py). Wording of its own, not from the generalisation sets."""

from __future__ import annotations

import pytest

from memvault import Scope
from memvault.understand.discourse import marks_change, settles
from memvault.understand.meant import holds_old, meant, names_alone
from memvault.understand.relate import Match, Relation, Thresholds, relate

T = Thresholds()


def m(mid: str, content: str, score: float, dense: float, *, topical: bool = False,
      exclusive: bool = False, linked: bool = False) -> Match:
    return Match(mid, content, score, dense, linked=linked, topical=topical,
                 exclusive=exclusive)


# --- a word several memories share picks none of them ------------------------------------

def test_a_word_two_memories_share_does_not_pick_either():
    ranked = [m("bike", "I bike to work on Fridays", .46, .30),
              m("laptop", "I use a ThinkPad at work", .44, .29),
              m("standup", "Our daily standup is at 9am", .40, .36)]
    said = "moved the standup to 10am at work"
    assert not names_alone(said, ranked[0], ranked, T.lead)
    assert not names_alone(said, ranked[1], ranked, T.lead)
    assert names_alone(said, ranked[2], ranked, T.lead)  # "standup" is its own
    rel = relate(said, ranked, thresholds=T)
    assert (rel.relation, rel.target_id) == (Relation.UPDATE, "standup")


def test_a_shared_word_still_picks_the_memory_far_ahead_in_meaning():
    ranked = [m("detail", "用户希望回答详细", .46, .36, topical=True, exclusive=True),
              m("context", "用户希望回答先解释背景", .30, .24)]
    said = "最近太忙了，回答越短越好吧"
    assert names_alone(said, ranked[0], ranked, T.lead)
    assert not names_alone(said, ranked[1], ranked, T.lead)


def test_the_only_memory_that_shares_a_word_is_still_named_by_it():
    ranked = [m("editor", "I use Vim as my editor", .33, .28),
              m("phone", "I have an Android phone", .20, .20)]
    assert names_alone("switched my editor to Helix", ranked[0], ranked, T.lead)


# --- of several plainly close, the closest in meaning --------------------------------------

def test_a_word_in_common_does_not_outrank_the_memory_closer_in_meaning():
    ranked = [m("flights", "I want flights under 3 hours", .67, .37),
              m("hours", "The user works 09:00-17:00", .58, .45)]
    assert meant("my hours are 6 to 2 now", ranked, T).id == "hours"
    rel = relate("my hours are 6 to 2 now", ranked, thresholds=T)
    assert (rel.relation, rel.target_id) == (Relation.UPDATE, "hours")


def test_of_two_as_close_the_one_that_alone_shares_a_word():
    ranked = [m("sundays", "I go to the gym on Sundays", .73, .43),
              m("club", "My gym is CityFit", .72, .42)]
    said = "cancelled cityfit and joined the gym near the station"
    assert meant(said, ranked, T).id == "club"


def test_one_plainly_close_memory_is_the_one_meant():
    ranked = [m("tea", "I drink green tea every afternoon", .70, .52)]
    assert meant("I drink black tea in the afternoons now", ranked, T).id == "tea"


# --- the memory that already says the new value is not the one changed --------------------

SEATS = [m("window", "I like window seats on planes", .75, .55, topical=True, exclusive=True),
         m("aisle", "I prefer aisle seats when I fly", .56, .46, topical=True, exclusive=True)]


def test_a_change_updates_the_memory_of_the_old_value_not_the_one_of_the_new():
    said = "window seat from now on, I want to sleep against the wall"
    assert holds_old(said, SEATS[0], SEATS, T).id == "aisle"
    rel = relate(said, SEATS, thresholds=T)
    assert (rel.relation, rel.target_id) == (Relation.UPDATE, "aisle")


def test_a_value_said_in_the_reason_is_not_the_new_value():
    ranked = [m("eve", "提醒事项请在前一天晚上八点发给我", .88, .73, topical=True, exclusive=True),
              m("weekly", "周报我习惯周四晚上写 你周四下午提醒我一下", .71, .56, topical=True,
                exclusive=True)]
    said = "前一天晚上提醒我转头就忘，还是当天早上七点提醒吧"
    assert holds_old(said, ranked[0], ranked, T) is None
    rel = relate(said, ranked, thresholds=T)
    assert (rel.relation, rel.target_id) == (Relation.UPDATE, "eve")


def test_a_memory_far_less_close_in_meaning_is_not_the_old_value():
    ranked = [m("meeting", "开会前 10 分钟提醒我", .80, .62, topical=True, exclusive=True),
              m("diary", "每天晚上9点提醒我写日记", .43, .33, topical=True, exclusive=True)]
    assert holds_old("改成提前 30 分钟提醒", ranked[0], ranked, T) is None


def test_no_other_memory_of_the_class_keeps_the_pick():
    ranked = [SEATS[0], m("sleep", "I sleep about 7 hours a night", .40, .25)]
    assert holds_old("window seat from now on, I want to sleep", ranked[0], ranked, T) is None


def test_a_memory_the_conversation_tied_the_line_to_is_kept():
    tied = [m("window", "I like window seats on planes", .75, .55, topical=True,
              exclusive=True, linked=True), SEATS[1]]
    assert holds_old("window seat from now on", tied[0], tied, T) is None


# --- a class whose values add up -------------------------------------------------------------

def test_a_time_word_in_a_class_that_adds_up_adds_one_more():
    ranked = [Match("pollen", "I'm allergic to pollen", .73, .58, topical=True,
                    topic="allergy"),
              Match("pen", "I'm allergic to penicillin", .65, .50, topical=True,
                    topic="allergy")]
    rel = relate("turns out I'm allergic to mango now", ranked, thresholds=T)
    assert rel.relation == Relation.NEW


def test_a_replacement_said_in_so_many_words_still_changes_in_such_a_class():
    ranked = [Match("med", "I take sertraline every morning", .70, .55, topical=True,
                    topic="medication")]
    rel = relate("switched from sertraline to fluoxetine now", ranked, thresholds=T)
    assert (rel.relation, rel.target_id) == (Relation.UPDATE, "med")


def test_a_class_of_one_value_still_changes_on_a_time_word():
    ranked = [Match("home", "I live in York", .72, .57, topical=True, exclusive=True,
                    topic="residence")]
    rel = relate("I live in Leeds now", ranked, thresholds=T)
    assert (rel.relation, rel.target_id) == (Relation.UPDATE, "home")


@pytest.mark.parametrize("memories, line, word", [
    (["I'm allergic to pollen", "I'm allergic to penicillin"],
     "turns out I'm allergic to mango now", "mango"),
    (["我对花粉过敏", "我对青霉素过敏"], "最近发现我对芒果过敏", "芒果"),
])
def test_observe_keeps_every_allergy(vault, memories, line, word):
    scope = Scope("t", "u2")
    ids = [vault.remember(scope, text).memory.id for text in memories]
    vault.observe(scope, [{"role": "user", "content": line}])
    assert [(vault.get(scope, i).version, vault.get(scope, i).content) for i in ids] \
        == [(1, text) for text in memories]
    live = [x for x in vault.list(scope) if x.status == "active" and x.kind != "turn"
            and x.id not in ids]
    assert [word in x.content.casefold() for x in live] == [True]


# --- words that say no change -----------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("我喜欢你在回答最后加个总结", False),     # the end of the answer
    ("最后那个总结不需要了", False),           # the last one
    ("最后还是选了钉钉", True),
    ("我最后决定搬去杭州", True),
    ("算了 最后定了 周五", True),
])
def test_zuihou_settles_only_as_in_the_end(text, expected):
    assert settles(text) is expected


@pytest.mark.parametrize("text, expected", [
    ("前一天晚上提醒我转头就忘", False),   # forgets at once
    ("转眼就到周末了", False),
    ("我转到市场部了", True),
])
def test_zhuan_of_a_turn_of_the_head_is_no_change(text, expected):
    assert marks_change(text) is expected


# --- end to end, on both backends --------------------------------------------------------------

@pytest.mark.parametrize("memories, line, changed, kept, word", [
    ({"own": "I prefer aisle seats when I fly", "by": "I like window seats on planes"},
     "window seat from now on, I want to sleep against the wall", "own", "by", "window"),
    ({"own": "我喜欢喝热美式", "by": "我一天喝两杯咖啡"},
     "天热了以后咖啡换成冰美式吧", "own", "by", "冰美式"),
])
def test_observe_changes_the_memory_of_the_old_value(vault, memories, line, changed, kept,
                                                     word):
    scope = Scope("t", "u1")
    ids = {k: vault.remember(scope, text).memory.id for k, text in memories.items()}
    vault.observe(scope, [{"role": "user", "content": line}])
    after, left = vault.get(scope, ids[changed]), vault.get(scope, ids[kept])
    assert (after.version, after.status) == (2, "active")
    assert word in after.content.casefold()
    assert (left.version, left.content) == (1, memories[kept])

"""A sentence that goes on about the change its own message has just made, with no marker
of a change of its own, adds to that change (issue 18, found on the generalisation set's
development half; tested here in wording of its own), on both backends.

Before, the memory's new version was replaced again by the sentence after the change: "I
play bass in the band" became "switched to drums…" and then "The neighbours hate me now",
and the value the user changed to was gone from what is served.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault

ME = Scope("acme", "ines")


def _say(vault: Vault, text: str) -> None:
    vault.observe(ME, [{"role": "user", "content": text}])


def _stored(vault: Vault) -> list:
    return [m for m in vault.list(ME, limit=50) if m.kind != "turn"]


@pytest.mark.parametrize("given, line, new, then", [
    ("I work the early shift at the bakery",
     "switched to the late shift at the bakery for good. so lie-ins are back now",
     "late shift", "lie-ins"),
    ("I commute by train",
     "switched to cycling to work this month. my legs hate me now haha",
     "cycling", "legs"),
    ("我住在杭州", "上个月搬到苏州了。现在每天通勤一个小时", "苏州", "通勤"),
])
def test_what_follows_a_change_is_kept_with_it(vault: Vault, given: str, line: str,
                                               new: str, then: str) -> None:
    _say(vault, given)
    (m,) = _stored(vault)
    _say(vault, line)
    now = vault.get(ME, m.id)
    assert now.status == "active" and now.version > 1
    said = now.content.casefold()
    assert new in said and then in said  # the change, and what follows it
    assert _stored(vault) == [now]  # nothing beside it
    # every step is a revision of its own: rolling back one step gives the change alone
    changes = [r for r in vault.history(ME, m.id) if r.op == "update"]
    assert changes and all(r.trigger_text for r in changes)


def test_a_second_change_marked_as_such_still_replaces(vault: Vault) -> None:
    # "no wait … make it" marks a change of its own: the first change is replaced, not
    # extended (the value given up must not stay in what is served).
    _say(vault, "Send my weekly report on Mondays")
    (m,) = _stored(vault)
    _say(vault, "move the report to tuesdays. no wait, make it wednesdays instead")
    now = vault.get(ME, m.id)
    assert "wednesday" in now.content.casefold()
    assert "tuesday" not in now.content.casefold()


def test_a_slot_value_changed_keeps_its_value_when_extended(vault: Vault) -> None:
    _say(vault, "please reply in English")
    (m,) = _stored(vault)
    assert m.slot is not None
    _say(vault, "could you start answering in german from now on? trying to actually "
                "practise, i'm a beginner so keep the words simple")
    now = vault.get(ME, m.id)
    assert (now.slot, now.value) == (m.slot, "de")
    assert "beginner" in now.content


@pytest.mark.parametrize("given, line, then, own", [
    ("I live in Manchester", "moved to Leeds last month. I'm learning Japanese now",
     "I moved to York", "japanese"),
    ("我住在杭州", "上个月搬到苏州了。我现在每天跑步五公里", "我搬到无锡了", "跑步"),
])
def test_a_statement_of_its_own_after_a_change_is_kept_apart(vault: Vault, given: str,
                                                             line: str, then: str,
                                                             own: str) -> None:
    # The speaker's own sentence about another thing (an audit found it merged into the
    # home, then lost when the home changed again) is a memory of its own.
    _say(vault, given)
    (home,) = _stored(vault)
    _say(vault, line)
    _say(vault, then)
    kept = [m for m in _stored(vault) if own in m.content.casefold()]
    assert len(kept) == 1 and kept[0].id != home.id
    assert own not in vault.get(ME, home.id).content.casefold()


def test_a_statement_of_its_own_of_the_same_topic_is_the_new_value(vault: Vault) -> None:
    _say(vault, "I'm learning Spanish on Duolingo")
    (m,) = _stored(vault)
    _say(vault, "Dropped Spanish. I'm learning Japanese now")
    assert "Japanese" in vault.get(ME, m.id).content
    assert [x.id for x in _stored(vault)] == [m.id]


def test_a_guess_and_the_next_sentence_of_its_topic_name_the_memory(vault: Vault) -> None:
    # "We moved!!" alone is only a guess at the home (staged); "We're in Cardiff now",
    # of the same topic, in the same message, says what holds now: together they change
    # it, and the guess, overtaken, is no longer waiting for a person.
    _say(vault, "I live in Bristol")
    (home,) = _stored(vault)
    _say(vault, "We moved!! We're in Cardiff now.")
    now = vault.get(ME, home.id)
    assert now.version == 2 and "Cardiff" in now.content
    assert vault.review_list(ME) == []
    assert [m.id for m in _stored(vault) if m.status == "active"] == [home.id]


def test_a_guess_and_a_sentence_of_another_topic_stay_apart(vault: Vault) -> None:
    kept = vault.remember(ME, "I bank with Barclays").memory
    _say(vault, "moved my savings over. I'm in Spain now for the summer")
    assert vault.get(ME, kept.id) == kept
    assert [m.content for m in vault.review_list(ME)] == ["Moved my savings over"]


@pytest.mark.parametrize("given, line, new, then", [
    ("I love very sweet desserts",
     "I can't eat much sugar anymore since the diabetes diagnosis. Please keep dessert "
     "recipes low in sugar.", "diabetes", "low in sugar"),
    ("我很喜欢吃辣", "胃不好，现在不能吃辣了。以后给我的菜谱都少放辣椒", "不能吃辣", "少放辣椒"),
])
def test_a_request_about_the_change_just_made_is_kept_with_it(vault: Vault, given: str,
                                                               line: str, new: str,
                                                               then: str) -> None:
    # The request says nothing of a change itself; plainly about the same thing, it goes
    # with the change (before, it was dropped as the change's reason).
    m = vault.remember(ME, given).memory
    _say(vault, line)
    now = vault.get(ME, m.id)
    assert new in now.content and then in now.content
    assert [x.id for x in _stored(vault)] == [m.id]


def test_no_extension_longer_than_a_memory_may_be() -> None:
    from types import SimpleNamespace

    from memvault.validate import MAX_CONTENT_CHARS
    from memvault.valueswap import extended

    long = SimpleNamespace(id="m_x", status="active", content="a" * (MAX_CONTENT_CHARS - 10))
    assert extended(None, long, "and then a sentence that goes on about it") is None
    held = SimpleNamespace(id="m_y", status="active", content="Switched to cycling")
    assert extended(None, held, "switched to cycling") is None  # already says it

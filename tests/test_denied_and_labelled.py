"""A change denied is no change; a take-back by a label that fits several memories, or
none plainly, goes to a person; the old thing named elsewhere in the same message is what
a replacement replaces (understand/discourse.py, relate.py, threadtopic.with_rest)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memvault import Scope, Vault
from memvault.config import Strategy
from memvault.understand.discourse import changes_mind, marks_change, replaces, supposes

ME = Scope("acme", "noor")


def _tell(vault: Vault, line: str) -> list[str]:
    return [o.action for o in vault.observe(ME, [{"role": "user", "content": line}]).outcomes]


def _said(vault: Vault, line: str) -> str:
    return vault.observe(ME, [{"role": "user", "content": line}]).outcomes[0].memory_id or ""


@pytest.mark.parametrize(("line", "change"), [
    ("I am NOT moving to Berlin, whatever my mum tells you", False),
    ("nvim gang for life, nothing's changed there", False),
    ("nothing has changed, still on the night shift", False),
    ("windows update restarted my laptop in the middle of a call", False),
    ("I'm not moving to Berlin, I'm moving to Munich", True),   # the denial is one clause
    ("please update my address to 5 Elm Street", True),
    ("update: I'm vegan now", True),
    ("改到周一吧", True),
    ("An update for you: my standup is at 10am", True),
    ("Latest update: standup is at 10am", True),
    ("以后12点睡，不改了", True),                           # 不改了: that is final
    ("换成地铁了", True),
])
def test_a_change_denied_is_no_change(line: str, change: bool) -> None:
    assert marks_change(line) is change
    assert changes_mind(line) is change or "now" in line


def test_a_denied_replacement_replaces_nothing() -> None:
    assert not replaces("I'm not switching, Firefox is fine")
    assert replaces("switched to Firefox")


@pytest.mark.parametrize(("stored", "line"), [
    ("I live in London", "I am NOT moving to Berlin, whatever my mum tells you 🙄 London's "
                         "home, end of"),
    ("My laptop runs Windows 11", "windows update restarted my laptop in the MIDDLE of a "
                                  "client presentation. I want to scream"),
    ("I live in Portland", "the portland trail blazers are such a mess this season lol, "
                           "can't even watch anymore"),
    ("I use Neovim", "nvim gang for life, nothing's changed there"),
])
def test_a_line_that_only_looks_like_a_change_overwrites_nothing(vault: Vault, stored: str,
                                                                 line: str) -> None:
    mid = _said(vault, stored)
    _tell(vault, line)
    m = vault.get(ME, mid)
    assert (m.status, m.version) == ("active", 1)


@pytest.mark.parametrize(("stored", "line"), [
    (["I go to the gym Monday, Wednesday and Friday", "I run every Saturday morning"],
     "delete the exercise one"),
    (["Remind me to water the plants at 7pm every day", "Remind me to stretch at 7am every day"],
     "get rid of the 7 o'clock reminder"),
    (["每天晚上7点提醒我浇花", "每天早上7点提醒我拉伸"], "7点那个提醒取消掉"),
    (["我每周一三五去健身房", "我每周六早上跑步"], "把运动那条删了"),
])
def test_a_label_that_fits_several_memories_goes_to_a_person(vault: Vault, stored: list[str],
                                                             line: str) -> None:
    ids = [_said(vault, s) for s in stored]
    assert _tell(vault, line) == ["stage"]
    assert all(vault.get(ME, i).status == "active" for i in ids)
    (item,) = vault.review_list(ME)
    assert set(ids) <= set(item.metadata["review"]["links"])


def test_a_take_back_that_names_nothing_plainly_is_staged_not_dropped(
        make_vault: Callable[..., Vault]) -> None:
    # Found by closeness alone: the topic class (medication) names it plainly
    # (test_topic_match.py).
    vault = make_vault(strategy=Strategy.model_validate(
        {"write": {"matching": {"by_topic": False}}}))
    mid = _said(vault, "I take sertraline every morning.")
    assert _tell(vault, "Please forget that I mentioned my medication.") == ["stage"]
    assert vault.get(ME, mid).status == "active"
    (item,) = vault.review_list(ME)
    assert mid in item.metadata["review"]["links"]
    vault.review_approve(ME, item.id)
    assert vault.get(ME, mid).status != "active"


def test_a_take_back_of_what_nothing_says_stays_a_no_op(vault: Vault) -> None:
    mid = _said(vault, "I drink green tea every afternoon")
    assert _tell(vault, "forget what I said about my cat") == ["noop"]
    assert vault.review_list(ME) == []
    assert vault.get(ME, mid).version == 1


def test_the_old_thing_named_beside_a_replacement_is_what_it_replaces(vault: Vault) -> None:
    mid = _said(vault, "I bank with Barclays")
    _tell(vault, "moved everything over to Monzo last month, salary, bills, the lot. "
                 "barclays can cry about it")
    m = vault.get(ME, mid)
    assert m.version == 2 and "monzo" in m.content.casefold()
    vault.rollback(ME, mid, 1)
    assert vault.get(ME, mid).content == "I bank with Barclays"


def test_what_the_message_says_stays_is_not_what_it_replaces(vault: Vault) -> None:
    mid = _said(vault, "I bank with Barclays")
    _tell(vault, "moved to Leeds last month. barclays is still my bank though")
    m = vault.get(ME, mid)
    assert (m.status, m.version) == ("active", 1)


@pytest.mark.parametrize(("line", "supposed"), [
    ("guess I'm on social media now, @crumbandco if you're curious", False),
    ("if you want to know, I moved to Leeds", False),
    ("if you're wondering, I switched to tea", False),
    ("办了张信用卡，主要是为了攒积分", False),            # 主要是 is no 要是
    ("要是工资涨了我就搬", True),
    ("If you asked me to, I'd move standup to 10am", True),
    ("If you care about the planet, you'd switch to oat milk", True),
    ("If you're interested in switching, I'd try Tidal", True),
    ("试听完还感兴趣的话，就把吉他课换成钢琴课", True),
])
def test_a_courtesy_to_the_listener_is_no_condition(line: str, supposed: bool) -> None:
    assert supposes(line) is supposed


@pytest.mark.parametrize(("stored", "line", "has"), [
    ("I'm not on any social media", "guess I'm on social media now, @crumbandco if you're "
                                    "curious", "social media now"),
])
def test_what_the_user_said_they_do_not_do_is_changed_by_saying_they_now_do(
        vault: Vault, stored: str, line: str, has: str) -> None:
    mid = _said(vault, stored)
    _tell(vault, line)
    m = vault.get(ME, mid)
    assert m.version == 2 and has in m.content


def test_getting_something_else_changes_no_unrelated_negative(vault: Vault) -> None:
    pets = _said(vault, "I don't have any pets")
    meat = _said(vault, "I don't eat meat")
    _tell(vault, "we got a new sofa, finally")
    assert vault.get(ME, pets).version == vault.get(ME, meat).version == 1


def test_getting_a_thing_is_no_change_of_an_unlike_negative(vault: Vault) -> None:
    mid = _said(vault, "我不喝咖啡")
    assert _tell(vault, "我养了一只鹦鹉") == ["added"]
    assert vault.get(ME, mid).version == 1 and vault.review_list(ME) == []


@pytest.mark.parametrize(("stored", "line"), [
    ("I don't drink coffee", "I bought a coffee machine for my husband's birthday"),
    ("I can't stand jazz", "I got my dad tickets to a jazz concert"),
    ("I'm not on Facebook", "Set up a Facebook page for my mum's shop"),
])
def test_getting_a_thing_for_someone_else_changes_no_negative(vault: Vault, stored: str,
                                                              line: str) -> None:
    mid = _said(vault, stored)
    _tell(vault, line)
    assert vault.get(ME, mid).version == 1


def test_said_again_in_other_words_confirms_the_memory_clearly_closest(vault: Vault) -> None:
    mid = _said(vault, "My daily standup is at 9:30")
    for other in ("I have two cats", "I live in Leeds", "I'm learning Spanish"):
        _said(vault, other)
    assert _tell(vault, "daily sync is still half nine, same as always") == ["noop"]
    assert vault.get(ME, mid).version == 1
    assert not any("half nine" in m.content for m in vault.list(ME, status="active", limit=50)
                   if m.kind != "turn")


def test_said_again_is_no_confirmation_of_the_only_memory_by_rank(vault: Vault) -> None:
    # one memory is ahead of nothing: a fact said "like I said before" is kept
    _said(vault, "I drink oat milk")
    assert _tell(vault, "I'm allergic to peanuts, like I said before") == ["added"]


def test_two_words_run_together_name_nothing_in_common(vault: Vault) -> None:
    from memvault.understand.matchwords import shares_words
    assert not shares_words("明天早会取消", "每天早上7点提醒我拉伸")   # 天早 runs two words
    assert shares_words("过道那个座位", "我坐飞机喜欢靠过道")
    mid = _said(vault, "每天早上7点提醒我拉伸")
    _tell(vault, "明天早会取消，全员去团建🎉")
    assert vault.get(ME, mid).status == "active"


def test_a_change_said_to_be_final_still_changes(vault: Vault) -> None:
    mid = _said(vault, "我每天11点睡觉")
    _tell(vault, "以后12点睡，不改了")
    m = vault.get(ME, mid)
    assert m.version == 2 and "12" in m.content


def test_getting_rid_of_stuff_is_no_take_back(vault: Vault) -> None:
    mid = _said(vault, "I eat a lot of processed food")
    _tell(vault, "My doctor said it plainly: just get rid of the processed stuff.")
    assert vault.get(ME, mid).status == "active"


def test_a_thing_named_in_passing_beside_a_replacement_is_not_replaced(vault: Vault) -> None:
    bank = _said(vault, "I bank with Barclays")
    home = _said(vault, "I live in Leeds")
    _tell(vault, "moved my accounts to Monzo. Leeds is lovely this time of year")
    assert vault.get(ME, home).version == 1
    assert vault.get(ME, bank).status == "active"


def test_a_word_only_one_memory_has_does_not_pick_between_things_of_a_kind(
        vault: Vault) -> None:
    ramen = _said(vault, "I love the ramen place on Baker Street.")
    pizza = _said(vault, "My favourite pizza restaurant is Luigi's.")
    assert _tell(vault, "forget what I said about the restaurant") == ["stage"]
    assert vault.get(ME, ramen).status == vault.get(ME, pizza).status == "active"


def test_a_take_back_names_its_head_not_its_owner(vault: Vault) -> None:
    raj = _said(vault, "My emergency contact is my brother Raj")
    _said(vault, "I prefer tea over coffee.")
    _tell(vault, "forget what I told you about my brother's wedding")
    assert vault.get(ME, raj).status == "active"




@pytest.mark.parametrize(("line", "has"), [
    ("Remind me to water the plants on Sundays", "sundays"),
    ("Send me a weekly summary on Sunday evenings", "weekly"),
    ("Contact me on WhatsApp, not email", "whatsapp"),
    ("温度用摄氏度跟我说", "摄氏度"),
])
def test_an_arrangement_asked_of_the_assistant_is_kept(vault: Vault, line: str,
                                                       has: str) -> None:
    assert _tell(vault, line) == ["added"]
    (m,) = [m for m in vault.list(ME, status="active", limit=10) if m.kind != "turn"]
    assert has in m.content.casefold()


@pytest.mark.parametrize("line", [
    "send me the report", "email me the slides at once", "send me the report at 5",
    "Call me at 7 tonight", "email me the draft at 4, not tomorrow",
    "Send me the slides at 10, not the notes", "这个问题用简单的话跟我说",
])
def test_a_task_for_now_is_no_arrangement(vault: Vault, line: str) -> None:
    _tell(vault, line)
    assert [m for m in vault.list(ME, status="active", limit=10) if m.kind != "turn"] == []


def test_asking_for_advice_is_no_change(vault: Vault) -> None:
    mid = _said(vault, "Remind me to take my meds at 8am every day")
    _tell(vault, "would it be better to take them at night instead? they make me drowsy")
    assert vault.get(ME, mid).version == 1


@pytest.mark.parametrize(("line", "change"), [
    ("Whatsapp is the only thing I actually check", False),   # stress, not a turn
    ("I'm actually allergic to cashews, not peanuts", True),
    ("but actually I prefer tea", True),
    ("I upgrade my phone every two years", False),            # a habit
    ("actually, make it tea", True),
    ("no actually I prefer tea", True),
    ("fyi I downgraded to the Basic plan last week", True),
])
def test_actually_is_no_change_as_stress_in_a_relative_clause(line: str, change: bool) -> None:
    assert changes_mind(line) is change


def test_can_it_be_another_time_is_still_a_request() -> None:
    from memvault.extract.requests import asked_change
    assert asked_change("can it be at 9 instead?") is not None
    assert asked_change("would it be better to take them at night instead?") is None


def test_a_value_picks_among_reminders_named_only_by_it(vault: Vault) -> None:
    # A time with its unit is a named value (matchwords.py): "8pm" names the one reminder
    # at 8pm, not the one at 8am, so it is taken back; before, only its rank named it and
    # the take-back was staged against it.
    morning = _said(vault, "Remind me to take my vitamins at 8am every day")
    evening = _said(vault, "Remind me to stretch at 8pm every day")
    assert _tell(vault, "delete the 8pm one") == ["forget"]
    assert vault.get(ME, morning).status == "active"
    assert vault.get(ME, evening).status == "deleted"
    assert vault.review_list(ME) == []


def test_a_title_before_a_name_ends_no_sentence() -> None:
    from memvault.extract import Message, RuleExtractor
    (c,) = RuleExtractor().extract([Message(role="user", content="My dentist is Dr. Smith")])
    assert c.content == "My dentist is Dr. Smith"


def test_a_channel_asked_for_every_time_something_fails_is_wanted() -> None:
    from memvault.extract import Message, RuleExtractor
    (c,) = RuleExtractor().extract([Message(role="user",
                                            content="Text me every time the build fails")])
    assert (c.slot, c.value) == ("notify.channel", "SMS")
    assert "negative_only" not in c.flags


@pytest.mark.parametrize(("meant", "kept", "line"), [
    # a value of the label that only one memory holds picks it
    ("每天晚上7点提醒我浇花", "每天早上8点提醒我吃药", "晚上7点的提醒取消吧"),
    ("Remind me to water the plants at 7pm every day", "Remind me to stretch at 9am every day",
     "cancel the 7pm reminder"),
    # a take-back of an owned thing still forgets it
    ("My sister's birthday is June 1", "I live in Leeds", "forget my sister's birthday"),
])
def test_a_take_back_forgets_the_memory_its_label_picks(vault: Vault, meant: str, kept: str,
                                                        line: str) -> None:
    mid, other = _said(vault, meant), _said(vault, kept)
    _tell(vault, line)
    assert vault.get(ME, mid).status != "active"
    assert vault.get(ME, other).status == "active"

"""A change asked for as a question ("can you push the morning briefing to 8:15?",
"…, can the spending summary come saturday morning instead?") changes the standing memory
it matches and names a new value for; the reasons around it change nothing."""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.extract.requests import asked_change
from memvault.understand.ellipsis import swap_in

ME = Scope("acme", "ana")


@pytest.mark.parametrize(("line", "asks"), [
    ("can you push the morning briefing to 8:15?", True),
    ("ugh sundays are awful, can the spending summary come saturday morning instead?", True),
    ("Could focus mode kick in at 8am instead?", True),
    ("could you please move the standup reminder to 9:50?", True),
    ("can you make it 20 minutes?", True),
    ("can you change the tone?", False),             # names nothing new
    ("could I get a refund instead?", False),        # the speaker's own ask
    ("can you explain how the digest works?", False),
    ("what if we moved it to Friday?", False),
    ("can Tom move our 1:1 to Monday? how should I ask him", False),  # someone else asked
    ("hey can u shift the gym reminder to 7pm?", True),
    ("能不能把周报改到周四发？", True),
    ("提醒可以改成提前20分钟吗", True),
    ("能不能换个例子", False),                                # names nothing new
    ("智能提醒改到9点了吗？", False),          # 能 in a word, and asking whether it did
    ("为什么健身课不能改到周五？", False),
    ("你能帮我查一下周会改到周四了吗？", False),
    ("can you suggest something I could cook instead of pasta?", False),  # a task
    ("can my boss move our 1:1 to Monday?", False),
    ("could they move my flight to Sunday?", False),
])
def test_a_change_asked_for_names_what_to(line: str, asks: bool) -> None:
    assert (asked_change(line) is not None) is asks


@pytest.mark.parametrize(("line", "starts", "asked"), [
    ("can you push the morning briefing to 8:15?", 0, "push the morning briefing to 8:15"),
    ("能不能把周报改到周四发？", 0, "把周报改到周四发"),
    # the clause before the request is its reason: the request starts after it
    ("周日太丧了，消费总结可以改成周六早上发吗？", 6, "消费总结改成周六早上发"),
])
def test_what_is_asked_is_the_request_without_the_modal(line: str, starts: int,
                                                        asked: str) -> None:
    assert asked_change(line) == (starts, asked)


def _active(vault: Vault) -> dict[str, tuple[int, str]]:
    return {m.id: (m.version, m.content) for m in vault.list(ME, status="active", limit=50)
            if m.kind != "turn"}


def test_the_asked_change_updates_its_memory_and_the_reason_no_other(vault: Vault) -> None:
    mid = vault.remember(ME, "Start my focus mode at 1pm every weekday").memory.id
    other = vault.remember(ME, "I'd like my morning news briefing at 7am").memory.id
    vault.observe(ME, [{"role": "user", "content":
                        "Could focus mode kick in at 8am instead? Early morning is the only "
                        "quiet time I get now."}])
    got = _active(vault)
    # The request is the new version; the reason after it, with only a time word, does
    # not go on to overwrite it, nor change the other memory it resembles ("morning").
    assert got[mid] == (2, "Start my focus mode at 8am every weekday")  # value swapped in
    assert got[other][0] == 1
    assert vault.history(ME, mid)[-1].trigger_text == "Could focus mode kick in at 8am instead"


def test_a_question_that_names_nothing_new_changes_nothing(vault: Vault) -> None:
    mid = vault.remember(ME, "Use a friendly tone with me").memory.id
    vault.observe(ME, [{"role": "user", "content": "can you change the tone?"}])
    assert _active(vault) == {mid: (1, "Use a friendly tone with me")}


def test_an_asked_change_that_matches_nothing_is_not_stored(vault: Vault) -> None:
    mid = vault.remember(ME, "I have two cats").memory.id
    vault.observe(ME, [{"role": "user", "content": "can you push the briefing to 8:15?"}])
    assert _active(vault) == {mid: (1, "I have two cats")}


@pytest.mark.parametrize(("line", "statement", "becomes"), [
    # the change is in the last clause; the reason and the value given up are not
    ("不对，10分钟不够我准备的，改成提前20分钟", "以后开会前10分钟提醒我",
     "以后开会前20分钟提醒我"),
    ("Could focus mode kick in at 8am instead", "Start my focus mode at 1pm every weekday",
     "Start my focus mode at 8am every weekday"),
    ("move standup reminder to 9:50, the meeting is at 10 now",
     "My standup reminder should go off at 9:15 every weekday",
     "My standup reminder should go off at 9:50 every weekday"),
    ("把健身提醒挪到晚上7点半", "每天晚上6点提醒我去健身", "每天晚上7点半提醒我去健身"),
    # a day of the week is a value of one kind too, in the form of the one it replaces
    ("ugh no, tuesday clashes with choir. make it friday", "Water the plants on Tuesdays",
     "Water the plants on Fridays"),
    ("周二不行，改周四吧", "每周二下午打羽毛球", "每周四下午打羽毛球"),
])
def test_a_change_keeps_its_statement_with_the_value_swapped(line: str, statement: str,
                                                             becomes: str) -> None:
    got = swap_in(line, statement)
    assert got is not None and got[0] == becomes


@pytest.mark.parametrize(("line", "statement"), [
    ("I'm on Pacific time now, after the move to Seattle", "My timezone is Eastern"),  # names
    ("改成提前20分钟", "每天提醒我喝8杯水，每杯200毫升"),   # two numbers: which one?
    ("make it 30 minutes", "I run 5 km every morning"),      # no value of that kind
    ("我搬家了，从3号楼搬到了5号楼", "我住在3号楼"),          # no clause marks the change
    ("actually I switched to running 3 times a week", "I run 5 km every morning"),  # unit
    ("actually I switched to running 3 km in the evenings",  # the time changes too
     "I run 5 km every morning"),
    ("can you move the briefing to 8:15 and send it by email instead",  # a second change
     "Send my morning briefing on Slack at 7:30"),
    ("make it friday", "My gym days are Monday, Wednesday and Friday"),  # which day?
    ("don't make it thursday", "Send my weekly report on Wednesdays"),  # the choice refused
    ("please don't change it to 8am", "Send the digest at 9am"),
    ("别改成周五", "每周三提醒我交周报"),
])
def test_no_swap_without_one_value_of_its_kind(line: str, statement: str) -> None:
    assert swap_in(line, statement) is None


def test_a_bare_number_does_not_take_a_days_place() -> None:
    # "make it 10" changes the hour, not the day, of "Mondays at 9am"
    got = swap_in("no wait, make it 10am", "Send the digest on Mondays at 9am")
    assert got is not None and got[0] == "Send the digest on Mondays at 10am"


def test_an_update_stores_the_statement_with_its_new_value(vault: Vault) -> None:
    mid = vault.remember(ME, "以后开会前10分钟提醒我").memory.id
    line = "不对，10分钟不够我准备的，改成提前20分钟"
    out = vault.observe(ME, [{"role": "user", "content": line}])
    assert [(o.action, o.memory_id) for o in out.outcomes] == [("updated", mid)]
    assert _active(vault) == {mid: (2, "以后开会前20分钟提醒我")}
    last = vault.history(ME, mid)[-1]
    assert last.trigger_text == line


def test_the_reason_after_an_asked_change_is_no_memory_unless_it_adds(vault: Vault) -> None:
    mid = vault.remember(ME, "睡前提醒在晚上10点").memory.id
    vault.observe(ME, [{"role": "user", "content": "睡前提醒可以改成11点吗？我睡得晚"}])
    assert _active(vault) == {mid: (2, "睡前提醒在晚上11点")}
    vault.observe(ME, [{"role": "user", "content":
                        "can the bedtime reminder be at 11:30 instead? also, I started "
                        "learning the cello"}])
    got = _active(vault)
    assert got[mid][0] == 3 and "11:30" in got[mid][1]
    assert [c for _, c in got.values() if "cello" in c] == ["I started learning the cello"]


def test_only_the_sentence_right_after_an_asked_change_is_its_reason(vault: Vault) -> None:
    mid = vault.remember(ME, "Send my morning news briefing at 7am").memory.id
    vault.observe(ME, [{"role": "user", "content":
                        "can you push the morning briefing to 8:15? I leave earlier now. "
                        "My sister Anna moved to Berlin last month. I've started learning "
                        "the cello."}])
    got = _active(vault)
    assert got[mid] == (2, "Send my morning news briefing at 8:15")
    assert sorted(c for i, (_, c) in got.items() if i != mid) == [
        "I've started learning the cello", "My sister Anna moved to Berlin last month"]

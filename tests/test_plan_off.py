"""A plan said to be off ("the Lisbon trip isn't happening anymore", "成都那趟出差取消了")
takes back the stored plan it names, and only that one (understand/planoff.py,
extract/calledoff.py, relate.py's soft retraction); replaced or off for a while, the plan
is changed or kept, not forgotten."""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.discourse import one_time
from memvault.understand.planoff import plan_off
from memvault.understand.takeback import retraction

ME = Scope("acme", "mei")


@pytest.mark.parametrize(("line", "names"), [
    ("the Lisbon trip isn't happening anymore, flights got stupid expensive", "lisbon trip"),
    ("dentist cancelled on me", "dentist"),
    ("I've pulled out of the Chicago marathon", "chicago marathon"),
    ("the book club got called off for good", "book club"),
    ("our house-warming party fell through", "house-warming party"),
    ("please scrap the 7am alarm", "7am alarm"),
    ("成都那趟出差取消了", "成都 出差"),
    ("考研那事黄了", "考研"),
    ("婚礼泡汤了", "婚礼"),
    # whose or when it is does not name it: the thing owned does
    ("下个月的马拉松我不跑了", "马拉松"),
    ("周日的烧烤因为台风取消了", "烧烤"),
    # the clause that says it names nothing: the clause before does
    ("刷墙的计划算了，不搞了", "刷墙 计划"),
    # what someone said is the thing
    ("牙医那边打电话说周四的号取消了", "周四 号"),
    ("考研那事黄了，家里让我先工作", "考研"),                # 先 is the next clause's
])
def test_the_thing_called_off_is_named(line: str, names: str) -> None:
    assert (plan_off(line) or "").casefold() == names


@pytest.mark.parametrize("line", [
    "should I cancel the trip?",                          # asked, not done
    "if the flights stay this expensive the trip might be cancelled",
    "todoist is cancelled, ticktick it is",               # replaced: a change
    "雅思我不考了，改成准备托福",
    "japan's not happening this year, flights are crazy",  # off for a while only
    "这周六孩子发烧了 游泳先不去了",
    "I'm off to Paris tomorrow",                          # "off" that calls nothing off
    "the cancellation fee was 20 euros",
    "we had a lovely dinner",
    "the interview isnt cancelled btw, still on for wednesday",  # not off
    "字节的面试没取消哈，还是周三",
    "lol watched a video of a guy who fell through the ice",  # a description
    "厦门不去了，五一改去青岛",                            # replaced
    "Alex's work trip to Denver got cancelled so he's home all week",  # someone else's
    "my wife's work trip got cancelled",
    "My husband's race is off",
    "他的出差取消了",
    "I pulled a muscle at the gym",                       # not a verb of a plan off
    "I shelved all the books in the new bookcase",
])
def test_no_plan_is_off(line: str) -> None:
    assert plan_off(line) is None


def _tell(vault: Vault, line: str) -> list[tuple[str, str | None]]:
    out = vault.observe(ME, [{"role": "user", "content": line}]).outcomes
    return [(o.action, o.memory_id) for o in out]


def _active(vault: Vault) -> list[str]:
    return sorted(m.content for m in vault.list(ME, status="active", limit=50)
                  if m.kind != "turn")


@pytest.mark.parametrize(("plan", "line"), [
    ("I'm planning a trip to Lisbon in May",
     "the Lisbon trip isn't happening anymore, flights got stupid expensive"),
    ("我下个月要去成都出差", "成都那趟出差取消了"),
])
def test_the_named_plan_is_forgotten_and_comes_back_by_rollback(vault: Vault, plan: str,
                                                                line: str) -> None:
    keep = vault.remember(ME, "I have a dentist appointment on the 14th").memory.id
    mid = vault.remember(ME, plan).memory.id
    assert _tell(vault, line) == [("forget", mid)]
    assert _active(vault) == ["I have a dentist appointment on the 14th"]
    last = vault.history(ME, mid)[-1]
    assert last.trigger_text == line and vault.get(ME, keep).version == 1
    vault.rollback(ME, mid, to_version=1)
    assert plan in _active(vault)


def test_an_unnamed_plan_is_kept_and_the_line_is_a_statement_again(vault: Vault) -> None:
    vault.remember(ME, "I have a dentist appointment on the 14th")
    # Another appointment called off: no stored memory names it, nothing is forgotten,
    # and the line is kept as what it says, as before.
    acts = _tell(vault, "I cancelled my gym membership")
    assert [a for a, _ in acts] == ["added"]
    assert _active(vault) == ["I cancelled my gym membership",
                              "I have a dentist appointment on the 14th"]


def test_a_plan_off_with_nothing_else_to_read_adds_nothing(vault: Vault) -> None:
    vault.remember(ME, "I have a dentist appointment on the 14th")
    assert [a for a, _ in _tell(vault, "the yoga retreat fell through")] == ["noop"]
    assert _active(vault) == ["I have a dentist appointment on the 14th"]


def test_a_retraction_that_points_takes_the_plan_its_line_calls_off(vault: Vault) -> None:
    mid = vault.remember(ME, "我在准备考研").memory.id
    vault.remember(ME, "我在学日语")
    assert _tell(vault, "考研那事黄了，决定直接工作，之前说的那个忘了吧") == [("forget", mid)]
    assert _active(vault) == ["我在学日语"]


@pytest.mark.parametrize(("line", "names"), [
    # a retraction whose own clause names nothing but where it is kept
    ("honestly I quit Japanese months ago, no point keeping that in my profile",
     "Japanese months ago"),
    # asked not to be brought up: what the line before names
    ("Jordan and I broke up. Please don't bring them up anymore.", "Jordan broke up"),
    ("别再提他了", ""),
])
def test_what_a_retraction_takes_back(line: str, names: str) -> None:
    assert retraction(line) == names


@pytest.mark.parametrize("line", [
    "别再提醒我早睡了 听着烦",          # a reminder stopped: a change, not a retraction
    "don't mention it",               # thanks
    "I never talk about work on weekends",
    "I never talk about work with my kids, ever.",
    "别提了，今天又加班到十点",          # "don't get me started"
    "孩子不要一直存零花钱",
    "no point in keeping score anymore, we play for fun",
    "每当没写完作业我就睡不着",          # "whenever", not "as if never"
    "这个价格相当没说服力",
])
def test_not_a_retraction(line: str) -> None:
    assert retraction(line) is None


@pytest.mark.parametrize("line", ["For this recipe only, give me cups and ounces please",
                                  "just for this invoice, use the old address",
                                  "这一条用英文回答吧，我要直接贴给国外同事看"])
def test_for_this_one_only(line: str) -> None:
    assert one_time(line)


@pytest.mark.parametrize(("stored", "line"), [
    # a plan called off takes back a plan, not a habit or a taste that shares a word
    ("I prefer meetings in the afternoon", "my 3pm meeting got cancelled"),
    ("I go to the gym every morning", "the gym class got cancelled, ugh"),
    # nor someone else's plan
    ("My husband is training for the Berlin marathon", "I've pulled out of the marathon"),
])
def test_a_plan_off_takes_back_only_a_plan_of_the_user(vault: Vault, stored: str,
                                                       line: str) -> None:
    mid = vault.remember(ME, stored).memory.id
    assert "forget" not in [a for a, _ in _tell(vault, line)]
    assert str(vault.get(ME, mid).status) == "active"

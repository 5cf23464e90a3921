"""Two mechanisms of the write path's semantic match (issue 18), on both backends:

- a replacement ("switched to…", "换成…") or a retraction that shares no word with its
  memory finds it by rank: the closest memory, clearly ahead of every other. A change so
  found is applied as that memory's next version (or, with `write.matching.apply_ranked:
  false`, staged against it, and approving applies it there); a retraction so found is
  always staged (forgetting the wrong memory is the costly mistake); a memory no closer
  than the rest is left alone;
- a thread: within one exchange, a later message that announces a change goes on with
  what an earlier message changed, so the final choice is what is stored; and a change
  that names only the new thing updates what the thread before it named, unless that
  line stated a memory of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memvault import Scope, Vault
from memvault.config import Strategy
from memvault.understand.relate import Match, Relation, Thresholds, relate

ME = Scope("acme", "carol")
OTHER_EN = ["I keep bees in the garden", "I go climbing on Sundays", "My sister lives in Oslo"]
OTHER_ZH = ["我养了一只鹦鹉", "我周末喜欢爬山", "我妹妹在杭州读书"]


def observe(vault: Vault, *lines: str) -> Any:
    return vault.observe(ME, [{"role": "user", "content": t} for t in lines])


def stored(vault: Vault, text: str) -> str:
    (o,) = [o for o in observe(vault, text).outcomes if o.action == "added"]
    assert o.memory_id is not None
    return o.memory_id


def live(vault: Vault) -> list[Any]:
    return [m for m in vault.list(ME, status="active", limit=100) if m.kind != "turn"]


# (the memory meant, the new line, the other memories of the user): clearly the closest,
# less than `match` close in meaning
BY_RANK = [
    ("I bank with Lloyds", "moved my savings over to a Revolut account", OTHER_EN),
    ("我平时用支付宝付钱", "现在改用微信了", OTHER_ZH),
]
RETRACT_BY_RANK = ("我每天晚上吃一片褪黑素", "睡眠那条删了吧", OTHER_ZH)


def staging_ranked(make_vault: Callable[..., Vault]) -> Vault:
    # (by_topic off: whether the drink is alcohol is a topic class, which names the memory
    # without a rank)
    return make_vault(strategy=Strategy.model_validate(
        {"write": {"matching": {"apply_ranked": False, "by_topic": False}}}))


# The memory found by rank alone: a bank and a payment app are topic classes
# (topicscore.py), which name the memory without a guess (test_topic_match.py).
BY_RANK_ONLY = {"write": {"matching": {"by_topic": False}}}


@pytest.mark.parametrize("meant, line, others", [*BY_RANK, RETRACT_BY_RANK],
                         ids=[r[1][:20] for r in [*BY_RANK, RETRACT_BY_RANK]])
def test_a_guess_by_rank_that_is_not_plainly_close_is_staged_against_its_memory(
        make_vault: Callable[..., Vault], meant: str, line: str, others: list[str]) -> None:
    """"Revolut" / "I bank with Lloyds" (.31) is clearly the closest, but not plainly close
    (`match`): a person confirms; a retraction by rank always waits for one."""
    vault = make_vault(strategy=Strategy.model_validate(BY_RANK_ONLY))
    target = stored(vault, meant)
    rest = [stored(vault, t) for t in others]
    before = {m.id: (m.content, m.version) for m in live(vault)}
    (o,) = observe(vault, line).outcomes
    assert (o.action, o.reasons) == ("stage", ["ranked_target"])
    # Nothing changed unreviewed.
    assert {m.id: (m.content, m.version) for m in live(vault)} == before
    (staged,) = vault.review_list(ME)
    assert staged.metadata["review"]["target_id"] == target
    assert staged.metadata["review"]["links"] == [target]
    # Approving applies it to the memory it targets (its next version, or forgotten for a
    # retraction), never beside it; the others are untouched.
    vault.review_approve(ME, staged.id)
    now = vault.get(ME, target)
    if staged.metadata["review"].get("retract"):
        assert now.status == "deleted"
    else:
        assert now.status == "active" and now.version == 2 and now.content != meant
    assert all(vault.get(ME, i).version == 1 for i in rest)


@pytest.mark.parametrize("line, others", [
    ("switched to an iPhone 15 last week", OTHER_EN),
    ("我换了个新工作", OTHER_ZH),
])
def test_a_replacement_changes_no_memory_it_does_not_clearly_mean(
        vault: Vault, line: str, others: list[str]) -> None:
    ids = [stored(vault, t) for t in others]
    (o,) = observe(vault, line).outcomes
    assert o.action in ("added", "stage")
    assert all(vault.get(ME, i).version == 1 for i in ids)


@pytest.mark.parametrize("given, thread, final", [
    ("I listen to podcasts on Spotify",
     ["I'm not using Spotify for podcasts any more", "switched to Pocket Casts"],
     "pocket casts"),
    ("我的文件都存在百度网盘", ["我不再用百度网盘了", "换成阿里云盘了"], "阿里云盘"),
])
def test_in_a_thread_the_final_choice_wins(vault: Vault, given: str, thread: list[str],
                                           final: str) -> None:
    mid = stored(vault, given)
    res = observe(vault, *thread)
    assert [o.action for o in res.outcomes] == ["updated", "updated"]
    assert {o.memory_id for o in res.outcomes} == {mid}
    (m,) = live(vault)  # one memory, at its final version, nothing beside it
    assert m.id == mid and m.version == 3 and final in m.content.casefold()


def test_rank_is_what_relate_reads_when_no_word_is_shared() -> None:
    """The pure decision: the closest memory, at least `floor` and ahead of the rest by
    `lead`, is the target; a change so found is applied (`sure`) unless the thresholds
    say to stage guesses, a retraction so found never is; no clear leader, no target."""
    ahead = [Match("a", "I bank with Lloyds", 0.31, 0.31), Match("b", "I keep bees", 0.2, 0.2)]
    level = [Match("a", "I bank with Lloyds", 0.31, 0.31), Match("b", "I keep bees", 0.29, 0.29)]
    r = relate("moved my savings over to Revolut", ahead)
    assert (r.relation, r.target_id, r.sure) == (Relation.UPDATE, "a", False)
    # plainly close (`match`) as well: applied, unless the thresholds stage every guess
    plain = [Match("a", "I bank with Lloyds", 0.45, 0.45), Match("b", "I keep bees", 0.2, 0.2)]
    r = relate("switched everything over to Revolut", plain)
    assert (r.relation, r.target_id, r.sure) == (Relation.UPDATE, "a", True)
    careful = Thresholds(apply_ranked=False)
    r = relate("switched everything over to Revolut", plain, thresholds=careful)
    assert (r.relation, r.target_id, r.sure) == (Relation.UPDATE, "a", False)
    # a word the memory names ("bank") is not a guess by rank
    r = relate("moved my banking over to Revolut", plain, thresholds=careful)
    assert (r.relation, r.target_id, r.sure) == (Relation.UPDATE, "a", True)
    # what it says it moves (savings) the memory does not name: a guess (changeobject.py)
    r = relate("moved my savings over to Revolut", plain)
    assert (r.relation, r.target_id, r.sure) == (Relation.UPDATE, "a", False)
    # what may hold changes nothing: a condition, a possibility
    assert relate("if Revolut gets a branch here I might move my savings", plain).relation \
        == Relation.NEW
    assert relate("要是明年工资涨了，我可能会搬去上海",
                  [Match("a", "我住在武汉", 0.5, 0.5)]).relation == Relation.NEW
    assert relate("moved my savings over to Revolut", level).relation == Relation.NEW
    # a time word alone ("now") says nothing is replaced
    assert relate("I'm on Revolut now", ahead).relation == Relation.NEW
    r = relate("睡眠那条删了吧", [Match("a", "我每天晚上吃一片褪黑素", 0.28, 0.28),
                              Match("b", "我养了一只鹦鹉", 0.13, 0.13)], retraction="睡眠")
    assert (r.relation, r.target_id, r.sure) == (Relation.FORGET, "a", False)
    zh = [Match("a", "我平时用支付宝付钱", 0.3, 0.3), Match("b", "我养了一只鹦鹉", 0.17, 0.17)]
    r = relate("现在改用微信了", zh)
    assert (r.relation, r.target_id, r.sure) == (Relation.UPDATE, "a", False)
    assert relate("我现在用微信", zh).relation == Relation.NEW  # no word of replacing
    # a memory that shares a word is not a guess
    r = relate("switched from Lloyds to Revolut", ahead, thresholds=careful)
    assert (r.relation, r.target_id, r.sure) == (Relation.UPDATE, "a", True)


@pytest.mark.parametrize("given, talk, change, new", [
    ("I keep my notes in Evernote",
     [{"role": "user", "content": "evernote keeps crashing on me, any alternatives?"},
      {"role": "assistant", "content": "Obsidian, Notion and Bear are popular."}],
     "went with Obsidian, everything's in there now", "obsidian"),
    ("我记账用随手记", [{"role": "user", "content": "随手记广告太多了"}],
     "卸了 换成鲨鱼记账了", "鲨鱼"),
])
def test_a_change_after_a_thread_changes_the_memory_the_thread_named(
        vault: Vault, given: str, talk: list[dict[str, str]], change: str,
        new: str) -> None:
    mid = stored(vault, given)
    vault.observe(ME, talk)
    (o,) = observe(vault, change).outcomes
    assert (o.action, o.memory_id) == ("updated", mid)
    (m,) = live(vault)
    assert m.id == mid and m.version == 2 and new in m.content.casefold()


def test_a_line_that_stated_its_own_memory_names_nothing_for_the_next(vault: Vault) -> None:
    piano = stored(vault, "I play the piano")
    (o,) = observe(vault, "ok I signed up for cello lessons, first one is next week").outcomes
    assert o.memory_id != piano
    assert vault.get(ME, piano).version == 1


@pytest.mark.parametrize("given, change, value", [
    # stored as a rewrite that lost "rent": the words it was said in still name it
    ("My rent budget is about 900 pounds a month", "I can stretch to 1100 a month on rent now",
     "1100"),
    ("我的房租预算是每月3000元", "房租现在最多可以到4000了", "4000"),
])
def test_a_change_finds_a_memory_by_the_words_it_was_said_in(
        vault: Vault, given: str, change: str, value: str) -> None:
    mid = stored(vault, given)
    assert vault.get(ME, mid).content != given  # the slot's rewrite
    (o,) = observe(vault, change).outcomes
    assert (o.action, o.memory_id) == ("updated", mid)
    (m,) = live(vault)
    assert m.id == mid and m.version == 2 and value in m.content


def test_what_stays_does_not_make_a_replacement_a_restatement() -> None:
    """"still" says what stays; with an explicit replacement the statement is a change."""
    old = [Match("a", "I cycle to work four days a week", 0.62, 0.55)]
    changed = "my bike got stolen so I take the bus instead now, still four days a week"
    assert relate(changed, old).relation == Relation.UPDATE
    assert relate("I still cycle to work four days a week", old).relation == Relation.SAME
    zh = [Match("a", "我每周游泳两次", 0.6, 0.56)]
    assert relate("膝盖好了，改成跑步了，还是每周两次", zh).relation == Relation.UPDATE
    assert relate("我还是每周游泳两次", zh).relation == Relation.SAME


@pytest.mark.parametrize("given, change, word", [
    ("I don't drink alcohol", "I've started having a glass of wine with dinner these days",
     "wine"),
    ("我不喝咖啡", "最近开始每天早上喝一杯拿铁了", "拿铁"),
])
def test_a_time_word_changes_the_one_memory_plainly_close(
        vault: Vault, given: str, change: str, word: str) -> None:
    mid = stored(vault, given)
    rest = [stored(vault, t) for t in (OTHER_ZH if word == "拿铁" else OTHER_EN)]
    (o,) = observe(vault, change).outcomes
    assert (o.action, o.memory_id) == ("updated", mid)
    assert word in vault.get(ME, mid).content
    assert all(vault.get(ME, i).version == 1 for i in rest)


def test_with_apply_ranked_off_a_guess_that_would_apply_is_staged(
        make_vault: Callable[..., Vault]) -> None:
    vault = staging_ranked(make_vault)
    mid = stored(vault, "I don't drink alcohol")
    (o,) = observe(vault, "I've started having a glass of wine with dinner these days").outcomes
    assert (o.action, o.reasons) == ("stage", ["ranked_target"])
    assert vault.get(ME, mid).version == 1
    (staged,) = vault.review_list(ME)
    assert staged.metadata["review"]["target_id"] == mid


def test_a_time_word_needs_more_closeness_than_a_replacement_and_no_word_of_keeping() -> None:
    """A time word says less than "switched": the memory must be `match` close, ahead of
    the rest; "keep it on…" keeps, "新开了张卡" adds one more of the kind."""
    digest = [Match("a", "I want my weekly report on Mondays", 0.45, 0.45),
              Match("b", "I keep bees", 0.1, 0.1)]
    r = relate("I get it on Tuesdays now", digest)
    assert (r.relation, r.target_id) == (Relation.UPDATE, "a")
    assert relate("I get it on Tuesdays now", digest,
                  thresholds=Thresholds(apply_ranked=False)).sure is False
    assert relate("nah, keep it on Mondays actually", digest).relation != Relation.UPDATE
    gym = [Match("a", "I'd like my news briefing at 7am", 0.27, 0.27)]
    assert relate("I've started going to the gym first thing", gym).relation == Relation.NEW
    cards = [Match("a", "我的信用卡是招行的", 0.5, 0.5)]
    assert relate("我在中信新开了张卡，以后网购用这张", cards).relation == Relation.NEW
    assert relate("以后网购用中信的卡", cards).relation == Relation.UPDATE


@pytest.mark.parametrize("line, says", [
    ("ditched my old bank for a credit union", True),
    ("I'm back on black tea after a month of coffee", True),
    ("sold the motorbike, walking everywhere now", True),
    ("摩托车卖了，现在都走路", True),
    ("I dropped by the bakery", False),  # "dropped by" is a visit
    ("I'm back from Lisbon", False),
    ("I sold out of lemonade at the fair", False),
])
def test_words_of_replacing_include_leaving_and_returning(line: str, says: bool) -> None:
    from memvault.understand.discourse import replaces
    assert replaces(line) is says


DAY = 86_400_000


@pytest.mark.parametrize("lines, last", [
    (["I'm really into Korean food", "now I'm into Thai food",
      "honestly Vietnamese dishes are my obsession lately"], "vietnamese"),
    (["我喜欢吃韩餐", "现在迷上泰餐了", "其实越南菜才是我最近的心头好"], "越南菜"),
])
def test_a_change_goes_on_changing_what_was_changed_last_when_it_is_also_the_closest(
        clocked_vault: Vault, clock: Any, lines: list[str], last: str) -> None:
    outs = []
    for line in lines:
        clock.advance(DAY)
        outs += observe(clocked_vault, line).outcomes
    (m,) = live(clocked_vault)  # one memory, at its third version
    assert m.version == 3 and last in m.content.casefold()
    assert [o.action for o in outs] == ["added", "updated", "updated"]


def test_what_was_changed_last_is_not_taken_by_a_change_about_something_else(
        clocked_vault: Vault, clock: Any) -> None:
    for line in ["我喜欢吃韩餐", "我的车是丰田", "现在迷上泰餐了"]:
        clock.advance(DAY)
        observe(clocked_vault, line)
    food = next(m for m in live(clocked_vault) if "泰餐" in m.content)
    clock.advance(DAY)
    observe(clocked_vault, "其实最近更喜欢开电动车")
    assert clocked_vault.get(ME, food.id).version == 2


@pytest.mark.parametrize("line, may", [
    ("If the iPhone gets cheaper I might switch to it", True),
    ("如果华为出新款，我就换华为", True),
    ("thinking of moving to Leeds", True),
    # a polite frame or a frequency is not a condition
    ("I would like replies in French from now on", False),
    ("if possible, reply in French from now on", False),
    ("I swim once a week now", False),
    ("如果可以的话以后用英文回复", False),
    ("如果方便，以后周一发", False),
])
def test_what_may_hold_is_a_condition_or_a_possibility_not_a_polite_frame(
        line: str, may: bool) -> None:
    from memvault.understand.discourse import supposes
    assert supposes(line) is may


# (the memory, a change staged against it by rank, a later change that names the staged
# change's new thing, a word of the final value)
GOES_ON = [
    ("I bank with Lloyds", "moved my savings over to a Revolut account",
     "Revolut froze my card twice, so everything sits at Monzo now", "monzo"),
    ("我平时用支付宝付钱", "现在改用微信了", "微信老是限额，后来又换成云闪付了", "云闪付"),
]
DAY = 86_400_000


@pytest.mark.parametrize("meant, first, then, final", GOES_ON, ids=["en", "zh"])
def test_a_change_that_goes_on_from_a_staged_one_changes_its_memory(
        make_vault: Callable[..., Vault], clock: Any, meant: str, first: str, then: str,
        final: str) -> None:
    """The second line names what the staged change moved to: the thread is about the
    memory that change was staged against, so the final choice is applied there (the
    user tied it in their own words, even where guesses by rank are staged) and the
    staged change, now out of date, is rejected with the reason."""
    vault = make_vault(clock=clock, strategy=Strategy.model_validate(
        {"write": {"matching": {"apply_ranked": False, "by_topic": False}}}))
    target = stored(vault, meant)
    rest = [stored(vault, t) for t in (OTHER_EN if meant.isascii() else OTHER_ZH)]
    clock.advance(DAY)
    (o,) = observe(vault, first).outcomes
    assert (o.action, o.reasons) == ("stage", ["ranked_target"])
    staged = o.memory_id
    clock.advance(DAY)
    (o,) = observe(vault, then).outcomes
    assert (o.action, o.memory_id) == ("updated", target)
    m = vault.get(ME, target)
    assert m.version == 2 and final in m.content.casefold()
    assert vault.review_list(ME) == []
    gone = vault.get(ME, staged)
    assert gone.status == "rejected"
    (last,) = [r for r in vault.history(ME, staged) if r.to_version == gone.version]
    assert f"{target} changed again" in (last.reason or "")
    assert all(vault.get(ME, i).version == 1 for i in rest)


def test_a_staged_change_is_gone_on_from_only_by_a_line_naming_its_new_thing_in_time(
        make_vault: Callable[..., Vault], clock: Any) -> None:
    vault = make_vault(clock=clock, strategy=Strategy.model_validate(
        {"write": {"matching": {"apply_ranked": False, "by_topic": False}}}))
    target = stored(vault, "I bank with Lloyds")
    climbing = stored(vault, "I go climbing on Sundays")
    for t in OTHER_EN[:1] + OTHER_EN[2:]:
        stored(vault, t)
    (o,) = observe(vault, "moved my savings over to a Revolut account").outcomes
    assert o.action == "stage"
    # A change about something else takes neither the staged change nor its memory.
    clock.advance(DAY)
    observe(vault, "switched my climbing to Saturdays")
    assert vault.get(ME, climbing).version == 2
    assert vault.get(ME, target).version == 1
    assert [p.id for p in vault.review_list(ME)] == [o.memory_id]
    # Four days on, the staged change is no longer the thread's.
    clock.advance(4 * DAY)
    observe(vault, "Revolut froze my card twice, so everything sits at Monzo now")
    assert vault.get(ME, target).version == 1
    assert o.memory_id in [p.id for p in vault.review_list(ME)]

"""Two mechanisms of the write path's semantic match (issue 18), on both backends:

- a replacement ("switched to…", "换成…") or a retraction that shares no word with its
  memory finds it by rank: the closest memory, clearly ahead of every other. Rank alone
  is a guess, so the change is staged against that memory (approve applies it as the
  memory's next version), never applied unreviewed, and a memory no closer than the rest
  is left alone;
- a thread: within one exchange, a later message that announces a change goes on with
  what an earlier message changed, so the final choice is what is stored; and a change
  that names only the new thing updates what the thread before it named, unless that
  line stated a memory of its own.
"""

from __future__ import annotations

from typing import Any

import pytest

from memvault import Scope, Vault
from memvault.understand.relate import Match, Relation, relate

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


# (the memory meant, the new line, the reason the gate stages it)
BY_RANK = [
    ("I bank with Lloyds", "moved my savings over to a Revolut account", OTHER_EN),
    ("我平时用支付宝付钱", "现在改用微信了", OTHER_ZH),
    ("我每天晚上吃一片褪黑素", "睡眠那条删了吧", OTHER_ZH),
]


@pytest.mark.parametrize("meant, line, others", BY_RANK, ids=[r[1][:20] for r in BY_RANK])
def test_a_change_that_shares_no_word_is_staged_against_the_closest_memory(
        vault: Vault, meant: str, line: str, others: list[str]) -> None:
    target = stored(vault, meant)
    rest = [stored(vault, t) for t in others]
    before = {m.id: (m.content, m.version) for m in live(vault)}
    (o,) = observe(vault, line).outcomes
    assert (o.action, o.reasons) == ("stage", ["ranked_target"])
    # Nothing changed unreviewed: a guess is never a silent overwrite.
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
    ("switched to an iPhone 15 last week", ["My phone is a Pixel 7", *OTHER_EN]),
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
    `lead`, is the target, marked as a guess (`sure` False); no clear leader, no target."""
    ahead = [Match("a", "I bank with Lloyds", 0.31, 0.31), Match("b", "I keep bees", 0.2, 0.2)]
    level = [Match("a", "I bank with Lloyds", 0.31, 0.31), Match("b", "I keep bees", 0.29, 0.29)]
    r = relate("moved my savings over to Revolut", ahead)
    assert (r.relation, r.target_id, r.sure) == (Relation.UPDATE, "a", False)
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
    r = relate("switched from Lloyds to Revolut", ahead)
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

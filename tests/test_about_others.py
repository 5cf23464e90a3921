"""Remarks about a friend, a colleague, a boss or a neighbour are not the user's memories
(extract/others.py; issue 18, found on the generalisation set's development half, tested
here in wording of its own), on both backends. Before, "my coworker only drinks green
tea" was stored as a standing fact beside the user's own, and "我们主管开会从来不带电脑"
was read as the user's own habit. The turn keeps what was said: recall still finds it.
Family, who someone is, what someone requires of the user, and what the user asks to be
kept are memories as before.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.extract import Message
from memvault.extract.others import kept_about, theirs_after
from memvault.extract.rules import RuleExtractor

ME = Scope("acme", "lin")


def _memories(vault: Vault) -> list[str]:
    return [m.content for m in vault.list(ME, limit=50) if m.kind != "turn"]


def _kept(line: str) -> list[str]:
    return [c.content for c in RuleExtractor().extract([Message("user", line, id="m1")])]


@pytest.mark.parametrize("line", [
    "my coworker only drinks green tea, no idea how he survives",
    "my neighbour mows his lawn at 7am every sunday, unbelievable",
    "my flatmate hoards takeaway menus like they're treasure",
    "我们主管开会从来不带电脑，全靠脑子记",
    "我好朋友每年都去一次冰岛看极光",
    "昨晚聚餐 我们经理一个人喝了两瓶红酒",
    # (an audit: a coach's ways were the user's; a neighbour's plan was kept for its 要)
    "my personal trainer lives on protein shakes",
    "我邻居说他下个月要去云南",
])
def test_someone_elses_ways_are_not_stored(vault: Vault, line: str) -> None:
    out = vault.observe(ME, [{"role": "user", "content": line}])
    assert [o.action for o in out.outcomes] == []
    assert _memories(vault) == []
    turns = [m for m in vault.list(ME, limit=50) if m.kind == "turn"]
    assert [t.content for t in turns] == [line]  # the conversation record keeps it


def test_the_turn_is_still_found_by_recall(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "my coworker only drinks green tea"}])
    hits = vault.recall(ME, "what does my coworker drink?")
    assert hits and "green tea" in hits[0].memory.content


@pytest.mark.parametrize("line, word", [
    ("my son only eats pasta these days", "pasta"),                  # family
    ("我妈对芒果过敏", "芒果"),
    ("my manager is Priya Shah", "Priya"),                            # who someone is
    ("我们组长叫老周", "老周"),
    ("my landlord wants the rent by the 1st of every month", "rent"),  # required of me
    ("客户以后周报都要 Excel 版", "Excel"),
    ("my friend Omar is vegan, remember that when I plan the dinner", "vegan"),  # asked
    ("我朋友阿杰不吃辣，下次订餐帮我记着", "不吃辣"),
    ("my boss drives me to the station on fridays", "station"),       # about me too
    ("李老师说周五的家长会改到周六了", "周六"),                          # an arrangement moved
])
def test_family_names_requirements_and_what_is_asked_are_kept(line: str, word: str) -> None:
    assert any(word in c for c in _kept(line))


def test_the_users_own_clause_is_kept_beside_a_colleagues() -> None:
    assert _kept("我同事都用 Windows，但我自己更喜欢 Mac") == ["我自己更喜欢 Mac"]


@pytest.mark.parametrize("line, mine", [
    # (an audit: the colleague's habit was kept inside the user's preference)
    ("I prefer green tea; my flatmate only drinks cola", "I prefer green tea"),
    ("I love ramen but my manager can't stand it", "I love ramen"),
    ("我喝燕麦奶，我同事只喝全脂的", "我喝燕麦奶"),
    ("周末去爬山 我朋友也去", "周末去爬山"),   # a clause of the user's, not a time said first
])
def test_a_colleagues_clause_after_the_users_is_left_out(line: str, mine: str) -> None:
    assert _kept(line) == [mine]


@pytest.mark.parametrize("body, who, end, kept", [
    ("my friend hates cats", "friend", 9, False),
    ("my sister hates cats", "sister", 9, True),
    ("she hates cats", "she", 3, True),          # a pronoun may be family
    ("老王天天迟到", "老王", 2, False),            # a surname and 老: a person, not kin
    ("老公天天加班", "老公", 2, True),
    ("王经理喜欢喝茶", "王经理", 3, False),
    # only the frame of what they say: what they say follows, a quotation
    ("我奶奶总念叨", "奶奶", 3, False),
    ("my grandpa always says", "grandpa", 10, False),
    ("我奶奶总念叨我太瘦", "奶奶", 3, True),
])
def test_whom_a_statement_is_about(body: str, who: str, end: int, kept: bool) -> None:
    assert kept_about(body, who, end) is kept


@pytest.mark.parametrize("body, cut", [
    ("I prefer tea; my colleague only drinks espresso", 12),
    ("I drink tea, my wife prefers coffee", None),   # family: kept as before
    ("I drink tea, my boss wants me to try matcha", None),   # bears on the user
    ("I drink tea", None),
])
def test_where_someone_elses_clause_starts(body: str, cut: int | None) -> None:
    assert theirs_after(body) == cut


@pytest.mark.parametrize("line", [
    "我爸在家族群里转了这篇，你帮我看看靠不靠谱：“每天喝醋能软化血管”",
    "my aunt shared this on facebook, is it legit? 'lemon water cures colds'",
    "my brother just sent me this, what do you think",
])
def test_family_passing_on_the_thing_at_hand_is_no_memory(line: str) -> None:
    # (found when a probe's "我妈在家族群里发了这个…" was stored as a fact about the family)
    assert _kept(line) == []


@pytest.mark.parametrize("line, word", [
    ("我爸转了好几次岗，现在在物流公司", "物流"),
    ("my mum sends me a recipe every sunday", "recipe"),
])
def test_what_family_do_with_things_of_their_own_is_still_kept(line: str, word: str) -> None:
    assert any(word in c for c in _kept(line))


def test_the_frame_of_a_relatives_quotation_is_not_their_memory() -> None:
    line = "我奶奶总念叨“饭后百步走，活到九十九” 这话有科学依据吗"
    assert RuleExtractor().extract([Message("user", line, id="m1")]) == []

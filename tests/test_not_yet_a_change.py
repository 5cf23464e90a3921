"""Lines about a thing that change none of the user's memories (issue 18, classes found by
two blind audits, tested here in wording of their own), on both backends. Before, each
overwrote the memory it was close to with the line itself:

- a take-back asked politely ("you can drop the thing about my ex") was read as a change;
- a wish or a search is not a choice: "老婆说想跳槽去阿里" replaced "我老婆在腾讯上班",
  "最近在看上海的房子" replaced where the user works;
- how a thing is doing is not what the user has: "work's been insane lately" replaced
  "I work as a nurse", "my iphone battery dies so fast lately" the phone.
"""

from __future__ import annotations

import pytest
from _util import changed, statements

from memvault import Scope, Vault

ME = Scope("acme", "ren")


def _say(vault: Vault, *lines: str) -> None:
    for line in lines:
        vault.observe(ME, [{"role": "user", "content": line}])


@pytest.mark.parametrize(("given", "line"), [
    ("I'm still close with my old flatmate Dan", "you could drop the bit about my old flatmate"),
    ("我以前的室友叫阿杰", "你可以把关于我以前室友的那条删了"),
    ("I'm learning the cello", "feel free to scrap what I said about the cello, gave up"),
])
def test_a_polite_take_back_forgets(vault: Vault, given: str, line: str) -> None:
    _say(vault, given)
    (mid,) = statements(vault, ME)
    _say(vault, line)
    after = statements(vault, ME)
    assert mid not in after or after[mid].status != "active"
    assert not [m for m in after.values() if m.status == "active"]


@pytest.mark.parametrize(("given", "line"), [
    # a wish, the user's or someone else's
    ("我老公在华为上班", "老公说想辞职去创业 我有点慌"),
    ("My wife works at the council", "my wife says she wants to quit and go freelance"),
    # a search is not a choice
    ("I live in Bath", "been looking at flats in Bristol, prices are wild"),
    ("我住在南京", "最近在看苏州的房子 还没定"),
    ("I bank with Barclays", "shopping around for a new bank, barclays keeps blocking my card"),
])
def test_a_wish_or_a_search_changes_nothing(vault: Vault, given: str, line: str) -> None:
    _say(vault, given)
    before = statements(vault, ME)
    _say(vault, line)
    assert changed(before, statements(vault, ME)) == []


@pytest.mark.parametrize(("given", "line"), [
    ("I work as a paramedic", "work has been absolutely brutal lately"),
    ("My laptop is a MacBook Air", "ugh my macbook keyboard keeps sticking lately"),
    ("I watch films on Netflix", "netflix put their prices up again smh"),
    ("我用印象笔记记东西", "印象笔记最近又涨价了 无语"),
    ("我在公司附近的健身房练", "健身房最近人超多 器械都要排队"),
])
def test_how_a_thing_is_doing_changes_nothing(vault: Vault, given: str, line: str) -> None:
    _say(vault, given)
    before = statements(vault, ME)
    _say(vault, line)
    assert changed(before, statements(vault, ME)) == []


@pytest.mark.parametrize(("given", "line", "word"), [
    # what a change of the user's own says still changes
    ("I work as a paramedic", "left the ambulance service, I'm a nurse now", "nurse"),
    ("My laptop is a MacBook Air", "the macbook died, I'm on a ThinkPad now", "thinkpad"),
    ("我住在南京", "看了半年房 终于搬到苏州了", "苏州"),
    # news that ends the thing is news of the user's having it
    ("I train at the PureGym on Dale Street", "ugh the puregym on dale street closed down lately",
     "puregym"),
    ("My laptop is a MacBook Air", "my macbook died lately rip", "macbook"),
])
def test_a_change_still_changes(vault: Vault, given: str, line: str, word: str) -> None:
    _say(vault, given)
    (mid,) = statements(vault, ME)
    _say(vault, line)
    after = statements(vault, ME)
    assert after[mid].version == 2 and word in after[mid].content.casefold()

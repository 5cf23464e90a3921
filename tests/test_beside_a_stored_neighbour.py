"""Lines that must change none of several stored memories (issue 18, found on the eleventh
generalisation set's development half, tested here in wording of its own), on both
backends. Before, "Priya from my team has started…" was the user's own change (a person
named by where the user knows them from was not someone else), "if a Waitrose ever opens
nearby I'm done with Lidl" was stored as the user's standing fact (a day that may never
come was no condition), "你说我要是…" was kept as the user's plan, and a forwarded
article's title was the user's statement.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.extract import Message
from memvault.extract.rules import RuleExtractor

ME = Scope("acme", "lin")


def _kept(line: str) -> list[str]:
    return [c.content for c in RuleExtractor().extract([Message("user", line, id="m1")])]


def _active(vault: Vault) -> list[str]:
    return sorted(m.content for m in vault.list(ME, limit=50)
                  if m.kind != "turn" and m.status == "active")


@pytest.mark.parametrize(("given", "line"), [
    (["I take the 8:05 bus to the office", "I usually finish at 5"],
     "Marco from work has started taking the 7:50 because of his gym class"),
    (["I live in Bristol", "I work in Bath"],
     "Hannah from my book club just moved to Cardiff, gutted"),
])
def test_a_person_named_by_where_the_user_knows_them_changes_nothing(
        vault: Vault, given: list[str], line: str) -> None:
    for g in given:
        vault.observe(ME, [{"role": "user", "content": g}])
    before = _active(vault)
    assert len(before) == len(given)
    out = vault.observe(ME, [{"role": "user", "content": line}])
    assert [o.action for o in out.outcomes if o.action != "noop"] == []
    assert _active(vault) == before


@pytest.mark.parametrize("line", [
    "if a Waitrose ever opens nearby I'm done with Lidl, not holding my breath",
    "if they ever bring back the night bus I'm selling the car",
    "你说我要是换到城东那边上班，通勤能省多久？",
    "我妈在家族群转了篇文章，标题叫《喝绿茶能降血压》，我都不想说了",
    # (a blind audit: a Chinese condition with what would follow kept only the latter)
    "要是哪天升职了，我就换辆车",
    "万一哪天被裁了，我就回老家种地",
    "我们组的小周最近改喝美式了",
])
def test_a_condition_or_a_forwarded_title_is_not_kept(line: str) -> None:
    assert _kept(line) == []


@pytest.mark.parametrize(("line", "word"), [
    ("if you ever need to reach me, text my mobile", "mobile"),   # a standing request
    ("If I ever ask you for a recipe, always give the amounts in grams", "grams"),
    ("如果你哪天联系不上我，就打我老婆的电话", "老婆"),
    ("Priya from my team is my mentor", "mentor"),                 # who someone is to me
    ("Marco from work has started taking the 7:50 because of his gym class", None),
    ("I moved from my parents' place to a flat in Leeds", "Leeds"),
])
def test_look_alikes(line: str, word: str | None) -> None:
    kept = _kept(line)
    if word is None:
        assert kept == []
    else:
        assert any(word in k for k in kept), kept

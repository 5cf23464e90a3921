""""Moved to X" names a home only when X is a place (placevalue.py): "moved to Dropbox"
is an app the user switched to, and "The user lives in Dropbox" was stored before, in
the location slot, where it replaced the real home. Wording of its own, not from the
place lists of benchmarks/places."""

from __future__ import annotations

import pytest

from memvault import Scope
from memvault.embed import load_embedder
from memvault.extract import as_messages
from memvault.extract.rules import RuleExtractor
from memvault.placevalue import PlaceJudge


def _live(vault, scope):
    return [m for m in vault.list(scope) if m.status == "active" and m.kind != "turn"]


@pytest.mark.parametrize("line,word", [
    ("I've moved to Dropbox for all my work files", "dropbox"),
    ("moved to YNAB for budgeting last month", "ynab"),
    ("我上周搬到石墨文档了，协作方便多了", "石墨文档"),
    # the name alone may sound like a town; the line is about a bank, a code editor
    ("moved to Monzo, way better app than my old bank", "monzo"),
    ("I moved to Zed, it's a much faster code editor", "zed"),
])
def test_a_thing_moved_to_is_not_a_home(vault, line, word):
    scope = Scope("t", "u1")
    vault.observe(scope, [{"role": "user", "content": line}])
    live = _live(vault, scope)
    assert [m.slot for m in live] == [None]
    assert word in live[0].content.casefold()


@pytest.mark.parametrize("line,home", [
    ("I moved to Leipzig last month", "Leipzig"),
    ("we relocated to Utrecht in March", "Utrecht"),
    ("我上个月搬到苏州了", "苏州"),
])
def test_a_place_moved_to_is_still_the_home(vault, line, home):
    scope = Scope("t", "u1")
    vault.observe(scope, [{"role": "user", "content": line}])
    assert [(m.slot, m.value) for m in _live(vault, scope)] == [("user.location", home)]


def test_moving_to_an_app_leaves_the_stored_home_alone(vault):
    scope = Scope("t", "u1")
    vault.observe(scope, [{"role": "user", "content": "I live in Valencia"}])
    home = next(m for m in _live(vault, scope) if m.slot == "user.location")
    vault.observe(scope, [{"role": "user", "content": "I moved to Dropbox for my photos"}])
    after = vault.get(scope, home.id)
    assert (after.version, after.value, after.status) == (1, "Valencia", "active")


def test_a_time_phrase_ends_the_place():
    out = RuleExtractor().extract(as_messages(
        [{"role": "user", "content": "I moved to Stockport full time after the lease ended"}]))
    assert [(c.slot, c.value) for c in out] == [("user.location", "Stockport")]


def test_the_rules_ask_the_judge_only_of_a_place_value():
    asked: list[str] = []

    def judge(value: str, said: str) -> bool:
        asked.append(value)
        return False

    said = as_messages([{"role": "user",
                         "content": "I moved to Kyoto. Please reply in English from now on"}])
    judged = RuleExtractor(place=judge).extract(said)
    plain = RuleExtractor().extract(said)
    assert asked == ["Kyoto"]
    assert [c.slot for c in plain] == ["user.location", "reply.language"]
    assert "user.location" not in [c.slot for c in judged]
    assert "reply.language" in [c.slot for c in judged]


def test_an_embedder_without_a_measured_margin_keeps_every_value_a_place():
    emb = load_embedder("use-m3")
    judge = PlaceJudge(emb)
    assert not judge("YNAB") and judge("Kyoto")
    judge.margin = None  # what an embedder no margin was measured for gets
    assert judge("YNAB") and judge("Kyoto")


def test_a_town_clearly_named_stays_the_home_whatever_else_the_line_talks_about(vault):
    scope = Scope("t", "u1")
    line = "we moved to Valencia, my bank doesn't even have branches here"
    vault.observe(scope, [{"role": "user", "content": line}])
    assert [(m.slot, m.value) for m in _live(vault, scope) if m.slot] == [
        ("user.location", "Valencia")]

"""A line that plays a scene or speaks in a figure changes nothing stored (issue 18, found
by a blind audit, tested here in wording of its own). Before, "pretend I just moved to
Oslo" replaced where the user lives with Oslo, and "I practically live at the gym these
days" replaced the home with the line itself, dropping its slot.
"""

from __future__ import annotations

import pytest
from _util import changed, statements

from memvault import Scope, Vault

ME = Scope("acme", "ines")


def _say(vault: Vault, *lines: str) -> None:
    for line in lines:
        vault.observe(ME, [{"role": "user", "content": line}])


@pytest.mark.parametrize(("given", "line"), [
    # a game or a scene
    ("I live in Leeds",
     "let's play a game: pretend I just moved to Oslo and you're my guide, where should I eat?"),
    ("我住在西安", "角色扮演一下 假装我刚搬到成都 你是房产中介"),
    ("I work at a bakery", "roleplay time! I'm a new hire at a bank and you're my manager"),
    # a figure of speech about where the user "lives"
    ("I live in Bristol", "I practically live at the climbing gym these days lol"),
    ("我住在广州", "最近简直住在公司了 天天加班"),
])
def test_a_scene_or_a_figure_changes_nothing(vault: Vault, given: str, line: str) -> None:
    _say(vault, given)
    before = statements(vault, ME)
    _say(vault, line)
    after = statements(vault, ME)
    assert changed(before, after) == []
    assert [m.id for m in after.values() if m.status == "active"] == list(before)


def test_a_named_place_said_with_basically_is_still_a_move(vault: Vault) -> None:
    # the figure is a place that is not one ("the office", "the gym"); a city is a city
    _say(vault, "I live in Lisbon")
    (mid,) = statements(vault, ME)
    _say(vault, "I basically live in Madrid now, only back in Lisbon for weekends")
    after = statements(vault, ME)
    assert after[mid].version == 2 and "madrid" in after[mid].content.casefold()


def test_pretend_i_never_said_it_is_still_a_take_back(vault: Vault) -> None:
    _say(vault, "I'm training for the Berlin marathon")
    (mid,) = statements(vault, ME)
    _say(vault, "the marathon thing - pretend I never said it")
    assert statements(vault, ME)[mid].status == "deleted"

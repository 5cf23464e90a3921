"""Where the user lives, said by naming the home ("my flat is in Camden", "the keys to our
new place in Leeds", "officially a glasgow resident now") or in a Chinese clause of its
own after a space or a comma ("累瘫 现在住滨江了"), is the location slot, so it changes the
home it replaces (issue 18, found on the generalisation set's development half; tested
here in wording of its own), on both backends. Before, the first was a fact no later move
could find, the second and third stored nothing, and the fourth was a sentence beside the
old district.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.extract import Message
from memvault.extract.rules import RuleExtractor

ME = Scope("acme", "ana")


def _slots(line: str) -> list[tuple[str | None, object]]:
    return [(c.slot, c.value) for c in RuleExtractor().extract([Message("user", line, id="m")])]


@pytest.mark.parametrize("line, place", [
    ("My apartment is in Shoreditch", "Shoreditch"),
    ("just picked up the keys to our new flat in Harrogate!!", "Harrogate"),
    ("our new house in Bath is tiny but we love it", "Bath"),
    ("officially a bristol resident as of today 🎉", "bristol"),
    ("I'm a Dublin resident now", "Dublin"),
    ("搬完了 累死 现在住萧山了", "萧山"),
    ("终于安顿好了，现在住在江北", "江北"),
])
def test_the_home_named_is_where_the_user_lives(line: str, place: str) -> None:
    assert ("user.location", place) in _slots(line)


@pytest.mark.parametrize("line", [
    "my house is in a quiet street",          # no town
    "我妈 现在住杭州了",                        # someone else's home
    "老王 现在住杭州了",
    "our old place in Leeds had mould",         # not the new one
    "公司 搬到望京了",                           # something else said first
])
def test_not_the_users_home(line: str) -> None:
    assert all(slot != "user.location" for slot, _ in _slots(line))


@pytest.mark.parametrize("before, line, place", [
    ("My flat is in Camden", "got the keys today, living in Hackney now", "Hackney"),
    ("I live in York", "keys to our new place in Durham collected, boxes everywhere", "Durham"),
    ("我住在杭州西湖区", "搬完家了 累瘫 现在住滨江了", "滨江"),
])
def test_a_move_changes_the_home_it_replaces(vault: Vault, before: str, line: str,
                                             place: str) -> None:
    (o,) = vault.observe(ME, [{"role": "user", "content": before}]).outcomes
    vault.observe(ME, [{"role": "user", "content": line}])
    home = vault.get(ME, o.memory_id)
    assert home.status == "active" and home.version == 2 and place in home.content
    assert [m.id for m in vault.list(ME, limit=20)
            if m.kind != "turn" and m.slot == "user.location"] == [home.id]

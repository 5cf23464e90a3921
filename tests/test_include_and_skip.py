"""Asking for a thing to be put in is a stance for it, the opposite of asking for it to be
skipped (understand/stance.py; issue 18, found on the tenth generalisation set's
development half, tested here in wording of its own), on both backends. Before, "always
include X" took no stance, so "skip X" was added beside it and both stayed current.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.stance import polarity

ME = Scope("acme", "lin")


@pytest.mark.parametrize(("line", "sign"), [
    ("Always include sources at the end of your answers", 1),
    ("please add in a short summary on top", 1),
    ("skip the sources, I never click them", -1),
    ("leave out the summary", -1),
    ("I go to the gym on Mondays", 0),
])
def test_include_and_skip_take_opposite_stances(line: str, sign: int) -> None:
    assert polarity(line) == sign


def test_skipping_what_was_always_to_be_included_changes_it(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user",
                        "content": "Please always include sources at the end of your answers."}])
    (before,) = [m for m in vault.list(ME, limit=10) if m.kind != "turn"]
    vault.observe(ME, [{"role": "user",
                        "content": "skip the sources at the end of answers, I never click them"}])
    active = [m for m in vault.list(ME, limit=10) if m.kind != "turn" and m.status == "active"]
    assert [(m.id, m.version) for m in active] == [(before.id, 2)]
    assert "skip" in active[0].content.casefold()

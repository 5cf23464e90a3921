"""Asking for a thing to be switched off, left out or taken away is a stance against it, and
asking for it to be kept on one for it (issue 18, found on the eleventh generalisation
set's development half, tested here in wording of its own), on both backends. Before,
"kill the push notifications", "leave them out", "no spoilers please" and "keep alerts
on" took no stance, so a line against a stored preference for the same thing was no
change of it. The neighbouring memory stays.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.stance import polarity

ME = Scope("acme", "lin")


@pytest.mark.parametrize(("line", "sign"), [
    ("kill the sound alerts, they make me jump", -1),
    ("please turn off the read receipts", -1),
    ("the links at the bottom, leave them out?", -1),
    ("no recaps please, I was there", -1),
    ("the evening snack is gone, doctor's orders", -1),
    ("keep the sound alerts on", 1),
    ("please turn on the weekly recap", 1),
    ("I turned on my laptop and it crashed", 0),   # an event, no stance
])
def test_the_stance(line: str, sign: int) -> None:
    assert polarity(line) == sign


@pytest.mark.parametrize(("given", "line", "word"), [
    (["I like getting desktop notifications", "Send me a monthly summary"],
     "these popups are wrecking my focus, kill the desktop notifications pls", "notification"),
    (["I'm fine with film spoilers", "My favourite director is Agnès Varda"],
     "no film spoilers please, I like to be surprised", "spoiler"),
])
def test_a_line_against_a_stored_preference_changes_it(
        vault: Vault, given: list[str], line: str, word: str) -> None:
    for g in given:
        vault.observe(ME, [{"role": "user", "content": g}])
    mems = {m.id: m for m in vault.list(ME, limit=20) if m.kind != "turn"}
    vault.observe(ME, [{"role": "user", "content": line}])
    after = {m.id: m for m in vault.list(ME, limit=20) if m.kind != "turn"}
    changed = [i for i in mems if after[i].version > mems[i].version]
    assert len(changed) == 1 and word in mems[changed[0]].content.casefold()
    assert after[changed[0]].status == "active" and polarity(after[changed[0]].content) < 0
    assert not [m for i, m in after.items() if i not in mems and m.status == "active"]

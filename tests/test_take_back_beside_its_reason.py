"""A take-back that names nothing ("please drop that", "you can get rid of that one"), in a
message whose other sentences say which memory and why (issue 18, found on the tenth
generalisation set's development half, tested here in wording of its own), on both
backends. Before, a sentence of the same message that stated something of its own ("Biscuit
is my sister's") kept the take-back from reading what that sentence names; "get rid of"
and "I'd rather not get reminded of it" took nothing back.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.takeback import retraction

ME = Scope("acme", "lin")


def _say(vault: Vault, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": line}])


@pytest.mark.parametrize(("line", "back"), [
    ("you can get rid of that one", ""),
    ("just get rid of it", ""),
    ("I'd rather not get reminded of it", ""),
    ("I got rid of my old car last year", None),
    ("I'd rather not get reminded by email", None),
])
def test_what_takes_back(line: str, back: str | None) -> None:
    assert retraction(line) == back


@pytest.mark.parametrize(("before", "line", "gone"), [
    ("I have a dog called Biscuit.",
     "hang on, why do you think I own a dog?? Biscuit is my sister's, I only walk him. "
     "please drop that", "Biscuit"),
    ("I'm allergic to shellfish.",
     "turns out I was never allergic to shellfish, the test was wrong! you can get rid of "
     "that one", "shellfish"),
    ("I'm saving for a house deposit.",
     "please forget the house deposit thing. not happening any more and I'd rather not get "
     "reminded of it", "deposit"),
])
def test_a_take_back_beside_its_reason_forgets_the_memory(
        vault: Vault, before: str, line: str, gone: str) -> None:
    _say(vault, before)
    (mine,) = [m for m in vault.list(ME, limit=50) if m.kind != "turn"]
    assert gone in mine.content
    _say(vault, line)
    assert vault.get(ME, mine.id).status == "deleted"

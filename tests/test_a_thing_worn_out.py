"""A thing the user is worn out by turns a preference for it around (issue 18, found on the
generalisation set's development half, tested here in wording of its own), on both
backends. Before, "the recap at the end has gotten pretty old tbh" had no stance
("getting old" was not read as one) and, with a thing rather than the user as its
subject, was not kept at all: the preference for the recap stayed current.
"""

from __future__ import annotations

from _util import changed, statements

from memvault import Scope, Vault
from memvault.understand.stance import polarity

ME = Scope("acme", "ade")


def test_worn_out_is_a_stance_against() -> None:
    for line in ("the recap at the end has gotten pretty old tbh", "the gifs are wearing thin",
                 "the little jokes are a bit much lately"):
        assert polarity(line) < 0
    # getting old oneself is no stance on anything
    assert polarity("I'm getting old") == 0


def test_the_preference_turns_around(vault: Vault) -> None:
    for line in ("I like a short recap at the end of your answers", "I live in Lagos"):
        vault.observe(ME, [{"role": "user", "content": line}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content":
                        "the recap at the end has gotten pretty old tbh"}])
    after = statements(vault, ME)
    (moved,) = changed(before, after)
    assert "recap" in before[moved].content and "gotten pretty old" in after[moved].content


def test_nothing_it_turns_against_nothing_is_kept(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "I live in Lagos"}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content": "the traffic this week has gotten so old"}])
    after = statements(vault, ME)
    assert changed(before, after) == [] and list(after) == list(before)

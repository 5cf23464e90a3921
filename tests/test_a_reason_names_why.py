"""A reason or a time given after a change names why or when, not what changes (issue 18,
found with the generalisation set's development half among a user's other memories,
tested here in wording of its own), on both backends. Before, "switched to Portuguese
since we go to Brazil so often" changed the memory of a trip to Brazil rather than the
language the user learns: the shared "Brazil" lifted the trip above the language.
"""

from __future__ import annotations

from _util import changed, statements

from memvault import Scope, Vault
from memvault.understand.discourse import without_reasons

ME = Scope("acme", "ines")


def test_the_reason_is_left_out() -> None:
    assert without_reasons("switched to Japanese since we visit Japan every year") \
        == "switched to Japanese"
    assert without_reasons("I'm on Central time now, after the move to Chicago") \
        == "I'm on Central time now"
    assert without_reasons("改喝拿铁了，因为美式太伤胃") == "改喝拿铁了"
    # a reason said first is the line itself
    assert without_reasons("because of work I moved") == "because of work I moved"


def test_the_change_goes_to_what_it_changes(vault: Vault) -> None:
    for line in ("I'm going to Taiwan in June", "I'm learning Korean on Duolingo"):
        vault.observe(ME, [{"role": "user", "content": line}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content":
                        "korean was a slog, switched to Mandarin since we visit Taiwan "
                        "every year"}])
    after = statements(vault, ME)
    moved = changed(before, after)
    assert [before[i].content for i in moved] == ["I'm learning Korean on Duolingo"]

"""A change asked for as a question ("can you push the morning briefing to 8:15?",
"…, can the spending summary come saturday morning instead?") changes the standing memory
it matches and names a new value for; the reasons around it change nothing."""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.extract.cues import ASKS_A_CHANGE

ME = Scope("acme", "ana")


@pytest.mark.parametrize(("line", "asks"), [
    ("can you push the morning briefing to 8:15?", True),
    ("ugh sundays are awful, can the spending summary come saturday morning instead?", True),
    ("Could focus mode kick in at 8am instead?", True),
    ("could you please move the standup reminder to 9:50?", True),
    ("can you make it 20 minutes?", True),
    ("can you change the tone?", False),             # names nothing new
    ("could I get a refund instead?", False),        # the speaker's own ask
    ("can you explain how the digest works?", False),
    ("what if we moved it to Friday?", False),
])
def test_a_change_asked_for_names_what_to(line: str, asks: bool) -> None:
    assert (ASKS_A_CHANGE.search(line) is not None) is asks


def _active(vault: Vault) -> dict[str, tuple[int, str]]:
    return {m.id: (m.version, m.content) for m in vault.list(ME, status="active", limit=50)
            if m.kind != "turn"}


def test_the_asked_change_updates_its_memory_and_the_reason_no_other(vault: Vault) -> None:
    mid = vault.remember(ME, "Start my focus mode at 1pm every weekday").memory.id
    other = vault.remember(ME, "I'd like my morning news briefing at 7am").memory.id
    vault.observe(ME, [{"role": "user", "content":
                        "Could focus mode kick in at 8am instead? Early morning is the only "
                        "quiet time I get now."}])
    got = _active(vault)
    # The request is the new version; the reason after it, with only a time word, does
    # not go on to overwrite it, nor change the other memory it resembles ("morning").
    assert got[mid] == (2, "Focus mode kick in at 8am instead")
    assert got[other][0] == 1
    assert vault.history(ME, mid)[-1].trigger_text == "Could focus mode kick in at 8am instead"


def test_a_question_that_names_nothing_new_changes_nothing(vault: Vault) -> None:
    mid = vault.remember(ME, "Use a friendly tone with me").memory.id
    vault.observe(ME, [{"role": "user", "content": "can you change the tone?"}])
    assert _active(vault) == {mid: (1, "Use a friendly tone with me")}


def test_an_asked_change_that_matches_nothing_is_not_stored(vault: Vault) -> None:
    mid = vault.remember(ME, "I have two cats").memory.id
    vault.observe(ME, [{"role": "user", "content": "can you push the briefing to 8:15?"}])
    assert _active(vault) == {mid: (1, "I have two cats")}

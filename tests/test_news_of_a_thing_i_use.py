"""News of a thing the user uses is not news of the user (issue 18, found by a blind audit,
tested here in wording of its own), on both backends. Before, "spotify's shuffle has
gotten so bad lately" replaced "I listen to music on Spotify", and "美团的配送费又涨了"
replaced "我用美团点外卖": a time word or a word of change about a part of the thing read
as a change of the user's use of it.
"""

from __future__ import annotations

import pytest
from _util import changed, statements

from memvault import Scope, Vault

ME = Scope("acme", "lu")


@pytest.mark.parametrize(("given", "line"), [
    ("I watch films on Netflix", "netflix's prices have gone up again lately 🙄"),
    ("我用滴滴打车", "滴滴的价格最近又涨了 离谱"),
])
def test_the_use_holds(vault: Vault, given: str, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": given}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content": line}])
    assert changed(before, statements(vault, ME)) == []


@pytest.mark.parametrize(("given", "line", "word"), [
    # what the thing's own memory says it costs changes
    ("My gym membership costs 40 a month", "gym's putting the membership up to 45", "45"),
    # and a use given up is a change of it
    ("I watch films on Netflix", "netflix's gone, cancelled it last night", "netflix"),
])
def test_what_changes_still_changes(vault: Vault, given: str, line: str, word: str) -> None:
    vault.observe(ME, [{"role": "user", "content": given}])
    (mid,) = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content": line}])
    after = statements(vault, ME)
    assert after[mid].version == 2 and word in after[mid].content.casefold()

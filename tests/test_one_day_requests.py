"""A request for one day or one thing at hand sets no standing preference (extract/rules.py,
extract/cues.py ONE_DAY; issue 18, found on the tenth generalisation set's development
half, tested here in wording of its own), on both backends. Before, "Reply in Spanish
today." replaced a stored wish for English replies, and "今天别叫我老师了 叫我宝" the name
the user is called by. "From today on" still changes it, and a fact about the user said
beside such a request is still kept.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault

ME = Scope("acme", "lin")


def _say(vault: Vault, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": line}])


def _active(vault: Vault) -> dict[str, int]:
    return {m.content: m.version for m in vault.list(ME, limit=50)
            if m.kind != "turn" and m.status == "active"}


@pytest.mark.parametrize(("before", "line"), [
    ("I prefer replies in English", "Reply in Spanish today."),
    ("I prefer replies in English", "tonight just answer me in French, practising for a trip"),
    ("叫我老师就行", "今天别叫我老师了 叫我宝 心情不好想被哄哄"),
    ("以后都用中文回答我", "明天用英文回答我吧，要给老外看"),
    ("Email me when the build breaks", "text me the tracking number for this order, I'm out"),
])
def test_a_request_for_one_day_changes_no_standing_preference(
        vault: Vault, before: str, line: str) -> None:
    _say(vault, before)
    kept = _active(vault)
    assert len(kept) == 1
    _say(vault, line)
    assert _active(vault) == kept


@pytest.mark.parametrize(("before", "line", "word"), [
    ("I prefer replies in English", "from today on reply in Spanish", "Spanish"),
    ("叫我老师就行", "今天开始叫我阿哲", "阿哲"),
    # "this time" of one more attempt, not of one occasion
    ("I prefer replies in Spanish", "Reply in English, for real this time", "English"),
])
def test_from_that_day_on_is_a_change(vault: Vault, before: str, line: str, word: str) -> None:
    _say(vault, before)
    _say(vault, line)
    active = _active(vault)
    assert len(active) == 1 and word in next(iter(active)), active


def test_a_fact_beside_a_one_day_request_is_kept(vault: Vault) -> None:
    _say(vault, "Reply in Spanish today, I'm vegetarian btw")
    active = _active(vault)
    assert len(active) == 1 and "vegetarian" in next(iter(active)), active

"""Words that only count in the speaker's own clause, and words that say a thing is said
again (issue 18, found on the generalisation set's development half; tested here in
wording of its own), on both backends:

- "一直" says a thing is as it always was when the speaker says it of themselves ("我一直
  不吃肉"), not when something else keeps doing it ("快递一直不到", "闹钟一直响"): before,
  "推送以后别发了 闹钟一样一直响 烦死了" was read as a restatement and confirmed the very
  memory it turns down;
- "也" / "also" in a clause about someone else ("我老婆现在也用这个账号") says they do it too,
  not that the speaker adds one more thing: before, such a line was kept beside the
  memory it changes;
- "once more for the record", "repeating myself", "I've said this before": said again,
  so the memory is confirmed, not stored twice.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.discourse import adds, restating

ME = Scope("acme", "tao")


@pytest.mark.parametrize("line, again", [
    ("我一直不吃肉", True), ("这个一直没变", True), ("一直都是早上跑步", True),
    ("快递一直不到，烦", False), ("闹钟一直响", False), ("以后一直用深色模式", False),
    ("最近一直在用Notion", False),
])
def test_always_is_the_speakers_own(line: str, again: bool) -> None:
    assert restating(line) is again


@pytest.mark.parametrize("line, more", [
    ("我也养了一只猫", True), ("I also play the cello", True),
    ("别发英文了 我老婆现在也用这个账号", False),
    ("no more English, my wife also reads these", False),
])
def test_also_is_the_speakers_own(line: str, more: bool) -> None:
    assert adds(line) is more


@pytest.mark.parametrize("given, line, word", [
    ("我喜欢收到促销推送，经常看优惠", "促销推送以后别发了 闹钟一样一直响 烦死了", "别发"),
    ("我不介意你回复时用表情", "回复里别再用表情了 我老婆现在也用这个账号 她嫌幼稚", "别再用"),
])
def test_the_memory_turned_down_is_changed(vault: Vault, given: str, line: str,
                                           word: str) -> None:
    m = vault.remember(ME, given).memory
    vault.observe(ME, [{"role": "user", "content": line}])
    now = vault.get(ME, m.id)
    assert now.version == 2 and word in now.content


@pytest.mark.parametrize("line, again", [
    ("once more for the record: I can't eat gluten", True),
    ("I'm a vegan, repeating myself I know", True),
    ("I know I've said this before, but I hate olives", True),
    ("once more I changed my mind, tea now", False),  # a change made again
    ("I said it before I left the house", False),
])
def test_saying_it_is_said_again(line: str, again: bool) -> None:
    assert restating(line) is again


def test_a_statement_said_to_be_said_again_confirms_the_memory(vault: Vault) -> None:
    m = vault.remember(ME, "I can't eat gluten").memory
    line = "once more for the record: I can't eat gluten!"
    vault.observe(ME, [{"role": "user", "content": line}])
    assert [x.id for x in vault.list(ME, limit=20) if x.kind != "turn"] == [m.id]
    assert vault.get(ME, m.id).metadata.get("confirmations")


def test_said_again_with_a_change_is_a_change(vault: Vault) -> None:
    # (an audit: "I've said this before" read the whole line as said again, and the
    # change it makes was lost)
    m = vault.remember(ME, "I prefer tea in the mornings").memory
    line = "I've said this before, but I prefer coffee in the mornings now"
    vault.observe(ME, [{"role": "user", "content": line}])
    assert "coffee" in vault.get(ME, m.id).content


def test_said_again_with_another_value_is_kept_beside(vault: Vault) -> None:
    # (the second audit: "once more for the record" confirmed the peanut memory and the
    # shellfish was stored nowhere)
    m = vault.remember(ME, "I'm allergic to peanuts").memory
    line = "once more for the record: I'm allergic to shellfish"
    vault.observe(ME, [{"role": "user", "content": line}])
    assert vault.get(ME, m.id) == m
    assert any("shellfish" in x.content for x in vault.list(ME, limit=20)
               if x.kind != "turn" and x.id != m.id)

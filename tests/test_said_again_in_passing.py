"""Four readings from the generalisation set's seventh set (issue 18), each tested in
wording of its own, on both backends:

- "我还是住在滨江哈 没搬地方": 没搬/没换 say a thing stays, though they hold 换/搬; a
  generic word ("地方") names no other value. The memory is confirmed, not copied.
- A reason that forwards something ("我常把你的回复截图转给老板看") is not what a change
  of the replies changes: "以后回复别用表情包了 …" updates the emoji memory instead of
  being staged.
- "plant-based" is the vegan diet; "reminder that I'm plant-based, … no animal products
  at all" reminds the assistant of the diet and is not a wish for no notifications.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.changeobject import changed_thing
from memvault.understand.discourse import stays_only

ME = Scope("acme", "wen")


def _memories(vault: Vault) -> list[tuple[str, int, str | None]]:
    return sorted((m.content, m.version, m.slot) for m in vault.list(ME, limit=50)
                  if m.kind != "turn" and m.status == "active")


def _say(vault: Vault, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": line}])


@pytest.mark.parametrize("stored, again", [
    ("我在西湖区上班", "我还是在西湖区上班 没换单位"),
    ("我家住在鼓楼区", "我还是住鼓楼区哈 没搬地方"),
])
def test_still_there_confirms_the_memory(vault: Vault, stored: str, again: str) -> None:
    _say(vault, stored)
    before = _memories(vault)
    _say(vault, again)
    assert _memories(vault) == before


@pytest.mark.parametrize("clause, stays", [
    ("没换地方", True), ("没搬家", True), ("换地方了", False), ("没换 搬到滨江了", False),
])
def test_what_says_a_thing_stays(clause: str, stays: bool) -> None:
    assert stays_only(clause) is stays


def test_a_forwarded_screenshot_is_not_the_thing_changed(vault: Vault) -> None:
    _say(vault, "回复里多用表情包，活泼一点")
    _say(vault, "以后回复别用表情包了 我常把你的回复截图转给老板看 太花哨了")
    [(content, version, _)] = _memories(vault)
    assert version == 2 and "别用表情包" in content
    assert changed_thing("我常把你的回复截图转给老板看") is None
    assert changed_thing("把周报转成PDF") == ("周报", None)


def test_plant_based_is_the_vegan_diet(vault: Vault) -> None:
    _say(vault, "I'm vegan")
    before = _memories(vault)
    assert [s for _, _, s in before] == ["diet.restriction"]
    _say(vault, "reminder that I'm plant-based, so no animal products at all please")
    assert _memories(vault) == before  # the diet confirmed; no wish about notifications

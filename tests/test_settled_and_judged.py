"""Three readings of a line beside a stored memory (issue 18, found on the tenth
generalisation set's development half, tested here in wording of its own), on both
backends where a store is involved:

- "X回不去了 出差就它了": the old value given up *and* what takes its place, settled: a
  change of the memory, not a plan called off (understand/planoff.py). Before, the memory
  was forgotten.
- "又从朋友那抱回来一只橘猫": one more of a counted kind, beside the pet stored
  (understand/discourse.py adds). Before, the line replaced the dog.
- "下雨天骑车其实挺危险的": "其实" / "actually" before a degree word judges; it is no
  marker of change (discourse.changes_mind). Before, the line replaced "我每天骑车上班".
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.discourse import adds, changes_mind
from memvault.understand.planoff import plan_off

ME = Scope("acme", "lin")


def _say(vault: Vault, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": line}])


def _active(vault: Vault) -> dict[str, int]:
    return {m.content: m.version for m in vault.list(ME, limit=50)
            if m.kind != "turn" and m.status == "active"}


@pytest.mark.parametrize(("line", "off"), [
    ("原来那家理发店回不去了 就这家了", False),
    ("汉庭回不去了 出差就它了", False),
    ("就定全季了，汉庭住不下去", False),
    ("周末的露营去不成了", True),
])
def test_a_value_given_up_with_its_replacement_settled_is_no_plan_off(line: str,
                                                                    off: bool) -> None:
    assert (plan_off(line) is not None) is off


@pytest.mark.parametrize(("line", "more"), [
    ("前天又从朋友那抱回来一只橘猫", True),
    ("昨天又在花鸟市场带回来两条金鱼", True),
    ("又去了一次医院", False),
])
def test_one_more_of_a_counted_kind_adds(line: str, more: bool) -> None:
    assert adds(line) is more


@pytest.mark.parametrize(("line", "change"), [
    ("下雨天骑车其实挺危险的", False),
    ("这个牌子其实很一般", False),
    ("the commute is actually pretty long", False),
    ("其实我在深圳上班", True),
    ("I actually work from home these days", True),
])
def test_actually_before_a_degree_word_judges(line: str, change: bool) -> None:
    assert changes_mind(line) is change


def test_a_settled_replacement_changes_the_memory(vault: Vault) -> None:
    _say(vault, "我出差一般住汉庭")
    _say(vault, "全季住了一晚 真舒服 汉庭回不去了 出差就它了")
    active = _active(vault)
    assert len(active) == 1, active
    [(content, version)] = active.items()
    assert "全季" in content and version == 2


def test_one_more_pet_is_added_beside_the_first(vault: Vault) -> None:
    _say(vault, "我养了一只金毛")
    _say(vault, "前天又从朋友那抱回来一只橘猫 金毛现在天天跟它玩")
    active = _active(vault)
    assert active.get("我养了一只金毛") == 1, active
    assert any("橘猫" in c for c in active), active


def test_a_judgement_beside_a_habit_changes_nothing(vault: Vault) -> None:
    _say(vault, "我每天骑车上班")
    _say(vault, "我有点夜盲 下雨天骑车其实挺危险的")
    assert _active(vault).get("我每天骑车上班") == 1

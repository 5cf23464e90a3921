"""Take-backs in wording the rules did not know (issue 18, found by two blind audits,
tested here in wording of their own). Before, each was stored as the memory's new
content ("花生过敏是我记错了 其实没事 删了吧" became the allergy memory), or took nothing
back:

- a take-back that points at the line just said ("这条先别记", "don't save that"), in the
  same call, whatever reason follows it;
- "you can let it go", "get that out of your notes", "那事你不用管了";
- an admission of a mistake with nothing right in its place ("记错了 其实没事"): not a
  correction.
"""

from __future__ import annotations

import pytest
from _util import statements

from memvault import Scope, Vault

ME = Scope("acme", "tao")


def _call(vault: Vault, *lines: str) -> None:
    vault.observe(ME, [{"role": "user", "content": line} for line in lines])


def _active(vault: Vault) -> list[str]:
    return [m.content for m in statements(vault, ME).values() if m.status == "active"]


@pytest.mark.parametrize(("line", "back"), [
    ("我下周要去杭州出差", "这条先别记 还没批下来"),
    ("我最近在戒碳水", "刚才那句不算哈 发错群了"),
    ("I'm signing up for a pottery course in May",
     "hmm actually don't save that, haven't paid yet"),
])
def test_what_was_just_said_is_taken_back(vault: Vault, line: str, back: str) -> None:
    _call(vault, "I like green tea")
    _call(vault, line, back)
    assert _active(vault) == ["I like green tea"]


@pytest.mark.parametrize(("given", "back"), [
    ("I'm allergic to shellfish",
     "that shellfish thing, you can let it go, it was my sister's allergy"),
    ("I have a dog called Biscuit",
     "why do you think I have a dog? get that out of your notes please"),
    ("我对花生过敏", "花生过敏是我记错了 其实没事 删了吧"),
])
def test_a_take_back_in_fresh_words_forgets(vault: Vault, given: str, back: str) -> None:
    _call(vault, given)
    (mid,) = statements(vault, ME)
    _call(vault, back)
    after = statements(vault, ME)
    assert after[mid].status == "deleted"
    assert not [c for c in _active(vault) if back[:6] in c]  # not stored as a statement


def test_a_plan_let_go_in_chinese(vault: Vault) -> None:
    vault.remember(ME, "下周三要去医院拔牙")
    (mid,) = statements(vault, ME)
    _call(vault, "拔牙那事你不用管了 医生说不用拔")
    assert statements(vault, ME)[mid].status == "deleted"


def test_letting_a_feeling_go_takes_nothing_back(vault: Vault) -> None:
    _call(vault, "My brother lives in Cardiff")
    (mid,) = statements(vault, ME)
    _call(vault, "I need to let it go, the fight with my brother was months ago")
    after = statements(vault, ME)
    assert after[mid].status == "active" and after[mid].version == 1

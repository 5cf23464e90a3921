"""A Chinese stance or frame word is a word only where the sentence has it as one (issue
18, found through a blind audit's probe, tested here in wording of its own), on both
backends. Before, the character was cut out of every word that holds it: 都 out of 成都,
太 out of 太原, 超 out of 超市. A memory named by such a place shared no word with the
line that named it, so "成都那趟不去了" overwrote the trip instead of taking it back.
"""

from __future__ import annotations

import pytest
from _util import statements

from memvault import Scope, Vault
from memvault.understand.stance import core

ME = Scope("acme", "mei")


@pytest.mark.parametrize(("text", "kept", "gone"), [
    ("下周要去太原出差", "太原", "要"),
    ("我常去楼下的超市买菜", "超市", "我"),
    ("我们都超喜欢京都", "京都", "超"),
])
def test_the_core_keeps_the_name_whole(text: str, kept: str, gone: str) -> None:
    got = core(text)
    assert kept in got and gone not in got


@pytest.mark.parametrize(("given", "line"), [
    ("下周我要去太原出差", "太原那趟出差取消了 客户说下次再约"),
    ("下个月打算去京都看红叶", "京都那趟不去了 机票太贵"),
])
def test_a_plan_named_by_such_a_place_is_taken_back(vault: Vault, given: str,
                                                    line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": given}])
    (mid,) = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content": line}])
    assert vault.get(ME, mid).status != "active"
    assert not [m for m in statements(vault, ME).values() if m.status == "active"]

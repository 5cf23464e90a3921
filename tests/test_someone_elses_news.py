"""News about someone else changes nothing the user holds of themselves (issue 18, found on
the generalisation set's development half, tested here in wording of its own), on both
backends.

Before, a Chinese sentence that names a friend or a colleague without "我" ("同事最近…")
and an English one that opens with a parent's someone ("mom's doctor…") were read as the
user's own statements: close in meaning to the user's habit, they replaced it. And a
memory about someone of the user's, changed by a line in the user's voice, became a
memory about the user, so that the next line about that person no longer found it.
"""

from __future__ import annotations

import pytest
from _util import changed, statements

from memvault import Scope, Vault
from memvault.extract.cues import THIRD

ME = Scope("acme", "wen")


def test_the_subject_is_someone_else() -> None:
    for line, who in (("同事最近也开始练瑜伽了", "同事"), ("邻居现在天天在楼下遛狗", "邻居"),
                      ("mom's doctor put her on a low-salt diet", "mom")):
        m = THIRD.match(line)
        assert m is not None and who in m.group(0)
    # not the user's own moments feed, nor "mum has"
    assert THIRD.match("朋友圈最近都在晒娃") is None
    assert THIRD.match("I'm making my mum's lasagne tonight") is None


def test_a_friends_new_habit_leaves_mine(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "我每天晚上练半小时瑜伽"}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content": "室友最近也开始每天晚上练瑜伽了"}])
    after = statements(vault, ME)
    assert changed(before, after) == []
    assert [m.content for m in after.values()] == ["我每天晚上练半小时瑜伽"]


def test_a_parents_doctor_leaves_my_diet(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "I eat very little salt"}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "user",
                        "content": "mom's doctor says no more salt for her at all"}])
    after = statements(vault, ME)
    assert changed(before, after) == []


def test_a_memory_about_my_dad_stays_his(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "My dad lives in Hull"}])
    (dad,) = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content":
                        "helping dad pack all weekend, he's finally moving nearer to us"}])
    assert statements(vault, ME)[dad].metadata.get("subject") == "father"
    vault.observe(ME, [{"role": "user", "content":
                        "my dad has moved into his new flat in Beverley, 5 mins from us"}])
    after = statements(vault, ME)
    assert list(after) == [dad] and after[dad].status == "active"
    assert "beverley" in after[dad].content.casefold()


@pytest.mark.parametrize(("given", "line"), [
    ("I drink almond milk in my tea",
     "a neighbour of mine gave up dairy completely, she's on oat milk for everything now"),
    ("我用苹果手机", "我们组的同事几乎都换安卓了"),
])
def test_colleagues_and_neighbours_change_nothing_of_mine(vault: Vault, given: str,
                                                          line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": given}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content": line}])
    after = statements(vault, ME)
    assert changed(before, after) == []
    assert [m for i, m in after.items() if i not in before and m.status == "active"] == []


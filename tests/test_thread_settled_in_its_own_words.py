"""A thread is settled in words no marker of change names (issue 18, found on the
generalisation set's development half, tested here in wording of its own), on both
backends:

- "睡觉就定11点半吧" settles like "定了": before, the line was read as nothing to keep and
  the stored bedtime stayed current;
- a line answering the assistant's suggestion ("以后就买它了") is tied to what the user's
  earlier lines of the same call named, not only to the suggestion: before, it was stored
  beside the cat food it replaces.
"""

from __future__ import annotations

from _util import changed, statements

from memvault import Scope, Vault
from memvault.understand.discourse import settles

ME = Scope("acme", "xu")


def test_settling_words() -> None:
    assert settles("试了几天，睡觉就定11点半吧，能坚持")
    assert settles("周会定成周二下午")
    assert not settles("你定吧")              # handing the choice over settles nothing
    assert not settles("就定个小目标，先挣一个亿")  # no 吧 after it: a saying


def test_a_thread_settled_with_jiu_ding(vault: Vault) -> None:
    for line in ("我一般晚上十二点睡觉", "我每天七点起床"):
        vault.observe(ME, [{"role": "user", "content": line}])
    before = statements(vault, ME)
    for line in ("这几天想早点睡", "11点躺下翻来覆去睡不着", "试了几天，睡觉就定11点半吧，能坚持"):
        vault.observe(ME, [{"role": "user", "content": line}])
    after = statements(vault, ME)
    moved = changed(before, after)
    assert len(moved) == 1 and "十二点" in before[moved[0]].content
    assert "11点半" in after[moved[0]].content
    assert not [i for i in after if i not in before and after[i].status == "active"]


def test_an_answer_to_a_suggestion_tied_to_the_users_earlier_line(vault: Vault) -> None:
    for line in ("我家猫粮一直买皇家的", "我住在杭州"):
        vault.observe(ME, [{"role": "user", "content": line}])
    before = statements(vault, ME)
    vault.observe(ME, [
        {"role": "user", "content": "皇家那款猫咪吃了老吐"},
        {"role": "assistant", "content": "要不要换个牌子试试？比如渴望或者爱肯拿。"},
        {"role": "user", "content": "吃了一周爱肯拿 不吐了 以后就认准它了"},
    ])
    after = statements(vault, ME)
    moved = changed(before, after)
    assert len(moved) == 1 and "皇家" in before[moved[0]].content
    assert "爱肯拿" in after[moved[0]].content
    assert not [m for i, m in after.items()
                if i not in before and m.status == "active" and "爱肯拿" in m.content]

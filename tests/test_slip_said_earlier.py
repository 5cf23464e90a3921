"""A slip in a statement said earlier, put right in a later conversation (issue 18, found on
the eleventh generalisation set's development half, tested here in wording of its own), on
both backends. Before, only the line just before a repair could be put right: "oops, it's
Park Lane, not Park Road" a day after "I live on Park Road" changed nothing, and "I spelt
my son's name wrong, it's Aiden" was stored as a new fact beside "Aidan". Now the one
stored statement the repair's value puts right is updated; none when several could be,
and a refusal with no mark of a slip repairs nothing.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.repair import stored_swap

ME = Scope("acme", "lin")


def _say(vault: Vault, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": line}])


def _active(vault: Vault) -> list[str]:
    return sorted(m.content for m in vault.list(ME, limit=50)
                  if m.kind != "turn" and m.status == "active")


@pytest.mark.parametrize(("given", "line", "want", "gone"), [
    (["I live on Park Road", "I work at the library"],
     "oops, it's Park Lane, not Park Road. the road is where my old flat was", "Park Lane",
     "Park Road"),
    (["My son's name is Aidan", "My son plays football on Saturdays"],
     "I spelt my son's name wrong last week, it's Aiden with an e", "Aiden", "Aidan"),
    (["My dentist is Dr Patel", "I go swimming on Tuesdays"],
     "got it wrong before, my dentist is Dr Patil not Dr Patel", "Patil", "Patel"),
    (["我每个月10号交房租", "我每周二去游泳"],
     "交房租那天我记岔了，是15号，10号是发工资", "15号", "10号"),
    # (a blind audit: a time, a day of the month, a weekday or a refused Chinese value,
    # owned up to in words, and a slot's memory stored in other words than said)
    (["My train to Leeds leaves at 8:20 on Monday", "I like oat milk"],
     "oops, got the time wrong for the Leeds train, it leaves at 9:20", "9:20", "8:20"),
    (["My haircut is on the 9th", "I like oat milk"],
     "sorry, I got it wrong, the haircut is on the 19th", "19th", "9th"),
    (["我的瑜伽课在周三晚上", "我喜欢喝豆浆"], "瑜伽课我记岔了，是周五晚上", "周五", "周三"),
    (["我住在静安区", "我喜欢喝豆浆"], "之前记岔了，不是静安区，是徐汇区", "徐汇", "静安"),
])
def test_the_one_statement_it_puts_right_is_updated(
        vault: Vault, given: list[str], line: str, want: str, gone: str) -> None:
    for g in given:
        _say(vault, g)
    others = [m for m in _active(vault) if gone not in m]
    _say(vault, line)
    now = _active(vault)
    assert any(want in m for m in now), now
    assert not any(gone in m and want not in m for m in now), now
    assert [m for m in now if want not in m] == others  # the neighbours stay as they were


def test_two_statements_it_could_put_right_are_left_alone(vault: Vault) -> None:
    _say(vault, "I take the 7:40 bus to work")
    _say(vault, "I take the 17:40 bus home")
    _say(vault, "I like jazz")  # (a repair of the line just before is that line's: ellipsis.py)
    before = _active(vault)
    _say(vault, "sorry, typo, the bus is 7:45")
    assert _active(vault) == before


@pytest.mark.parametrize(("line", "statement"), [
    ("it's Leeds not London for the conference", "I live in London"),   # no slip owned
    ("I want tea, not coffee", "I drink coffee every morning"),
    ("sorry I got it wrong, the meeting is at 3:30", "I go to the gym at 6:30"),  # other thing
])
def test_no_repair_without_a_slip_of_that_statement(line: str, statement: str) -> None:
    assert stored_swap(line, statement) is None


def test_a_frozen_statement_is_not_put_right_unreviewed(vault: Vault) -> None:
    _say(vault, "I live on Park Road")
    mid = next(m.id for m in vault.list(ME, limit=10) if m.kind != "turn")
    vault.freeze(ME, mid, reason="verified address")
    _say(vault, "oops, it's Park Lane, not Park Road")
    assert _active(vault) == ["I live on Park Road"]
    assert any(r.op == "blocked" for r in vault.history(ME, mid))

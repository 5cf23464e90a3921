"""Changes said in passing words (issue 18, found by two blind audits, tested here in
wording of their own):

- the old thing let go ("旧的小米送我妈了", "bye bye apple") or everything moved over
  ("东西全挪到语雀上了") replaces what the user had; before, nothing changed;
- a place is where the user lives without the time said after it: "we relocated to york
  over the weekend" stored "york over the weekend" as the place;
- "can we do german from now on?" asks for the reply language in words of its own;
  before, it was kept as a note beside "reply in English".
"""

from __future__ import annotations

import pytest
from _util import statements

from memvault import Scope, Vault

ME = Scope("acme", "lin")


def _say(vault: Vault, *lines: str) -> None:
    for line in lines:
        vault.observe(ME, [{"role": "user", "content": line}])


@pytest.mark.parametrize(("given", "line", "new"), [
    ("我用的是小米手机", "新买的华为到了 旧的小米送我妈了", "华为"),
    ("我用印象笔记记东西", "印象笔记太卡了 东西全挪到语雀上了", "语雀"),
])
def test_the_old_one_let_go_is_replaced(vault: Vault, given: str, line: str, new: str) -> None:
    _say(vault, given)
    (mid,) = statements(vault, ME)
    _say(vault, line)
    after = statements(vault, ME)
    assert after[mid].version == 2 and new in after[mid].content
    assert [m.id for m in after.values() if m.status == "active"] == [mid]


@pytest.mark.parametrize(("line", "place"), [
    ("we relocated to york over the weekend, boxes everywhere", "york"),
    ("I moved to hull last mnth", "hull"),
    ("I moved to Lyon on friday, still jetlagged", "Lyon"),
])
def test_a_place_is_said_without_its_time(vault: Vault, line: str, place: str) -> None:
    _say(vault, "I live in Leeds")
    _say(vault, line)
    assert vault.profile(ME)["user.location"]["value"] == place


def test_a_reply_language_asked_of_us(vault: Vault) -> None:
    _say(vault, "Please reply in English")
    _say(vault, "can we do german from now on? I need the practice")
    (lang,) = [m for m in statements(vault, ME).values()
               if m.status == "active" and m.slot == "reply.language"]
    assert lang.value == "de" and lang.version == 2
    assert not [m for m in statements(vault, ME).values()
                if m.status == "active" and "german" in m.content.casefold() and not m.slot]

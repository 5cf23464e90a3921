"""A take-back whose thing is put first as a clause's topic (issue 18, found on the eleventh
generalisation set's development half, tested here in wording of its own), on both
backends. Before, "虾那个是我记混了，过敏的是我表姐，你删了吧" named what the clause nearest
the verb said (the cousin), not the shrimp, and the 他 of "吉他" was dropped as a pronoun,
so "吉他那条你别记了" named only "吉". The other memory stays.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.takeback import retraction

ME = Scope("acme", "lin")


def _active(vault: Vault) -> list[str]:
    return sorted(m.content for m in vault.list(ME, limit=50)
                  if m.kind != "turn" and m.status == "active")


@pytest.mark.parametrize(("given", "line", "gone", "kept"), [
    (["我对虾过敏", "我对花粉过敏"], "虾那个是我记混了，过敏的是我表姐，你删了吧", "虾", "花粉"),
    (["我在学吉他", "我在学日语"], "吉他那条你别记了 是帮表弟问的", "吉他", "日语"),
])
def test_the_topic_put_first_is_what_is_taken_back(
        vault: Vault, given: list[str], line: str, gone: str, kept: str) -> None:
    for g in given:
        vault.observe(ME, [{"role": "user", "content": g}])
    vault.observe(ME, [{"role": "user", "content": line}])
    now = _active(vault)
    assert not any(gone in m for m in now), now
    assert any(kept in m for m in now), now


@pytest.mark.parametrize(("line", "label"), [
    ("吉他那条你别记了", "吉他"),
    ("虾那个是我记混了，过敏的是我表姐，你删了吧", "虾"),
    ("把我住在哪那条删了吧", "住在哪"),         # in the verb's own clause: as before
    ("那条不用记了", ""),                      # names nothing
    ("他的生日别记了", "生日"),                 # a pronoun on its own is still dropped
])
def test_the_label(line: str, label: str) -> None:
    assert retraction(line) == label

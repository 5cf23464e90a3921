"""Three readings found on the generalisation set's seventh set (issue 18), each tested
in wording of its own, on both backends:

- A line that says a memory again at more length ("我一碰花粉就流鼻涕 花粉过敏很多年了"
  after "我对花粉过敏") confirms it; it is not a second copy (understand/relate.py,
  `elaborates`). A line that adds a value ("…跑步五公里") or swaps a word ("狗毛" for
  "猫毛") is not a restatement.
- "又领养了只…" is one more of the kind, beside the one stored, not a replacement
  (discourse.adds).
- A channel refused after its name ("电话千万别打") is not a channel wanted; "别打电话"
  after "发短信" refuses the call, not the text (extract/cues.NEG_AFTER).
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.saidagain import elaborates

ME = Scope("acme", "zhou")


def _memories(vault: Vault) -> list[tuple[str, int]]:
    return sorted((m.content, m.version) for m in vault.list(ME, limit=50)
                  if m.kind != "turn")


def _say(vault: Vault, line: str) -> None:
    vault.observe(ME, [{"role": "user", "content": line}])


@pytest.mark.parametrize("stored, again", [
    ("我对花粉过敏", "我一碰花粉就流鼻涕 花粉过敏很多年了"),
    ("我每周二四去打羽毛球", "羽毛球我一般是周二周四去打"),
])
def test_said_again_at_length_confirms_the_memory(vault: Vault, stored: str,
                                                   again: str) -> None:
    _say(vault, stored)
    before = _memories(vault)
    _say(vault, again)
    assert _memories(vault) == before


@pytest.mark.parametrize("new, old, same", [
    ("我一碰花粉就流鼻涕 花粉过敏很多年了", "我对花粉过敏", True),
    ("我对狗毛过敏", "我对猫毛过敏", False),              # a word swapped
    ("我每天早上跑步五公里", "我每天早上跑步", False),      # an amount added
    ("我每天早上跑步 用Keep记录", "我每天早上跑步", False),  # a name added
])
def test_what_counts_as_saying_it_again(new: str, old: str, same: bool) -> None:
    assert elaborates(new, old) is same


def test_one_more_pet_is_beside_the_first(vault: Vault) -> None:
    _say(vault, "我养了一只柯基 叫可乐")
    first = _memories(vault)
    _say(vault, "最近又收养了只三花猫 叫芝麻 可乐天天追着它闻")
    after = _memories(vault)
    assert first[0] in after  # the corgi is unchanged, at its version
    assert any("芝麻" in c for c, _ in after)


def test_a_channel_refused_after_its_name_is_not_wanted(vault: Vault) -> None:
    _say(vault, "以后通知都发短信 别打电话")
    [(first, _)] = _memories(vault)
    assert "短信" in first and "电话" not in first
    _say(vault, "通知发短信就行 电话千万别打 上班接不了")
    [(after, version)] = _memories(vault)
    assert (after, version) == (first, 1)

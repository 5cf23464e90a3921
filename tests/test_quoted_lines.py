"""Words inside quotation marks are someone else's (extract/readspans.py; issue 18, found on
the tenth generalisation set's development half, tested here in wording of its own), on
both backends. Before, a short Chinese quotation without spaces ("“我每天只睡四个小时”") was
read as a single term and kept as the user's statement, "说过" did not introduce a
quotation, and a single-quoted line with an apostrophe inside ("'… I'd paint …'") ended at
the apostrophe, so its words became the user's. A quoted term stays the user's word.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.extract import Message
from memvault.extract.readspans import quoted_spans
from memvault.extract.rules import RuleExtractor

ME = Scope("acme", "lin")


def _kept(line: str) -> list[str]:
    return [c.content for c in RuleExtractor().extract([Message("user", line, id="m1")])]


@pytest.mark.parametrize(("line", "quote"), [
    ("朋友圈都在转爱因斯坦说过“我从来不记电话号码” 是真的吗", "“我从来不记电话号码”"),
    ("what's that song that goes 'I'm on my way, I won't be late tonight'? can't place it",
     "'I'm on my way, I won't be late tonight'"),
])
def test_a_quoted_line_is_a_quotation(line: str, quote: str) -> None:
    assert [line[a:b] for a, b in quoted_spans(line)] == [quote]


@pytest.mark.parametrize("line", [
    "don't call me 'buddy' please",
    "我最烦别人说我“内卷”",
])
def test_a_quoted_term_is_not_a_quotation(line: str) -> None:
    assert quoted_spans(line) == []


@pytest.mark.parametrize("line", [
    "朋友圈都在转爱因斯坦说过“我从来不记电话号码” 是真的吗",
    "what's that song that goes 'I'm vegan now, I won't eat meat tonight'? can't place it",
])
def test_what_a_quotation_says_is_no_memory_of_the_user(vault: Vault, line: str) -> None:
    assert not any(w in " ".join(_kept(line)).casefold() for w in ("电话号码", "vegan"))
    vault.observe(ME, [{"role": "user", "content": line}])
    active = [m.content for m in vault.list(ME, limit=20)
              if m.kind != "turn" and m.status == "active"]
    assert not any("电话号码" in c or "vegan" in c.casefold() for c in active), active


def test_a_five_character_quotation_a_parent_keeps_saying_is_not_stored(vault: Vault) -> None:
    # (a blind audit: "“跑步伤膝盖”" had been read as a single term)
    vault.observe(ME, [{"role": "user", "content": "我每天早上跑五公里。我爸总说“跑步伤膝盖”。"}])
    active = [m.content for m in vault.list(ME, limit=20)
              if m.kind != "turn" and m.status == "active"]
    assert active == ["我每天早上跑五公里"]

"""A change of mind that answers the assistant's line: what the assistant's line named is
what changes, when its words name one stored memory ("好的，之后按 VS Code 的快捷键讲" /
"诶不用了 上周已经全面转Cursor了"). Found on the generalisation set's ninth set
(development half), tested here in wording of its own, on both backends."""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.discourse import stops_only

ME = Scope("acme", "wen")


def _stored(vault: Vault) -> list:
    return [m for m in vault.list(ME, limit=50) if m.kind != "turn" and m.status == "active"]


@pytest.mark.parametrize("given, assistant, line, new", [
    ("记笔记我一直用印象笔记", "好的，那我按印象笔记的格式给你整理。",
     "哎不用了 这个月已经全面转Obsidian了 按Obsidian来", "Obsidian"),
    ("I use Chrome for everything", "Sure, I'll give you the Chrome shortcuts then.",
     "nah, I've switched to Firefox now, give me those instead", "Firefox"),
])
def test_a_change_answering_the_assistant_changes_what_it_named(
        vault: Vault, given: str, assistant: str, line: str, new: str) -> None:
    vault.observe(ME, [{"role": "user", "content": given}])
    vault.remember(ME, "我每周六上午练瑜伽" if given[0] > "~" else "I do yoga on Saturdays")
    (old,) = [m for m in _stored(vault) if m.content.startswith(given[:4])]
    vault.observe(ME, [{"role": "assistant", "content": assistant},
                       {"role": "user", "content": line}])
    now = vault.get(ME, old.id)
    assert now.version == 2 and new in (now.value or now.content)
    assert len(_stored(vault)) == 2  # changed in place, nothing beside it


def test_a_line_that_names_what_replaces_does_not_only_stop() -> None:
    assert stops_only("不用了 我不喝咖啡了")
    assert not stops_only("不用了 已经全面转Obsidian了")
    assert not stops_only("不用了 按Obsidian来")

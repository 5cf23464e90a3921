"""Two Chinese wordings (issue 18, found on the tenth generalisation set's development half,
tested here in wording of its own), on both backends:

- "那句不是我说的" says the user never said what is stored: a take-back of what it names
  (understand/takeback.py). "当没发生过" is "as if never said" too. Before, the stored
  memory stayed active.
- "弄到" / "弄成" set a thing to a new value ("收货地址弄到海淀吧"): a change
  (understand/discourse.py), so a frozen memory blocks it rather than a second address
  being added beside it.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.understand.discourse import changes_mind
from memvault.understand.takeback import retraction

ME = Scope("acme", "lin")


@pytest.mark.parametrize(("line", "back"), [
    ("林俊杰那条不是我发的", "林俊杰"),
    ("说我养猫那句不是我本人说的", "养猫"),
    ("就当没发生过吧", ""),
    ("这不是我的错", None),
])
def test_not_my_words_takes_back(line: str, back: str | None) -> None:
    got = retraction(line)
    if back is None:
        assert got is None
    else:
        assert got is not None and (back in got if back else not got.strip())


@pytest.mark.parametrize(("line", "change"), [
    ("快递地址弄到公司吧", True),
    ("字体弄成大一号的", True),
    ("我在弄周报", False),
])
def test_set_to_is_a_change(line: str, change: bool) -> None:
    assert changes_mind(line) is change


def test_a_line_the_user_never_wrote_is_taken_back(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "我喜欢听林俊杰的歌"}])
    (mine,) = [m for m in vault.list(ME, limit=10) if m.kind != "turn"]
    vault.observe(ME, [{"role": "user",
                        "content": "林俊杰那条不是我发的！是我表妹拿我手机乱打的 当没发生过"}])
    assert vault.get(ME, mine.id).status == "deleted"


def test_a_frozen_address_blocks_a_change_said_with_nong_dao(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "我的收货地址在浦东"}])
    (mine,) = [m for m in vault.list(ME, limit=10) if m.kind != "turn"]
    vault.freeze(ME, mine.id)
    vault.observe(ME, [{"role": "user", "content": "收货地址弄到徐汇吧 新工作在那边"}])
    active = [m for m in vault.list(ME, limit=10) if m.kind != "turn" and m.status == "active"]
    assert [(m.id, m.version) for m in active] == [(mine.id, 1)]
    assert [r.op for r in vault.history(ME, mine.id)][-1] == "blocked"

"""One occasion and a fact said again, in wording the rules did not know (issue 18, found
by two blind audits, tested here in wording of their own). Before, "just for today…" was
kept as a standing memory beside the habit it is an exception to, and "…like always" or
"…你忘啦" stored a second copy of what the user had said.
"""

from __future__ import annotations

import pytest
from _util import statements

from memvault import Scope, Vault

ME = Scope("acme", "mo")


def _say(vault: Vault, *lines: str) -> None:
    for line in lines:
        vault.observe(ME, [{"role": "user", "content": line}])


@pytest.mark.parametrize(("given", "line"), [
    # one occasion
    ("I drink soy milk in my tea", "just for today I'm on cow's milk, the shop ran out of soy"),
    ("I cycle to work", "only for tonight I'm getting the bus home, flat tyre"),
    # said again
    ("I swim at 7am on weekdays", "swim at 7am on weekdays, every single week, like always"),
    ("我住在杭州西湖区", "我家就在西湖区嘛 你忘了"),
])
def test_nothing_new_is_kept(vault: Vault, given: str, line: str) -> None:
    _say(vault, given)
    before = statements(vault, ME)
    _say(vault, line)
    after = statements(vault, ME)
    assert list(after) == list(before)
    assert all(after[i].status == "active" and after[i].version == 1 for i in before)

""""别扭" (awkward) is not "别" (don't), and in Chinese chat a space after "…的" ends a
clause as a comma does (issue 18, found by a blind audit, tested here in wording of its
own), on both backends. Before, "杰哥杰哥的听着好别扭 叫我阿杰就行" read the first clause's
"别" as a refusal of the name in the second: it was staged as "用户不希望被叫作阿杰", the
opposite of what was said.
"""

from __future__ import annotations

from _util import statements

from memvault import Scope, Vault
from memvault.extract.rules import RuleExtractor

ME = Scope("acme", "jie")


def test_the_value_keeps_its_own_clause() -> None:
    (c,) = RuleExtractor().extract(
        [{"role": "user", "content": "杰哥杰哥的听着好别扭 叫我阿杰就行"}], unread=True)
    assert (c.slot, c.value, c.flags) == ("user.name", "阿杰", [])


def test_the_name_changes(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "以后叫我杰哥"}])
    (mid,) = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content": "杰哥杰哥的听着好别扭 叫我阿杰就行"}])
    after = statements(vault, ME)
    assert list(after) == [mid] and after[mid].value == "阿杰"
    assert vault.list(ME, status="pending") == []

"""A diet between vegetarian and omnivore is a value of the diet slot (issue 18, found by
a blind audit: "pescatarian these days" after "I'm vegetarian" stored nothing the diet
could hold, and the development half's "I guess I'm pescatarian now" stayed beside
"vegetarian"), on both backends."""

from __future__ import annotations

import pytest
from _util import statements

from memvault import Scope, Vault

ME = Scope("acme", "ola")


@pytest.mark.parametrize(("given", "line", "value", "said"), [
    ("I'm vegan", "I've gone pescatarian, fish is back on the menu", "pescatarian",
     "pescatarian"),
    ("我吃素", "我现在是鱼素了", "pescatarian", "鱼素"),
    ("I'm vegetarian", "I'm flexitarian these days, meat maybe once a week", "flexitarian",
     "flexitarian"),
])
def test_the_diet_takes_the_new_value(vault: Vault, given: str, line: str, value: str,
                                      said: str) -> None:
    vault.observe(ME, [{"role": "user", "content": given}])
    (mid,) = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content": line}])
    after = statements(vault, ME)
    assert list(after) == [mid]
    assert after[mid].slot == "diet.restriction" and after[mid].value == value
    assert said in after[mid].content

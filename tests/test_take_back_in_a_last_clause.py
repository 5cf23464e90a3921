"""A bare "drop it", "get rid of it" or "take that out" ending a sentence, after a clause
that says the thing is over, takes back what the conversation named (issue 18, found on
the twelfth generalisation set's development half, tested here in wording of its own), on
both backends. Before, only such a sentence on its own was a take-back: "ugh that's not
happening anymore, get rid of it" was stored as a statement, and the memory the assistant
had just read back stayed.
"""

from __future__ import annotations

import pytest
from _util import statements

from memvault import Scope, Vault
from memvault.understand.takeback import retraction

ME = Scope("acme", "bo")


@pytest.mark.parametrize(("line", "taken"), [
    ("ugh that's not happening anymore, get rid of it", ""),
    ("that one's done now. take it off", ""),
    ("drop it", ""),
    ("my phone slipped and I dropped it", None),      # an event, not a take-back
    ("the dog loves that toy, can't get rid of it", None),
    ("play that song again, I love it", None),
])
def test_what_takes_back(line: str, taken: str | None) -> None:
    assert retraction(line) == taken


def test_the_memory_the_assistant_read_back_is_forgotten(vault: Vault) -> None:
    for line in ("I'm training for a triathlon in June", "My gym is Anytime Fitness"):
        vault.observe(ME, [{"role": "user", "content": line}])
    before = statements(vault, ME)
    vault.observe(ME, [
        {"role": "user", "content": "write a note to my coach asking to skip saturday"},
        {"role": "assistant", "content": "Sure — I'll mention you're training for the "
                                         "triathlon so he understands."},
        {"role": "user", "content": "ugh that's not happening anymore, get rid of it"},
    ])
    after = statements(vault, ME)
    gone = [i for i in before if after[i].status != "active"]
    assert len(gone) == 1 and "triathlon" in before[gone[0]].content
    assert not [m for i, m in after.items() if i not in before and m.status == "active"
                and "rid of it" in m.content]

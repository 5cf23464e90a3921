"""A sentence that drops or switches off a thing it names only by a pronoun is about the
sentence before it (issue 18, found on the generalisation set's development half, tested
here in wording of its own), on both backends. Before, "drop them, just the text" was
read on its own: it named nothing stored, so it was added beside the preference it
reverses, and both reached the prompt.
"""

from __future__ import annotations

from _util import changed, statements

from memvault import Scope, Vault
from memvault.extract.readspans import read_spans

ME = Scope("acme", "ola")


def test_the_sentence_joins_the_one_before() -> None:
    text = "honestly the progress bars are getting old. drop them, just the text"
    assert [(s, e) for s, e, _ in read_spans(text)] == [(0, len(text))]
    # not a pronoun it turns into something else, nor a sentence of its own
    text = "the reminders are handy. turn them into a weekly digest"
    assert len(read_spans(text)) == 2
    assert len(read_spans("I moved to Porto. I love the food here")) == 2


def test_a_preference_dropped_by_a_pronoun_is_changed(vault: Vault) -> None:
    for line in ("I like the little progress bars in your answers",
                 "Send me a summary every Friday"):
        vault.observe(ME, [{"role": "user", "content": line}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content":
                        "honestly the progress bars are getting old. drop them, just the text"}])
    after = statements(vault, ME)
    moved = changed(before, after)
    assert len(moved) == 1 and "progress bars" in before[moved[0]].content
    assert "drop them" in after[moved[0]].content and after[moved[0]].status == "active"
    assert not [m for i, m in after.items() if i not in before and m.status == "active"]

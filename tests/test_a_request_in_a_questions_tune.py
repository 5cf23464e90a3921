"""A request said in a question's tune is a request (issue 18, found on the generalisation
set's development half, tested here in wording of its own), on both backends. Before,
"the bullet points are a bit much honestly, leave them out?" was read as a question and
kept nothing, so the preference it reverses stayed current.
"""

from __future__ import annotations

from _util import changed, statements

from memvault import Scope, Vault
from memvault.extract.readspans import read_spans

ME = Scope("acme", "tomas")


def test_the_tune_does_not_make_a_question() -> None:
    text = "the bullet points are a bit much honestly, leave them out? plain text is fine"
    assert [q for _, _, q in read_spans(text)] == [False, False]
    assert [q for _, _, q in read_spans("could you leave them out of the summary?")] == [True]
    assert [q for _, _, q in read_spans("what are the bullet points for?")] == [True]


def test_the_preference_it_reverses_changes(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "I'm happy for you to use bullet points"}])
    before = statements(vault, ME)
    vault.observe(ME, [{"role": "user", "content":
                        "the bullet points are a bit much honestly, leave them out? "
                        "plain paragraphs are fine"}])
    after = statements(vault, ME)
    (moved,) = changed(before, after)
    assert "leave them out" in after[moved].content and after[moved].status == "active"

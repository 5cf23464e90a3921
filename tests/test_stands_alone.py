"""A sentence the rules read as a possible change ("tentative": kept only if it changes a
memory it matches) is kept as a statement of its own when it changes nothing and its
meaning reads as a lasting statement about the user (statementscore.py, flag "stands");
never when a stored memory is close to it, never for a later sentence of its message, and
never when the strategy's score keeps nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from memvault import Scope, Vault
from memvault.config import Strategy
from memvault.embed import load_embedder
from memvault.extract import Message, RuleExtractor
from memvault.statementscore import STANDS, judged, score

ME = Scope("acme", "noor")

# Lines the rules keep only as a possible change (checked below), in words of this file.
STANDING = ["No gluten for me", "体检报告一般寄到我爸妈家"]


def _kept(vault: Vault) -> list[str]:
    return [m.content for m in vault.list(ME, status="active", limit=50) if m.kind != "turn"]


@pytest.mark.parametrize("line", STANDING)
def test_a_possible_change_that_changes_nothing_is_kept_when_it_reads_as_a_statement(
        vault: Vault, line: str) -> None:
    found = RuleExtractor().extract([Message(role="user", content=line)], unread=True)
    assert [c.flags for c in found] == [["tentative", "opening"]]
    out = vault.observe(ME, [{"role": "user", "content": line}]).outcomes
    assert [o.action for o in out] == ["added"]
    assert _kept(vault) == [found[0].content]


def test_before_the_meaning_was_read_such_a_line_was_dropped(
        make_vault: Callable[..., Vault]) -> None:
    # The score at 1 keeps no sentence by its meaning: the line is a possible change only.
    strict = make_vault(strategy=Strategy.model_validate({"write": {"statement_score": 1.0}}))
    out = strict.observe(ME, [{"role": "user", "content": STANDING[0]}]).outcomes
    assert [(o.action, o.reasons) for o in out] == [("noop", ["not_a_statement"])]
    assert _kept(strict) == []


def test_it_is_not_added_beside_a_close_memory_and_leaves_that_memory_alone(
        vault: Vault) -> None:
    first = vault.observe(ME, [{"role": "user", "content": "I don't eat gluten"}]).outcomes
    before = vault.get(ME, first[0].memory_id or "")
    out = vault.observe(ME, [{"role": "user", "content": STANDING[0]}]).outcomes
    assert [o.action for o in out] == ["noop"]
    after = vault.get(ME, before.id)
    assert (after.version, after.content) == (before.version, before.content)
    assert _kept(vault) == [before.content]


def test_the_score_is_read_only_for_an_opening_possible_change() -> None:
    emb = load_embedder("use-m3")
    c = RuleExtractor().extract([Message(role="user", content=STANDING[0])], unread=True)[0]
    vec = {"use-m3": emb.embed_documents([c.content])[0]}
    p = score(vec)
    assert p is not None and p >= STANDS
    kept = judged(c, vec, 0.6)
    assert kept.flags == ["tentative", "opening", "stands"] and kept.tentative
    # Not the opening sentence of its message: returned as it is, never judged.
    later = replace(c, flags=["tentative"])
    assert judged(later, vec, 0.6) is later
    # A low score leaves it a possible change only.
    low = emb.embed_documents(["新年快乐！"])[0]
    assert judged(c, {"use-m3": low}, 0.6) is c
    # No model for the embedder: no score, nothing stands.
    assert judged(c, {"e5-small": vec["use-m3"]}, 0.6) is c

"""Recall precision at the default strategy (issue 20): a question on one topic gets the
memory about it first, and a question that nothing stored is about gets no hit (the
relevance floor, docs/retrieval.md). Measured at scale by benchmarks/precision.py."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memvault import Vault
from memvault.config import Strategy
from memvault.model import Scope

ALICE = Scope("acme", "alice")

EN = ["Alice is allergic to peanuts.",
      "Alice prefers to be notified by SMS, never by email.",
      "Alice's team standup is at 9:30 every weekday.",
      "Alice works from the Berlin office."]
ZH = ["小王对花生过敏。", "小王希望通过短信通知，不要发邮件。", "小王每个工作日早上九点半开站会。",
      "小王在北京办公室上班。"]


def floor_off() -> Strategy:
    base = Strategy().model_dump()
    base["retrieval"]["floor"]["enabled"] = False
    return Strategy.model_validate(base)


@pytest.mark.parametrize(("memories", "query"), [
    (EN, "how should I notify alice?"),
    (ZH, "应该怎么通知小王？"),
])
def test_the_notification_question_gets_the_notification_memory_first(
        make_vault: Callable[..., Vault], memories: list[str], query: str) -> None:
    vault = make_vault()
    for text in memories:
        vault.remember(ALICE, text)
    hits = vault.recall(ALICE, query)
    # First the memory about notifying; after it, memories that only share the name may
    # follow (the floor judges what comes first, docs/retrieval.md).
    assert hits and hits[0].memory.content == memories[1]


@pytest.mark.parametrize(("allergy", "query"), [
    (EN[0], "how should I notify alice?"),
    (ZH[0], "应该怎么通知小王？"),
])
def test_with_only_an_unrelated_memory_stored_there_is_no_hit(
        make_vault: Callable[..., Vault], allergy: str, query: str) -> None:
    vault = make_vault()
    vault.remember(ALICE, allergy)
    assert list(vault.recall(ALICE, query)) == []
    assert "过敏" not in vault.context(ALICE, query).text
    assert "allergic" not in vault.context(ALICE, query).text
    # A question it does answer still finds it.
    about = "does alice have any food allergies?" if allergy == EN[0] else "小王有食物过敏吗？"
    assert [h.memory.content for h in vault.recall(ALICE, about)] == [allergy]
    # With the floor off (retrieval.floor.text: 0), recall ranks rather than judges.
    off = make_vault(strategy=floor_off())
    off.remember(ALICE, allergy)
    assert [h.memory.content for h in off.recall(ALICE, query)] == [allergy]


def test_the_floor_is_on_by_default_and_min_score_stays_zero() -> None:
    r = Strategy().retrieval
    assert r.min_score == 0.0 and r.floor.on
    assert not floor_off().retrieval.floor.on

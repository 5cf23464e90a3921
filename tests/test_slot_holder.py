"""A memory without a slot that says a slot's value holds that slot (issue 18, item 5).

An app stores "我希望你叫我小林" by hand, or the user's "My preferred language is German"
was kept before a slot read it: a later statement that sets the same slot is about that
memory. It updates it (the memory takes the slot and the new value as its next version),
a frozen one blocks it, and a value given up alone is staged against it, never added
beside it. A memory that only names a value in passing ("I write emails in English at
work") holds nothing.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.extract.readback import sets_slot

ME = Scope("acme", "erin")


def say(vault: Vault, line: str) -> list[dict]:
    return [o.to_dict() for o in vault.observe(ME, [{"role": "user", "content": line}]).outcomes]


def active(vault: Vault) -> list[str]:
    return [m.content for m in vault.list(ME, status="active", limit=100) if m.kind != "turn"]


@pytest.mark.parametrize("text, slot, sets", [
    ("我希望你叫我小林", "user.name", True),
    ("My preferred language is German", "reply.language", True),
    ("Preferred contact: email", "notify.channel", True),
    ("首选联系方式：电话", "notify.channel", True),
    ("Dietary preference: keto", "diet.restriction", True),
    ("I write emails in English at work", "reply.language", False),
    ("我在公司写邮件都用英文", "reply.language", False),  # a habit, not a wish
    ("以后都用英文", "reply.language", True),
    ("我希望你叫我小林", "reply.language", False),
])
def test_what_a_stored_statement_would_set(text: str, slot: str, sets: bool) -> None:
    assert sets_slot(text, slot) is sets


def test_a_frozen_memory_stored_by_hand_blocks_a_change_of_its_slot(vault: Vault) -> None:
    mid = vault.remember(ME, "我希望你叫我小林").memory.id
    vault.freeze(ME, mid, reason="the user asked")
    (o,) = say(vault, "以后叫我老林")
    assert (o["action"], o["memory_id"]) == ("block", mid)
    assert not any("老林" in t for t in active(vault))
    assert [r.op for r in vault.history(ME, mid)][-1] == "blocked"


def test_a_change_of_the_slot_updates_the_memory_that_said_it(vault: Vault) -> None:
    mid = vault.remember(ME, "Preferred contact: email").memory.id
    (o,) = say(vault, "text me from now on, I never check email")
    assert (o["action"], o["memory_id"]) == ("updated", mid)
    m = vault.get(ME, mid)
    assert (m.version, m.slot, m.value) == (2, "notify.channel", "SMS")
    assert active(vault) == [m.content]


def test_a_value_given_up_alone_is_staged_against_the_memory_that_said_it(
        vault: Vault) -> None:
    mid = vault.remember(ME, "Dietary preference: keto").memory.id
    (o,) = say(vault, "I quit keto")
    assert (o["action"], o["reasons"]) == ("stage", ["incomplete_update"])
    (p,) = vault.review_list(ME)
    assert p.metadata["review"]["target_id"] == mid
    assert vault.get(ME, mid).version == 1


def test_a_value_named_in_passing_holds_no_slot(vault: Vault) -> None:
    mid = vault.remember(ME, "I write emails in English at work").memory.id
    (o,) = say(vault, "reply in German from now on")
    assert o["action"] == "added" and o["memory_id"] != mid
    assert vault.get(ME, mid).version == 1
    assert vault.get(ME, o["memory_id"]).slot == "reply.language"

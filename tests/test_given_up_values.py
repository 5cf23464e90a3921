"""A slot value given up, and what is said instead (issue 18).

- "quit low-carb, I'm eating paleo now": the value given up and, in another clause, what
  holds now in words no slot value names. The sentence is one statement, matched by
  meaning: it becomes the slot memory's next version, and the slot (whose value would be
  stale) is dropped from it, its key kept as the topic. The value held, given up alone ("I
  quit low-carb"), is the same memory's change (want / don't want, issue 18): applied the
  same way when the user says it; put as a command ("update: I quit low-carb") it has no
  complete object and value, and is staged, as the seed's rule for an update says.
- A value the user says they do not handle ("短信我从来不看") is not one they ask for.
- "别…了" ("stop …") is a change: a memory an app stored by hand that it names is updated.
- A slot's negation is worded for the prompt; its key never is.
"""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.extract import as_messages
from memvault.extract.rules import RuleExtractor
from memvault.extract.slots import SLOTS
from memvault.understand.discourse import changes_mind

ME = Scope("acme", "dora")


def say(vault: Vault, line: str) -> list[dict]:
    return [o.to_dict() for o in vault.observe(ME, [{"role": "user", "content": line}]).outcomes]


@pytest.mark.parametrize("given, line, now_word", [
    ("I'm on a low-carb diet", "quit low-carb, I'm eating paleo now", "paleo"),
    ("我在吃生酮", "不吃生酮了，现在主要吃地中海饮食", "地中海"),
])
def test_a_value_given_up_with_what_holds_now_becomes_the_next_version(
        vault: Vault, given: str, line: str, now_word: str) -> None:
    (first,) = [o for o in say(vault, given) if o["action"] == "added"]
    old = vault.get(ME, first["memory_id"])
    assert old.slot == "diet.restriction"
    (o,) = say(vault, line)
    assert (o["action"], o["memory_id"]) == ("updated", old.id)
    new = vault.get(ME, old.id)
    assert new.version == 2 and now_word in new.content
    # The slot's value would say the old diet: it goes, its key stays as the topic.
    assert new.slot is None and new.value is None and new.topic == "diet.restriction"
    (was,) = [r for r in vault.history(ME, old.id) if r.to_version == 1]
    assert was.state is not None and was.state["value"] == old.value  # history keeps it


def test_the_value_held_given_up_alone_is_its_next_version(vault: Vault) -> None:
    (first,) = say(vault, "I'm on a low-carb diet")
    (o,) = say(vault, "I quit low-carb")
    assert (o["action"], o["memory_id"]) == ("updated", first["memory_id"])
    new = vault.get(ME, first["memory_id"])
    assert new.content == "The user's diet is no longer low-carb"  # worded for the prompt
    assert (new.slot, new.value, new.topic) == (None, None, "diet.restriction")


def test_a_value_given_up_as_a_command_is_staged_as_incomplete(vault: Vault) -> None:
    (first,) = say(vault, "I'm on a low-carb diet")
    (o,) = say(vault, "update: I quit low-carb")
    assert o["action"] == "stage" and "incomplete_update" in o["reasons"]
    assert vault.get(ME, first["memory_id"]).version == 1


@pytest.mark.parametrize("line, value", [
    ("别发邮件了，打电话吧，短信我从来不看", "phone"),
    ("别发短信了，发邮件就行，短信我基本不看", "email"),
])
def test_a_value_the_user_does_not_handle_is_not_asked_for(line: str, value: str) -> None:
    (c,) = RuleExtractor().extract(as_messages([{"role": "user", "content": line}]))
    assert (c.slot, c.value) == ("notify.channel", value)


def test_stop_doing_is_a_change_and_updates_a_memory_stored_by_hand(vault: Vault) -> None:
    assert changes_mind("别再催我交报告了") and not changes_mind("别忘了带伞")
    mid = vault.remember(ME, "首选通知方式：短信").memory.id
    outcomes = say(vault, "别发短信了，发邮件就行，短信我基本不看")
    assert [(o["action"], o["memory_id"]) for o in outcomes] == [("updated", mid)]
    assert "邮件" in vault.get(ME, mid).content


@pytest.mark.parametrize("spec", SLOTS, ids=[s.key for s in SLOTS])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_negation_is_worded_without_the_slot_key(spec: object, lang: str) -> None:
    value = next(iter(spec.values), "x")  # type: ignore[attr-defined]
    text = spec.render(None, lang, replaces=value)  # type: ignore[attr-defined]
    assert spec.key not in text and text.strip()  # type: ignore[attr-defined]

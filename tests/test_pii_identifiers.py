"""A number detector reads text, not identifiers. A memory id's random hex can hold a digit
run that passes Luhn ("m_01a24961f2450000313275…": 24500003132751) or looks like a phone;
scrubbed as a card, the statement's `turn_id` pointed nowhere, so the thread read it as
another line's memory and purge missed what the turn made (CI, 2026-12-06). A number that
stands alone, or after a word ("tel13812345678"), is still found."""

from __future__ import annotations

import pytest

from memvault import Scope, Vault
from memvault.ids import is_id, new_id
from memvault.safety.pii import find_pii, luhn_ok, redact, scrub, scrub_around

LUHN_ID = "m_01a24961f24500003132751b6e19"


def test_the_id_holds_a_card_shaped_run() -> None:
    assert luhn_ok("24500003132751") and is_id(LUHN_ID)
    # The same digits said on their own are a card.
    assert [f.kind for f in find_pii("card 24500003132751")] == ["card"]


@pytest.mark.parametrize("text", [
    LUHN_ID, f"covers {LUHN_ID} and more", "tr_01a2496138124567890a0b0c0d0e",
    "build 7f13812345678a", "x_4111111111111111"])
def test_a_number_inside_an_identifier_is_not_found(text: str) -> None:
    assert find_pii(text) == []


@pytest.mark.parametrize("text, kind", [
    ("tel13812345678", "phone"), ("ORD4111111111111111", "card"),
    ("卡号6222021234567890128", "card"), ("call 415-555-0134 today", "phone"),
    ("身份证110105194912310025", "id_number")])
def test_a_number_after_a_word_is_still_found(text: str, kind: str) -> None:
    assert [f.kind for f in find_pii(text)] == [kind]


def test_scrubbed_metadata_keeps_its_ids_and_loses_its_values() -> None:
    meta = {"turn_id": LUHN_ID, "covers": [LUHN_ID, new_id("m")],
            "note": "card 4111 1111 1111 1111"}
    out = scrub_around((meta,), {"card": "redact"}, ["my card is 4111 1111 1111 1111"])[0]
    assert out["turn_id"] == LUHN_ID and out["covers"] == meta["covers"]
    assert out["note"] == "card [CARD]"
    # An id-shaped string is kept even when a known value is all of it.
    assert scrub(LUHN_ID, {"card"}, [("card", LUHN_ID)]) == LUHN_ID
    assert redact("x " + LUHN_ID)[0] == "x " + LUHN_ID


def test_observed_statements_keep_their_turn_ids(vault: Vault,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Every id's random part a letter and a Chinese mobile number ("…a13812345678"): each
    turn id then ends in a phone-shaped run, and every statement still names its turn."""
    import memvault.ids as ids

    monkeypatch.setattr(ids.secrets, "token_hex", lambda n: "a13812345678")
    me = Scope("acme", "dana")
    lines = ["My sister lives in Oslo", "I keep bees in the garden",
             "my card is 4111 1111 1111 1111"]
    for line in lines:
        vault.observe(me, [{"role": "user", "content": line}])
    turns = {m.id for m in vault.list(me, kind="turn", limit=50)}
    made = [m for m in vault.list(me, limit=50) if m.kind != "turn"]
    assert len(turns) == 3 and len(made) >= 2
    assert all(m.metadata.get("turn_id") in turns for m in made)

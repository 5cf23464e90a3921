"""A number detector reads text, not identifiers. A memory id's random hex can hold a digit
run that passes Luhn ("m_01a24961f2450000313275…": 24500003132751) or looks like a phone;
scrubbed as a card, the statement's `turn_id` pointed nowhere, so the thread read it as
another line's memory and purge missed what the turn made (CI, 2026-12-06). A number that
stands alone, or after a word ("tel13812345678"), is still found."""

from __future__ import annotations

from typing import Any

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


SNOWFLAKE = "412345678901234561"      # 18 digits, passes Luhn: a Discord message id
SHOPIFY = "gid://shopify/Order/5582672871607"


def test_a_one_token_field_value_is_an_identifier_unless_labelled() -> None:
    """In a field (a tag, a metadata string, a reference) a value of one token holding a
    digit run that passes Luhn is an id; the same run said in a sentence is a card."""
    assert luhn_ok(SNOWFLAKE) and luhn_ok("5582672871607")
    for value in (SNOWFLAKE, SHOPIFY, f"discord:1189203746829234171/{SNOWFLAKE}"):
        assert find_pii(value, field=True) == []
    assert [f.kind for f in find_pii(SNOWFLAKE)] == ["card"]
    # A field written as text is read as text; a phone needs no checksum.
    assert redact(f"card {SNOWFLAKE}", {"card"}, field=True)[0] == "card [CARD]"
    assert redact("+44 20 7946 0958", {"phone"}, field=True)[0] == "[PHONE]"


@pytest.mark.parametrize("key, value, kind", [
    ("password", "hunter2x!", "secret"), ("wifiPassword", "Zq9-vault", "secret"),
    ("api_key", 123456789, "secret"), ("ssn", "123-45-6789", "id_number"),
    ("card_number", "1234 5678 9012 3456", "card"), ("phone_number", "020 7946 0958", "phone"),
    ("userEmail", "jane@example.org", "email"), ("身份证号", "330106198805120011", "id_number"),
    # what the key names is not what the value is: a count, a row key, a flag, a platform
    ("token_count", "512", None), ("dedupe_key", "abc", None), ("secret", True, None),
    ("phone", "iPhone 15", None), ("email", "none", None), ("message_id", SNOWFLAKE, None),
    ("password_hint", "first pet", None), ("pin", 1, None)])
def test_a_mapping_key_says_what_its_value_is(key: str, value: object,
                                              kind: str | None) -> None:
    kinds = {"secret", "card", "id_number", "phone", "email"}
    out = scrub({key: value}, kinds)[key]
    if kind is None:
        assert out == value
    else:
        assert out == f"[{kind.upper()}]"


@pytest.mark.parametrize("text", [
    f"dedupe key: {LUHN_ID}", "idempotency-key: 550e8400-e29b-41d4-a716-446655440000",
    "page token: abcdefghij1234567890ab", "password_last_changed: 2024-03-15"])
def test_a_label_that_names_a_row_or_a_field_is_not_a_credential(text: str) -> None:
    assert find_pii(text) == [] and find_pii(text, field=True) == []


def test_a_credential_after_its_label_is_still_one() -> None:
    assert redact("my api key is sk_live_abcdefghij1234567890")[0] == "my api key is [SECRET]"
    assert redact("wifi password: Zq9-vault")[0] == "wifi password: [SECRET]"
    assert redact("Authorization: Bearer abcDEF123456ghiJKL789")[0] == \
        "Authorization: Bearer [SECRET]"
    assert find_pii("the bearer of bad news is here") == []


def test_what_a_proposal_carries_keeps_its_ids_and_loses_its_secrets(vault: Vault) -> None:
    me = Scope("acme", "erin")
    o = vault.propose(me, "I use VS Code for Python work", tags=[f"token: {LUHN_ID}"],
                      source_ref=f"discord:1189203746829234171/{SNOWFLAKE}",
                      metadata={"link": f"dedupe key: {LUHN_ID}", "order": SHOPIFY,
                                "password": "hunter2x!", "ssn": "123-45-6789"})
    m = vault.get(me, o.memory_id)
    assert m.tags == [f"token: {LUHN_ID}"]
    assert m.source_ref == f"discord:1189203746829234171/{SNOWFLAKE}"
    assert m.metadata["link"] == f"dedupe key: {LUHN_ID}" and m.metadata["order"] == SHOPIFY
    assert m.metadata["password"] == "[SECRET]" and m.metadata["ssn"] == "[ID_NUMBER]"


def test_an_export_whose_messages_have_numeric_ids_imports_whole(
        make_vault: Any) -> None:
    """A chat platform's message id that passes Luhn is kept on the turn and on the
    statement made from it; the reviewed import of the export takes both lines, and the
    statement's turn_id names the imported turn."""
    import io

    me = Scope("acme", "fred")
    a, b = make_vault(), make_vault()
    a.observe(me, [{"role": "user", "content": "I prefer dark mode in my editor.",
                    "id": SNOWFLAKE}], source_ref=f"discord:1189203746829234171/{SNOWFLAKE}")
    buf = io.StringIO()
    a.export_jsonl(me, buf)
    report = b.import_review(buf.getvalue().splitlines(), scope=me)
    assert [(r.action, r.findings) for r in report.lines] == [("import", []), ("import", [])]
    got = {m.kind: m for m in b.list(me, limit=20)}
    assert got["turn"].metadata["message_id"] == SNOWFLAKE
    assert got["turn"].source_ref == f"discord:1189203746829234171/{SNOWFLAKE}"
    stmt = next(m for k, m in got.items() if k != "turn")
    assert b.get(me, stmt.metadata["turn_id"]).id == got["turn"].id


# --- a second audit, through every face (the faces agreed; these are the core's) -------

@pytest.mark.parametrize("meta, kept", [
    ({"password": ["Hunter2!x9"]}, {"password": "[SECRET]"}),
    ({"credentials": {"user": "dana", "pass": "Hunter2!x9"}}, {"credentials": "[SECRET]"}),
    ({"pin": "4821", "password2": {"current": "Hunter2!x9"}},
     {"pin": "[SECRET]", "password2": "[SECRET]"}),
    ({"api_key": "none", "password": "correct", "secret": "yes"},
     {"api_key": "none", "password": "correct", "secret": "yes"}),
    ({"alice@example.com": "owner", SNOWFLAKE: "k"}, {"[EMAIL]": "owner", SNOWFLAKE: "k"})])
def test_what_a_key_holds_or_is(meta: dict[str, Any], kept: dict[str, Any]) -> None:
    assert scrub(meta, {"secret", "card", "email", "phone", "id_number"}) == kept


@pytest.mark.parametrize("value, out", [
    ("4111-1111-1111-1111", "[CARD]"), ("card:4111111111111111", "card:[CARD]"),
    ("4111111111111111", "4111111111111111"), (SNOWFLAKE, SNOWFLAKE),
    (f"msgid{SNOWFLAKE}", f"msgid{SNOWFLAKE}"), (f"id:{SNOWFLAKE}", f"id:{SNOWFLAKE}")])
def test_a_field_written_as_a_card_is_one(value: str, out: str) -> None:
    assert redact(value, {"card"}, field=True)[0] == out


def test_a_message_id_is_a_field_and_a_password_with_a_bang_is_one_word(vault: Vault) -> None:
    me = Scope("acme", "gina")
    vault.observe(me, [{"role": "user", "content": "I enjoy rowing", "id": "+44 7700 900123",
                        "name": "+44 7700 900123"}])
    vault.observe(me, [{"role": "user", "id": SNOWFLAKE,
                        "content": "my wifi password is Zebra7!Quux and I like tea"}])
    mems = vault.list(me, limit=20)
    ids = {m.metadata.get("message_id") for m in mems}
    assert ids == {"[PHONE]", SNOWFLAKE}
    # One sentence: no memory keeps the password's tail ("Quux and I like tea").
    assert {m.content.casefold() for m in mems} == {
        "i enjoy rowing", "my wifi password is [secret] and i like tea"}

"""A number the user labels as sensitive is sensitive whatever its checksum (issue 18):
"my card number is 4000 1234 5678 9011" is redacted though the number fails Luhn, and so
is "我的身份证号 330106198805120011" though its check digit is wrong. Redacted in the raw
turn, in every derived memory and in the database files (the -wal and -shm included);
unlabelled numbers that pass a checksum stay detected as before, ordinary ones do not."""

from __future__ import annotations

from pathlib import Path

import pytest
from _util import all_text, backends

from memvault import Scope, Vault
from memvault.safety.pii import find_pii, luhn_ok, redact, resident_id_ok

ME = Scope("acme", "alice")
CARD = "4000 1234 5678 9011"           # fails Luhn
ID = "330106198805120011"              # fails the GB 11643 check digit
PASSPORT = "E47139908"
IBAN = "DE12 5001 0517 0648 4898 90"   # the check digits are wrong


def test_the_numbers_fail_their_checksums() -> None:
    # Unlabelled, none of them would be found: the label is what makes them sensitive.
    assert not luhn_ok(CARD.replace(" ", "")) and not resident_id_ok(ID)
    assert find_pii(f"order {CARD.replace(' ', '')}, ref {ID}") == []


@pytest.mark.parametrize("text, number, kind", [
    (f"my card number is {CARD}", CARD, "card"),
    (f"Card no. {CARD.replace(' ', '')} was declined", CARD.replace(" ", ""), "card"),
    (f"我的身份证号 {ID}", ID, "id_number"),
    (f"身份证号码：{ID}，别弄丢了", ID, "id_number"),
    (f"passport: {PASSPORT}", PASSPORT, "id_number"),
    (f"我passport number是{PASSPORT}", PASSPORT, "id_number"),
    (f"IBAN {IBAN}.", IBAN, "card"),
    ("SSN 123-45-6789", "123-45-6789", "id_number"),
    ("我的银行卡号是6222 0212 3456 7890 123", "6222 0212 3456 7890 123", "card"),
    ("手机号：13800138000", "13800138000", "phone"),
    # the label after the number, or filler between them
    (f"use {CARD} (that's my credit card)", CARD, "card"),
    (f"{ID}是我的身份证号", ID, "id_number"),
    ("my social insurance number, it's 046 454 286", "046 454 286", "id_number"),
    (f"national ID number, which is {PASSPORT}", PASSPORT, "id_number"),
])
def test_a_labelled_number_is_redacted_by_its_label(text: str, number: str, kind: str) -> None:
    out, found = redact(text)
    assert [f.kind for f in found] == [kind]
    assert number not in out and f"[{kind.upper()}]" in out
    assert out.replace(f"[{kind.upper()}]", number) == text  # only the number went


@pytest.mark.parametrize("text", [
    "my account is locked again", "card ending in 4421", "order 12345678 arrived",
    "I paid 1234567 yen", "I have a pan 123456 for cooking", "the room is 204",
    "I paid 1500000 for my card game collection", "ran 120000 steps, my phone says",
    "up 250000 views, my card game channel",
])
def test_numbers_without_a_label_or_too_short_are_left_alone(text: str) -> None:
    assert find_pii(text) == []


@backends("sqlite")
def test_a_labelled_number_reaches_no_byte_of_the_store(vault: Vault) -> None:
    res = vault.observe(ME, [{"role": "user", "content":
                              f"my card number is {CARD} and my passport is {PASSPORT}, "
                              "please remember I prefer aisle seats"}])
    vault.observe(ME, [{"role": "user", "content": f"我的身份证号 {ID}，我住在杭州"}])
    turns = vault.list(ME, kind="turn")
    assert all(CARD not in t.content and ID not in t.content for t in turns)
    assert any("[CARD]" in t.content for t in turns)
    kept = [m for m in vault.list(ME, limit=100) if m.kind != "turn"]
    assert kept and all(CARD not in m.content and PASSPORT not in m.content
                        and ID not in m.content for m in kept)
    # The statement beside the numbers was still learned, with the numbers redacted.
    assert any("aisle" in m.content for m in kept) and res.outcomes
    db = Path(vault.store.path)
    needles = [n.encode(enc) for n in (CARD, CARD.replace(" ", ""), ID, PASSPORT)
               for enc in ("utf-8", "utf-16-le")]
    files = [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()]
    assert files and len(files) >= 2  # the WAL is there to be searched
    for p in files:
        data = p.read_bytes()
        assert not any(n in data for n in needles), p.name


def test_a_labelled_number_is_in_no_table(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": f"IBAN {IBAN}, 银行卡号 {CARD}"}])
    for table, text in all_text(vault).items():
        for n in (IBAN, IBAN.replace(" ", ""), CARD, CARD.replace(" ", "")):
            assert n not in text, table

"""A number the user labels as sensitive is sensitive whatever its checksum (issue 18):
"my card number is 4000 1234 5678 9011" is redacted though the number fails Luhn, and so
is "我的身份证号 330106198805120011" though its check digit is wrong. Redacted in the raw
turn, in every derived memory and in the database files (the -wal and -shm included);
unlabelled numbers that pass a checksum stay detected as before, ordinary ones do not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    # an account of any kind, its number right after the word
    ("工作室的对公账户 3301 0400 1122 334 开票用", "3301 0400 1122 334", "card"),
    # the label after the number, or filler between them
    (f"use {CARD} (that's my credit card)", CARD, "card"),
    (f"{ID}是我的身份证号", ID, "id_number"),
    ("my social insurance number, it's 046 454 286", "046 454 286", "id_number"),
    (f"national ID number, which is {PASSPORT}", PASSPORT, "id_number"),
    # an insurer's or a health service's number for the user (the tenth generalisation
    # set: "aetna member ID W28…" had been stored in clear)
    ("cigna member ID Q519203847 keeps getting rejected", "Q519203847", "id_number"),
    ("my policy number is HX-2231-8807-41", "HX-2231-8807-41", "id_number"),
    ("NHS number 943 476 5919, for the GP form", "943 476 5919", "id_number"),
    ("保单号 B2023090412877 帮我查一下", "B2023090412877", "id_number"),
    ("医保卡号：A123456789", "A123456789", "id_number"),
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
    "up 250000 views, my card game channel", "账户余额 350000 元", "账户余额：35000",
    "I've been a gym member since 2019, 3 visits a week", "ask for my member ID first",
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


@pytest.mark.parametrize("text, number, kind", [
    # the label in another sentence of the same message, after or before the number
    (f"Got it here: {CARD.replace(' ', '')}. That is my debit card number.", CARD, "card"),
    (f"帮我存一下我的银行卡号。{CARD}", CARD, "card"),
    (f"{CARD} 是我平时用的那张信用卡号", CARD, "card"),
    (f"you'll need my passport no. for the visa form - it's the one below\n{ID}", ID,
     "id_number"),
    ("my bank account number for the refund, so you have it, is 40221187 63", "40221187 63",
     "card"),
])
def test_a_number_a_label_of_its_message_names_is_redacted(text: str, number: str,
                                                           kind: str) -> None:
    # (a blind audit: each of these reached the database files in clear)
    out, found = redact(text)
    assert number not in out and number.replace(" ", "") not in out
    assert kind in [f.kind for f in found]


@pytest.mark.parametrize("text", [
    "my card number changed last week, the new card came on 2026 11 30",
    "passport renewal: appointment 20261203 at 9",
    "张三 13800138000，身份证 11010519491231002X",
])
def test_dates_and_numbers_of_their_own_kind_are_not_taken_for_the_labelled_one(
        text: str) -> None:
    kinds = [f.kind for f in find_pii(text)]
    assert "card" not in kinds and kinds.count("id_number") <= 1
    if "1380013" in text:
        assert kinds == ["phone", "id_number"]


@backends("sqlite")
def test_a_number_labelled_in_another_sentence_reaches_no_byte_of_the_store(
        vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content":
                        f"Here you go: {CARD}. That's my credit card number, I prefer "
                        "window seats"}])
    db = Path(vault.store.path)
    needles = [n.encode() for n in (CARD, CARD.replace(" ", ""))]
    files = [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()]
    assert files
    for p in files:
        assert not any(n in p.read_bytes() for n in needles), p.name
    assert any("[CARD]" in t.content for t in vault.list(ME, kind="turn"))


# Written before the change that finds them: the forms chat puts between a label and
# its value, labels of other identity papers, and credentials. Fresh wording, none of it
# from benchmarks/generalisation.
@pytest.mark.parametrize("text, value, kind", [
    # filler up to a colon: the colon says what follows is the value
    ("my debit card number, just in case you need it: 4929 1111 2222 3334",
     "4929 1111 2222 3334", "card"),
    ("身份证号码你帮我存一下：510104 19870923 0041", "510104 19870923 0041", "id_number"),
    ("passport number for the booking form: K83920114", "K83920114", "id_number"),
    # other papers and accounts
    ("driving licence number MORGA657054SM9IJ", "MORGA657054SM9IJ", "id_number"),
    ("my NI number's AB 12 34 56 C", "AB 12 34 56 C", "id_number"),
    ("港澳通行证号码C60418837，下个月要用", "C60418837", "id_number"),
    ("居住证号 440300201900123", "440300201900123", "id_number"),
    ("pay it into account 31926819 please", "31926819", "card"),
    # credentials: a password is whatever token follows, when it is not a plain word
    ("my email password is Tr0ub4dor&3", "Tr0ub4dor&3", "secret"),
    ("wifi password: hunter22", "hunter22", "secret"),
    ("我的支付宝密码是Qz@881204，帮我记住", "Qz@881204", "secret"),
    ("银行卡密码 665544", "665544", "secret"),
    ("the PIN is 4821", "4821", "secret"),
])
def test_a_labelled_value_in_chat_forms_is_redacted(text: str, value: str, kind: str) -> None:
    out, found = redact(text)
    assert [f.kind for f in found] == [kind]
    assert value not in out and f"[{kind.upper()}]" in out
    assert out.replace(f"[{kind.upper()}]", value) == text


@pytest.mark.parametrize("text", [
    "I changed my password yesterday", "my password is on a sticky note",
    "the wifi password is the same as before", "密码忘了怎么办", "PIN reset took 3 days",
    "order number, in case you need it: 48213377", "my account has 120000 followers",
    "our account manager: Tom", "the card game: 2024 edition is out",
    "my password is correct, it's the site", "passport photos cost 15 pounds",
    "驾照考了三次才过", "通行证办好了，下周去香港",
])
def test_a_label_without_a_value_or_a_value_without_a_label_is_left_alone(text: str) -> None:
    assert find_pii(text) == []


def test_a_password_reaches_no_stored_memory(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content":
                        "my email password is Tr0ub4dor&3, and I prefer window seats"}])
    for table, text in all_text(vault).items():
        assert "Tr0ub4dor&3" not in text, table
    assert any("window" in m.content for m in vault.list(ME) if m.kind != "turn")


def test_a_value_found_in_the_source_is_removed_from_what_was_made_of_it() -> None:
    """An extractor may keep the number and drop the label that made it sensitive
    ("account no. 0012… at Chase" -> "0012… at Chase"): the content is cleaned of what
    the line it came from showed, spaced or not."""
    from memvault.gate import Candidate, screen

    s = screen(Candidate(content="Banks at Lakeside with 0093 4418 2271 (and 009344182271)",
                         source_text="acct no. 0093 4418 2271 at Lakeside, statements by post"))
    assert "0093" not in s.content and s.content.count("[CARD]") == 2
    assert s.source_text is not None and "0093" not in s.source_text
    # Nothing sensitive in the source: the content keeps its numbers.
    plain = screen(Candidate(content="Order 00934418 ships Friday",
                             source_text="order 00934418 ships Friday"))
    assert plain.content == "Order 00934418 ships Friday"


def test_a_labelled_number_the_extractor_unlabels_is_in_no_table(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content":
                        "account no. 700212345678 at Lakeside, and I'd like paper statements"}])
    kept = [m for m in vault.list(ME) if m.kind != "turn"]
    assert any("paper statements" in m.content for m in kept)
    for table, text in all_text(vault).items():
        assert "700212345678" not in text, table


# From an audit of the first version (a helper who wrote its expectations first).
@pytest.mark.parametrize("text", [
    "My phone bill this month: 1500000 VND, which is too much", "我的手机流量剩余：100000，够用了",
    "My savings account: 250000 dollars saved so far", "my account is 150000 in the red",
    "passport photos and visa fee, total: 1250000 VND", "电话费一共：150000",
    "We raised 2500000, that's the account balance", "Account: 123456 upvotes",
    "the postal PIN code is 560001", "my password is weak.", "密码是我自己设置的，应该没问题",
    "my password is easy to remember", "I forgot the password for the wifi again",
])
def test_amounts_and_words_about_a_password_are_left_alone(text: str) -> None:
    assert find_pii(text) == []


@pytest.mark.parametrize("text, value", [
    ("my password is sunshine! don't tell anyone", "sunshine"),
    ("the password for the wifi is hunter22", "hunter22"),
    ("I set my password to hunter22", "hunter22"),
    ("my password's hunter22", "hunter22"),
    ("hunter22 is my password", "hunter22"),
    ("Qz@881204是我的密码", "Qz@881204"),
    ("密码是我爱北京123", "我爱北京123"),
    ('password: "correct horse battery staple"', "correct horse battery staple"),
    ("CVV: 123", "123"),
    ("password = S3cr3t!", "S3cr3t!"),
])
def test_more_ways_to_give_a_password(text: str, value: str) -> None:
    out, found = redact(text)
    assert [f.kind for f in found] == ["secret"] and value not in out, out


@pytest.mark.parametrize("text", [
    "password: [SECRET]", "my card number is [CARD]", "wifi password: hunter22",
    "account no. 001244789921 and the PIN is 4821", "密码是Qz@881204，身份证号 330106198805120011",
])
def test_redacting_twice_changes_nothing_more(text: str) -> None:
    once = redact(text)[0]
    assert redact(once)[0] == once


def test_a_value_echoed_in_another_message_is_hidden_there_too(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content": "my card number is 4000 1234 5678 9011"},
                       {"role": "assistant", "content": "Noted, card 4000 1234 5678 9011."}])
    turns = [t.content for t in vault.list(ME, kind="turn")]
    assert len(turns) == 2 and all("[CARD]" in t for t in turns), turns
    for table, text in all_text(vault).items():
        assert "4000 1234" not in text and "4000123456789011" not in text, table


def test_a_short_value_is_not_hunted_in_other_messages(vault: Vault) -> None:
    """A PIN "1990" is a year in the next message: only values of six characters or more
    travel from one message to another."""
    vault.observe(ME, [{"role": "user", "content": "the garage PIN is 1990"},
                       {"role": "user", "content": "I was born in 1990 and I live in Leeds"}])
    turns = [t.content for t in vault.list(ME, kind="turn")]
    assert any("born in 1990" in t for t in turns) and not any("PIN is 1990" in t
                                                                for t in turns)


@backends("sqlite")
def test_a_staged_kind_is_not_served_from_the_turn(tmp_path: Path) -> None:
    """Under `stage` the value waits for a reviewer in the staged candidate; the raw turn,
    which every read serves, holds the placeholder."""
    cfg = tmp_path / "s.yaml"
    cfg.write_text("write:\n  pii: {secret: stage}\n", encoding="utf-8")
    v = Vault(str(tmp_path / "v.db"), strategy=str(cfg))
    try:
        v.observe(ME, [{"role": "user", "content": "my wifi password is hunter22"}])
        turns = [t.content for t in v.list(ME, kind="turn")]
        assert turns and all("hunter22" not in t and "[SECRET]" in t for t in turns)
        served = v.context(ME, "what is my wifi password?").text
        assert "hunter22" not in served
    finally:
        v.close()


def test_a_query_is_kept_in_its_trace_without_what_the_policy_hides(vault: Vault) -> None:
    vault.remember(ME, "The wifi is in the hallway cupboard")
    res = vault.recall(ME, "my wifi password: hunter22, where is the router?")
    if hasattr(vault.store, "flush_traces"):
        vault.store.flush_traces()
    trace = vault.trace(ME, res.trace_id)
    assert "hunter22" not in trace["query"] and "[SECRET]" in trace["query"]
    for table, text in all_text(vault).items():
        assert "hunter22" not in text, table


def test_an_agents_proposal_keeps_no_hidden_value_in_its_other_fields(
        make_vault: Any) -> None:
    v = make_vault()
    card, mail = "4111 1111 1111 1111", "alice.secret@example.com"
    out = v.propose(ME, "The user likes green tea", metadata={"note": f"card {card}",
                                                              "n": [f"mail {mail}", 3]},
                    tags=[f"from {mail}"], topic=f"tea for {mail}",
                    reason="user said wifi password is hunter22!",
                    source_ref=f"chat with card {card}")
    m = v.get(ME, out.memory_id)
    assert m.metadata["note"] == "card [CARD]" and m.metadata["n"] == ["mail [EMAIL]", 3]
    assert m.tags == ["from [EMAIL]"] and m.source_ref == "chat with card [CARD]"
    for table, text in all_text(v).items():
        for value in (card, mail, "hunter22"):
            assert value not in text, (table, value)


def test_a_turns_speaker_name_and_reference_keep_no_hidden_value(make_vault: Any) -> None:
    v = make_vault()
    mail, card = "alice.secret@example.com", "4111 1111 1111 1111"
    v.observe(ME, [{"role": "user", "content": "I like tea", "name": mail}],
              source_ref=f"chat with card {card}")
    (turn,) = [m for m in v.list(ME) if m.kind == "turn"]
    assert turn.metadata["speaker"] == "[EMAIL]" and turn.source_ref == "chat with card [CARD]"
    for table, text in all_text(v).items():
        assert mail not in text and card not in text, table


def test_a_value_the_statement_holds_is_hidden_where_a_proposal_repeats_it(
        make_vault: Any, tmp_path: Path) -> None:
    pw = "Tr0ub4dor&3x"
    v = make_vault()
    out = v.propose(ME, f"my wifi password is {pw}", reason=f"{pw} was said",
                    tags=[pw], metadata={"said": pw})
    m = v.get(ME, out.memory_id)
    assert pw not in m.content and m.tags == ["[SECRET]"] and m.metadata["said"] == "[SECRET]"
    for table, text in all_text(v).items():
        assert pw not in text, table
    # A staged kind's value waits for the reviewer in the statement, not in a tag.
    path = tmp_path / "stage.yaml"
    path.write_text("write:\n  pii: {email: stage}\n", encoding="utf-8")
    staged = make_vault(strategy=path)
    mail = "alice.secret@example.com"
    got = staged.propose(ME, "The user likes green tea", tags=[f"from {mail}"])
    assert staged.get(ME, got.memory_id).tags == ["from [EMAIL]"]


@pytest.mark.parametrize("text, phone", [
    # national forms as people write them (an audit found these stored in clear)
    ("call me on 07700 900123 if I'm late", "07700 900123"),
    ("mobile's 07700 900 123", "07700 900 123"),
    ("the office line is 020 7946 0018", "020 7946 0018"),
    ("ring 0161 496 0000 after six", "0161 496 0000"),
    ("my number is (555) 123-4567", "(555) 123-4567"),
])
def test_national_phone_forms_are_phones(text: str, phone: str) -> None:
    out, found = redact(text)
    assert phone not in out and [f.kind for f in found] == ["phone"]


@pytest.mark.parametrize("text", [
    "order 07700900123 shipped", "tracking 01234 567 890 12", "ref 2024 123456",
    "I ran 07 miles", "room 0161", "lot 5 01234 567 890",
])
def test_number_runs_that_are_not_phones_stay(text: str) -> None:
    assert redact(text) == (text, [])

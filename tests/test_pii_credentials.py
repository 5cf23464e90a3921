"""Credentials a user gives in chat are secrets whatever the label: a vendor key known by
its shape (detect-secrets' list, and the newer shapes it lacks), a value after a key or
token label, a door or gate code. Redacted in the turn, the memories made of it and the
database files; look-alikes (order ids, commit hashes, model names, "token limit") stay."""

from __future__ import annotations

from pathlib import Path

import pytest
from _util import all_text, backends

from memvault import Scope, Vault
from memvault.safety.credentials import credential_spans
from memvault.safety.pii import find_pii, redact

ME = Scope("acme", "bo")
# Synthetic values in each vendor's published shape.
GH = "ghp_Zq81LmT0xv3RkW2s9aPcYb7NdE4fGh6Ij5Ku"
PROJ = "sk-proj-Qw3rTy7Ui9Op2As4Df6Gh8Jk0LzXcVbNm1QaWsEdRf"
JWT = ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJibyIsImlhdCI6MTcwMDAwMDAwMH0."
       "Xy7Qm2Lp9Rt4Vw1Zs8Kb3Nc6Hd5Jf0Ga_PeUi-Oo")
SLACK = "xoxb-248291734-9918273645-Xk2mQ9vL4pR7sT1w"
GOOGLE = "AIzaSyQ8xL2mV7pR4tW9kZ3nB6cD1fG5hJ0sAqE"


@pytest.mark.parametrize("text, value", [
    (f"here's my github token {GH} in case the CI breaks", GH),
    (f"{PROJ} is the openai key for the side project", PROJ),
    (f"bearer {JWT}", JWT),  # the whole token, its signature too
    ("AKIAZ7Q4M2X9R1T6P3L8 is the access key id", "AKIAZ7Q4M2X9R1T6P3L8"),
    (f"slack bot: {SLACK}", SLACK),
    (f"maps key {GOOGLE} ok", GOOGLE),
    ("clone https://bo:Vx9-tq2Lm@git.example.org/repo.git", "Vx9-tq2Lm"),
    ("CACHE=redis://:pW4-q8Zm@cache:6379/0", "pW4-q8Zm"),  # no user name
    ("why 401 on https://api.example.com/v1/x?q=1&api_key=7Qm2Lp9Rt4Vw1Zs8KdE4fGh6",
     "7Qm2Lp9Rt4Vw1Zs8KdE4fGh6"),
    ("bot url https://hooks.example.cn/webhook/send/Qm2Lp9Rt4Vw1Zs8KdE4fGh6I",
     "Qm2Lp9Rt4Vw1Zs8KdE4fGh6I"),
    ("deepseek: sk-0f3a9c2e1b4d5f6071829a3b4c5d6e7f", "sk-0f3a9c2e1b4d5f6071829a3b4c5d6e7f"),
])
def test_a_key_known_by_its_shape_is_a_secret_unlabelled(text: str, value: str) -> None:
    out, found = redact(text)
    assert [f.kind for f in found] == ["secret"]
    assert value not in out and out.replace("[SECRET]", value) == text


def test_a_private_key_is_taken_whole() -> None:
    pem = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQyNTUxOQAAACD9\n"
           "-----END OPENSSH PRIVATE KEY-----")
    text = f"my deploy key:\n{pem}\nthanks"
    assert [text[a:b] for a, b in credential_spans(text)] == [pem]
    assert redact(text)[0] == "my deploy key:\n[SECRET]\nthanks"


@pytest.mark.parametrize("text, value", [
    ("my api key is a8f9c2d1e0b7aa91", "a8f9c2d1e0b7aa91"),
    ("the client secret: 7Hk2-pQ9w-Lm4z-X81c", "7Hk2-pQ9w-Lm4z-X81c"),
    ("接口密钥是 x9Kq2mZ8pL4vN7wR，别外传", "x9Kq2mZ8pL4vN7wR"),
    ("the door code is 4821", "4821"),
    ("gate code 1942# if the buzzer's broken", "1942#"),
    ("门禁码 2580，进门左转", "2580"),
    # where it is between the label and the value; a longer label inside a shorter one
    ("the padlock on the bike shed is 0852", "0852"),
    ("my ssh key passphrase is Moonlight_Drive_07, keep it", "Moonlight_Drive_07"),
    ("aws_secret_access_key = Ji+rNOh4gHWNYYt7U+aJONICyu", "Ji+rNOh4gHWNYYt7U+aJONICyu"),
    ("the code to get into the apartment building is 3141", "3141"),
    ("SIM PUK is 48203917", "48203917"),
    ("我的 PIN 码是 7391", "7391"),
    ("大门密码改成 4096 了", "4096"),
])
def test_a_labelled_key_or_access_code_is_a_secret(text: str, value: str) -> None:
    out, found = redact(text)
    assert [f.kind for f in found] == ["secret"]
    assert value not in out and out.replace("[SECRET]", value) == text


@pytest.mark.parametrize("text", [
    "my api key is ready", "the api key expired yesterday", "token limit is 128k",
    "a token of thanks for the team", "the door code changed again",
    "dress code is smart casual", "fixed in commit 9f2c4e1a7b3d5f60218c4e9a0b7d6c5e4f3a2b1c",
    "order id 7f3a9c2e-1b4d-4f60-9a8e-2c1d0b3a4e5f",
    "switch the model to gpt-4o-mini-2024-07-18", "my flight is BA2490 on friday",
    "use discount code SUMMER20 at checkout", "https://example.org/docs/v2/auth#tokens",
    "密码要求至少8位，包含大小写字母和数字", "the key is patience, honestly",
])
def test_look_alikes_are_left_alone(text: str) -> None:
    assert find_pii(text) == []


@backends("sqlite")
def test_a_pasted_key_reaches_no_byte_of_the_store(vault: Vault) -> None:
    vault.observe(ME, [{"role": "user", "content":
                        f"the door code is 4821 and my github token is {GH}; "
                        "I prefer dark mode in every editor"}])
    vault.observe(ME, [{"role": "user", "content": f"{PROJ} is the openai key, keep it"}])
    kept = vault.list(ME, limit=100)
    assert any("dark mode" in m.content for m in kept if m.kind != "turn")
    assert any("[SECRET]" in m.content for m in kept if m.kind == "turn")
    for table, text in all_text(vault).items():
        assert GH not in text and PROJ not in text and "4821" not in text, table
    db = Path(vault.store.path)
    files = [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()]
    assert len(files) >= 2
    for p in files:
        data = p.read_bytes()
        assert GH.encode() not in data and PROJ.encode() not in data, p.name


# Found by a review: code, URLs and codes that are not credentials.
@pytest.mark.parametrize("text", [
    "sorted(d.items(), key=itemgetter(1))", "token = tokenizer.encode(text1)",
    "key = hashlib.sha256(data).hexdigest()", "secret = os.environ['SECRET_KEY2']",
    "cache key ubuntu-22.04-node-18.17.1", "the app id is com.example.myapp2024",
    "https://react.dev/reference/react/hooks/useSyncExternalStore",
    "cp .git/hooks/prepare-commit-msg.sample .git/hooks/prepare-commit-msg",
    "https://shop.example.com/?key=summer-sale-2024&token=nextpage12345",
    "the zip code for our office is 94105", "the wifi password isn't working",
])
def test_code_urls_and_other_codes_are_left_alone(text: str) -> None:
    assert find_pii(text) == []


@pytest.mark.parametrize("text, value", [
    ("my access token is ya29." + "a1B2c3D4e5" * 16, "ya29." + "a1B2c3D4e5" * 16),
    ('api key: "' + "Zk9" * 29 + '"', "Zk9" * 29),  # longer than a password's 64
    ("wifi password: nowayJose#1", "nowayJose#1"),  # "now" is its start, not a filler
    ("Vault root token: hvs.gTwv1YOIFIN2hAFRr3MWWVCw", "hvs.gTwv1YOIFIN2hAFRr3MWWVCw"),
    ("redis://:pw12@cache:6379/0", "pw12"),  # the password only, not the host
])
def test_a_long_or_dotted_value_goes_whole(text: str, value: str) -> None:
    out, _ = redact(text)
    assert value not in out and out.replace("[SECRET]", value) == text


@pytest.mark.parametrize("text", [
    "postgres://admin:Tr0ub4dor@db:5432/app", f"my github token is {GH}",
    "the door code is 4821; secret key: 7Hk2pQ9wLm4zX81c",
])
def test_redacting_twice_changes_nothing_more(text: str) -> None:
    once, _ = redact(text)
    assert redact(once) == (once, [])


# --- forms with no label right before the value (safety/secretforms.py) ----------------

@pytest.mark.parametrize("text, value", [
    ("login is jsmith / Pa55w0rd!Summer", "Pa55w0rd!Summer"),
    ("my login for the vpn: bob.k:Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("creds: admin/hunter22", "hunter22"),
    ("username/password is alice / S3cret#2024", "S3cret#2024"),
    ("账号密码：zhangsan/Abc12345", "Abc12345"),
    ("temporary creds from sts: ASIACXA2GBJJGOSY3Y3J / 7tEN11jMHPrKk1ZzvXLsxK+MwI6NSnhnDWT8tJ69",
     "7tEN11jMHPrKk1ZzvXLsxK+MwI6NSnhnDWT8tJ69"),
    ("the app password google gave me is flyg wzao txfm qbho", "flyg wzao txfm qbho"),
    ("app password: abcd-efgh-ijkl-mnop", "abcd-efgh-ijkl-mnop"),
    ("hey it's 8826 for the side gate", "8826"),
    ("use 4471# at the front door", "4471#"),
    ("punch in 2580 for the building, thanks", "2580"),
])
def test_a_secret_said_without_a_label_before_it_is_redacted(text: str, value: str) -> None:
    out, found = redact(text)
    assert value not in out and "[SECRET]" in out
    assert [f.kind for f in found] and all(f.kind == "secret" for f in found)
    assert redact(out)[0] == out  # idempotent


@pytest.mark.parametrize("text", [
    "login is at 9:30 tomorrow",
    "creds: home/work laptops",
    "the login page / signup flow is broken",
    "the app password feature is great",
    "it's 4500 for the front door, the quote came in",
    "we paid 1200 for the gate",
    "it's 2024 for the gate upgrade",
    "use 2 for the door",
    "sign in with google / apple works",
    "login: 10/12 attempts failed",
    "it's 300 for the garage sale",
    "user/pass is the same as before",
    "it's $450 for the garage door",
    # found by a second audit in the first version of the forms
    "last login: 2024/05/06",
    "last login: 12/03/2024",
    "login: 09:30:15",
    "sign in at https://accounts.google.com",
    "login at https://portal.example.com/home",
    "the login page/sign-up flow is broken",
    "it's 930 at the front entrance",
    "it's 2024 for the front gate",
    "it's 1800 for the garage door",
    "use 2024 for the door",
])
def test_look_alikes_of_those_forms_stay(text: str) -> None:
    assert redact(text)[0] == text


@pytest.mark.parametrize("text, value", [
    ("my wifi password is Zq9!vault-door. I like tea", "Zq9!vault-door"),
    ("密码是Abc!123，记住", "Abc!123"),
    ("the pin is 48?21 for now", "48?21"),
])
def test_a_bang_or_question_mark_inside_a_secret_is_part_of_it(text: str, value: str) -> None:
    out = redact(text)[0]
    assert value not in out and value[:3] not in out and "[SECRET]" in out
    assert redact("my password is hunter22!")[0] == "my password is [SECRET]!"

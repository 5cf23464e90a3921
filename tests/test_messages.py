"""Error messages read as English, and a body sent without a JSON content type says what
to send: a real `memvault serve` on loopback, plus a scan of the source for message
templates that put "a" before a value."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _server import Server, new_key

from memvault import Vault
from memvault.errors import ValidationError
from memvault.wording import a_or_an

SRC = Path(__file__).resolve().parent.parent / "src" / "memvault"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    d = tmp_path_factory.mktemp("messages")
    s = Server(str(d / "s.db"), log=d / "server.log")
    yield s
    s.stop()


def test_article_helper() -> None:
    assert a_or_an("admin") == "an admin"
    assert a_or_an("episode") == "an episode"
    assert a_or_an("entity") == "an entity"
    assert a_or_an("user") == "a user"  # a vowel letter, a consonant sound
    assert a_or_an("unique") == "a unique"
    assert a_or_an("service") == "a service"
    assert a_or_an("reader") == "a reader"
    assert a_or_an("hour") == "an hour"
    assert a_or_an("Admin") == "an Admin"
    assert a_or_an("") == "a"


def test_an_admin_key_without_a_user(srv: Server, admin: httpx.Client) -> None:
    r = admin.post("/v1/memories", json={"content": "Alice likes tea"})
    assert r.status_code == 422
    assert r.json()["message"] == "user: required for an admin key (query parameter)"
    r = admin.post("/v1/keys", json={"role": "admin", "user": "alice"})
    assert r.status_code == 422
    assert r.json()["message"] == "user: an admin key is not bound to a user"
    with srv.client(new_key(admin, role="service")) as svc:
        r = svc.get("/v1/profile")
        assert r.json()["message"] == "user: required for a service key (query parameter)"


def test_expand_of_an_episode_names_its_kind_with_an(tmp_path: Path) -> None:
    with Vault(str(tmp_path / "v.db")) as v:
        sc = {"tenant": "acme", "user": "alice"}
        m = v.remember(sc, "Alice went hiking on Sunday", kind="episode").memory
        with pytest.raises(ValidationError, match=r"is an episode, not a summary"):
            v.expand(sc, m.id)


@pytest.mark.parametrize("headers", [
    {},  # curl -d: application/x-www-form-urlencoded
    {"Content-Type": "text/plain"},
    {"Content-Type": "application/x-www-form-urlencoded"},
])
def test_a_json_body_sent_without_the_json_content_type(
        srv: Server, admin: httpx.Client, headers: dict[str, str]) -> None:
    before = admin.get("/v1/memories", params={"user": "carol"}).json()["items"]
    if not headers:
        # Exactly what `curl -d '{...}'` sends.
        r = admin.post("/v1/memories", params={"user": "carol"},
                       data={"content": "form"})  # type: ignore[arg-type]
        assert r.request.headers["content-type"] == "application/x-www-form-urlencoded"
    else:
        r = admin.post("/v1/memories", params={"user": "carol"}, headers=headers,
                       content=b'{"content": "Carol likes tea"}')
    assert r.status_code == 415, r.text
    body = r.json()
    assert body["code"] == "unsupported_media_type"
    assert "Content-Type: application/json" in body["message"]
    assert admin.get("/v1/memories", params={"user": "carol"}).json()["items"] == before


def test_an_optional_body_sent_as_a_form_is_415_too(admin: httpx.Client) -> None:
    m = admin.post("/v1/memories", params={"user": "carol"},
                   json={"content": "Carol drinks coffee"}).json()["memory"]
    r = admin.post(f"/v1/memories/{m['id']}/freeze", params={"user": "carol"},
                   content=b'{"reason": "x"}',
                   headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 415, r.text
    # With JSON it works, and a vendor +json type counts as JSON.
    r = admin.post(f"/v1/memories/{m['id']}/freeze", params={"user": "carol"},
                   content=b'{"reason": "x"}',
                   headers={"Content-Type": "application/vnd.memvault+json"})
    assert r.status_code == 200, r.text


def test_415_is_documented(srv: Server) -> None:
    spec = httpx.get(srv.url + "/openapi.json").json()
    assert "415" in spec["paths"]["/v1/memories"]["post"]["responses"]


# "a {role}", "a {kind}" … in a message template: the article must come from a_or_an.
_A_BEFORE_VALUE = re.compile(r"""\ba \{[^}]*\}""")
_WRONG = re.compile(r"\ba (admin|episode|entity|event|instruction|api|owner|operator)\b")
_ALLOWED: set[tuple[str, str]] = set()


def test_no_message_template_puts_a_before_a_value() -> None:
    bad = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        if rel == "wording.py":  # the helper itself
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if (_A_BEFORE_VALUE.search(line) or _WRONG.search(line)) \
                    and (rel, line.strip()) not in _ALLOWED \
                    and "templates=" not in line:  # slot templates: "a {value} diet"
                bad.append(f"{rel}:{n}: {line.strip()}")
    assert bad == []

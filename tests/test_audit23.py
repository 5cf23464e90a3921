"""audit23: change events, valid-time reads and `serve --workers`, probed as a production
user through the public faces (docs/audit-issue23.md). The xfail(strict) tests are bugs
found by the audit; the others pin down what held."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from test_mcp_http_auth import key
from test_validtime import serving
from typer.testing import CliRunner

from memvault import Scope, ValidationError, Vault
from memvault.cli.app import app as cli_app

ME = Scope("acme", "alice")
HUGE = 10**25  # a whole number past 64 bits: an id no store can hold


def _contents(rows: Any) -> set[str]:
    return {getattr(r, "memory", r).content for r in rows}


# --- what held ------------------------------------------------------------------------

def test_valid_time_is_half_open_and_undated_memories_always_pass(vault: Vault) -> None:
    """[valid_from, valid_to): the start is in, the end is out, for a point and a range,
    a time-zone offset is honoured, and a memory without dates passes every filter."""
    vault.remember(ME, "Gina works at Acme", valid_from="2019-01-01", valid_to="2021-01-01")
    vault.remember(ME, "Gina likes tea")
    acme, tea = {"Gina works at Acme", "Gina likes tea"}, {"Gina likes tea"}
    cases: list[tuple[dict[str, Any], set[str]]] = [
        ({"valid_at": "2019-01-01T00:00:00Z"}, acme),
        ({"valid_at": "2021-01-01T00:00:00Z"}, tea),
        ({"valid_at": "2018-12-31T23:59:59Z"}, tea),
        # 2019-01-01T00:00+05:00 is 2018-12-31T19:00Z: before the start.
        ({"valid_at": "2019-01-01T00:00:00+05:00"}, tea),
        ({"valid_at": "2021-01-01T04:00:00+05:00"}, acme),
        ({"valid_since": "2021-01-01"}, tea),
        ({"valid_until": "2019-01-01"}, tea),
        ({"valid_since": "2020-12-31T23:59:59Z"}, acme),
        ({"valid_at": "9999-12-31"}, tea),
    ]
    for kw, want in cases:
        assert _contents(vault.list(ME, **kw)) == want, kw
        assert _contents(vault.recall(ME, "where does Gina work", **kw)) == want, kw


def test_bad_valid_time_changes_nothing_and_emits_no_event(vault: Vault) -> None:
    m = vault.remember(ME, "Gina works at Acme", valid_from="2019-01-01")
    before = [e.id for e in vault.events("acme", limit=1000)]
    for kw in ({"valid_to": "2018-01-01"}, {"valid_to": "2019-01-01"},
               {"valid_to": "garbage"}, {"valid_from": "2022-01-01", "valid_to": "2021-01-01"}):
        with pytest.raises(ValidationError):
            vault.edit(ME, m.id, **kw)
    assert [e.id for e in vault.events("acme", limit=1000)] == before
    assert vault.get(ME, m.id).version == 1


# --- bugs -------------------------------------------------------------------------------

# Was an xfail(strict) of the audit; fixed (docs/audit-issue23.md).
def test_events_since_past_64_bits_is_a_validation_error(tmp_path: Any) -> None:
    vault = Vault(str(tmp_path / "v.db"), embedder="use-m3")
    try:
        vault.remember(ME, "Prefers CSV reports")
        with pytest.raises(ValidationError):
            list(vault.events("acme", since=HUGE))
    finally:
        vault.close()


# Was an xfail(strict) of the audit; fixed (docs/audit-issue23.md).
def test_rest_event_ids_past_64_bits_are_4xx(vault: Vault) -> None:
    vault.remember(ME, "Prefers CSV reports")
    auth = {"Authorization": f"Bearer {key(vault, 'admin')}"}
    with serving(vault) as url:
        def call(method: str, path: str, **kw: Any) -> httpx.Response:
            # A fresh connection each: the server drops one that ended in an error.
            with httpx.Client(base_url=url, headers=auth, timeout=30) as http:
                return http.request(method, path, **kw)
        hook = call("POST", "/v1/webhooks", json={"url": "http://127.0.0.1:9/hook"})
        assert hook.status_code == 201, hook.text
        wid = hook.json()["webhook_id"]
        got = [call("POST", "/v1/webhooks", json={"url": "http://127.0.0.1:9/h",
                                                  "since": HUGE}),
               call("GET", "/v1/events", params={"since": HUGE}),
               call("POST", f"/v1/webhooks/{wid}/deliveries/{HUGE}/retry")]
        assert [r.status_code < 500 for r in got] == [True] * 3, [r.text for r in got]
        assert got[0].status_code == 422
        assert [h["webhook_id"] for h in call("GET", "/v1/webhooks").json()] == [wid]


# Was an xfail(strict) of the audit; fixed (docs/audit-issue23.md).
def test_cli_events_since_past_64_bits_is_a_message(tmp_path: Any) -> None:
    """(SQLite; on PostgreSQL it prints an empty list, which is fine.)"""
    db = str(tmp_path / "cli.db")
    v = Vault(db, embedder="use-m3")
    v.remember(ME, "Prefers CSV reports")
    v.close()
    r = CliRunner().invoke(cli_app, ["--db", db, "--tenant", "acme", "events", "list",
                                     "--since", str(HUGE)])
    assert r.exit_code == 1
    assert not isinstance(r.exception, OverflowError)
    assert "invalid_input" in r.stderr


# Was an xfail(strict) of the audit; fixed (docs/audit-issue23.md).
def test_valid_time_before_1970(vault: Vault) -> None:
    """Valid time is when a fact held in the world ("Gina lived in Rome from 1965 to
    1970"); docs/verbs.md names no lower bound, and epoch ms are signed."""
    vault.remember(ME, "Gina lived in Rome", valid_from="1965-01-01", valid_to="1970-06-01")
    assert _contents(vault.list(ME, valid_at="1966-01-01")) == {"Gina lived in Rome"}


# Was an xfail(strict) of the audit; fixed (docs/audit-issue23.md).
def test_a_webhook_since_past_the_last_event_loses_nothing(make_vault: Any, db: str) -> None:
    """A cursor taken from the wrong store (or a timestamp typed for an id) must not make
    a new subscription skip committed events: refuse it, or start at the last event."""
    v: Vault = make_vault(db)
    v.remember(ME, "Prefers CSV reports")
    last = max(e.id for e in v.events("acme", limit=1000))
    r = CliRunner().invoke(cli_app, ["--db", db, "--tenant", "acme", "--json", "webhook",
                                     "add", "http://127.0.0.1:9/hook", "--since",
                                     str(last + 1000)])
    listed = CliRunner().invoke(cli_app, ["--db", db, "--tenant", "acme", "--json",
                                          "webhook", "list"])
    hooks = json.loads(listed.stdout)
    if r.exit_code == 0:
        assert [h["queued_through"] <= last for h in hooks] == [True]
    else:
        assert "invalid_input" in r.stderr and hooks == []


# Noted by the audit, fixed after it.
def test_an_empty_webhook_user_is_refused_not_widened_to_the_tenant(vault: Vault) -> None:
    auth = {"Authorization": f"Bearer {key(vault, 'admin')}"}
    with serving(vault) as url, httpx.Client(base_url=url, headers=auth, timeout=30) as http:
        for user in ("", "  "):
            r = http.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/h", "user": user})
            assert (r.status_code, r.json()["code"]) == (422, "invalid_input"), r.text
        assert http.get("/v1/webhooks").json() == []
        r = http.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/h", "user": "alice"})
        assert r.status_code == 201 and r.json()["user"] == "alice"

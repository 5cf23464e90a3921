"""`memvault keys` makes, lists and revokes the server's API keys on the store itself (local
access is the authority), and what it makes is what a real `memvault serve` accepts; an
admin key makes keys over REST in its own tenant only. Run on every backend."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from _server import Server


def cli(db: str, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: val for k, val in os.environ.items()
           if k not in ("MEMVAULT_TENANT", "MEMVAULT_USER")}
    proc = subprocess.run([sys.executable, "-m", "memvault.cli", "--db", db, *args],
                          capture_output=True, text=True, env={**env, "COLUMNS": "200"},
                          timeout=120)
    if ok:
        assert proc.returncode == 0, proc.stderr
    else:
        assert proc.returncode != 0, proc.stdout
    return proc


def keys(db: str, tenant: str | None = None) -> list[dict[str, Any]]:
    more = ["--tenant", tenant] if tenant else []
    return list(json.loads(cli(db, "--json", "keys", "list", *more).stdout))


def test_a_key_made_on_the_store_reads_what_the_cli_wrote_then_is_revoked(db: str) -> None:
    made = json.loads(cli(db, "--json", "keys", "create", "--tenant", "acme",
                          "--role", "service", "--name", "app").stdout)
    assert made["key"].startswith(f"mvk_{made['key_id']}_")
    assert (made["tenant"], made["role"], made["user"], made["name"]) == (
        "acme", "service", None, "app")
    assert "secret_hash" not in made
    wrote = json.loads(cli(db, "--tenant", "acme", "--user", "alice", "--json", "remember",
                           "prefers XLSX exports", "--reason", "asked").stdout)

    srv = Server(db, tenant="acme")
    try:
        assert srv.admin_key is None  # the store had a key: serve makes none
        said = "\n".join(srv.stdout_lines)
        assert "already has API keys" in said and "keys create --tenant acme" in said
        with srv.client(made["key"]) as app:
            r = app.get("/v1/memories", params={"user": "alice"})
            assert r.status_code == 200, r.text
            assert [m["id"] for m in r.json()["items"]] == [wrote["id"]]

            listed = cli(db, "keys", "list").stdout
            assert made["key_id"] in listed and "acme" in listed and "active" in listed
            # (the secret itself may hold "_": what follows the key id is all of it)
            secret = made["key"].removeprefix(f"mvk_{made['key_id']}_")
            assert len(secret) >= 16 and secret not in listed
            as_json = keys(db)
            assert [k["key_id"] for k in as_json] == [made["key_id"]]
            assert "secret_hash" not in as_json[0] and "key" not in as_json[0]
            assert keys(db, "other") == []

            gone = cli(db, "keys", "revoke", made["key_id"]).stdout
            assert "revoked" in gone and made["key_id"] in gone
            r = app.get("/v1/memories", params={"user": "alice"})
            assert r.status_code == 401 and r.json()["code"] == "key_revoked"
        assert keys(db)[0]["status"] == "revoked"
        again = cli(db, "keys", "revoke", made["key_id"], ok=False)
        assert "already revoked" in again.stderr
    finally:
        srv.stop()


def test_serve_names_its_first_keys_tenant_and_a_lost_admin_key_is_replaced(db: str) -> None:
    cli(db, "--tenant", "acme", "--user", "alice", "remember", "likes tea", "--reason", "x")
    srv = Server(db, tenant="acme")
    try:
        assert srv.admin_key is not None
        assert any("first admin key for tenant 'acme'" in ln for ln in srv.stdout_lines)
        with srv.client(srv.admin_key) as admin:
            items = admin.get("/v1/memories", params={"user": "alice"}).json()["items"]
            assert [m["content"] for m in items] == ["likes tea"]
    finally:
        srv.stop()

    # Restarted for another tenant: keys exist, so no key; it says how to mint one.
    other = Server(db, tenant="beta")
    try:
        assert other.admin_key is None
        said = "\n".join(other.stdout_lines)
        assert "none is an active admin key for tenant 'beta'" in said
        assert "memvault keys create --tenant beta --role admin" in said
        # The first key is lost: local access to the store mints a new admin key.
        new = cli(db, "--tenant", "acme", "keys", "create", "--role", "admin").stdout
        lines = new.strip().splitlines()
        assert "for tenant 'acme', role admin" in lines[0] and "shown once" in lines[0]
        with other.client(lines[-1]) as admin:
            r = admin.post("/v1/keys", json={"role": "user", "user": "alice"})
            assert r.status_code == 201 and r.json()["tenant"] == "acme"
            items = admin.get("/v1/memories", params={"user": "alice"}).json()["items"]
            assert [m["content"] for m in items] == ["likes tea"]
    finally:
        other.stop()


def test_bad_key_requests_exit_non_zero_and_create_nothing(db: str) -> None:
    cases = [
        (["keys", "create", "--tenant", "acme", "--role", "root"], "role: expected one of"),
        (["keys", "create", "--tenant", "acme", "--role", "user"], "must be bound to a user"),
        (["keys", "create", "--tenant", "acme", "--role", "admin", "--user", "bob"],
         "not bound to a user"),
        (["keys", "create", "--role", "service"], "tenant: required"),
        (["keys", "create", "--tenant", "acme", "--role", "reader", "--expires",
          "2001-01-01T00:00:00Z"], "must be in the future"),
        (["keys", "create", "--tenant", "acme", "--role", "reader", "--expires", "soon"],
         "expires_at: cannot parse"),
        (["keys", "revoke", "kdeadbeef"], "no key kdeadbeef"),
    ]
    for args, message in cases:
        proc = cli(db, *args, ok=False)
        assert message in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert keys(db) == []


def test_an_admin_key_makes_keys_in_its_own_tenant_only(db: str) -> None:
    srv = Server(db, tenant="acme")
    try:
        assert srv.admin_key is not None
        with srv.client(srv.admin_key) as admin:
            before = admin.get("/v1/keys").json()
            r = admin.post("/v1/keys", json={"role": "service", "tenant": "acme"})
            assert r.status_code == 201, r.text
            assert r.json()["tenant"] == "acme" and r.json()["key"].startswith("mvk_")
            r = admin.post("/v1/keys", json={"role": "service", "tenant": "globex"})
            assert r.status_code == 403 and r.json()["code"] == "scope_denied"
            assert "acme" in r.json()["message"]
            after = admin.get("/v1/keys").json()
            assert len(after) == len(before) + 1
        assert keys(db, "globex") == []
    finally:
        srv.stop()


def test_the_demo_points_at_a_server_whose_first_key_sees_its_story(tmp_path: Path) -> None:
    db = str(tmp_path / "demo.db")
    told = cli(db, "demo").stdout
    assert f"memvault --db {db} --tenant acme serve" in " ".join(told.split())
    srv = Server(db, tenant="acme")
    try:
        assert srv.admin_key is not None
        with srv.client(srv.admin_key) as admin:
            r = admin.get("/v1/memories", params={"user": "alice", "slot": "report.format"})
            assert [m["value"] for m in r.json()["items"]] == ["XLSX"]
    finally:
        srv.stop()


def test_serve_takes_tenant_after_the_command_too_and_refuses_two_that_differ(
        db: str) -> None:
    # `memvault serve --tenant acme` is what a newcomer types: the same as the global one.
    srv = Server(db, tenant=None, extra=["--tenant", "globex"])
    try:
        assert srv.admin_key is not None
        assert any("first admin key for tenant 'globex'" in ln for ln in srv.stdout_lines)
    finally:
        srv.stop()
    assert [k["tenant"] for k in keys(db)] == ["globex"]
    both = cli(db, "--tenant", "acme", "serve", "--tenant", "beta", "--port", "1", ok=False)
    assert "differ" in both.stderr and "Traceback" not in both.stderr
    assert [k["tenant"] for k in keys(db)] == ["globex"]

"""`memvault events` and `memvault webhook` on the store itself, in process (typer's
CliRunner), on every backend: what they print is what the core holds, and bad input is a
message and a non-zero exit that stores nothing."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from memvault import Scope, Vault
from memvault.cli.app import app

ME = Scope("acme", "alice")


def cli(db: str, *args: str, ok: bool = True) -> Any:
    r = CliRunner().invoke(app, ["--db", db, "--tenant", "acme", "--json", *args])
    assert (r.exit_code == 0) == ok, (r.exit_code, r.output, r.stderr)
    return json.loads(r.stdout) if ok and r.stdout.strip().startswith(("[", "{")) else r


def test_events_list_and_follow_print_the_events(make_vault: Any, db: str) -> None:
    v: Vault = make_vault(db)
    a = v.remember(ME, "Prefers CSV reports", slot="report.format", value="CSV")
    v.remember(ME, "Prefers PDF reports", slot="report.format", value="PDF")
    v.forget(Scope("acme", "bob"), v.remember(Scope("acme", "bob"), "Bob's").id)
    listed = cli(db, "events", "list")
    assert listed == [e.to_dict() for e in v.events("acme")]
    mine = cli(db, "--user", "alice", "events", "list", "--kind", "update")
    assert [(e["kind"], e["memory_id"]) for e in mine] == [("update", a.id)]
    r = CliRunner().invoke(app, ["--db", db, "--tenant", "acme", "--json", "events",
                                 "follow", "--since", str(listed[0]["id"]), "--idle", "0.2",
                                 "--poll", "0.05"])
    assert r.exit_code == 0, r.output
    assert [json.loads(ln)["id"] for ln in r.stdout.splitlines()] == [
        e["id"] for e in listed[1:]]
    bad = cli(db, "events", "list", "--kind", "nope", ok=False)
    assert "kinds" in bad.stderr


def test_webhook_commands_manage_subscriptions(db: str, make_vault: Any) -> None:
    make_vault(db).remember(ME, "Likes tea")
    made = cli(db, "webhook", "add", "http://127.0.0.1:9/hook", "--kind", "purge")
    assert made["secret"].startswith("whsec_") and made["kinds"] == ["purge"]
    assert made["queued_through"] == 1  # from now on
    listed = cli(db, "webhook", "list")
    assert [h["webhook_id"] for h in listed] == [made["webhook_id"]]
    assert "secret" not in listed[0]
    assert cli(db, "webhook", "deliveries", made["webhook_id"]) == []
    bad = cli(db, "webhook", "retry", made["webhook_id"], "1", ok=False)
    assert "no dead delivery" in bad.stderr
    for args in (["add", "ftp://x/y"], ["add", "http://h/x", "--kind", "nope"],
                 ["add", "http://h/x", "--secret", "short"]):
        cli(db, "webhook", *args, ok=False)
    assert [h["webhook_id"] for h in cli(db, "webhook", "list")] == [made["webhook_id"]]
    gone = cli(db, "webhook", "remove", made["webhook_id"])
    assert gone["removed_at"] is not None
    assert cli(db, "webhook", "list") == []
    cli(db, "webhook", "remove", made["webhook_id"], ok=False)

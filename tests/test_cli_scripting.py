"""The CLI in a script: --json anywhere on the line, JSON errors, stdin with "-", and
piped output that keeps ids and times whole (no truncation, wrapping, markup or progress
bars). Every test runs the real CLI as a subprocess with pipes (not a tty) at 80 columns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memvault import Scope, Vault


def run(db: Path, *args: str, ok: bool = True, stdin: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80"}
    env.pop("FORCE_COLOR", None)
    env.pop("TTY_COMPATIBLE", None)
    proc = subprocess.run([sys.executable, "-m", "memvault.cli", "--db", str(db), *args],
                          input=stdin, capture_output=True, text=True, env=env, timeout=180)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def scoped(db: Path, *args: str, ok: bool = True, stdin: str | None = None
           ) -> subprocess.CompletedProcess[str]:
    return run(db, "--tenant", "acme", "--user", "alice", *args, ok=ok, stdin=stdin)


def stored(db: Path) -> list[Any]:
    with Vault(db) as v:
        return v.list(Scope("acme", "alice"))


def test_json_after_the_verb_works_for_every_kind_of_verb(tmp_path: Path) -> None:
    db = tmp_path / "j.db"
    r = json.loads(scoped(db, "remember", "Reports as CSV", "--slot", "report.format",
                          "--value", "CSV", "--json").stdout)
    assert r["action"] == "added" and r["id"].startswith("m_")
    listed = json.loads(scoped(db, "list", "--json").stdout)
    assert [m["id"] for m in listed] == [r["id"]]
    got = json.loads(scoped(db, "get", r["id"], "--json").stdout)
    assert got["value"] == "CSV"
    hist = json.loads(scoped(db, "history", "--json", r["id"]).stdout)
    assert [h["op"] for h in hist] == ["create"]
    shown = json.loads(scoped(db, "config", "show", "--json").stdout)  # a sub-app's verb
    assert len(shown["hash"]) == 16
    # Before the verb still works, and the value of an option is not taken for the flag.
    before = json.loads(scoped(db, "--json", "recall", "report format").stdout)
    assert [h["memory"]["id"] for h in before["hits"]] == [r["id"]]
    literal = json.loads(scoped(db, "remember", "--json", "--", "--json").stdout)
    assert json.loads(scoped(db, "get", literal["id"], "--json").stdout)["content"] == "--json"


def test_json_errors_are_one_object_on_stderr(tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    for args in (["get", "m_missing", "--json"], ["--json", "get", "m_missing"]):
        proc = scoped(db, *args, ok=False)
        assert proc.returncode != 0 and proc.stdout == ""
        e = json.loads(proc.stderr)
        assert e["code"] == "not_found" and "m_missing" in e["message"]
    # Usage errors too (a missing argument), with click's exit code.
    proc = scoped(db, "history", "--json", ok=False)
    assert proc.returncode == 2
    e = json.loads(proc.stderr)
    assert e["code"] == "usage" and "memory_id" in e["message"].lower()
    # Without --json the error stays a readable line.
    plain = scoped(db, "get", "m_missing", ok=False)
    assert plain.returncode != 0 and plain.stderr.startswith("error [not_found]")


def test_piped_output_keeps_ids_and_times_whole(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    long = "A rather long statement about report formats " * 4
    mid = json.loads(scoped(db, "--json", "remember", long.strip(), "--slot",
                            "report.format", "--value", "CSV").stdout)["id"]
    scoped(db, "remember", "Reports as XLSX", "--slot", "report.format", "--value", "XLSX")
    listed = scoped(db, "list").stdout
    assert "…" not in listed and "─" not in listed and "│" not in listed
    lines = listed.splitlines()
    assert lines[0].split("\t")[0] == "id"
    row = lines[1].split("\t")
    assert row[0] == mid and row[3] == "active" and row[4] == "2"
    assert row[5].endswith("Z") and len(row[5]) >= len("2026-01-01T00:00:00Z")
    # The id as printed pastes into history; each revision is one whole line.
    hist = scoped(db, "history", row[0]).stdout.splitlines()
    assert hist[0].split("\t")[:3] == ["at", "op", "version"]
    assert [h.split("\t")[1] for h in hist[1:]] == ["create", "update"]
    assert "Reports as XLSX" in hist[2]
    # A long error line is not wrapped at 80 columns.
    proc = scoped(db, "get", "m_" + "x" * 100, ok=False)
    assert len(proc.stderr.rstrip("\n").splitlines()) == 1


def test_audit_lists_every_change_with_the_memory_it_changed(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    fmt = json.loads(scoped(db, "--json", "remember", "Reports as CSV", "--slot",
                            "report.format", "--value", "CSV").stdout)["id"]
    tea = json.loads(scoped(db, "--json", "remember", "Alice drinks tea").stdout)["id"]
    scoped(db, "forget", tea, "--reason", "no longer true")
    rows = [ln.split("\t") for ln in scoped(db, "audit").stdout.splitlines()]
    assert rows[0][:3] == ["at", "memory", "op"]
    assert [(r[1], r[2]) for r in rows[1:]] == [(tea, "delete"), (tea, "create"),
                                                (fmt, "create")]
    assert rows[1][5] == "no longer true"
    newest = json.loads(scoped(db, "audit", "--limit", "1", "--json").stdout)
    assert [(r["memory_id"], r["op"]) for r in newest] == [(tea, "delete")]
    # Another user's audit does not show alice's changes.
    bob = run(db, "--tenant", "acme", "--user", "bob", "audit", "--json").stdout
    assert json.loads(bob) == []
    bad = scoped(db, "audit", "--limit", "0", "--json", ok=False)
    assert bad.returncode == 1 and json.loads(bad.stderr)["code"] == "invalid_input"


def test_remember_reads_content_from_stdin(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    text = "first line\nsecond line\n" + "x" * 10_000
    r = json.loads(scoped(db, "--json", "remember", "-", stdin=text + "\n").stdout)
    [m] = stored(db)
    assert m.id == r["id"] and m.content == text
    # Past the core's limit: its own clear message, nothing stored.
    proc = scoped(db, "remember", "-", stdin="y" * 3_000_000, ok=False)
    assert proc.returncode != 0 and "[invalid_input]" in proc.stderr
    assert "16000" in proc.stderr.replace(",", "")
    assert len(stored(db)) == 1


def test_import_reads_an_export_from_stdin(tmp_path: Path) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    scoped(a, "remember", "I live in Shanghai", "--tag", "home")
    scoped(a, "remember", "Reports as CSV", "--slot", "report.format", "--value", "CSV")
    dump = scoped(a, "export").stdout
    imported = scoped(b, "import", "-", stdin=dump)
    assert "imported 2 memories" in imported.stdout
    assert "importing" not in imported.stderr  # no progress bar in a pipe
    assert scoped(b, "export").stdout == dump


def test_observe_reads_messages_from_stdin_with_a_dash(tmp_path: Path) -> None:
    db = tmp_path / "o.db"
    msgs = json.dumps([{"role": "user", "content": "hello there"},
                       {"role": "assistant", "content": "hi"}])
    for args in (["observe", "-"], ["observe"]):
        r = json.loads(scoped(db, "--session", "s1", "--json", *args, stdin=msgs).stdout)
        assert len(r["turns"]) == 2


@pytest.mark.parametrize("verb", ["remember", "propose"])
def test_value_without_slot_is_refused(tmp_path: Path, verb: str) -> None:
    db = tmp_path / "v.db"
    proc = scoped(db, verb, "Reports as CSV", "--value", "CSV", ok=False)
    assert proc.returncode != 0
    assert "[invalid_input]" in proc.stderr and "--slot" in proc.stderr
    assert stored(db) == []


def test_rollback_past_the_only_version_says_so(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    mid = json.loads(scoped(db, "--json", "remember", "a memory").stdout)["id"]
    proc = scoped(db, "rollback", mid, "7", ok=False)
    assert proc.returncode != 0 and "(1..0)" not in proc.stderr
    assert f"memory {mid} has only version 1; nothing to roll back to" in proc.stderr
    scoped(db, "edit", mid, "--content", "a changed memory")
    proc = scoped(db, "rollback", mid, "7", ok=False)
    assert "roll back to an earlier version (1)" in proc.stderr
    with Vault(db) as v:
        assert v.get(Scope("acme", "alice"), mid).version == 2


def test_demo_in_a_pipe_is_plain_text(tmp_path: Path) -> None:
    proc = run(tmp_path / "demo.db", "demo")
    assert "refused" in proc.stdout and "Day 8: Alice changes her mind" in proc.stdout
    for literal in ("[bold]", "[/]", "[dim]", "[green]", "\x1b["):
        assert literal not in proc.stdout

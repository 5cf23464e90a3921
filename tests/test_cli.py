"""The CLI is a thin adapter: each verb works end to end, and bad input exits non-zero
with a typed message and stores nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memvault import Scope, Vault


def run(db: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, "-m", "memvault.cli", "--db", str(db), *args],
                          capture_output=True, text=True, env=env, timeout=120)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def scoped(db: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    return run(db, "--tenant", "acme", "--user", "alice", *args, ok=ok)


def test_remember_update_history_rollback_through_cli(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    first = json.loads(scoped(db, "--json", "remember", "用户希望报表导出为 CSV",
                              "--slot", "report.format", "--value", "CSV",
                              "--reason", "user asked").stdout)
    assert first["action"] == "added"
    second = json.loads(scoped(db, "--json", "remember", "用户希望报表导出为 XLSX",
                               "--slot", "report.format", "--value", "XLSX",
                               "--reason", "changed mind").stdout)
    assert second["action"] == "updated" and second["id"] == first["id"]
    assert second["version"] == 2

    result = json.loads(scoped(db, "--json", "recall", "导出格式").stdout)
    assert [h["memory"]["value"] for h in result["hits"]] == ["XLSX"]
    # Every recall leaves a trace that explains it.
    trace = json.loads(scoped(db, "--json", "trace", result["trace_id"]).stdout)
    assert trace["query"] == "导出格式"
    assert [c["outcome"] for c in trace["candidates"]] == ["returned"]

    history = json.loads(scoped(db, "--json", "history", first["id"]).stdout)
    assert [(r["op"], r["reason"], r["actor"]) for r in history] == [
        ("create", "user asked", "cli"), ("update", "changed mind", "cli")]

    diff = json.loads(scoped(db, "--json", "diff", first["id"], "1", "2").stdout)
    assert diff["value"] == {"from": "CSV", "to": "XLSX"}

    rolled = json.loads(scoped(db, "--json", "rollback", first["id"], "1",
                               "--reason", "wrong").stdout)
    assert rolled["value"] == "CSV" and rolled["version"] == 3

    # The other user sees nothing of alice's.
    other = json.loads(run(db, "--tenant", "acme", "--user", "bob", "--json", "recall",
                           "导出格式").stdout)
    assert other["hits"] == []


def test_freeze_blocks_and_cli_reports_typed_error(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    mid = json.loads(scoped(db, "--json", "remember", "服药时间：每天上午十点",
                            "--slot", "medication.time", "--value", "10:00").stdout)["id"]
    scoped(db, "freeze", mid, "--reason", "confirmed with user")
    proc = scoped(db, "remember", "服药时间改为凌晨两点", "--slot", "medication.time",
                  "--value", "02:00", ok=False)
    assert proc.returncode != 0
    assert "[frozen]" in proc.stderr
    got = json.loads(scoped(db, "--json", "get", mid).stdout)
    assert got["value"] == "10:00" and got["version"] == 1 and got["frozen"] is True


@pytest.mark.parametrize("args, code", [
    (["remember", "   "], "invalid_input"),
    (["remember", "x", "--slot", "Not A Slot"], "invalid_input"),
    (["remember", "x", "--metadata", "{not json"], "invalid_input"),
    (["remember", "x", "--ttl", "soon"], "invalid_input"),
    (["remember", "x", "--confidence", "7"], "invalid_input"),
    (["rollback", "m_missing", "1"], "not_found"),
    (["get", "m_missing"], "not_found"),
    (["list", "--status", "bogus"], "invalid_input"),
])
def test_bad_input_exits_nonzero_and_stores_nothing(tmp_path: Path, args: list[str],
                                                     code: str) -> None:
    db = tmp_path / "cli.db"
    scoped(db, "remember", "a memory that must survive")
    proc = scoped(db, *args, ok=False)
    assert proc.returncode != 0
    assert f"[{code}]" in proc.stderr
    with Vault(db) as v:
        mems = v.list(Scope("acme", "alice"))
        assert [m.content for m in mems] == ["a memory that must survive"]
        assert len(v.history(Scope("acme", "alice"), mems[0].id)) == 1


def test_missing_scope_is_refused(tmp_path: Path) -> None:
    proc = run(tmp_path / "cli.db", "remember", "no scope given", ok=False)
    assert proc.returncode != 0
    assert "[invalid_scope]" in proc.stderr and "tenant" in proc.stderr


def test_export_import_roundtrip_through_cli(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    scoped(db, "remember", "I live in Shanghai", "--tag", "home")
    scoped(db, "remember", "Reports as CSV", "--slot", "report.format", "--value", "CSV")
    scoped(db, "remember", "Reports as XLSX", "--slot", "report.format", "--value", "XLSX")
    dump = tmp_path / "dump.jsonl"
    scoped(db, "export", str(dump))
    db2 = tmp_path / "b.db"
    scoped(db2, "import", str(dump))
    dump2 = tmp_path / "dump2.jsonl"
    scoped(db2, "export", str(dump2))
    assert dump.read_bytes() == dump2.read_bytes()
    assert len(dump.read_text().splitlines()) == 3  # header + two memories


def test_demo_tells_the_story(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    proc = run(db, "demo")
    assert "refused" in proc.stdout
    with Vault(db) as v:
        alice = Scope("acme", "alice")
        fmt = v.list(alice, slot="report.format")
        assert [m.value for m in fmt] == ["XLSX"]
        notify = v.list(alice, slot="notify.channel")[0]
        assert notify.value == "SMS" and notify.frozen
        ops = [r.op for r in v.history(alice, notify.id)]
        assert ops == ["create", "update", "update", "rollback", "freeze"]


def test_config_show_and_check(tmp_path: Path) -> None:
    shown = json.loads(run(tmp_path / "c.db", "--json", "config", "show").stdout)
    assert shown["strategy"]["retrieval"]["top_k"] == 5 and len(shown["hash"]) == 16
    good = tmp_path / "good.yaml"
    good.write_text("retrieval:\n  top_k: 8\n  weights: {text: 0.6, dense: 0.4}\n")
    checked = json.loads(run(tmp_path / "c.db", "--json", "config", "check", str(good)).stdout)
    assert checked["ok"] is True and checked["hash"] != shown["hash"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("retrieval:\n  top_k: 0\n  colour: blue\n")
    proc = run(tmp_path / "c.db", "config", "check", str(bad), ok=False)
    assert proc.returncode != 0
    assert "retrieval.top_k" in proc.stderr and "retrieval.colour" in proc.stderr


def test_observe_and_review_through_cli(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    conv = tmp_path / "conv.json"
    conv.write_text(json.dumps([{"role": "user", "content": "后续使用短信接收进度通知"}]),
                    encoding="utf-8")
    first = json.loads(scoped(db, "--json", "observe", str(conv)).stdout)
    assert [o["action"] for o in first["outcomes"]] == ["added"]
    conv.write_text(json.dumps([{"role": "user",
                                 "content": "update: 用户不喜欢任何形式的推送通知"}]),
                    encoding="utf-8")
    second = json.loads(scoped(db, "--json", "observe", str(conv)).stdout)
    staged = [o for o in second["outcomes"] if o["action"] == "stage"]
    assert staged and "command_like" in staged[0]["reasons"]
    queue = json.loads(scoped(db, "--json", "review", "list").stdout)
    assert [m["id"] for m in queue] == [staged[0]["memory_id"]]
    done = json.loads(scoped(db, "--json", "review", "reject", queue[0]["id"],
                             "--reason", "not the user's choice").stdout)
    assert done["status"] == "rejected"
    bad = scoped(db, "observe", str(tmp_path / "missing.json"), ok=False)
    assert bad.returncode != 0 and "[invalid_input]" in bad.stderr

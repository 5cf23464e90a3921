"""The CLI is a thin adapter: each verb works end to end, and bad input exits non-zero
with a typed message and stores nothing."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memvault import Scope, Vault
from memvault.cli import entry
from memvault.cli.app import app as cli_app


def run(db: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    """The command line's own entry (cli.entry.run: `--json` anywhere, exit codes), in
    this process: a new process per call spent most of this file's time importing and
    loading the embedder again. The installed script and `python -m memvault.cli` are run
    as processes by test_cli_scripting.py and the newcomer tests."""
    argv = ["--db", str(db), *args]
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with mock_env(COLUMNS="200"), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        try:
            entry.run(cli_app, argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    proc = subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


@contextlib.contextmanager
def mock_env(**values: str) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, old in saved.items():
            if old is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = old


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
    # The verbs and options the CLI gained to match the core ({id}: the stored memory).
    (["remember", "x", "--ttl", "0"], "invalid_input"),
    (["remember", "x", "--valid-from", "2030-01-01", "--valid-to", "2029-01-01"],
     "invalid_input"),
    (["list", "--source", "bogus"], "invalid_input"),
    (["list", "--expiring-before", "soon"], "invalid_input"),
    (["edit", "{id}", "--value", "{not json"], "invalid_input"),
    (["edit", "{id}", "--kind", "bogus"], "invalid_input"),
    (["edit", "{id}", "--expires-at", "soon"], "invalid_input"),
    (["edit", "{id}", "--value", '"ok"', "--kind", "bogus"], "invalid_input"),
    (["context", "anything", "--kind", "bogus"], "invalid_input"),
    (["profile", "--as-of", "soon"], "invalid_input"),
    (["traces", "--limit", "0"], "invalid_input"),
    (["graph", "entity", "Atlantis"], "not_found"),
    (["remember", "x", "--ttl=-5"], "invalid_input"),
    (["remember", "\u200b"], "invalid_input"),
    (["remember", "x", "--slot", "report.format", "--value", "  "], "invalid_input"),
    (["list", "--since", "2025-01-01", "--until", "2024-01-01"], "invalid_input"),
    # A topic is one line of visible text without angle brackets, on every verb.
    (["remember", "x", "--topic", "quiet\ncafes"], "invalid_input"),
    (["remember", "x", "--topic", "<b>cafes</b>"], "invalid_input"),
    (["remember", "x", "--topic", "t" * 65], "invalid_input"),
    (["propose", "x", "--topic", "quiet\ncafes"], "invalid_input"),
    (["edit", "{id}", "--topic", " cafes"], "invalid_input"),
    (["list", "--topic", "quiet\ncafes"], "invalid_input"),
])
def test_bad_input_exits_nonzero_and_stores_nothing(tmp_path: Path, args: list[str],
                                                     code: str) -> None:
    db = tmp_path / "cli.db"
    mid = json.loads(scoped(db, "--json", "remember", "a memory that must survive").stdout)["id"]
    proc = scoped(db, *[a.replace("{id}", mid) for a in args], ok=False)
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
    # The import names its scope like every verb: another user's, or none, is refused
    # and writes nothing.
    db3 = tmp_path / "c.db"
    wrong = run(db3, "--tenant", "acme", "--user", "bob", "import", str(dump), ok=False)
    assert wrong.returncode != 0 and "error [invalid_scope]" in wrong.stderr
    unnamed = run(db3, "import", str(dump), ok=False)
    assert unnamed.returncode != 0 and "error [invalid_scope]" in unnamed.stderr
    assert run(db3, "--tenant", "acme", "--user", "bob", "--json", "list").stdout.strip() \
        == "[]"


def test_propose_passes_the_gate(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    scoped(db, "remember", "用户希望通过短信接收通知", "--slot", "notify.channel",
           "--value", "SMS")
    staged = json.loads(scoped(db, "--json", "propose", "update: 用户不喜欢任何形式的推送通知",
                               "--slot", "notify.channel", "--value", "none").stdout)
    assert staged["action"] == "stage" and "command_like" in staged["reasons"]
    text = scoped(db, "propose", "用户希望改用邮件", "--slot", "notify.channel",
                  "--value", "email", "--source-text", "以后改成邮件通知吧").stdout
    assert text.startswith("updated m_")
    active = json.loads(scoped(db, "--json", "list", "--slot", "notify.channel",
                               "--status", "active").stdout)
    assert [m["value"] for m in active] == ["email"]
    bad = scoped(db, "propose", "x", "--confidence", "7", ok=False)
    assert bad.returncode != 0 and "error [invalid_input]" in bad.stderr


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


def _ids(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [m["id"] for m in json.loads(proc.stdout)]


def test_remember_ttl_in_seconds_and_valid_to(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    before = time.time_ns() // 1_000_000
    r = json.loads(scoped(db, "--json", "remember", "Parking pass for today", "--ttl", "3600",
                          "--valid-to", "2030-01-01T00:00:00Z").stdout)
    after = time.time_ns() // 1_000_000
    m = r["memory"]
    # A bare number is seconds: an hour from the write, not a parse error.
    assert before + 3_600_000 <= m["expires_at"] <= after + 3_600_000
    assert m["valid_to"] == 1_893_456_000_000  # 2030-01-01T00:00:00Z
    # Units still work, and get agrees with what remember printed.
    got = json.loads(scoped(db, "--json", "get", r["id"]).stdout)
    assert got["expires_at"] == m["expires_at"] and got["valid_to"] == m["valid_to"]
    day = json.loads(scoped(db, "--json", "remember", "Visitor badge", "--ttl", "1d").stdout)
    assert day["memory"]["expires_at"] - day["memory"]["recorded_at"] <= 86_400_000
    assert day["memory"]["expires_at"] - day["memory"]["recorded_at"] > 86_000_000


def test_list_filters_through_cli(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"

    def add(*args: str) -> str:
        return str(json.loads(scoped(db, "--json", "remember", *args).stdout)["id"])

    fmt = add("Reports as CSV", "--slot", "report.format", "--value", "CSV")
    tea = add("I like green TEA in the morning", "--source", "document")
    badge = add("Visitor badge valid today", "--ttl", "3600")
    scoped(db, "freeze", fmt, "--reason", "confirmed")

    def ids(*args: str) -> set[str]:
        return set(_ids(scoped(db, "--json", "list", *args)))

    assert ids("--q", "green tea") == {tea}  # case-insensitive substring
    assert ids("--q", "nothing like this") == set()
    assert ids("--source", "document") == {tea}
    assert ids("--source", "user_explicit") == {fmt, badge}
    assert ids("--frozen") == {fmt}
    assert ids("--not-frozen") == {tea, badge}
    assert ids("--slotted") == {fmt}
    assert ids("--not-slotted") == {tea, badge}
    assert ids("--expiring-before", "2999-01-01T00:00:00Z") == {badge}
    assert ids("--expiring-before", "2000-01-01T00:00:00Z") == set()
    assert ids("--not-frozen", "--not-slotted", "--source", "user_explicit") == {badge}
    table = scoped(db, "list", "--frozen").stdout
    assert fmt in table and tea not in table


def test_topic_through_cli(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"

    def add(*args: str) -> dict[str, Any]:
        return dict(json.loads(scoped(db, "--json", "remember", *args).stdout)["memory"])

    cafe = add("I like quiet cafes for working", "--topic", "quiet cafes")
    hike = add("I love hiking in the mountains")  # no topic given: derived from the text
    fmt = add("Reports as CSV", "--slot", "report.format", "--value", "CSV")
    assert cafe["topic"] == "quiet cafes"
    assert hike["topic"] and hike["topic"] != "quiet cafes"
    assert fmt["topic"] is None  # the slot names it

    def ids(*args: str) -> list[str]:
        return _ids(scoped(db, "--json", "list", *args))

    assert ids("--topic", "quiet cafes") == [cafe["id"]]
    assert ids("--topic", hike["topic"]) == [hike["id"]]
    assert ids("--topic", "quiet") == []  # exact, not a substring
    assert json.loads(scoped(db, "--json", "get", cafe["id"]).stdout)["topic"] == "quiet cafes"

    # The tables show the slot, else the topic, in one column.
    table = scoped(db, "list").stdout
    assert "slot/topic" in table and "quiet cafes" in table and "report.format" in table
    assert "quiet cafes" in scoped(db, "list", "--topic", "quiet cafes").stdout
    assert "hiking" not in scoped(db, "list", "--topic", "quiet cafes").stdout
    hits = scoped(db, "recall", "quiet cafes to work in").stdout
    assert "slot/topic" in hits and "quiet cafes" in hits
    assert "topic" in scoped(db, "get", cafe["id"]).stdout

    # edit --topic: a new version under the new topic; propose --topic through the gate.
    edited = json.loads(scoped(db, "--json", "edit", cafe["id"], "--topic", "cafés & quiet",
                               "--reason", "a better key").stdout)
    assert (edited["topic"], edited["version"]) == ("cafés & quiet", 2)
    assert ids("--topic", "cafés & quiet") == [cafe["id"]]
    assert ids("--topic", "quiet cafes") == []
    diff = json.loads(scoped(db, "--json", "diff", cafe["id"], "1", "2").stdout)
    assert diff["topic"] == {"from": "quiet cafes", "to": "cafés & quiet"}
    jazz = json.loads(scoped(db, "--json", "propose", "I enjoy jazz in the evening",
                             "--topic", "jazz").stdout)
    assert jazz["action"] == "added"
    assert ids("--topic", "jazz") == [jazz["memory_id"]]


def test_edit_value_kind_expires_at_through_cli(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    mid = json.loads(scoped(db, "--json", "remember", "Reports as CSV", "--slot",
                            "report.format", "--value", "CSV").stdout)["id"]
    edited = json.loads(scoped(db, "--json", "edit", mid, "--value", '{"format": "XLSX"}',
                               "--kind", "profile", "--expires-at", "2030-01-01T00:00:00Z",
                               "--reason", "fix by hand").stdout)
    assert edited["version"] == 2
    got = json.loads(scoped(db, "--json", "get", mid).stdout)
    assert got["value"] == {"format": "XLSX"} and got["kind"] == "profile"
    assert got["expires_at"] == 1_893_456_000_000 and got["source"] == "admin_manual"
    assert got["content"] == "Reports as CSV"  # untouched fields stay
    diff = json.loads(scoped(db, "--json", "diff", mid, "1", "2").stdout)
    assert diff["value"] == {"from": "CSV", "to": {"format": "XLSX"}}
    assert diff["kind"] == {"from": "preference", "to": "profile"}
    # A JSON string is a plain value.
    scoped(db, "edit", mid, "--value", '"PDF"')
    assert json.loads(scoped(db, "--json", "get", mid).stdout)["value"] == "PDF"


def test_context_kind_and_tags_through_cli(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    home = json.loads(scoped(db, "--json", "remember", "I live in Shanghai near the river",
                             "--tag", "home").stdout)["id"]
    pref = json.loads(scoped(db, "--json", "remember", "I prefer tea over coffee",
                             "--kind", "preference").stdout)["id"]
    query = "where do I live and what do I drink"

    def included(*args: str) -> list[str]:
        r = json.loads(scoped(db, "--json", "context", query, *args).stdout)
        return [h["memory"]["id"] for h in r["included"]]

    assert set(included()) >= {home, pref}
    assert included("--kind", "preference") == [pref]
    assert included("--tags", "home") == [home]
    assert included("--tag", "home", "--kind", "preference") == []
    text = scoped(db, "context", query, "--tags", "home").stdout
    assert "Shanghai" in text and "coffee" not in text


def test_profile_through_cli(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    first = json.loads(scoped(db, "--json", "remember", "Reports as CSV", "--slot",
                              "report.format", "--value", "CSV").stdout)
    scoped(db, "remember", "Reports as XLSX", "--slot", "report.format", "--value", "XLSX")
    scoped(db, "remember", "Notify me by SMS", "--slot", "notify.channel", "--value", "SMS")
    scoped(db, "remember", "I live in Shanghai")  # no slot: not in the profile
    prof = json.loads(scoped(db, "--json", "profile").stdout)
    assert list(prof) == ["notify.channel", "report.format"]
    assert prof["report.format"]["value"] == "XLSX" and prof["report.format"]["version"] == 2
    assert prof["report.format"]["memory_id"] == first["id"]
    assert prof["notify.channel"]["value"] == "SMS"
    then = json.loads(scoped(db, "--json", "profile", "--as-of",
                             str(first["memory"]["updated_at"])).stdout)
    assert {k: p["value"] for k, p in then.items()} == {"report.format": "CSV"}
    table = scoped(db, "profile").stdout
    assert "report.format" in table and "XLSX" in table and "Shanghai" not in table
    # Another user has no profile.
    assert json.loads(run(db, "--tenant", "acme", "--user", "bob", "--json",
                          "profile").stdout) == {}
    bad = run(db, "--tenant", "acme", "profile", ok=False)
    assert bad.returncode != 0 and "[invalid_scope]" in bad.stderr


def test_users_through_cli(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    scoped(db, "remember", "alice's note")
    run(db, "--tenant", "acme", "--user", "bob", "remember", "bob's note")
    run(db, "--tenant", "other", "--user", "carol", "remember", "carol's note")
    assert json.loads(run(db, "--tenant", "acme", "--json", "users").stdout) == ["alice",
                                                                                  "bob"]
    assert run(db, "--tenant", "other", "users").stdout.split() == ["carol"]
    assert json.loads(run(db, "--tenant", "nobody", "--json", "users").stdout) == []
    bad = run(db, "users", ok=False)
    assert bad.returncode != 0 and "[invalid_scope]" in bad.stderr and "tenant" in bad.stderr


def test_traces_through_cli(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    scoped(db, "remember", "Reports as CSV", "--slot", "report.format", "--value", "CSV")
    first = json.loads(scoped(db, "--json", "recall", "report format").stdout)["trace_id"]
    second = json.loads(scoped(db, "--json", "context", "how to export").stdout)["trace_id"]
    rows = json.loads(scoped(db, "--json", "traces").stdout)
    assert [(t["trace_id"], t["kind"], t["query"]) for t in rows] == [
        (second, "context", "how to export"), (first, "recall", "report format")]
    latest = json.loads(scoped(db, "--json", "traces", "--limit", "1").stdout)
    assert [t["trace_id"] for t in latest] == [second]
    table = scoped(db, "traces").stdout
    assert first in table and second in table and "report format" in table
    # One trace, as a table: every candidate with its score parts, coverage among them.
    recall_trace = json.loads(scoped(db, "--json", "trace", first).stdout)
    assert recall_trace["candidates"][0]["parts"]["coverage"] > 0  # "report" ~ "Reports"
    shown = scoped(db, "trace", first).stdout
    assert "coverage" in shown and f"{recall_trace['candidates'][0]['parts']['coverage']:.3f}" \
        in shown
    assert json.loads(run(db, "--tenant", "acme", "--user", "bob", "--json",
                          "traces").stdout) == []


def test_graph_entity_through_cli(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    scoped(db, "remember", "I live in Shanghai")
    scoped(db, "graph", "ingest")
    city = json.loads(scoped(db, "--json", "graph", "entity", "上海").stdout)
    assert city["kind"] == "entity" and city["content"] == "Shanghai"
    # Names and aliases resolve to the same entity.
    assert json.loads(scoped(db, "--json", "graph", "entity", "shanghai").stdout)["id"] == \
        city["id"]
    shown = scoped(db, "graph", "entity", "Shanghai").stdout
    assert city["id"] in shown and "entity" in shown
    bad = scoped(db, "graph", "entity", "Atlantis", ok=False)
    assert bad.returncode != 0 and "[not_found]" in bad.stderr


def test_export_never_clobbers_the_store_or_a_file_on_failure(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    scoped(db, "remember", "The user has a cat named Miso")
    # The store's own file as the output: refused, the store keeps its memory.
    bad = scoped(db, "export", str(db), ok=False)
    assert bad.returncode == 1 and "is the store itself" in bad.stderr
    assert "Miso" in scoped(db, "list").stdout
    # A call that fails (no user) leaves an existing file as it was.
    keep = tmp_path / "keep.jsonl"
    keep.write_text("precious\n")
    bad = run(db, "--tenant", "acme", "export", str(keep), ok=False)
    assert bad.returncode == 1 and "invalid_scope" in bad.stderr
    assert keep.read_text() == "precious\n"
    # Unwritable targets are a typed error, not a traceback.
    for target in (tmp_path / "no" / "such" / "dir.jsonl", tmp_path):
        bad = scoped(db, "export", str(target), ok=False)
        assert bad.returncode == 1 and "error [invalid_input] export:" in bad.stderr
        assert "Traceback" not in bad.stderr
    scoped(db, "export", str(keep))
    assert json.loads(keep.read_text().splitlines()[0])["format"] == "memvault-export"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_stored_text_is_printed_as_text_not_markup(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    closing = "closing [/] tag here"
    link = "Tom [link=https://evil.example]click[/link] works at Acme"
    ids = [scoped(db, "remember", t).stdout.split()[1] for t in (closing, link)]
    for args in (["list"], ["get", ids[0]], ["history", ids[0]], ["recall", "closing tag"],
                 ["recall", "Tom works at Acme"]):
        shown = scoped(db, *args)
        assert "Traceback" not in shown.stderr
    assert "[/]" in scoped(db, "get", ids[0]).stdout
    assert "[link=https://evil.example]click[/link]" in scoped(db, "get", ids[1]).stdout
    # Emoji codes stay text, in output and in error messages.
    emoji = scoped(db, "remember", "press :x: to close, tag :smile:").stdout.split()[1]
    for args in (["get", emoji], ["list"], ["recall", "press to close"]):
        assert ":x:" in scoped(db, *args).stdout and "❌" not in scoped(db, *args).stdout
    missing = scoped(db, "get", ":x:", ok=False)
    assert "no memory :x:" in missing.stderr and "❌" not in missing.stderr


@pytest.mark.parametrize("option", [["--port", "99999"], ["--port=-1"], ["--host", "bad..host"],
                                    ["--sweep-interval", "nan"], ["--sweep-interval=-5"],
                                    ["--max-body=-1"]])
def test_serve_refuses_bad_options_before_opening_the_store(tmp_path: Path,
                                                            option: list[str]) -> None:
    db = tmp_path / "s.db"
    bad = run(db, "serve", *option, ok=False)
    assert bad.returncode == 1 and "error [invalid_input]" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert not db.exists()  # no store, so no admin key was created


def test_db_that_is_neither_a_path_nor_a_dsn_is_refused(tmp_path: Path) -> None:
    for db in ("", "sqlite:///tmp/x.db"):
        bad = subprocess.run([sys.executable, "-m", "memvault.cli", "--db", db, "--tenant",
                              "acme", "--user", "alice", "list"], capture_output=True,
                             text=True, timeout=120, cwd=tmp_path)
        assert bad.returncode == 1 and "error [invalid_input] db:" in bad.stderr
    assert list(tmp_path.iterdir()) == []

"""Reads without an API key (Python, the CLI) leave access-log rows only when the
strategy asks for it (`audit.log_reads`); a caller named with `reading_as` (what REST and
MCP do for their keys) always leaves one. The rows come from the one read path, so every
read verb writes the same columns whoever calls it."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memvault import Scope, Vault
from memvault.config import parse_strategy
from memvault.reads.access import Accessor, reading_as

ALICE = Scope("acme", "alice")
LOG_READS = parse_strategy({"audit": {"log_reads": True}})


def rows(vault: Vault, user: str = "alice") -> list[dict[str, Any]]:
    return list(reversed(vault.store.access_log("acme", user=user, limit=1000)))


def test_python_reads_leave_no_row_by_default(make_vault: Callable[..., Vault]) -> None:
    v = make_vault()
    m = v.remember(ALICE, "alice drinks oolong tea")
    v.get(ALICE, m.id)
    assert [h.memory.id for h in v.recall(ALICE, "oolong tea")] == [m.id]
    v.list(ALICE)
    assert rows(v) == []


def test_python_reads_leave_rows_when_the_strategy_asks(
        make_vault: Callable[..., Vault]) -> None:
    v = make_vault(strategy=LOG_READS)
    m = v.remember(ALICE, "alice drinks oolong tea", slot="drink", value="oolong")
    assert rows(v) == []  # a write is not a read
    hits = v.recall(ALICE, "oolong tea")
    v.get(ALICE, m.id)
    got = rows(v)
    assert [(r["action"], r["memory_ids"], r["key_id"], r["role"], r["tenant"], r["user"])
            for r in got] == [("recall", [m.id], "", "admin", "acme", "alice"),
                              ("get", [m.id], "", "admin", "acme", "alice")]
    assert got[0]["trace_id"] == hits.trace_id and got[1]["trace_id"] is None


def test_every_read_verb_writes_its_row(make_vault: Callable[..., Vault]) -> None:
    v = make_vault(strategy=LOG_READS)
    m = v.remember(ALICE, "alice drinks oolong tea", slot="drink", value="oolong")
    v.remember(ALICE, "alice drinks green tea", slot="drink", value="green")
    reads: list[tuple[str, Callable[[], Any]]] = [
        ("get", lambda: v.get(ALICE, m.id)),
        ("list", lambda: v.list(ALICE)),
        ("recall", lambda: v.recall(ALICE, "tea")),
        ("context", lambda: v.context(ALICE, "tea")),
        ("history", lambda: v.history(ALICE, m.id)),
        ("diff", lambda: v.diff(ALICE, m.id, 1, 2)),
        ("profile", lambda: v.profile(ALICE)),
        ("audit", lambda: v.audit(ALICE)),
        ("traces", lambda: v.traces(ALICE)),
        ("review.list", lambda: v.review_list(ALICE)),
        ("recent", lambda: v.recent(ALICE)),
        ("export", lambda: v.export_jsonl(ALICE, io.StringIO())),
    ]
    for action, read in reads:
        read()
        last = rows(v)[-1]
        assert last["action"] == action, (action, last)
        if action not in ("review.list", "recent", "traces"):
            assert m.id in last["memory_ids"], (action, last)
    assert len(rows(v)) == len(reads)


def test_a_named_caller_is_logged_whatever_the_strategy(
        make_vault: Callable[..., Vault]) -> None:
    v = make_vault()  # audit.log_reads is off
    m = v.remember(ALICE, "alice drinks oolong tea")
    with reading_as(Accessor("k0123", "reader")):
        v.get(ALICE, m.id)
    v.get(ALICE, m.id)  # outside the block: not logged
    assert [(r["action"], r["key_id"], r["role"]) for r in rows(v)] == [
        ("get", "k0123", "reader")]


def test_cli_reads_are_logged_only_with_the_strategy_setting(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    strategy = tmp_path / "strategy.yaml"
    strategy.write_text("audit:\n  log_reads: true\n", encoding="utf-8")

    def cli(*args: str, config: Path | None = None) -> str:
        options = ["--config", str(config)] if config else []
        proc = subprocess.run([sys.executable, "-m", "memvault.cli", "--db", str(db),
                               *options, "--tenant", "acme", "--user", "alice", "--json",
                               *args], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "COLUMNS": "200"})
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    mid = json.loads(cli("remember", "alice drinks oolong tea"))["id"]
    assert json.loads(cli("get", mid))["id"] == mid
    with Vault(db) as v:
        assert rows(v) == []
    assert json.loads(cli("get", mid, config=strategy))["id"] == mid
    with Vault(db) as v:
        assert [(r["action"], r["memory_ids"], r["key_id"]) for r in rows(v)] == [
            ("get", [mid], "")]

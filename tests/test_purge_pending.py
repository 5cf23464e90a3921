"""Purge with a concurrent reader: erasure is "done" only when the erased bytes are gone.

Another connection holding a read snapshot (a second process with an open read
transaction) keeps the pages a purge overwrote: SQLite cannot checkpoint the WAL past it,
PostgreSQL's VACUUM cannot prune the dead row versions it may still see. Purge must then
say "pending", and a later status call (after the reader lets go) finishes the erasure and
says "done". The reader here is a real second process on the same store; the evidence is
the raw bytes of the SQLite files (db, -wal, -shm) and of PostgreSQL's table files."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from _server import Server
from _util import all_text, backends, is_pg, text_hits

from memvault import NotFoundError, Scope, Vault

ME = Scope("acme", "alice")
SECRET = "zebracorn42"

# A second process that opens the store, starts a read transaction, reads, says
# "holding", and keeps the snapshot until a line arrives on stdin; then it commits, says
# "released" and keeps its connection open until stdin closes.
_READER = r"""
import sys
target = sys.argv[1]
if target.startswith("postgresql"):
    import psycopg
    conn = psycopg.connect(target, autocommit=True)
    conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
else:
    import sqlean
    conn = sqlean.connect(target, isolation_level=None)
    conn.execute("BEGIN")
conn.execute("SELECT COUNT(*) FROM memories").fetchone()
print("holding", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
print("released", flush=True)
sys.stdin.read()
conn.close()
"""


class Reader:
    """A second process holding a read snapshot of the store."""

    def __init__(self, target: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _READER, target],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "holding"

    def release(self) -> None:
        """End the read transaction (the connection stays open)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "released"

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@contextmanager
def reader(target: str) -> Iterator[Reader]:
    r = Reader(target)
    try:
        yield r
    finally:
        r.close()


def _sqlite_files_holding(db: str, needle: str) -> list[str]:
    files = [Path(db), Path(f"{db}-wal"), Path(f"{db}-shm")]
    return [p.name for p in files if p.exists() and needle.encode() in p.read_bytes()]


def _pg_files_holding(dsn: str, needle: str) -> list[str]:
    """The tables whose main file, flushed to disk, holds the bytes (pg_read_binary_file
    needs a superuser, as the private test server gives)."""
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("CHECKPOINT")
        return [rel for rel in ("memories", "revisions")
                if c.execute("SELECT position(%s IN pg_read_binary_file("
                             "pg_relation_filepath(%s))) > 0",
                             (needle.encode(), rel)).fetchone()[0]]  # type: ignore[index]


def files_holding(db: str, needle: str = SECRET) -> list[str]:
    return _pg_files_holding(db, needle) if is_pg(db) else _sqlite_files_holding(db, needle)


def _remember_secret(vault: Vault) -> str:
    mid = vault.remember(ME, f"The door code is {SECRET}", source_text=f"code {SECRET}",
                         reason=f"said {SECRET}").memory.id
    vault.edit(ME, mid, content=f"The door code is still {SECRET}", reason=f"edit {SECRET}")
    # Later rows in the same pages: PostgreSQL's pruning moves them over the dead bytes.
    for i in range(30):
        vault.remember(ME, f"Filler note number {i} about the weather and tea " * 3)
    vault.store.compact()
    return mid


def _no_trace_in_tables(db: str) -> bool:
    return (not any(SECRET in text for text in all_text(db).values())
            and text_hits(db, SECRET) == 0)


def test_purge_without_readers_is_done_at_once(vault: Vault, db: str) -> None:
    mid = _remember_secret(vault)
    assert files_holding(db)  # before: the bytes really are in the files
    result = vault.purge(ME, mid, reason="erasure request")
    assert result.erasure == "done"
    assert result.tombstone.op == "purge" and result.tombstone.memory_id == mid
    assert result.to_dict()["erasure"] == "done"
    assert files_holding(db) == []
    assert _no_trace_in_tables(db)
    assert vault.purge_status(ME, mid) == "done"


def test_purge_status_of_a_memory_never_purged_is_not_found(vault: Vault) -> None:
    mid = vault.remember(ME, "The user likes tea").memory.id
    with pytest.raises(NotFoundError):
        vault.purge_status(ME, mid)
    with pytest.raises(NotFoundError):
        vault.purge_status(ME, "m_nosuchmemory")
    vault.purge(ME, mid)
    assert vault.purge_status(ME, mid) == "done"
    with pytest.raises(NotFoundError):  # another user's purge is not this user's
        vault.purge_status(Scope("acme", "bob"), mid)


def test_purge_with_a_reader_is_pending_until_the_reader_lets_go(vault: Vault,
                                                                 db: str) -> None:
    mid = _remember_secret(vault)
    with reader(db) as r:
        result = vault.purge(ME, mid, reason="erasure request")
        # No query finds it any more, but its bytes are still in the files: not done.
        assert _no_trace_in_tables(db)
        assert files_holding(db)
        assert result.erasure == "pending"
        assert vault.purge_status(ME, mid) == "pending"
        r.release()
        assert vault.purge_status(ME, mid) == "done"
        assert files_holding(db) == []
    assert _no_trace_in_tables(db)
    assert vault.purge_status(ME, mid) == "done"


def test_a_pending_erasure_is_finished_by_the_next_write(vault: Vault, db: str) -> None:
    mid = _remember_secret(vault)
    with reader(db) as r:
        assert vault.purge(ME, mid).erasure == "pending"
        r.release()
        assert files_holding(db)  # nobody has finished it yet
        vault.remember(ME, "The user prefers window seats")
        assert files_holding(db) == []
    assert vault.purge_status(ME, mid) == "done"


def test_a_pending_erasure_survives_close_and_is_finished_on_open(
        make_vault: Callable[..., Vault], db: str) -> None:
    vault = make_vault(db)
    mid = _remember_secret(vault)
    with reader(db) as r:
        assert vault.purge(ME, mid).erasure == "pending"
        vault.close()  # cannot finish it: the reader still holds its snapshot
        assert files_holding(db)
        r.release()
        again = make_vault(db)  # the reader's connection is still open
        assert again.purge_status(ME, mid) == "done"
        assert files_holding(db) == []


# --- the other faces: CLI and REST -----------------------------------------------------

def _cli(db: str, *args: str) -> dict[str, object]:
    proc = subprocess.run([sys.executable, "-m", "memvault.cli", "--db", db, "--tenant",
                           "acme", "--user", "alice", "--json", *args],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert isinstance(out, dict)
    return out


@backends("sqlite")
def test_cli_purge_says_pending_and_purge_status_says_done_later(
        make_vault: Callable[..., Vault], db: str) -> None:
    vault = make_vault(db)
    mid = _remember_secret(vault)
    vault.close()
    with reader(db) as r:
        out = _cli(db, "purge", mid, "--yes")
        assert out["erasure"] == "pending"
        assert out["tombstone"]["op"] == "purge"  # type: ignore[index]
        assert files_holding(db)
        r.release()
        assert _cli(db, "purge-status", mid) == {"memory_id": mid, "erasure": "done"}
        assert files_holding(db) == []


def test_rest_purge_reports_erasure_and_status_is_polled(tmp_path: Path) -> None:
    db = str(tmp_path / "rest.db")
    srv = Server(db, log=tmp_path / "server.log")
    try:
        with srv.client(srv.admin_key) as admin:
            mid = admin.post("/v1/memories", params={"user": "alice"},
                             json={"content": f"The door code is {SECRET}"}).json()["id"]
            never = admin.post("/v1/memories", params={"user": "alice"},
                               json={"content": "The user likes tea"}).json()["id"]
            with reader(db) as r:
                out = admin.post(f"/v1/memories/{mid}/purge", params={"user": "alice"},
                                 json={"reason": "erasure request"})
                assert out.status_code == 200, out.text
                assert out.json()["erasure"] == "pending"
                assert out.json()["tombstone"]["op"] == "purge"
                status = admin.get(f"/v1/memories/{mid}/purge", params={"user": "alice"})
                assert status.json() == {"memory_id": mid, "erasure": "pending"}
                r.release()
                status = admin.get(f"/v1/memories/{mid}/purge", params={"user": "alice"})
                assert status.json() == {"memory_id": mid, "erasure": "done"}
                assert files_holding(db) == []
            assert admin.get(f"/v1/memories/{never}/purge",
                             params={"user": "alice"}).status_code == 404
    finally:
        srv.stop()

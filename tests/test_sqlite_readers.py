"""Concurrent reads on SQLite (issue 21): reads of a thread that holds no transaction run
on read-only connections beside the one writer, and see the last commit; reads inside a
thread's own transaction see its uncommitted writes; close() ends every thread's reads;
a purge still erases with readers open.

Real SQLite files, real threads. Nothing here measures time: a read that would wait for
the writer shows as a read that has not finished when the writer is released (the join
timeouts only keep a regression from hanging the suite)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memvault import Scope, StoreError, Vault
from memvault.config import Strategy
from memvault.store import SQLiteStore

ME = Scope("acme", "alice")
SECRET = "zebracorn42"
HANG = 120.0  # seconds: only a guard against a hung test, never a measured bound


def _no_traces() -> Strategy:
    # A recall writes its trace (a write: it waits for the writer); without traces a recall
    # is reads only.
    base = Strategy().model_dump()
    base["traces"]["enabled"] = False
    return Strategy.model_validate(base)


@pytest.fixture
def vault(tmp_path: Path) -> Iterator[Vault]:
    v = Vault(str(tmp_path / "readers.db"), strategy=_no_traces())
    yield v
    v.close()


def _in_thread(fn: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except BaseException as e:  # handed to the test thread
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out


def _result(t: threading.Thread, out: dict[str, Any]) -> Any:
    t.join(HANG)
    assert not t.is_alive(), "the thread did not finish"
    if "error" in out:
        raise out["error"]
    return out.get("value")


def test_reads_run_beside_an_open_write_transaction_and_see_the_last_commit(
        vault: Vault) -> None:
    kept = vault.remember(ME, "The user likes green tea").memory
    inside, release = threading.Event(), threading.Event()

    def writer() -> str:
        with vault.store.transaction():
            mid = vault.remember(ME, "The user likes oolong tea").memory.id
            vault.edit(ME, kept.id, content="The user likes black tea")
            inside.set()
            assert release.wait(HANG)
        return mid

    wt, wout = _in_thread(writer)
    assert inside.wait(HANG)

    def reads() -> dict[str, Any]:
        return {"get": vault.get(ME, kept.id),
                "list": vault.list(ME),
                "history": vault.history(ME, kept.id),
                "recall": vault.recall(ME, "what tea does the user like"),
                "count": vault.store.count()}

    # The reads finish while the writer still holds its transaction open: the writer
    # is released only after they are done.
    rt, rout = _in_thread(reads)
    rt.join(HANG)
    done_while_open = not rt.is_alive() and not release.is_set()
    release.set()
    new_id = _result(wt, wout)
    seen = _result(rt, rout)
    assert done_while_open
    # The last commit, not the open transaction's rows.
    assert seen["get"].content == "The user likes green tea"
    assert [m.id for m in seen["list"]] == [kept.id]
    assert [r.op for r in seen["history"]] == ["create"]
    assert [h.memory.id for h in seen["recall"]] == [kept.id]
    assert seen["count"] == 1
    # Committed: every thread sees it now.
    assert vault.get(ME, kept.id).content == "The user likes black tea"  # type: ignore[union-attr]
    assert {m.id for m in vault.list(ME)} == {kept.id, new_id}


def test_a_read_inside_a_transaction_sees_its_own_writes(vault: Vault) -> None:
    class Undo(Exception):
        pass

    with pytest.raises(Undo), vault.store.transaction():
        mid = vault.remember(ME, "The user likes oolong tea").memory.id
        assert vault.get(ME, mid) is not None
        assert [m.id for m in vault.list(ME)] == [mid]
        assert [h.memory.id for h in vault.recall(ME, "oolong tea")] == [mid]
        assert [r.op for r in vault.history(ME, mid)] == ["create"]
        # Another thread, meanwhile: not yet.
        assert _result(*_in_thread(lambda: vault.store.get(ME, mid))) is None
        raise Undo
    assert vault.list(ME) == []


def test_after_close_every_thread_s_reads_are_a_store_error(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "closed.db")
    go, read_again = threading.Event(), threading.Event()

    def reader() -> tuple[int, str]:
        first = store.count()
        go.set()
        assert read_again.wait(HANG)
        try:
            store.count()
        except StoreError as e:
            return first, str(e)
        return first, ""

    t, out = _in_thread(reader)
    assert go.wait(HANG)
    assert store.reader_count() == 1  # that thread's reader, idle, still open
    store.close()
    assert store.reader_count() == 0
    read_again.set()
    first, error = _result(t, out)
    assert first == 0
    assert "the store is closed" in error
    with pytest.raises(StoreError, match="the store is closed"):
        store.count()


def test_purge_erases_with_readers_open_in_other_threads(vault: Vault, tmp_path: Path) -> None:
    db = tmp_path / "readers.db"
    mid = vault.remember(ME, f"The door code is {SECRET}", source_text=f"code {SECRET}").memory.id
    for i in range(20):
        vault.remember(ME, f"Filler note number {i} about the weather and tea " * 3)
    vault.store.compact()
    assert any(SECRET.encode() in p.read_bytes() for p in _files(db))

    # Several readers open at once (each thread's read takes its own connection), and
    # each has read the secret, so its pages were in that connection's cache.
    n = 4
    barrier = threading.Barrier(n)

    def read_secret() -> str:
        barrier.wait(HANG)
        return vault.get(ME, mid).content  # type: ignore[union-attr]

    threads = [_in_thread(read_secret) for _ in range(n)]
    assert all(SECRET in _result(*t) for t in threads)
    assert vault.store.reader_count() >= 1

    # One thread keeps reading the whole time the purge runs.
    stop, after_purge = threading.Event(), threading.Event()

    def keep_reading() -> list[str]:
        seen_after: list[str] = []
        while not stop.is_set():
            purged = after_purge.is_set()
            got = vault.store.get(ME, mid)
            vault.list(ME, limit=5)
            if purged and got is not None:
                seen_after.append(got.content)
        return seen_after

    kt, kout = _in_thread(keep_reading)
    result = vault.purge(ME, mid, reason="erasure request")
    after_purge.set()
    assert _result(*_in_thread(lambda: vault.store.get(ME, mid))) is None
    stop.set()
    assert _result(kt, kout) == []  # no read that began after the purge found it
    assert vault.purge_status(ME, mid) == "done"
    assert result.erasure in ("done", "pending")  # a read in flight may hold it, briefly
    assert [p.name for p in _files(db) if SECRET.encode() in p.read_bytes()] == []


def _files(db: Path) -> list[Path]:
    return [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()]


def test_an_in_memory_store_reads_through_its_one_connection() -> None:
    # ":memory:" is a database private to its connection: a reader would see none of it.
    with Vault(":memory:", strategy=_no_traces()) as v:
        mid = v.remember(ME, "The user likes green tea").memory.id
        assert [m.id for m in _result(*_in_thread(lambda: v.list(ME)))] == [mid]
        assert [h.memory.id for h in v.recall(ME, "green tea")] == [mid]

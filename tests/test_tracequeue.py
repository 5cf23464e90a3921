"""Trace writes after the recall answers (store/tracequeue.py, issue 21): none is lost to
a reader, a purge, or a close."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from _util import backends

from memvault import Vault
from memvault.errors import ConflictError
from memvault.model import Scope
from memvault.store.tracequeue import TraceQueue

ME = Scope("acme", "alice")


def _raw_trace_ids(path: str) -> set[str]:
    con = sqlite3.connect(path)
    try:
        return {r[0] for r in con.execute("SELECT trace_id FROM traces")}
    finally:
        con.close()


@backends("sqlite")
def test_a_recall_returns_before_its_trace_is_written_and_readers_see_it(
        make_vault: Callable[..., Vault], db: str) -> None:
    vault = make_vault(db)
    vault.remember(ME, "Anna visited the doctor on Monday")
    queue = vault.store._traces  # type: ignore[attr-defined]
    release, written = threading.Event(), threading.Event()

    def holding(real: Callable[..., None]) -> Callable[..., None]:
        def held(*args: object, **kwargs: object) -> None:
            release.wait(timeout=30)  # the writer thread waits until the recall answered
            real(*args, **kwargs)
            written.set()
        return held

    # The store's thread tries (_try_write); a reader's flush writes (_write).
    queue._write, queue._try_write = holding(queue._write), holding(queue._try_write)
    tid = vault.recall(ME, "doctor").trace_id
    assert tid is not None and not written.is_set()  # not written on the recall's path
    release.set()
    assert vault.trace(ME, tid)["trace_id"] == tid  # a read sees it written
    assert written.wait(timeout=30)
    rows = vault.store._q("SELECT trace_id FROM traces")  # type: ignore[attr-defined]
    assert tid in {r[0] for r in rows}


@backends("sqlite")
def test_a_purge_drops_a_queued_trace_that_names_the_memory(
        make_vault: Callable[..., Vault], db: str) -> None:
    vault = make_vault(db)
    secret = vault.remember(ME, "The vault code is zebracorn quartz").memory
    queue = vault.store._traces  # type: ignore[attr-defined]
    queue._wake = threading.Event()  # the writer thread is not woken: the trace stays queued
    queue._thread = threading.current_thread()  # no thread is started for it
    tid = vault.recall(ME, "vault code").trace_id
    assert queue.pending() == 1
    vault.purge(ME, secret.id)
    assert queue.pending() == 0
    assert tid not in _raw_trace_ids(db)
    with pytest.raises(Exception):  # noqa: B017 - gone: not found
        vault.trace(ME, tid)


@backends("sqlite")
def test_close_writes_the_queued_traces(make_vault: Callable[..., Vault], db: str) -> None:
    vault = make_vault(db)
    vault.remember(ME, "Anna visited the doctor on Monday")
    queue = vault.store._traces  # type: ignore[attr-defined]
    queue._wake = threading.Event()
    queue._thread = threading.current_thread()
    tids = [vault.recall(ME, q).trace_id for q in ("doctor", "Monday", "Anna")]
    assert queue.pending() == 3
    vault.close()
    assert set(tids) <= _raw_trace_ids(db)


def test_a_callers_trace_id_is_checked_at_once(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault()
    vault.remember(ME, "Anna visited the doctor on Monday")
    assert vault.recall(ME, "doctor", trace_id="req-1").trace_id == "req-1"
    with pytest.raises(ConflictError):
        vault.recall(ME, "doctor", trace_id="req-1")


def test_a_full_queue_is_written_by_the_caller(tmp_path: Path) -> None:
    written: list[int] = []
    queue = TraceQueue(threading.RLock(), lambda n, _trace: written.append(n), limit=3)
    queue._thread = threading.current_thread()  # no writer thread: only the caller writes
    for n in range(4):
        queue.put(n, {"trace_id": str(n)})
    assert written == [0, 1, 2, 3] and queue.pending() == 0
    queue.put(4, {"trace_id": "4"})
    assert queue.pending() == 1
    queue.close()
    assert written == [0, 1, 2, 3, 4]


@backends("sqlite")
def test_a_trace_queued_in_another_process_is_dropped_by_a_purge_in_between(
        make_vault: Callable[..., Vault], db: str) -> None:
    """Another process (another store on the file) recalls, and its trace is still queued
    when this one purges what it names: the trace is never written, as a synchronous
    write would have been deleted by the purge."""
    vault, other = make_vault(db), make_vault(db)
    secret = vault.remember(ME, "The vault code is zebracorn quartz").memory
    queue = other.store._traces  # type: ignore[attr-defined]
    queue._wake = threading.Event()
    queue._thread = threading.current_thread()
    tid = other.recall(ME, "vault code zebracorn").trace_id
    assert queue.pending() == 1
    vault.purge(ME, secret.id)
    other.close()  # writes what is queued: the purge came after the recall, so not that
    assert tid not in _raw_trace_ids(db)
    # Without a purge in between, a queued trace is written as usual.
    third = make_vault(db)
    tid2 = third.recall(ME, "vault code").trace_id
    third.close()
    assert tid2 in _raw_trace_ids(db)


def test_a_flush_waits_for_traces_the_store_thread_is_writing() -> None:
    # The store's thread takes the queued traces off the queue, then writes them: a flush
    # in that window (the queue empty) must still wait for that write, or a reader on its
    # own connection looks before the trace is committed (seen as a trace "not found").
    lock = threading.RLock()
    started, release = threading.Event(), threading.Event()
    finished: list[str] = []

    def write(scope: object, trace: dict[str, str]) -> None:
        started.set()
        release.wait(timeout=30)
        finished.append(trace["trace_id"])

    queue = TraceQueue(lock, write)
    queue.put(ME, {"trace_id": "t1"})
    assert started.wait(timeout=30)  # the store's thread is inside the write
    assert queue.pending() == 0
    returned_early: list[bool] = []
    flusher = threading.Thread(target=lambda: (queue.flush(),
                                               returned_early.append(not finished)))
    flusher.start()
    flusher.join(timeout=0.5)
    release.set()
    flusher.join(timeout=30)
    queue.close()
    assert returned_early == [False] and finished == ["t1"]


_FORK_WITH_A_QUEUED_TRACE = """
import os, subprocess, sys
from memvault import Scope, Vault
db = sys.argv[1]
v = Vault(db, embedder="use-m3")
s = Scope("acme", "alice")
v.remember(s, "I like green tea.")
other = subprocess.Popen([sys.executable, "-c", "import sqlean, sys; "
                          "c = sqlean.connect(sys.argv[1], isolation_level=None); "
                          "c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); "
                          "sys.stdin.readline(); c.execute('ROLLBACK')", db],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
assert other.stdout.readline().strip() == "locked"
tid = v.recall(s, "tea").trace_id  # queued: another process holds the write lock
pid = os.fork()
if pid == 0:
    v.close()  # the child has nothing of the parent's to write
    os._exit(0)
_, status = os.waitpid(pid, 0)
other.stdin.write("go\\n")
other.stdin.flush()
other.wait()
v.close()
print("child", os.waitstatus_to_exitcode(status), tid, flush=True)
"""


def test_a_forked_child_does_not_write_the_parents_queued_traces(tmp_path: Path) -> None:
    """A trace queued when the process forks is the parent's to write: the child's queue
    starts empty, so the trace is written once (twice, one write would fail, logged), and
    the child's close() does not wait for another process's lock to write it."""
    db = str(tmp_path / "f.db")
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(_FORK_WITH_A_QUEUED_TRACE),
                          db], capture_output=True, text=True, timeout=120, env=os.environ)
    assert out.returncode == 0, out.stderr
    word, code, tid = out.stdout.split()
    assert (word, code) == ("child", "0")
    assert "not written" not in out.stderr, out.stderr
    assert tid in _raw_trace_ids(db)

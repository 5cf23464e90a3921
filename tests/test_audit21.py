"""Black-box audit of issue 21 parts 3, 5 and 6 (AUDIT.md): concurrent SQLite reads, the
trace queue and trace retention, turn order. Real SQLite files, the real embedder, real
threads and processes. A test that passes documents what holds; a strict xfail is a bug
found by the audit (its reason names it), left unfixed on purpose."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import threading
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlean as sqlite3
from _util import ManualClock, backends

from memvault import Scope, Vault
from memvault.errors import NotFoundError, StoreError

pytestmark = backends("sqlite")

ALICE = Scope("acme", "alice")
BOB = Scope("acme", "bob")
OTHER_TENANT = Scope("globex", "alice")


def _raw(path: str | Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path))
    conn.row_factory = sqlite3.Row
    return conn


def _raw_traces(path: str | Path, scope: Scope | None = None) -> list[dict[str, Any]]:
    """Every stored trace, read through a separate connection and decompressed here."""
    with _raw(path) as conn:
        rows = conn.execute("SELECT trace_id, tenant, user_id, at, memory_ids, payload "
                            "FROM traces ORDER BY at, trace_id").fetchall()
    out = []
    for r in rows:
        if scope is not None and (r["tenant"], r["user_id"]) != (scope.tenant, scope.user):
            continue
        payload = r["payload"]
        text = (zlib.decompress(payload).decode() if isinstance(payload, bytes)
                else str(payload))
        ids = r["memory_ids"]  # compressed JSON (a BLOB), or JSON text before
        ids = json.loads(zlib.decompress(ids).decode() if isinstance(ids, bytes) else ids)
        out.append({"trace_id": r["trace_id"], "at": r["at"], "memory_ids": ids,
                    "payload": text})
    return out


def _strategy(tmp_path: Path, text: str) -> str:
    path = tmp_path / "strategy.yaml"
    path.write_text(textwrap.dedent(text))
    return str(path)


def _run(script: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run a Python script in a fresh interpreter (the same memvault: PYTHONPATH is kept)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args],
                          capture_output=True, text=True, timeout=timeout, env=os.environ)


def _in_threads(n: int, fn: Callable[[int], None]) -> list[BaseException]:
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            fn(i)
        except BaseException as e:  # collected, asserted by the caller
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return errors


# --- part 3: reads on pooled reader connections ------------------------------------------

def test_a_write_is_read_at_once_by_every_thread(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault()
    vault.recall(ALICE, "warm the reader pool")  # readers opened before the write
    m = vault.remember(ALICE, "My locker code is 4471.").memory
    seen: dict[int, tuple[bool, bool, bool, bool]] = {}

    def read(i: int) -> None:
        got = vault.get(ALICE, m.id)
        listed = [x.id for x in vault.list(ALICE)]
        hits = [h.memory.id for h in vault.recall(ALICE, "locker code")]
        seen[i] = (got is not None and got.content == m.content, m.id in listed,
                   m.id in hits, len(vault.history(ALICE, m.id)) == 1)

    assert _in_threads(6, read) == []
    assert seen == {i: (True, True, True, True) for i in range(6)}


def test_pooled_readers_keep_tenants_and_users_apart(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault()
    scopes = [ALICE, BOB, OTHER_TENANT]
    own = {s.key(): vault.remember(s, f"The password of {s.tenant}/{s.user} is "
                                      "hunter2").memory.id for s in scopes}
    leaks: list[tuple[str, list[str]]] = []

    def read(i: int) -> None:
        for k in range(20):
            s = scopes[(i + k) % 3]
            ids = [h.memory.id for h in vault.recall(s, "password hunter2")]
            ids += [m.id for m in vault.list(s)]
            if set(ids) != {own[s.key()]}:
                leaks.append((s.key(), ids))

    assert _in_threads(6, read) == []
    assert leaks == []


def test_a_reader_sees_a_batch_whole_or_not_at_all(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault()
    items = [{"scope": ALICE, "content": f"Fact number {i} about the garden."}
             for i in range(40)]
    counts: list[int] = []
    done = threading.Event()

    def watch(i: int) -> None:
        while not done.is_set():
            counts.append(len(vault.list(ALICE, limit=1000)))
        counts.append(len(vault.list(ALICE, limit=1000)))

    watchers = [threading.Thread(target=watch, args=(i,)) for i in range(2)]
    for t in watchers:
        t.start()
    vault.remember_many(items, batch=40)  # one batch: one transaction
    done.set()
    for t in watchers:
        t.join()
    assert set(counts) <= {0, 40}
    assert counts[-1] == 40


def test_after_a_purge_no_pooled_reader_reads_the_content(
        make_vault: Callable[..., Vault], db: str) -> None:
    vault = make_vault(db)
    secret = "My passport number is X99-ZEBRA-7731."
    m = vault.remember(ALICE, secret).memory
    vault.remember(ALICE, "I like green tea.")
    # Several readers opened, each having read the memory's pages.
    assert _in_threads(4, lambda i: [vault.get(ALICE, m.id),
                                     vault.recall(ALICE, "passport zebra")]) == []
    result = vault.purge(ALICE, m.id, reason="audit")
    assert result.erasure == "done"
    found: list[str] = []

    def read(i: int) -> None:
        try:
            vault.get(ALICE, m.id)
            found.append("get")
        except NotFoundError:
            pass
        if any(x.id == m.id for x in vault.list(ALICE)):
            found.append("list")
        if any(h.memory.id == m.id for h in vault.recall(ALICE, "passport zebra")):
            found.append("recall")
        try:
            revs = vault.history(ALICE, m.id)
        except NotFoundError:
            revs = []
        if any("ZEBRA" in json.dumps(r.state or {}, default=str) for r in revs):
            found.append("history")

    assert _in_threads(4, read) == []
    assert found == []
    raw = b"".join(Path(p).read_bytes() for p in (db, db + "-wal") if Path(p).exists())
    assert b"ZEBRA-7731" not in raw


_WARM_READER = """
import sys
from memvault import NotFoundError, Scope, Vault
v = Vault(sys.argv[1], embedder="use-m3")
s = Scope("acme", "alice")
mid = sys.argv[2]
v.get(s, mid); v.recall(s, "passport zebra"); v.list(s)   # its readers cached the pages
print("warm", flush=True)
sys.stdin.readline()                                        # the parent has purged
try:
    v.get(s, mid)
    print("get found it", flush=True)
except NotFoundError:
    print("gone", [h.memory.id for h in v.recall(s, "passport zebra")] == [], flush=True)
v.close()
"""


def test_a_purge_is_done_beside_another_process_with_warm_readers(
        make_vault: Callable[..., Vault], db: str) -> None:
    vault = make_vault(db)
    m = vault.remember(ALICE, "My passport number is X99-ZEBRA-7731.").memory
    proc = subprocess.Popen([sys.executable, "-c", _WARM_READER, db, m.id],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline().strip() == "warm"
    result = vault.purge(ALICE, m.id, reason="audit")
    proc.stdin.write("go\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "gone True"
    assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    assert result.erasure == "done"
    raw = b"".join(Path(p).read_bytes() for p in (db, db + "-wal") if Path(p).exists())
    assert b"ZEBRA-7731" not in raw


def test_a_queued_trace_of_a_purged_memory_is_gone_when_purge_returns(
        make_vault: Callable[..., Vault], db: str) -> None:
    vault = make_vault(db)
    m = vault.remember(ALICE, "My passport number is X99-ZEBRA-7731.").memory
    vault.remember(BOB, "I like green tea.")
    tid = vault.context(ALICE, "passport zebra").trace_id  # queued, maybe not yet written
    tea = vault.recall(BOB, "green tea").trace_id
    vault.purge(ALICE, m.id, reason="audit")
    traces = _raw_traces(db, ALICE)
    assert all(m.id not in t["memory_ids"] and "ZEBRA" not in t["payload"] for t in traces)
    assert tid not in {t["trace_id"] for t in traces}
    # Another user's trace is not touched.
    assert [t["trace_id"] for t in _raw_traces(db, BOB)] == [tea]


@backends("sqlite", "postgres")
def test_a_purge_during_a_context_build_leaves_no_trace_of_the_memory(
        make_vault: Callable[..., Vault]) -> None:
    state: dict[str, Any] = {}

    def purge_meanwhile(query: str, hits: list[Any]) -> list[Any]:
        # Another thread purges while this context build is between its read and its
        # trace (a reranker is a public hook that runs there).
        if "id" in state and not state.get("done"):
            t = threading.Thread(target=lambda: state.__setitem__(
                "result", state["vault"].purge(ALICE, state["id"], reason="audit")))
            t.start()
            t.join()
            state["done"] = True
        return hits

    vault = make_vault(reranker=purge_meanwhile)
    state["vault"] = vault
    state["id"] = vault.remember(ALICE, "My passport number is X99-ZEBRA-7731.").memory.id
    vault.context(ALICE, "passport zebra")
    assert state["result"].tombstone is not None
    assert vault.purge_status(ALICE, state["id"]) == "done"
    left = [t["trace_id"] for t in vault.traces(ALICE, limit=100)
            if state["id"] in t["memory_ids"] or "ZEBRA" in json.dumps(t)]
    assert left == []


def test_close_ends_every_read_with_a_store_error(make_vault: Callable[..., Vault],
                                                  db: str) -> None:
    vault = make_vault(db)
    m = vault.remember(ALICE, "I like green tea.").memory
    assert _in_threads(4, lambda i: vault.recall(ALICE, "tea")) == []
    vault.close()
    vault.close()  # twice is harmless
    errors = _in_threads(3, lambda i: vault.get(ALICE, m.id))
    errors += _in_threads(1, lambda i: vault.recall(ALICE, "tea"))
    with pytest.raises(StoreError):
        vault.list(ALICE)
    with pytest.raises(StoreError):
        vault.remember(ALICE, "after close")
    assert len(errors) == 4 and all(isinstance(e, StoreError) for e in errors), errors
    # No connection to the file is left open in this process.
    fds = Path("/proc/self/fd")
    open_files = {os.path.realpath(fds / f) for f in os.listdir(fds)
                  if (fds / f).is_symlink()}
    assert not {p for p in open_files if p.startswith(os.path.realpath(db))}


def test_close_while_threads_read_fails_them_only_with_store_errors(
        make_vault: Callable[..., Vault]) -> None:
    vault = make_vault()
    for i in range(20):
        vault.remember(ALICE, f"Fact {i}: the garden has {i} roses.")
    started = threading.Barrier(5)
    outcomes: list[str] = []

    def read(i: int) -> None:
        started.wait()
        while True:
            try:
                vault.recall(ALICE, "roses in the garden")
                vault.list(ALICE)
            except StoreError:
                outcomes.append("store_error")
                return

    threads = [threading.Thread(target=read, args=(i,)) for i in range(4)]
    errors: list[BaseException] = []
    for t in threads:
        t.start()
    started.wait()
    vault.close()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert outcomes == ["store_error"] * 4, (outcomes, errors)


_READER_PROC = """
import sys, time
from memvault import Scope, Vault
v = Vault(sys.argv[1], embedder="use-m3")
s = Scope("acme", "alice")
v.list(s); v.recall(s, "warm")          # pooled readers open before the other's write
print("ready", flush=True)
want = sys.stdin.readline().strip()       # the id the parent wrote, after its commit
m = v.get(s, want)
hits = [h.memory.id for h in v.recall(s, "locker code")]
print("seen", m is not None and want in hits, flush=True)
w = v.remember(s, "Written by the child process.").memory
print("wrote", w.id, flush=True)
v.close()
"""


def test_another_process_reads_each_commit_at_once(make_vault: Callable[..., Vault],
                                                   db: str) -> None:
    vault = make_vault(db)
    vault.remember(ALICE, "I like green tea.")
    proc = subprocess.Popen([sys.executable, "-c", _READER_PROC, db], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline().strip() == "ready"
    vault.recall(ALICE, "tea")  # this process's readers are warm too
    m = vault.remember(ALICE, "My locker code is 4471.").memory
    proc.stdin.write(m.id + "\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "seen True"
    child = proc.stdout.readline().split()
    assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    assert child[0] == "wrote"
    got = vault.get(ALICE, child[1])
    assert got is not None and got.content == "Written by the child process."


def test_an_in_memory_store_reads_its_own_writes_from_any_thread() -> None:
    with Vault(":memory:", embedder="use-m3") as vault:
        m = vault.remember(ALICE, "My locker code is 4471.").memory
        seen: list[bool] = []

        def read(i: int) -> None:
            hits = vault.recall(ALICE, "locker code")
            seen.append(vault.get(ALICE, m.id) is not None
                        and [h.memory.id for h in hits] == [m.id]
                        and vault.trace(ALICE, hits.trace_id)["memory_ids"] == [m.id])

        assert _in_threads(4, read) == []
        assert seen == [True] * 4


def test_a_store_opened_by_a_relative_path_survives_a_chdir(tmp_path: Path) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    elsewhere.mkdir()
    cwd = os.getcwd()
    os.chdir(home)
    try:
        vault = Vault("rel.db", embedder="use-m3")
        m = vault.remember(ALICE, "My locker code is 4471.").memory
        other = vault.remember(ALICE, "I like green tea.").memory
        os.chdir(elsewhere)
        try:
            # A purge closes the pooled readers (no cached page of erased content): the
            # next read opens a new one. So do reads beyond the idle ones kept.
            vault.purge(ALICE, other.id, reason="audit")
            got = vault.get(ALICE, m.id)
            listed = [x.id for x in vault.list(ALICE)]
        finally:
            vault.close()
        assert got is not None and listed == [m.id]
    finally:
        os.chdir(cwd)


_FORK_CHILD = """
import os, sys, time
from memvault import Scope, Vault
v = Vault(sys.argv[1], embedder="use-m3")
s = Scope("acme", "alice")
parent_id = v.remember(s, "Written before the fork.").memory.id
h = v.recall(s, "before the fork")        # readers and the trace thread in use
v.trace(s, h.trace_id)                    # its trace written (flushed) ...
time.sleep(0.3)                           # ... and the trace thread idle: see below
pid = os.fork()
if pid == 0:
    code = 0
    try:
        assert v.get(s, parent_id) is not None
        v.remember(s, "Written by the forked child.")
        hits = v.recall(s, "forked child")
        assert hits and hits[0].memory.content == "Written by the forked child."
        v.close()
    except BaseException as e:
        print("child failed:", repr(e), flush=True)
        code = 1
    os._exit(code)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
v.remember(s, "Written by the parent after the fork.")
texts = sorted(m.content for m in v.list(s))
hits = v.recall(s, "written before the fork")
tr = v.trace(s, hits.trace_id)
v.close()
print("|".join(texts))
print("trace", tr["trace_id"] == hits.trace_id)
"""


def test_a_forked_child_and_its_parent_both_keep_working(tmp_path: Path) -> None:
    out = _run(_FORK_CHILD, str(tmp_path / "f.db"))
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[-2] == ("Written before the fork.|Written by the forked child.|"
                         "Written by the parent after the fork.")
    assert lines[-1] == "trace True"


_FORK_WHILE_TRACING = """
import faulthandler, os, subprocess, sys, time
from memvault import Scope, Vault
db = sys.argv[1]
v = Vault(db, embedder="use-m3")
s = Scope("acme", "alice")
v.remember(s, "I like green tea.")
# Another process writing, for a second. (A connection of this process holding the lock
# would be inherited by the child: SQLite's own lock table would then keep the child out.)
other = subprocess.Popen([sys.executable, "-c", "import sqlean, sys, time; "
                          "c = sqlean.connect(sys.argv[1], isolation_level=None); "
                          "c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); "
                          "time.sleep(1.0); c.execute('ROLLBACK')", db],
                         stdout=subprocess.PIPE, text=True)
assert other.stdout.readline().strip() == "locked"
v.recall(s, "tea")                        # its trace is being written by the store thread
time.sleep(0.5)
pid = os.fork()
if pid == 0:
    faulthandler.dump_traceback_later(20, exit=True)   # a hang ends as exit code 1
    v.remember(s, "Written by the child.")
    v.close()
    os._exit(0)
other.wait()
_, status = os.waitpid(pid, 0)
print("child", os.waitstatus_to_exitcode(status), flush=True)
v.close()
"""


def test_a_fork_while_a_trace_is_written_leaves_a_working_child(tmp_path: Path) -> None:
    out = _run(_FORK_WHILE_TRACING, str(tmp_path / "f.db"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["child", "0"], out.stdout + out.stderr[-2000:]


def test_readers_beside_one_writer_lose_no_write(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault()
    done = threading.Event()
    written: list[str] = []

    def work(i: int) -> None:
        if i == 0:
            try:
                for k in range(30):
                    written.append(vault.remember(ALICE, f"Note {k} about the boat.").memory.id)
            finally:
                done.set()
            return
        while not done.is_set():
            vault.recall(ALICE, "boat note")
            vault.list(ALICE, limit=5)

    assert _in_threads(5, work) == []
    assert sorted(m.id for m in vault.list(ALICE, limit=100)) == sorted(written)
    assert len(written) == 30


def test_many_concurrent_reads_leave_a_bounded_pool(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault()
    vault.remember(ALICE, "I like green tea.")
    barrier = threading.Barrier(16)

    def read(i: int) -> None:
        barrier.wait()
        for _ in range(5):
            vault.recall(ALICE, "tea")

    assert _in_threads(16, read) == []
    assert 1 <= vault.store.reader_count() <= 8  # type: ignore[attr-defined]


# --- part 5: traces ---------------------------------------------------------------------

def test_a_clean_close_keeps_every_queued_trace(make_vault: Callable[..., Vault],
                                                db: str) -> None:
    vault = make_vault(db)
    vault.remember(ALICE, "I like green tea.")
    tids = [vault.recall(ALICE, f"tea question {i}").trace_id for i in range(60)]
    vault.close()
    assert sorted(t["trace_id"] for t in _raw_traces(db, ALICE)) == sorted(tids)


def test_traces_are_read_right_after_their_recall_from_any_thread(
        make_vault: Callable[..., Vault]) -> None:
    vault = make_vault()
    m = vault.remember(ALICE, "I like green tea.").memory
    found: list[bool] = []

    def one(i: int) -> None:
        tid = vault.recall(ALICE, "green tea").trace_id
        found.append(vault.trace(ALICE, tid)["memory_ids"] == [m.id])

    assert _in_threads(4, one) == []
    assert found == [True] * 4
    assert len(vault.traces(ALICE, limit=100)) == 4


_RECALL_THEN_EXIT = """
import sys
from memvault import Scope, Vault
v = Vault(sys.argv[1], embedder="use-m3")
s = Scope("acme", "alice")
v.remember(s, "I like green tea.")
print("ready", flush=True)
sys.stdin.readline()                      # another process now holds the write lock
for i in range(5):
    print(v.recall(s, f"tea question {i}").trace_id, flush=True)
print("done", flush=True)
if sys.argv[2] == "close":
    v.close()                             # waits for the lock, then writes the traces
# else: the program ends here, normally, without v.close()
"""


def _recall_while_another_process_writes(db: str, how: str) -> list[str]:
    """A program recalls while another connection (another process, say) holds the
    SQLite write lock, then ends, with or without close(); the lock is let go a second
    after its last recall. The trace ids it got."""
    Vault(db, embedder="use-m3").close()
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_RECALL_THEN_EXIT), db,
                             how], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline().strip() == "ready"
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        proc.stdin.write("go\n")
        proc.stdin.flush()
        tids = [line.strip() for line in iter(proc.stdout.readline, "done\n")]
        threading.Event().wait(1.0)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
    assert len(tids) == 5
    return tids


def test_a_clean_close_waits_for_the_lock_and_keeps_the_traces(tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    tids = _recall_while_another_process_writes(db, "close")
    assert sorted(t["trace_id"] for t in _raw_traces(db, ALICE)) == sorted(tids)


def test_a_program_that_exits_without_close_keeps_its_traces(tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    tids = _recall_while_another_process_writes(db, "exit")
    assert sorted(t["trace_id"] for t in _raw_traces(db, ALICE)) == sorted(tids)


_PURGE_ON_CUE = """
import sys
from memvault import Scope, Vault
v = Vault(sys.argv[1], embedder="use-m3")
print("opened", flush=True)
sys.stdin.readline()
print("purging", flush=True)
print(v.purge(Scope("acme", "bob"), sys.argv[2], reason="audit").erasure, flush=True)
v.close()
"""


def test_another_process_purging_another_user_loses_no_trace(
        make_vault: Callable[..., Vault], db: str) -> None:
    vault = make_vault(db)
    vault.remember(ALICE, "I like green tea.")
    kept: list[bool] = []
    for round_ in range(4):
        bob = vault.remember(BOB, f"My passport number is X{round_}-ZEBRA.").memory.id
        proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_PURGE_ON_CUE), db,
                                 bob], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline().strip() == "opened"
        writer = sqlite3.connect(db, isolation_level=None)  # a third process's write
        writer.execute("BEGIN IMMEDIATE")
        try:
            tid = vault.recall(ALICE, "tea").trace_id  # its trace waits for the lock
            threading.Event().wait(1.5)
            proc.stdin.write("go\n")
            proc.stdin.flush()
            assert proc.stdout.readline().strip() == "purging"
            threading.Event().wait(0.1)
        finally:
            writer.execute("ROLLBACK")
            writer.close()
        assert proc.stdout.readline().strip() == "done"
        assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
        vault.store.flush_traces()
        kept.append(tid in {t["trace_id"] for t in vault.traces(ALICE, limit=100)})
    assert kept == [True] * 4


def test_retention_by_count_keeps_the_newest_per_user(make_vault: Callable[..., Vault],
                                                      db: str, tmp_path: Path) -> None:
    clock = ManualClock()
    vault = make_vault(db, clock=clock, strategy=_strategy(tmp_path, """
        traces: {enabled: true, retention_days: 30, max_per_scope: 5}
        """))
    vault.remember(ALICE, "I like green tea.")
    vault.remember(BOB, "I like black coffee.")
    bob = [vault.recall(BOB, "coffee").trace_id for _ in range(2)]
    alice = []
    for i in range(12):
        clock.advance(1000)
        alice.append(vault.recall(ALICE, f"tea {i}").trace_id)
    vault.close()
    assert [t["trace_id"] for t in _raw_traces(db, ALICE)] == alice[-5:]
    assert sorted(t["trace_id"] for t in _raw_traces(db, BOB)) == sorted(bob)


def test_retention_by_age_drops_old_traces_of_every_user_on_a_write(
        make_vault: Callable[..., Vault], db: str, tmp_path: Path) -> None:
    clock = ManualClock()
    strategy = _strategy(tmp_path, "traces: {enabled: true, retention_days: 1, "
                                   "max_per_scope: 1000}\n")
    vault = make_vault(db, clock=clock, strategy=strategy)
    vault.remember(ALICE, "I like green tea.")
    vault.remember(BOB, "I like black coffee.")
    vault.recall(ALICE, "tea")
    vault.recall(BOB, "coffee")  # bob never recalls again
    clock.advance(2 * 86_400_000)
    fresh = vault.recall(ALICE, "tea again").trace_id
    vault.close()
    assert [t["trace_id"] for t in _raw_traces(db)] == [fresh]


def test_a_trace_past_its_age_is_not_served(make_vault: Callable[..., Vault], db: str,
                                            tmp_path: Path) -> None:
    clock = ManualClock()
    strategy = _strategy(tmp_path, "traces: {enabled: true, retention_days: 1, "
                                   "max_per_scope: 1000}\n")
    vault = make_vault(db, clock=clock, strategy=strategy)
    vault.remember(ALICE, "I like green tea.")
    tid = vault.recall(ALICE, "tea").trace_id
    vault.close()
    clock.advance(3 * 86_400_000)
    reopened = make_vault(db, clock=clock, strategy=strategy)
    assert [t["trace_id"] for t in reopened.traces(ALICE)] == []
    assert tid  # the old one, three days past a one-day retention


def test_a_trace_reads_back_what_the_recall_returned(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault()
    for text in ["用户喜欢喝绿茶", "I like green tea.", "My cat is called Ünal ☕."]:
        vault.remember(ALICE, text)
    query = "绿茶 and green tea for Ünal ☕"
    hits = vault.recall(ALICE, query)
    tr = vault.trace(ALICE, hits.trace_id)
    assert tr["query"] == query
    returned = [c for c in tr["candidates"] if c["outcome"] == "returned"]
    assert [c["id"] for c in sorted(returned, key=lambda c: c["rank"])] == [
        h.memory.id for h in hits]
    for c, h in zip(sorted(returned, key=lambda c: c["rank"]), hits, strict=True):
        assert c["score"] == pytest.approx(h.score, abs=1e-4)
        assert c["version"] == h.memory.version and c["kind"] == h.memory.kind


def test_a_recall_trace_costs_under_5_kb_on_disk(make_vault: Callable[..., Vault],
                                                 db: str) -> None:
    vault = make_vault(db)
    vault.remember_many([{"scope": ALICE, "content": f"Note {i}: the {w} garden needs "
                          f"water on day {i}."} for i, w in
                         enumerate(["rose", "tulip", "lily", "fern", "moss"] * 20)])
    for i in range(100):
        vault.recall(ALICE, f"which garden needs water on day {i}")
    vault.close()
    with _raw(db) as conn:
        n = conn.execute("SELECT count(*) FROM traces").fetchone()[0]
        pages = conn.execute("SELECT sum(pgsize) FROM dbstat WHERE name LIKE '%traces%'"
                             ).fetchone()[0]
    assert n == 100
    assert pages / n <= 5 * 1024, pages / n


# --- part 6: turn order -----------------------------------------------------------------

SESSION = Scope("acme", "alice", session="s1")


def test_one_batch_one_timestamp_keeps_the_written_order(
        make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    ids = [r.memory.id for r in vault.remember_many(
        [{"scope": SESSION, "content": f"Turn {i} of the chat.", "kind": "turn"}
         for i in range(70)])]
    assert [vault.get(SESSION, i).metadata["turn_seq"] for i in ids] == list(range(1, 71))
    assert [m.id for m in vault.recent(SESSION, n=7)] == ids[-7:]


def test_a_turn_seq_given_by_the_caller_is_not_trusted(
        make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    a = vault.remember(SESSION, "First.", kind="turn", metadata={"turn_seq": 50}).memory
    b = vault.remember(SESSION, "Second.", kind="turn", metadata={"turn_seq": 1}).memory
    assert (a.metadata["turn_seq"], b.metadata["turn_seq"]) == (1, 2)
    edited = vault.edit(SESSION, b.id, metadata={"turn_seq": 1, "note": "x"})
    assert edited.metadata["turn_seq"] == 2
    assert [m.id for m in vault.recent(SESSION, n=2)] == [a.id, b.id]


def test_after_the_last_turn_is_purged_a_new_turn_still_comes_last(
        make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    ids = [r.memory.id for r in vault.remember_many(
        [{"scope": SESSION, "content": f"Turn {i}.", "kind": "turn"} for i in range(4)])]
    vault.purge(SESSION, ids[-1], reason="audit")
    new = vault.remember(SESSION, "After the purge.", kind="turn").memory
    # The purged row is gone, so its number is free again: the new turn takes 4.
    assert new.metadata["turn_seq"] == 4
    assert [m.id for m in vault.recent(SESSION, n=10)] == [*ids[:3], new.id]


def test_an_import_into_a_session_with_turns_gives_no_number_twice(
        make_vault: Callable[..., Vault]) -> None:
    clock = ManualClock()
    laptop, phone = make_vault(clock=clock), make_vault(clock=clock)
    for i in range(3):
        clock.advance(1000)
        laptop.remember(SESSION, f"Laptop turn {i}.", kind="turn")
    export = io.StringIO()
    laptop.export_jsonl(ALICE, export)
    for i in range(3):
        clock.advance(1000)
        phone.remember(SESSION, f"Phone turn {i}.", kind="turn")
    clock.advance(1000)
    phone.import_jsonl(export.getvalue().splitlines())
    seqs = [m.metadata["turn_seq"] for m in phone.recent(SESSION, n=10)]
    assert len(set(seqs)) == len(seqs) == 6, seqs


_TURN_WRITER = """
import sys
from memvault import Scope, Vault
v = Vault(sys.argv[1], embedder="use-m3")
s = Scope("acme", "alice", session="s1")
for i in range(15):
    m = v.remember(s, f"Process {sys.argv[2]} turn {i}.", kind="turn").memory
    print(m.id, m.metadata["turn_seq"], flush=True)
v.close()
"""


def test_two_processes_appending_to_one_session_never_share_a_number(
        tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    Vault(db, embedder="use-m3").close()
    procs = [subprocess.Popen([sys.executable, "-c", _TURN_WRITER, db, tag],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for tag in ("a", "b")]
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1] for o in outs]
    per_proc = [[int(line.split()[1]) for line in o[0].split("\n") if line] for o in outs]
    for seqs in per_proc:
        assert seqs == sorted(seqs) and len(seqs) == 15
    assert sorted(per_proc[0] + per_proc[1]) == list(range(1, 31))
    with Vault(db, embedder="use-m3") as vault:
        recent = vault.recent(SESSION, n=30)
        assert [m.metadata["turn_seq"] for m in recent] == list(range(1, 31))


def test_recent_serves_the_last_turns_when_the_clock_steps_back(
        make_vault: Callable[..., Vault]) -> None:
    clock = ManualClock()
    vault = make_vault(clock=clock)
    ids = [r.memory.id for r in vault.remember_many(
        [{"scope": SESSION, "content": f"Turn {i} of the chat.", "kind": "turn"}
         for i in range(60)])]
    clock.advance(-60_000)  # NTP steps the clock back a minute
    ids.append(vault.remember(SESSION, "The very last turn.", kind="turn").memory.id)
    assert vault.get(SESSION, ids[-1]).metadata["turn_seq"] == 61
    assert [m.id for m in vault.recent(SESSION, n=3)] == ids[-3:]


def _neighbour_terms(vault: Vault, scope: Scope, m_id: str, word: str) -> set[str]:
    """The neighbour part of a turn's full-text key (after the context mark), read
    through the store as tests/test_turn_order.py does."""
    from memvault import bm25
    from memvault.textindex import index_text

    cands = vault.core.store.text_candidates(scope, index_text(word).split(),
                                             vault.core.clock(), 1000)
    terms = dict(cands.docs)[m_id]
    mark = terms.index(bm25.CONTEXT_MARK) if bm25.CONTEXT_MARK in terms else len(terms)
    return set(terms[mark + 1:])


def test_a_new_turn_gets_the_turn_before_it_when_the_clock_steps_back(
        make_vault: Callable[..., Vault]) -> None:
    from memvault.textindex import index_text

    clock = ManualClock()
    vault = make_vault(clock=clock)
    for i in range(30):
        clock.advance(1000)
        vault.remember(SESSION, f"Turn {i} of the chat.", kind="turn")
    clock.advance(-60_000)  # NTP steps the clock back a minute
    vault.remember(SESSION, "The walrus turn.", kind="turn")
    clock.advance(1000)
    last = vault.remember(SESSION, "The pelican turn.", kind="turn").memory
    assert last.metadata["turn_seq"] == 32
    assert set(index_text("The walrus turn.").split()) <= _neighbour_terms(
        vault, SESSION, last.id, "pelican")


@backends("sqlite", "postgres")
def test_recent_of_a_user_serves_the_users_last_turns(
        make_vault: Callable[..., Vault]) -> None:
    clock = ManualClock()
    vault = make_vault(clock=clock)
    old, new = Scope("acme", "alice", session="monday"), Scope("acme", "alice",
                                                               session="friday")
    for i in range(10):
        clock.advance(1000)
        vault.remember(old, f"Monday turn {i}.", kind="turn")
    latest = []
    for i in range(3):
        clock.advance(1000)
        latest.append(vault.remember(new, f"Friday turn {i}.", kind="turn").memory.id)
    assert [m.id for m in vault.recent(ALICE, n=3)] == latest

"""Invariant 6: a crash at any point of a write leaves the old state or the new state,
never a mix.

(a) In-process: the store's fault hook raises at each named point inside a write; the
    transaction must roll back the memory row, its full-text row, its vectors and its
    revision together.
(b) Out-of-process: a writer is killed with SIGKILL mid-stream; every acknowledged write
    must survive and the store must be consistent (SQLite: the file and its FTS5 index;
    PostgreSQL: the server ends the dead client's session and rolls its transaction back).

Every test runs on both backends.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _util import check_consistent, counts, dump, query, text_hits
from crash_writer import contents

from memvault import Scope, Vault

ME = Scope("acme", "alice")
POINTS = ["after_memory_row", "after_text_index", "after_vectors", "after_revision"]


class Crash(Exception):
    pass


class HardCrash(BaseException):
    """Not an Exception: stands for KeyboardInterrupt/SystemExit in the middle of a write."""


def _fail_at(point: str, exc: type[BaseException] = Crash, nth: int = 1) -> tuple[
        Callable[[str], None], list[str]]:
    seen: list[str] = []

    def hook(p: str) -> None:
        seen.append(p)
        if p == point and seen.count(point) == nth:
            raise exc(p)
    return hook, seen


def _seed(vault: Vault) -> str:
    vault.remember(ME, "The user has a cat named Miso", tags=["pets"])
    r = vault.remember(ME, "Export reports as CSV", slot="report.format", value="CSV")
    vault.remember(Scope("acme", "bob"), "Bob prefers tea")
    return r.id


# Each write: (call, an index term that only the new state contains, or None).
def _new(v: Vault, mid: str) -> Any:
    return v.remember(ME, "The user keeps a quokka77 named Kiki", tags=["pets"])


def _slot_update(v: Vault, mid: str) -> Any:
    return v.remember(ME, "Export reports as XLSX", slot="report.format", value="XLSX")


def _edit(v: Vault, mid: str) -> Any:
    return v.edit(ME, mid, content="Export reports as XLSX", reason="typo")


def _rollback(v: Vault, mid: str) -> Any:
    return v.rollback(ME, mid, 1)


def _forget(v: Vault, mid: str) -> Any:
    return v.forget(ME, mid)


def _many(v: Vault, mid: str) -> Any:
    return v.remember_many([
        {"scope": ME, "content": "Likes hiking in the quokka77 valley"},
        {"scope": ME, "content": "Export reports as XLSX", "slot": "report.format",
         "value": "XLSX"},
        {"scope": ME, "content": "Drinks quokka77 coffee"}])


WRITES: dict[str, tuple[Callable[[Vault, str], Any], str | None]] = {
    "new": (_new, "quokka77"),
    "slot_update": (_slot_update, "xlsx"),
    "edit": (_edit, "xlsx"),
    "rollback": (_rollback, None),
    "forget": (_forget, None),
    "remember_many": (_many, "quokka77"),
}


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("write", sorted(WRITES))
def test_fault_at_each_point_leaves_no_trace(vault: Vault, write: str, point: str) -> None:
    mid = _seed(vault)
    if write == "rollback":
        _slot_update(vault, mid)
    call, term = WRITES[write]
    before = dump(vault)
    before_mem = vault.get(ME, mid).to_dict()
    before_hist = len(vault.history(ME, mid))
    # For remember_many, fail on the last item's point: two items already went through.
    nth = 3 if write == "remember_many" else 1
    hook, seen = _fail_at(point, nth=nth)
    vault.store.fault_hook = hook
    with pytest.raises(Crash):
        call(vault, mid)
    vault.store.fault_hook = None
    assert point in seen

    assert dump(vault) == before
    assert vault.get(ME, mid).to_dict() == before_mem
    assert len(vault.history(ME, mid)) == before_hist
    if term is not None:
        assert text_hits(vault, term) == 0
    served = [h.memory.value for h in vault.recall(ME, "export format", top_k=10)
              if h.memory.slot == "report.format"]
    assert served == [before_mem["value"]]

    # The store is still usable and the same write now goes through completely.
    call(vault, mid)
    after = check_consistent(vault)
    assert after["memories"] == after["text"] == after["vectors"]
    assert after["revisions"] > len(before["revisions"])
    if term is not None:
        assert text_hits(vault, term) >= 1


@pytest.mark.parametrize("point", POINTS)
def test_base_exception_mid_write_rolls_back(vault: Vault, point: str) -> None:
    mid = _seed(vault)
    before = dump(vault)
    vault.store.fault_hook, _ = _fail_at(point, HardCrash)
    with pytest.raises(HardCrash):
        _slot_update(vault, mid)
    vault.store.fault_hook = None
    assert dump(vault) == before
    assert vault.get(ME, mid).value == "CSV"


def test_fault_during_purge_keeps_content_and_history(vault: Vault) -> None:
    mid = _seed(vault)
    _slot_update(vault, mid)
    before = dump(vault)
    vault.store.fault_hook, _ = _fail_at("after_revision")
    with pytest.raises(Crash):
        vault.purge(ME, mid)
    vault.store.fault_hook = None
    assert dump(vault) == before
    assert [r.state is not None for r in vault.history(ME, mid)] == [True, True]


@pytest.mark.parametrize("point", POINTS)
def test_fault_during_import_imports_nothing(make_vault: Callable[..., Vault],
                                            point: str) -> None:
    src = make_vault()
    _seed(src)
    _slot_update(src, "")
    buf = io.StringIO()
    src.export_jsonl(ME, buf)
    dst = make_vault()
    dst.remember(ME, "Already here")
    before = dump(dst)
    # One memory per batch, so the fault hits the second memory's write on every backend
    # (a backend may insert a whole batch at once and pass each point once per batch).
    dst.store.fault_hook, _ = _fail_at(point, nth=2)
    with pytest.raises(Crash):
        dst.import_jsonl(buf.getvalue().splitlines(), batch=1)
    dst.store.fault_hook = None
    assert dump(dst) == before


# --- (b) SIGKILL --------------------------------------------------------------------------

WRITER = Path(__file__).with_name("crash_writer.py")
Ack = tuple[str, int, str]


def _acks(lines: Any, acks: list[Ack], *, wanted: int | None = None,
          until: str | None = None) -> bool:
    """Collect ACK lines; True once `wanted` acks, or a line starting with `until`, came."""
    for line in lines:
        if line.startswith("ACK "):
            _, mid, version, user = line.split()
            acks.append((mid, int(version), user))
            if wanted is not None and len(acks) >= wanted:
                return True
        if until is not None and line.startswith(until):
            return True
    return False


def _open_transactions(db: str) -> list[tuple[Any, ...]]:
    """PostgreSQL: other sessions of the test database inside a transaction."""
    return query(db, "SELECT pid, state FROM pg_stat_activity WHERE datname = "
                     "current_database() AND pid <> pg_backend_pid() "
                     "AND state LIKE 'idle in transaction%'")


def _run_and_kill(db: str, logs: Path, start: int, acks_wanted: int = 0,
                  hang_at: int | None = None) -> list[Ack]:
    """Run crash_writer and SIGKILL it: after `acks_wanted` acknowledged writes (wherever
    it is then), or, with hang_at, while write `hang_at` is inside its transaction."""
    err = logs / f"writer-{start}.err"
    args = [sys.executable, str(WRITER), db, str(start)]
    if hang_at is not None:
        args.append(str(hang_at))
    with err.open("w") as err_file:
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err_file, text=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        acks: list[Ack] = []
        try:
            assert proc.stdout is not None
            if hang_at is not None:
                reached = _acks(proc.stdout, acks, until="IN_TX ")
            else:
                reached = _acks(proc.stdout, acks, wanted=acks_wanted)
            if not reached:
                # The writer ended on its own: it must have failed.
                raise AssertionError(f"writer exited early ({proc.wait()}): {err.read_text()}")
            if hang_at is not None and db.startswith("postgresql://"):
                # Proof that the kill lands inside an open transaction on the server.
                assert len(_open_transactions(db)) == 1
            proc.send_signal(signal.SIGKILL)
            # Whatever it printed before dying was acknowledged too.
            rest, _ = proc.communicate(timeout=60)
            _acks(rest.splitlines(), acks)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == -signal.SIGKILL
    return acks


def _wait_for_dead_sessions(db: str) -> None:
    """PostgreSQL: the killed writer's session goes away (its open transaction rolled
    back, its locks released) on its own; no one else is connected to the test database."""
    deadline = time.monotonic() + 30
    while True:
        others = query(db, "SELECT pid, state FROM pg_stat_activity WHERE datname = "
                           "current_database() AND pid <> pg_backend_pid()")
        if not others:
            return
        assert time.monotonic() < deadline, f"sessions of the killed writer remain: {others}"
        time.sleep(0.1)


def _check_after_kill(backend: str, db: str, acks: list[Ack],
                      make_vault: Callable[..., Vault]) -> None:
    if backend == "sqlite":
        assert query(db, "PRAGMA integrity_check") == [("ok",)]
        # FTS5's own consistency check (raises if the index disagrees with its content).
        query(db, "INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')")
    else:
        _wait_for_dead_sessions(db)
        assert query(db, "SELECT COUNT(*) FROM pg_prepared_xacts") == [(0,)]
    vault = make_vault(db)  # opens cleanly, same model record
    # Each memory row agrees with its last revision, has its text entry and its vector:
    # no half-applied write.
    c = check_consistent(db)
    assert c["memories"] == c["text"] == c["vectors"] > 0
    for mid, version, user in acks:
        sc = Scope("acme", user)
        m = vault.get(sc, mid)
        assert m.version >= version
        assert version in {r.to_version for r in vault.history(sc, mid)}
    # Nothing the dead writer held blocks a new writer of the same rows.
    for user in ("user0", "user1", "user2"):
        tag = f"{user}-after-{len(acks)}"
        r = vault.remember(Scope("acme", user), f"Export reports as format {tag}",
                           slot="report.format", value=tag)
        assert r.action in ("added", "updated")
    check_consistent(db)
    vault.close()


@pytest.mark.slow
def test_sigkill_mid_stream_keeps_every_acknowledged_write(
        backend: str, db: str, tmp_path: Path, make_vault: Callable[..., Vault]) -> None:
    # Killed wherever the writer is after 40 acknowledged writes.
    acks = _run_and_kill(db, tmp_path, 0, acks_wanted=40)
    assert len(acks) >= 40
    _check_after_kill(backend, db, acks, make_vault)
    # A second writer on the recovered store, killed inside a transaction that holds the
    # rows (and on PostgreSQL the slot's locks) of a write not yet committed: still
    # consistent, nothing acknowledged lost, nothing of the killed write visible.
    # SQLite: a batch of 8 memories (the most pages in flight); PostgreSQL: a slot update
    # (a row lock and an advisory lock that the next writer of the slot needs).
    hang_at = 1021 if backend == "sqlite" else 1022
    assert len(contents(1021)) == 8 and contents(1022) == ["Export reports as format 1022"]
    acks += _run_and_kill(db, tmp_path, 1000, hang_at=hang_at)
    assert len(acks) >= 40 + 20
    _check_after_kill(backend, db, acks, make_vault)
    lost = contents(hang_at)
    stored = [c for (c,) in query(db, "SELECT content FROM memories")]
    states = [s for (s,) in query(db, "SELECT state FROM revisions WHERE state IS NOT NULL")]
    assert not [c for c in lost if c in stored]
    assert not [c for c in lost for s in states if json.dumps(c, ensure_ascii=False) in s]
    assert len({mid for mid, _, _ in acks}) <= counts(db)["memories"]

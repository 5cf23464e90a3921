"""Invariant 6: a crash at any point of a write leaves the old state or the new state,
never a mix.

(a) In-process: the store's fault hook raises at each named point inside a write; the
    transaction must roll back the memory row, its full-text row, its vectors and its
    revision together.
(b) Out-of-process: a writer is killed with SIGKILL mid-stream; every acknowledged write
    must survive and the file must be consistent.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _util import counts, dump, query, scalar

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


def _fts_hits(vault: Vault, term: str) -> int:
    return scalar(vault, "SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH ?",
                  (f'body : "{term}"',))


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
        assert _fts_hits(vault, term) == 0
    served = [h.memory.value for h in vault.recall(ME, "export format", top_k=10)
              if h.memory.slot == "report.format"]
    assert served == [before_mem["value"]]

    # The store is still usable and the same write now goes through completely.
    call(vault, mid)
    after = counts(vault)
    assert after["memories"] == after["memories_fts"] == after["vectors"]
    assert after["revisions"] > len(before["revisions"])
    if term is not None:
        assert _fts_hits(vault, term) >= 1


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
    dst.store.fault_hook, _ = _fail_at(point, nth=2)
    with pytest.raises(Crash):
        dst.import_jsonl(buf.getvalue().splitlines())
    dst.store.fault_hook = None
    assert dump(dst) == before


# --- (b) SIGKILL --------------------------------------------------------------------------

WRITER = Path(__file__).with_name("crash_writer.py")


def _run_and_kill(db: Path, start: int, acks_wanted: int) -> list[tuple[str, int, str]]:
    err = db.with_name(f"writer-{start}.err")
    with err.open("w") as err_file:
        return _run_and_kill_logged(db, start, acks_wanted, err_file, err)


def _run_and_kill_logged(db: Path, start: int, acks_wanted: int, err_file: Any,
                         err: Path) -> list[tuple[str, int, str]]:
    proc = subprocess.Popen([sys.executable, str(WRITER), str(db), str(start)],
                            stdout=subprocess.PIPE, stderr=err_file, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    acks: list[tuple[str, int, str]] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("ACK "):
                _, mid, version, user = line.split()
                acks.append((mid, int(version), user))
                if len(acks) >= acks_wanted:
                    break
        else:  # the writer ended on its own: it must have failed
            raise AssertionError(f"writer exited early ({proc.wait()}): {err.read_text()}")
        proc.send_signal(signal.SIGKILL)
        # Whatever it printed before dying was acknowledged too.
        rest, _ = proc.communicate(timeout=60)
        for line in rest.splitlines():
            if line.startswith("ACK "):
                _, mid, version, user = line.split()
                acks.append((mid, int(version), user))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    return acks


def _check_consistent(db: Path, acks: list[tuple[str, int, str]],
                      make_vault: Callable[..., Vault]) -> None:
    assert query(db, "PRAGMA integrity_check") == [("ok",)]
    vault = make_vault(db)  # opens cleanly, same model record
    # FTS5's own consistency check (raises if the index disagrees with its content).
    query(db, "INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')")
    c = counts(db)
    assert c["memories"] == c["memories_fts"] == c["vectors"] > 0
    # Each memory row agrees with its last revision: no half-applied write.
    rows = query(db, "SELECT m.id, m.version, m.content, "
                     "(SELECT MAX(to_version) FROM revisions r WHERE r.memory_id = m.id), "
                     "(SELECT json_extract(state, '$.content') FROM revisions r "
                     " WHERE r.memory_id = m.id ORDER BY seq DESC LIMIT 1) FROM memories m")
    for mid, version, content, last_version, last_content in rows:
        assert (version, content) == (last_version, last_content), mid
    for mid, version, user in acks:
        sc = Scope("acme", user)
        m = vault.get(sc, mid)
        assert m.version >= version
        assert version in {r.to_version for r in vault.history(sc, mid)}
    vault.close()


@pytest.mark.slow
def test_sigkill_mid_stream_keeps_every_acknowledged_write(
        tmp_path: Path, make_vault: Callable[..., Vault]) -> None:
    db = tmp_path / "crash.db"
    acks = _run_and_kill(db, 0, 40)
    assert len(acks) >= 40
    _check_consistent(db, acks, make_vault)
    # A second writer on the recovered file, killed again: still consistent, nothing lost.
    acks += _run_and_kill(db, 1000, 30)
    _check_consistent(db, acks, make_vault)
    assert len({mid for mid, _, _ in acks}) <= counts(db)["memories"]

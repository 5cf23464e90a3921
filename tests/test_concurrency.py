"""Concurrent writers: 8 processes x 500 writes to the same 20 slots, each write with
expected_version = the version it just read (optimistic concurrency).

Afterwards, read through a separate connection:
- every acknowledged write is in history: a revision of that memory with that to_version
  and that content;
- every version after the seed was acknowledged to exactly one writer, so versions of a
  slot are contiguous 1..N with no gap and no duplicate, and the row is at N;
- one row per slot, active: never two active rows for one slot;
- conflicts did happen, and every failed write failed with the typed ConflictError.

Both backends. SQLite writers serialise on the file (BEGIN IMMEDIATE, 30 s busy timeout);
PostgreSQL writers run concurrently and serialise on the slot's lock. The writers use
the real default embedder (one BLAS thread each).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from _util import check_consistent, query

from memvault import Vault

WRITER = Path(__file__).with_name("conc_writer.py")
PROCESSES = 8
WRITES = 500
SLOTS = 20
TIMEOUT = 300  # seconds for the whole run; measured well under a minute per backend
sys.path.insert(0, str(WRITER.parent))
from conc_writer import SCOPE, slot_name  # noqa: E402


def _seed(db: str) -> dict[str, str]:
    """Version 1 of every slot, so that every write can name the version it expects."""
    with Vault(db, embedder="use-m3") as v:
        return {slot_name(i): v.remember(SCOPE, f"Value of {slot_name(i)} is seed",
                                         slot=slot_name(i), value="seed").id
                for i in range(SLOTS)}


def _run_writers(db: str, tmp: Path) -> list[dict[str, object]]:
    go = tmp / "go"
    outs = [tmp / f"writer-{w}.out" for w in range(PROCESSES)]
    errs = [tmp / f"writer-{w}.err" for w in range(PROCESSES)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    procs = []
    try:
        for w in range(PROCESSES):
            with outs[w].open("w") as out, errs[w].open("w") as err:
                procs.append(subprocess.Popen(
                    [sys.executable, str(WRITER), db, str(w), str(WRITES), str(SLOTS), str(go)],
                    stdout=out, stderr=err, env=env))
        deadline = time.monotonic() + TIMEOUT
        # Start together: once every writer has opened the store.
        while not all('"ready"' in p.read_text() for p in outs):
            for w, p in enumerate(procs):
                assert p.poll() is None, f"writer {w} died: {errs[w].read_text()}"
            assert time.monotonic() < deadline, "writers did not get ready"
            time.sleep(0.05)
        go.touch()
        for w, p in enumerate(procs):
            rc = p.wait(timeout=max(1.0, deadline - time.monotonic()))
            assert rc == 0, f"writer {w} exited {rc}: {errs[w].read_text()}"
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    lines = []
    for w, out in enumerate(outs):
        recs = [json.loads(line) for line in out.read_text().splitlines()]
        assert recs[-1] == {"done": w}, f"writer {w} did not finish: {recs[-3:]}"
        lines += recs
    return lines


def test_concurrent_writers_of_shared_slots(db: str, tmp_path: Path) -> None:
    ids = _seed(db)
    recs = _run_writers(db, tmp_path)

    acks = [r["ack"] for r in recs if "ack" in r]
    errors = Counter(str(r["error"]) for r in recs if "error" in r)
    gave_up = [r["gave_up"] for r in recs if "gave_up" in r]
    assert gave_up == []
    assert len(acks) == PROCESSES * WRITES
    # Conflicts happened, and every failed write failed with the typed error.
    assert errors["ConflictError"] > 0, errors
    assert set(errors) == {"ConflictError"}, [r for r in recs if "error" in r
                                              and r["error"] != "ConflictError"][:5]

    # One row per slot, the same one that was seeded, and it is active.
    rows = query(db, "SELECT slot, id, status, version, content FROM memories ORDER BY slot")
    assert [(slot, mid, status) for slot, mid, status, _, _ in rows] == [
        (slot, ids[slot], "active") for slot in sorted(ids)]
    assert query(db, "SELECT slot, COUNT(*) FROM memories WHERE status = 'active' "
                     "GROUP BY slot HAVING COUNT(*) > 1") == []

    # History: per memory, versions 1..N exactly once each, each update from N-1.
    revs: dict[str, dict[int, str]] = defaultdict(dict)
    for mid, from_v, to_v, state in query(
            db, "SELECT memory_id, from_version, to_version, state FROM revisions "
                "ORDER BY seq"):
        assert to_v not in revs[mid], f"{mid}: version {to_v} recorded twice"
        assert from_v == (None if to_v == 1 else to_v - 1), (mid, from_v, to_v)
        revs[mid][to_v] = json.loads(state)["content"]
    assert set(revs) == set(ids.values())
    for mid, versions in revs.items():
        assert sorted(versions) == list(range(1, len(versions) + 1)), mid

    # Every acknowledged write is in history with its content, and every version after
    # the seed was acknowledged to exactly one writer.
    acked: dict[str, list[int]] = defaultdict(list)
    for mid, version, slot, content, action in acks:
        assert action == "updated"
        assert mid == ids[slot]
        assert revs[mid].get(version) == content, (mid, version)
        acked[mid].append(version)
    for mid, versions in revs.items():
        assert sorted(acked[mid]) == list(range(2, len(versions) + 1)), mid
    assert sum(len(v) for v in revs.values()) == SLOTS + PROCESSES * WRITES

    # The row is the last version, and the store holds no half-written memory.
    for slot, mid, _, version, content in rows:
        assert (version, content) == (len(revs[mid]), revs[mid][len(revs[mid])]), slot
    c = check_consistent(db)
    assert c["memories"] == c["text"] == c["vectors"] == SLOTS

"""Traces (issue 21): disk bytes per recall and recall time, traces packed (now), as
before (plain JSON, an fsync per trace) and off, interleaved in one run.

    python benchmarks/traces.py [--memories 1200] [--users 4] [--queries 60] [--rounds 5]

One SQLite store of synthetic memories (workload.py). Recall time: `--rounds` rounds of the
`--queries` queries, each query run once per mode back to back, the modes' order
rotating from query to query; per mode the median of all its recalls, and the ratio to
"off". "before" is the
old write path in this tree: the plain trace as sorted JSON text, committed with the
store's synchronous=FULL. Disk: per mode, a fresh copy of the store takes
`--disk-recalls` recalls of one user (the queries' texts in turn), past the default
retention of 1000 traces, so the oldest are trimmed as they would be; then it is
checkpointed, and the pages of the traces table and its indexes (dbstat) are divided by
the traces kept.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg
import sqlean

from memvault import Vault

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload import make_queries, make_workload

MODES = ("packed", "before", "off")


def set_mode(v: Vault, mode: str) -> None:
    store: Any = v.store
    for name in ("_trace_payload", "_trace_tx"):
        store.__dict__.pop(name, None)
    v.engine.reads.__dict__.pop("record_trace", None)
    if mode == "before":
        store._trace_payload = lambda packed: json.dumps(
            _last_plain["trace"], ensure_ascii=False, sort_keys=True)
        store._trace_tx = store.transaction
    elif mode == "off":
        v.engine.reads.record_trace = lambda *a, **k: None


_last_plain: dict[str, Any] = {}  # the trace being written (see _capture)


def trace_bytes(path: Path) -> tuple[int, int]:
    c = sqlean.connect(str(path))
    try:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = c.execute("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = 'traces' "
                          "OR name LIKE 'sqlite_autoindex_traces%' OR name = 'traces_scope'"
                          ).fetchone()[0]
        n = c.execute("SELECT count(*) FROM traces").fetchone()[0]
        return int(pages), int(n)
    finally:
        c.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--memories", type=int, default=1200)
    p.add_argument("--users", type=int, default=4)
    p.add_argument("--queries", type=int, default=60)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--disk-recalls", type=int, default=1200)
    p.add_argument("--pg", metavar="URI", help="also measure disk on this PostgreSQL "
                   "database (postgresql://..., empty; its traces are truncated)")
    a = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="mv-traces-"))
    try:
        base = tmp / "base.db"
        with Vault(base, embedder="use-m3") as v:
            v.remember_many(make_workload(7, a.memories, a.users))
        qs = make_queries(7, a.queries, a.users)
        # Disk: a fresh copy per mode.
        disk: dict[str, tuple[float, int, float]] = {}
        for mode in MODES[:2]:
            path = tmp / f"{mode}.db"
            shutil.copy(base, path)
            with Vault(path, embedder="use-m3") as v:
                _capture(v)
                set_mode(v, mode)
                before, _ = trace_bytes(path)
                one = qs[0][0]  # one user past the default retention: trimmed, steady
                for i in range(a.disk_recalls):
                    v.recall(one, qs[i % len(qs)][1], top_k=10)
                ncand = len(v.trace(one, v.recall(one, qs[0][1]).trace_id)["candidates"])
            after, n = trace_bytes(path)
            disk[mode] = ((after - before) / n, n, ncand)
        # Time: one store, modes interleaved.
        path = tmp / "time.db"
        shutil.copy(base, path)
        times: dict[str, list[float]] = {m: [] for m in MODES}
        with Vault(path, embedder="use-m3") as v:
            _capture(v)
            for sc, q in qs[:5]:
                v.recall(sc, q, top_k=10)  # warm up
            for r in range(a.rounds):
                for i, (sc, q) in enumerate(qs):
                    k = (r + i) % 3
                    for mode in MODES[k:] + MODES[:k]:
                        set_mode(v, mode)
                        t0 = time.perf_counter()
                        v.recall(sc, q, top_k=10)
                        times[mode].append(time.perf_counter() - t0)
        pg = pg_disk(a.pg, a, qs) if a.pg else {}
        off = statistics.median(times["off"])
        print(f"machine: {platform.machine()} {platform.python_implementation()} "
              f"{platform.python_version()}, sqlite {sqlean.sqlite_version}; "
              f"{a.memories} memories, {a.users} users, {a.queries} queries x {a.rounds} "
              f"rounds; disk: {a.disk_recalls} recalls of one user")
        print("| mode | trace bytes on disk per recall | recall p50 ms | vs off |")
        print("|---|---|---|---|")
        for mode in MODES:
            med = statistics.median(times[mode])
            b = f"{disk[mode][0]:,.0f} ({disk[mode][1]} traces, {disk[mode][2]} candidates)" \
                if mode in disk else "0"
            print(f"| {mode} | {b} | {med * 1000:.1f} | {med / off:.3f} |")
        for mode, (per, n) in pg.items():
            print(f"PostgreSQL {mode}: {per:,.0f} bytes per trace "
                  f"(pg_total_relation_size('traces') / {n} traces)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def pg_disk(uri: str, a: argparse.Namespace, qs: list[Any]) -> dict[str, tuple[float, int]]:
    """Bytes per trace on PostgreSQL (table, TOAST and indexes), one user past retention."""
    out = {}
    with Vault(uri, embedder="use-m3") as v:
        store: Any = v.store
        if store.count() == 0:
            v.remember_many(make_workload(7, a.memories, a.users))
        _capture(v)
        for mode in MODES[:2]:
            store._execute("TRUNCATE traces", {})
            set_mode(v, mode)
            if mode == "before":  # the payload column is bytea now: the JSON's bytes
                plain = store._trace_payload
                store._trace_payload = lambda packed, plain=plain: plain(packed).encode()
            one = qs[0][0]
            for i in range(a.disk_recalls):
                v.recall(one, qs[i % len(qs)][1], top_k=10)
            row = store._q("SELECT pg_total_relation_size('traces') AS b, "
                           "(SELECT count(*) FROM traces) AS n", {})[0]
            out[mode] = (int(row["b"]) / int(row["n"]), int(row["n"]))
            # Without the trimmed rows autovacuum has not reclaimed yet: live data only.
            with psycopg.connect(uri, autocommit=True) as c:  # VACUUM: no transaction
                c.execute("VACUUM FULL traces")
            row = store._q("SELECT pg_total_relation_size('traces') AS b", {})[0]
            out[f"{mode}, after VACUUM FULL"] = (int(row["b"]) / out[mode][1], out[mode][1])
    return out


def _capture(v: Vault) -> None:
    """Keep the plain trace of each write for the "before" mode's payload."""
    store: Any = v.store
    write = store.write_trace

    def keep(scope: Any, trace: dict[str, Any], **kw: Any) -> None:
        _last_plain["trace"] = trace
        write(scope, trace, **kw)

    store.write_trace = keep


if __name__ == "__main__":
    raise SystemExit(main())


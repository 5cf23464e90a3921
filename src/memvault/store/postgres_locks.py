"""PostgreSQL advisory locks by name, held until the transaction ends; and whether a
snapshot still holds back what a VACUUM would prune."""

from __future__ import annotations

import hashlib
from typing import Any

import psycopg


def lock_key(name: str) -> int:
    """A stable signed 64-bit advisory lock key (hashed client-side: no server function)."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big",
                          signed=True)


def xact_lock(conn: Any, name: str) -> None:
    """Wait for, then hold until commit or rollback, the transaction lock on `name`."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(name),))


def xact_lock_shared(conn: Any, name: str) -> None:
    """xact_lock in shared mode: holders of it wait only for (and hold back) xact_lock."""
    conn.execute("SELECT pg_advisory_xact_lock_shared(%s)", (lock_key(name),))


def erasure_lock_name(tenant: str, user: str) -> str:
    """The lock an erasure of the user's memories holds (xact_lock) while the user's
    erasure marks and trace writes hold it shared (sql_store.SQLStore.erasure_mark)."""
    return f"erasure\x1f{tenant}\x1f{user}"


class SessionLease:
    def __init__(self, conn: Any, key: int) -> None:
        self._conn: Any = conn
        self._key = key

    def alive(self) -> bool:
        if self._conn is None or self._conn.closed:
            return False
        try:
            self._conn.execute("SELECT 1")
            return True
        except psycopg.Error:
            return False

    def release(self) -> None:
        if self._conn is not None:
            try:
                if not self._conn.closed:
                    self._conn.execute("SELECT pg_advisory_unlock(%s)", (self._key,))
            except psycopg.Error:
                pass  # the connection is gone, and the lock with it
            finally:
                self._conn.close()
                self._conn = None


def session_lease(dsn: str, name: str, timeout: float = 10.0) -> SessionLease | None:
    """The lease `name` on the PostgreSQL database at `dsn`, held by a connection of its own
    (not the pool's: a pooled connection goes back to other work), or None while another
    session holds it."""
    key = lock_key(f"lease\x1f{name}")
    conn = psycopg.connect(dsn, autocommit=True, connect_timeout=int(timeout))
    try:
        row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
    except BaseException:
        conn.close()
        raise
    if not (row and row[0]):
        conn.close()
        return None
    return SessionLease(conn, key)


def snapshot_held(conn: Any) -> bool:
    """Whether anything may still see row versions that died before now: a session
    (of this database, or a WAL sender for a standby's feedback) whose snapshot or
    transaction is older than this moment, a prepared transaction, a replication
    slot. Vacuum workers are left out: VACUUM ignores them. Checked before the
    VACUUM: a snapshot taken after this moment sees every committed purge."""
    row = conn.execute("""
        WITH now AS (SELECT (pg_snapshot_xmax(pg_current_snapshot())::text::bigint
                             % 4294967296)::text::xid AS x)
        SELECT EXISTS (
            SELECT 1 FROM pg_stat_activity a, now
            WHERE a.pid <> pg_backend_pid()
              AND a.backend_type IS DISTINCT FROM 'autovacuum worker'
              AND (a.datname = current_database() OR a.datid IS NULL)
              AND (age(a.backend_xmin) > age(now.x) OR age(a.backend_xid) > age(now.x)))
          OR EXISTS (SELECT 1 FROM pg_prepared_xacts
                     WHERE database = current_database())
          OR EXISTS (SELECT 1 FROM pg_replication_slots
                     WHERE xmin IS NOT NULL AND (database IS NULL
                                                 OR database = current_database()))
          AS held""").fetchone()
    return bool(row and row["held"])

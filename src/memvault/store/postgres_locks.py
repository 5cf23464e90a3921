"""PostgreSQL advisory locks by name, held until the transaction ends."""

from __future__ import annotations

import hashlib
from typing import Any


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

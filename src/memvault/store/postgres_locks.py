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

"""One holder at a time across processes, for a background job that must not run twice
at once on one store (the timer sweep of several server processes).

A lease is held by something the operating system or the database releases when its
holder dies: an advisory file lock on SQLite (all processes of one SQLite store share its
host), a session advisory lock on PostgreSQL (postgres_locks.session_lease: held by a
connection of its own, released when that connection ends). So a crashed holder never
blocks the job for good: the next process to ask takes over.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Protocol


class Lease(Protocol):
    def alive(self) -> bool:
        """Still held (a lost database connection has lost the lock)."""
        ...

    def release(self) -> None: ...


class LocalLease:
    """A store only this process can open (SQLite in memory): there is no one to exclude."""

    def alive(self) -> bool:
        return True

    def release(self) -> None:
        return None


class FileLease:
    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def alive(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def file_lease(path: Path, name: str) -> FileLease | None:
    """The lease `name` of the SQLite store at `path` (a lock file beside it), or None
    while another open file holds it (another process, or another store object here)."""
    fd = os.open(f"{path}.{name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return FileLease(fd)

"""Concurrent reads on the SQLite store: the writer's lock that knows its owner, and a pool
of read-only connections.

WAL mode lets any number of readers run beside the one writer, each on a snapshot of the
last commit. The store keeps one writer connection behind `WriterLock`; a read of a thread
that does not hold it (no transaction of its own open) takes a connection from
`ReaderPool` instead of waiting for the writer. A read inside the thread's own transaction
stays on the writer's connection: only that one sees the transaction's uncommitted rows.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from ..errors import StoreError

# Idle readers kept open between reads; more may be open at once (one per concurrent read),
# the extra ones are closed when their read is done.
KEEP_IDLE = 8


class WriterLock:
    """A re-entrant lock around the writer connection that can tell whether the calling
    thread holds it (a transaction, a checkpoint, a close in progress on this thread)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._owner: int | None = None
        self._depth = 0

    def __enter__(self) -> WriterLock:
        self._lock.acquire()
        self._owner = threading.get_ident()
        self._depth += 1
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._depth -= 1
        if self._depth == 0:
            self._owner = None
        self._lock.release()

    def held(self) -> bool:
        """True in the thread that holds the lock. Read without the lock: another thread
        sees its own id there only while it holds it, never by a race."""
        return self._owner == threading.get_ident()


class ReaderPool:
    """Read-only connections (`PRAGMA query_only`) to one store file. A read takes an idle
    one or opens one, and gives it back when its statement is done, so no read transaction
    outlives its read: a purge's checkpoint only ever waits for reads in flight.

    `retire()` (after an erasure) closes the idle ones and marks those in use to be closed
    when given back: no connection opened before an erasure keeps pages of erased content
    cached. After `close()` every read is a StoreError, from any thread."""

    def __init__(self, connect: Callable[[], Any], name: str) -> None:
        self._connect = connect
        self._name = name
        self._lock = threading.Lock()  # guards the lists below, never held across a read
        self._idle: list[tuple[int, Any]] = []  # (generation, connection)
        self._generation = 0
        self._closed = False

    @contextmanager
    def connection(self) -> Iterator[Any]:
        with self._lock:
            if self._closed:
                raise StoreError(f"{self._name}: the store is closed")
            generation = self._generation
            conn = self._idle.pop()[1] if self._idle else None
        if conn is None:
            conn = self._connect()
        try:
            yield conn
        finally:
            with self._lock:
                keep = (not self._closed and generation == self._generation
                        and len(self._idle) < KEEP_IDLE)
                if keep:
                    self._idle.append((generation, conn))
            if not keep:
                conn.close()

    def retire(self) -> None:
        """Close the idle connections; those in use are closed when given back."""
        with self._lock:
            self._generation += 1
            idle, self._idle = self._idle, []
        for _, conn in idle:
            conn.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for _, conn in idle:
            conn.close()

    def after_fork_in_child(self) -> list[Any]:
        """In a forked child: a new lock (another thread may have held this one at the
        fork), no idle connection of the parent's; those are returned, for the caller to
        keep unused."""
        self._lock = threading.Lock()
        self._generation += 1  # none in use here: the threads that used them are gone
        idle, self._idle = self._idle, []
        return [conn for _, conn in idle]

    def open_count(self) -> int:
        """Idle connections held open (for tests and diagnostics)."""
        with self._lock:
            return len(self._idle)

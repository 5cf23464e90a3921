"""Trace writes off a recall's path (issue 21): a recall hands its trace to a queue, and
one thread of the store writes it (packing, compressing, the insert and the retention
deletes, some 2 ms a recall) after the recall has answered.

None is lost to a reader: whatever reads or deletes traces first writes every trace
queued so far in its own thread (`flush`): reading a trace, listing them, a purge (which
deletes the traces that name what it erases: a trace of a recall made before the purge
is written first, then deleted, in the purge's transaction) and closing the store. The
queue and the writes are under the store's own lock, so a flush never waits for a write
that is waiting for it. A trace that fails to be written is logged and dropped, as a
failed synchronous write would have failed only its recall's trace. Past `limit` queued
traces, the recall that adds one writes them all itself (the writer is behind).

The store's thread never waits inside the database for another connection's write lock:
its writes try briefly (`TraceBusy`), leave the trace first in the queue and let go of the
store's lock, then try again. So another thread (a reader's flush, which waits as long as
it takes; a fork, store/sqlite.py) gets the lock within milliseconds.

Nor is a trace lost to the program's end: a program that exits without closing its store
has what is queued written at interpreter exit (atexit; the thread is a daemon, so it
would not be waited for). A process killed outright loses what was queued, as always. A
forked child starts with an empty queue (`after_fork_in_child`): the parent writes its
traces.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

log = logging.getLogger("memvault")

Write = Callable[..., None]
_RETRY_S = 0.02  # the store's thread tries a busy database again after this long


class TraceBusy(Exception):
    """Another connection holds the database's write lock: try again later."""


# Queues with a thread, for the exit flush (weakly: a store dropped unclosed just goes).
_LIVE: weakref.WeakSet[TraceQueue] = weakref.WeakSet()


class TraceQueue:
    def __init__(self, lock: Any, write: Write, limit: int = 256, *,
                 try_write: Write | None = None) -> None:
        self._lock = lock  # the store's (re-entrant) lock
        self._write = write  # the store's synchronous write_trace
        # The store thread's: a write that raises TraceBusy rather than wait long.
        self._try_write = try_write or write
        self._limit = limit
        self._items: deque[tuple[tuple[Any, ...], dict[str, Any]]] = deque()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        # Orders put() against close(): a put either appends before close marks the queue
        # closed (and close's last flush writes it) or writes synchronously after.
        self._guard = threading.Lock()
        self._closed = False

    def put(self, *args: Any, **kwargs: Any) -> None:
        """Queue one write_trace call (its arguments)."""
        with self._guard:
            closed = self._closed
            if not closed:
                self._items.append((args, kwargs))
        if closed:
            self._write(*args, **kwargs)
            return
        if len(self._items) > self._limit:
            self.flush()
            return
        if self._thread is None or not self._thread.is_alive():
            with self._lock:  # none yet, or it did not survive a fork
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._run, daemon=True,
                                                    name="memvault-traces")
                    self._thread.start()
                    _LIVE.add(self)
        self._wake.set()

    def pending(self) -> int:
        return len(self._items)

    def flush(self) -> None:
        """Write every queued trace now, in this thread. Always under the lock, even with
        nothing queued: the store's thread may be writing the last trace, and a reader
        (on its own connection, without the lock) must not look before it is committed."""
        self._write_all(patient=True)

    def _write_all(self, *, patient: bool) -> bool:
        """Write the queued traces in order; False when, impatient, the database was busy
        (that trace is put back first in the queue)."""
        write = self._write if patient else self._try_write
        with self._lock:
            while self._items:
                args, kwargs = item = self._items.popleft()
                try:
                    write(*args, **kwargs)
                except TraceBusy:
                    self._items.appendleft(item)
                    return False
                except Exception:
                    log.warning("trace %s not written", args[1].get("trace_id"),
                                exc_info=True)
        return True

    def close(self) -> None:
        """Write what is queued and stop the thread."""
        self.flush()
        with self._guard:
            self._closed = True
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        self.flush()  # every put that appended before the queue was marked closed
        _LIVE.discard(self)

    def after_fork_in_child(self, lock: Any) -> None:
        """In a forked child: the store's new lock, no thread, and none of the parent's
        queued traces (the parent writes them; written twice, one would fail)."""
        self._lock = lock
        self._guard = threading.Lock()
        self._items = deque()
        self._wake = threading.Event()
        self._thread = None

    def _run(self) -> None:
        busy = False
        while not self._closed:
            if busy:
                time.sleep(_RETRY_S)  # the store's lock is free meanwhile
            else:
                self._wake.wait()
            self._wake.clear()
            if not self._closed:
                busy = not self._write_all(patient=False)


@atexit.register
def _flush_at_exit() -> None:
    for queue in list(_LIVE):
        if queue.pending():
            queue.flush()

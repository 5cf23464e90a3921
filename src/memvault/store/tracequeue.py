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
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

log = logging.getLogger("memvault")

Write = Callable[..., None]


class TraceQueue:
    def __init__(self, lock: Any, write: Write, limit: int = 256) -> None:
        self._lock = lock  # the store's (re-entrant) lock
        self._write = write  # the store's synchronous write_trace
        self._limit = limit
        self._items: deque[tuple[tuple[Any, ...], dict[str, Any]]] = deque()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    def put(self, *args: Any, **kwargs: Any) -> None:
        """Queue one write_trace call (its arguments)."""
        if self._closed:
            self._write(*args, **kwargs)
            return
        self._items.append((args, kwargs))
        if len(self._items) > self._limit:
            self.flush()
            return
        if self._thread is None or not self._thread.is_alive():
            with self._lock:  # none yet, or it did not survive a fork
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._run, daemon=True,
                                                    name="memvault-traces")
                    self._thread.start()
        self._wake.set()

    def pending(self) -> int:
        return len(self._items)

    def flush(self) -> None:
        """Write every queued trace now, in this thread. Always under the lock, even with
        nothing queued: the store's thread may have taken the last traces off the queue
        and be writing them, and a reader (on its own connection, without the lock) must
        not look before they are committed."""
        with self._lock:
            batch = [self._items.popleft() for _ in range(len(self._items))]
            for args, kwargs in batch:
                try:
                    self._write(*args, **kwargs)
                except Exception:
                    log.warning("trace %s not written", args[1].get("trace_id"),
                                exc_info=True)

    def close(self) -> None:
        """Write what is queued and stop the thread."""
        self.flush()
        self._closed = True
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5)
        self.flush()  # a put that raced with closing

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait()
            self._wake.clear()
            if not self._closed:
                self.flush()

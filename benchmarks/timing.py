"""Timing, percentile and formatting helpers of the core benchmark, and `patched`, the one
way it swaps an attribute on a single object (never a class) for the length of a run."""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def pct(xs: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs, dtype=np.float64), q)) if xs else float("nan")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def mib(n: float) -> str:
    return f"{n / 2**20:,.1f} MiB"


def ms(x: float) -> str:
    return f"{x * 1000:.1f}"


def timed(fn: Callable[..., Any], add: Callable[[float], None]) -> Callable[..., Any]:
    """`fn`, reporting the seconds of every call to `add` (also when it raises)."""
    def wrapper(*a: Any, **kw: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            add(time.perf_counter() - t)
    return wrapper


@contextmanager
def patched(obj: Any, name: str, value: Any) -> Iterator[None]:
    """`obj.<name> = value` on this instance only; afterwards the instance is as before:
    an attribute it had of its own is put back, one it took from its class is deleted
    again so the class's shows through."""
    own = getattr(obj, "__dict__", None)
    had_own = own is None or name in own
    old = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        if had_own:
            setattr(obj, name, old)
        else:
            delattr(obj, name)

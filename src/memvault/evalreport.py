"""The online-evaluation figures over time windows (onlineeval.py writes the samples).

Over the samples judged in a window:

    memory_use_rate     injected memories the answer used / injected memories
    contamination_rate  injected memories judged wrong or out of scope / injected memories
    answers_using_memory  judged samples whose answer used at least one memory / judged
                        samples with any memory

and per judge request: prompt and completion tokens (mean) and latency (mean, p95).
A rate with nothing to divide by is None, never 0: "no data" is not "never used".
A sample falls in the window of its sampled_at; pending and failed ones are counted too.
"""

from __future__ import annotations

import math
from typing import Any

from . import validate as v
from .core import Core
from .errors import ValidationError
from .timeutil import duration_ms

# /metrics's windows (label, milliseconds).
METRIC_WINDOWS = (("1h", 3_600_000), ("24h", 86_400_000), ("7d", 7 * 86_400_000))


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def _p95(values: list[int]) -> int | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of these sample rows (store.eval_figures)."""
    judged = [r for r in rows if r["status"] == "judged"]
    memories = sum(int(r["memory_count"]) for r in judged)
    used = sum(int(r["used_count"] or 0) for r in judged)
    wrong = sum(int(r["wrong_count"] or 0) for r in judged)
    with_memory = [r for r in judged if r["memory_count"]]
    latencies = [int(r["latency_ms"]) for r in judged if r["latency_ms"] is not None]
    n = len(judged)
    return {
        "samples": len(rows), "judged": n,
        "failed": sum(r["status"] == "failed" for r in rows),
        "awaiting_answer": sum(r["status"] == "awaiting_answer" for r in rows),
        "pending": sum(r["status"] in ("pending", "judging") for r in rows),
        "memories": memories, "used": used, "wrong": wrong,
        "memory_use_rate": _ratio(used, memories),
        "contamination_rate": _ratio(wrong, memories),
        "answers_using_memory": _ratio(sum(bool(r["used_count"]) for r in with_memory),
                                       len(with_memory)),
        "prompt_tokens": sum(int(r["prompt_tokens"] or 0) for r in judged),
        "completion_tokens": sum(int(r["completion_tokens"] or 0) for r in judged),
        "mean_prompt_tokens": round(sum(int(r["prompt_tokens"] or 0) for r in judged) / n, 1)
        if n else None,
        "mean_completion_tokens": round(
            sum(int(r["completion_tokens"] or 0) for r in judged) / n, 1) if n else None,
        "latency_ms_mean": round(sum(latencies) / len(latencies), 1) if latencies else None,
        "latency_ms_p95": _p95(latencies),
    }


def report(core: Core, tenant: Any, *, since: str = "7d", window: str = "1d"
           ) -> dict[str, Any]:
    """The tenant's figures over the last `since`, in total and per `window` (durations
    such as "1h", "1d", "7d"), oldest window first; empty windows are listed too."""
    t = v.text(tenant, "tenant", max_chars=v.MAX_ID_CHARS)
    assert t is not None
    span = duration_ms(since, field="since") or 0
    step = duration_ms(window, field="window") or 0
    if span <= 0 or step <= 0:
        raise ValidationError("since and window: expected durations > 0")
    if span // step > 1000:
        raise ValidationError("window: at most 1000 windows in `since`")
    now = core.clock()
    start = now - span
    rows = core.store.eval_figures(t, start)
    windows = []
    lo = start
    while lo < now:
        hi = min(lo + step, now)
        inside = [r for r in rows if lo <= r["sampled_at"] < hi
                  or (hi == now and r["sampled_at"] == now)]
        windows.append({"from": lo, "to": hi, **summarise(inside)})
        lo = hi
    cfg = core.strategy.online_eval
    return {"tenant": t, "since": start, "until": now, "window_ms": step,
            "enabled": cfg.enabled, "sample": cfg.sample, "judge": cfg.judge,
            "total": summarise(rows), "windows": windows}


def metric_figures(core: Core) -> dict[str, dict[str, Any]]:
    """Every tenant's figures per /metrics window: no tenant is named (metrics carry no
    tenant data)."""
    now = core.clock()
    widest = max(ms for _, ms in METRIC_WINDOWS)
    rows = core.store.eval_figures(None, now - widest)
    return {label: summarise([r for r in rows if r["sampled_at"] >= now - ms])
            for label, ms in METRIC_WINDOWS}


def online_figures(vault: Any) -> dict[str, dict[str, Any]] | None:
    """/metrics's figures for a Vault, or None while its strategy has online evaluation
    off (nothing to read)."""
    core = vault.core
    return metric_figures(core) if core.strategy.online_eval.enabled else None

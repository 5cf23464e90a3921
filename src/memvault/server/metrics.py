"""Prometheus metrics, in a registry of the app's own (several apps may share a process)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Metrics:
    def __init__(self, queue_depth: Callable[[], int]) -> None:
        self.registry = CollectorRegistry()
        self.requests = Histogram(
            "memvault_http_request_duration_seconds", "HTTP request latency",
            ["method", "route", "status"], registry=self.registry, buckets=_BUCKETS)
        self.recall = Histogram(
            "memvault_recall_duration_seconds", "recall/context latency inside the server",
            ["verb"], registry=self.registry, buckets=_BUCKETS)
        self.gate = Counter(
            "memvault_gate_decisions_total", "observe outcomes by action and reason",
            ["action", "reason"], registry=self.registry)
        self.jobs = Counter("memvault_jobs_total", "async jobs finished",
                            ["kind", "status"], registry=self.registry)
        self.swept = Counter("memvault_swept_total", "memories expired by the sweep timer",
                             registry=self.registry)
        depth = Gauge("memvault_queue_depth", "queued async jobs", registry=self.registry)
        depth.set_function(lambda: float(queue_depth()))

    def gate_outcomes(self, kind: str, result: dict[str, Any]) -> None:
        """Count the gate's decisions in the result of an observe or a propose."""
        if kind == "observe":
            self.observe_outcomes(result["outcomes"])
        elif kind == "propose":
            self.observe_outcomes([result])

    def observe_outcomes(self, outcomes: list[dict[str, object]]) -> None:
        for o in outcomes:
            reasons = o.get("reasons") or ["none"]
            for r in reasons:  # type: ignore[union-attr]
                self.gate.labels(action=str(o.get("action")), reason=str(r)).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)

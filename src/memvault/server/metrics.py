"""Prometheus metrics, in a registry of the app's own (several apps may share a process)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


Figures = Callable[[], dict[str, dict[str, Any]] | None]


class OnlineEvalCollector(Collector):
    """The online-evaluation figures (evalreport.metric_figures: every tenant's, per time
    window), read from the store at each scrape, so every server process on a store
    reports the same. `figures` returns None while online evaluation is off."""

    def __init__(self, figures: Figures) -> None:
        self.figures = figures

    def collect(self) -> Any:
        by_window = self.figures()
        if by_window is None:
            return
        samples = GaugeMetricFamily("memvault_online_eval_samples", "online-evaluation "
                                    "samples taken in the window, by status",
                                    labels=["window", "status"])
        use = GaugeMetricFamily("memvault_online_eval_memory_use_rate", "injected memories "
                                "the answer used / injected memories (judged samples)",
                                labels=["window"])
        bad = GaugeMetricFamily("memvault_online_eval_contamination_rate", "injected "
                                "memories judged wrong or out of scope / injected memories",
                                labels=["window"])
        tokens = GaugeMetricFamily("memvault_online_eval_judge_tokens", "tokens the judge "
                                   "requests took in the window", labels=["window", "kind"])
        latency = GaugeMetricFamily("memvault_online_eval_judge_latency_seconds",
                                    "judge latency per sample", labels=["window", "stat"])
        for w, f in by_window.items():
            for status in ("judged", "failed", "pending", "awaiting_answer"):
                samples.add_metric([w, status], f[status])
            if f["memory_use_rate"] is not None:
                use.add_metric([w], f["memory_use_rate"])
            if f["contamination_rate"] is not None:
                bad.add_metric([w], f["contamination_rate"])
            tokens.add_metric([w, "prompt"], f["prompt_tokens"])
            tokens.add_metric([w, "completion"], f["completion_tokens"])
            for stat in ("mean", "p95"):
                ms = f[f"latency_ms_{stat}"]
                if ms is not None:
                    latency.add_metric([w, stat], ms / 1000)
        yield from (samples, use, bad, tokens, latency)


class ReplicaCollector(Collector):
    """This process's reads and the read replica (store.replica_stats, replica.py): reads
    answered there, read verbs sent to the primary because the replica had not replayed
    the scope's writes, and reads that failed there and ran on the primary."""

    def __init__(self, stats: Callable[[], dict[str, int]]) -> None:
        self.stats = stats

    def collect(self) -> Any:
        stats = self.stats()
        if not stats:
            return
        reads = CounterMetricFamily("memvault_read_replica", "reads and the read replica, "
                                    "by outcome", labels=["outcome"])
        for outcome in ("replica", "primary_behind", "fallback"):
            reads.add_metric([outcome], stats.get(outcome, 0))
        yield reads


class Metrics:
    def __init__(self, queue_depth: Callable[[], int],
                 online_eval: Figures | None = None,
                 replica: Callable[[], dict[str, int]] | None = None) -> None:
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
        self.judgements = Counter("memvault_online_eval_judgements_total",
                                  "online-evaluation samples judged by this process",
                                  ["status"], registry=self.registry)
        if online_eval is not None:
            self.registry.register(OnlineEvalCollector(online_eval))
        if replica is not None:
            self.registry.register(ReplicaCollector(replica))

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

"""Run a dataset through memvault's public API: remember everything, then recall.

A fresh Vault in a temporary directory per run, so nothing of the caller's store is read
or touched. Each dataset group (a LoCoMo conversation, a MADial user) is one user scope;
LoCoMo sessions are scope sessions, and recall asks at user level, across them.

Time: the Vault runs on a clock the runner sets. A group's memories are written, and its
questions asked, at the midnight after its latest dated memory ("right after the
conversation"), not at the wall-clock time of the run. That keeps runs reproducible
(recency and relative time words in queries do not drift with the date of the run) and
realistic (no memory is dated in the future of the question).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import ValidationError
from ..ids import content_hash
from ..model import Scope, Source
from ..vault import Vault
from .datasets import Dataset, Doc, Query, Split, load_dataset
from .strategy import strategy_info

# How many hits to ask recall for: more than the fused candidate pool of two retrievers
# at the default 50 candidates each, so MRR and "pool" see everything recall returns.
DEPTH = 100
DAY_MS = 86_400_000
FALLBACK_NOW = 1_704_067_200_000  # 2024-01-01T00:00Z, for a dataset without any dates

# (phase, done, total); phase is "index" or "query".
Progress = Callable[[str, int, int], None]


class EvalClock:
    """A Vault clock that the runner moves from group to group."""

    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def group_times(docs: list[Doc]) -> dict[str, int]:
    """Per group: the midnight (UTC) after its latest dated memory."""
    latest: dict[str, int] = {}
    for d in docs:
        if d.valid_from is not None:
            latest[d.group] = max(latest.get(d.group, d.valid_from), d.valid_from)
    fallback = max(latest.values()) if latest else FALLBACK_NOW - DAY_MS
    return {g: (latest.get(g, fallback) // DAY_MS + 1) * DAY_MS for g in {d.group for d in docs}}


@dataclass(slots=True)
class QueryResult:
    query: Query
    ranked: list[str]  # doc ids, best first
    scores: list[float]  # the fused score of each, as recall returned it
    gold: frozenset[str]  # in the same id space as `ranked`

    def is_gold(self) -> list[bool]:
        return [d in self.gold for d in self.ranked]


@dataclass(slots=True)
class RunResult:
    dataset: Dataset  # the part evaluated (after split selection)
    split: str
    results: list[QueryResult]
    strategy: dict[str, Any]
    n_memories: int
    duplicates: int  # docs with the text of an earlier doc of their session
    started_at: str
    timings: dict[str, float] = field(default_factory=dict)


def _index(vault: Vault, ds: Dataset, tenant: str, clock: EvalClock, times: dict[str, int],
           progress: Progress | None) -> tuple[dict[str, str], dict[str, str]]:
    """Remember every doc. Returns (doc id -> the doc id that names its memory, memory id
    -> that doc id). Identical texts in one scope session stand for each other: the first
    doc with that text names them all (a statement's copy is one memory, remember answers
    noop; a turn's copy is a turn of its own, which no ranking could tell from the first)."""
    by_group: dict[str, list[Doc]] = defaultdict(list)
    for d in ds.docs:
        by_group[d.group].append(d)
    first_doc: dict[str, str] = {}  # memory id -> doc id
    canonical: dict[str, str] = {}
    done = 0
    for group, docs in by_group.items():
        clock.now = times[group]
        items = [{"scope": Scope(tenant, group, session=d.session), "content": d.content,
                  "kind": d.kind, "source": Source.IMPORT.value, "source_ref": d.id,
                  "valid_from": d.valid_from, "metadata": d.metadata} for d in docs]

        def step(n: int) -> None:
            nonlocal done
            done += n
            if progress:
                progress("index", done, len(ds.docs))

        results = vault.remember_many(items, reason=f"eval {ds.name}", progress=step)
        by_text: dict[tuple[str, str, str], str] = {}
        for d, r in zip(docs, results, strict=True):
            named = by_text.setdefault((d.session, d.kind, content_hash(d.content, None, None)),
                                       d.id)
            canonical[d.id] = first_doc.setdefault(r.id, named)
    return canonical, first_doc


def _query(vault: Vault, ds: Dataset, tenant: str, clock: EvalClock, times: dict[str, int],
           canonical: dict[str, str], doc_of: dict[str, str], depth: int,
           progress: Progress | None, latencies: list[float]) -> list[QueryResult]:
    out: list[QueryResult] = []
    for i, q in enumerate(ds.queries, start=1):
        clock.now = times[q.group]
        start = time.perf_counter()
        hits = vault.recall(Scope(tenant, q.group), q.text, top_k=depth)
        latencies.append(time.perf_counter() - start)
        # Two turns with one text name one doc: it counts once, at its best rank.
        best: dict[str, float] = {}
        for h in hits:
            best.setdefault(doc_of[h.memory.id], float(h.score))
        out.append(QueryResult(q, list(best), list(best.values()),
                               frozenset(canonical[g] for g in q.gold)))
        if progress:
            progress("query", i, len(ds.queries))
    return out


def run_eval(dataset: Dataset, split: str | Split = Split.ALL, *, embedder: str | None = None,
             vault_kwargs: dict[str, Any] | None = None, progress: Progress | None = None,
             depth: int = DEPTH) -> RunResult:
    """Index `dataset` (the part `split` asks about) into a fresh temporary Vault and
    recall every query. `vault_kwargs` go to Vault() (e.g. another strategy)."""
    split = Split(split)
    ds = dataset.select(split)
    if not ds.queries:
        raise ValidationError(f"{dataset.name}: no queries in split {split.value}")
    started = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    tenant = f"eval-{ds.name}"
    times = group_times(ds.docs)
    clock = EvalClock(min(times.values()))
    timings: dict[str, float] = {}
    latencies: list[float] = []
    with tempfile.TemporaryDirectory(prefix="memvault-eval-") as tmp:
        t = time.perf_counter()
        vault = Vault(Path(tmp) / "eval.db", embedder=embedder, actor="eval", clock=clock,
                      **(vault_kwargs or {}))
        try:
            timings["open_s"] = time.perf_counter() - t
            t = time.perf_counter()
            canonical, doc_of = _index(vault, ds, tenant, clock, times, progress)
            timings["index_s"] = time.perf_counter() - t
            t = time.perf_counter()
            results = _query(vault, ds, tenant, clock, times, canonical, doc_of, depth,
                             progress, latencies)
            timings["query_s"] = time.perf_counter() - t
            strategy = strategy_info(vault)
        finally:
            vault.close()
    timings["recall_p50_ms"] = 1000 * statistics.median(latencies)
    timings["recall_p95_ms"] = 1000 * sorted(latencies)[int(0.95 * (len(latencies) - 1))]
    n_memories = len(set(canonical.values()))
    return RunResult(ds, split.value, results, strategy, n_memories,
                     len(canonical) - n_memories, started, timings)


def evaluate(name: str, data: Path | None, *, lang: str | None = None,
             split: str | Split = Split.ALL, embedder: str | None = None,
             vault_kwargs: dict[str, Any] | None = None,
             progress: Progress | None = None) -> RunResult:
    """Load a dataset by name ("locomo", "madial", "shapes") and run it; wall time included."""
    t0 = time.perf_counter()
    dataset = load_dataset(name, data, lang)
    load_s = time.perf_counter() - t0
    run = run_eval(dataset, split, embedder=embedder, vault_kwargs=vault_kwargs,
                   progress=progress)
    run.timings = {"load_s": load_s, **run.timings, "wall_s": time.perf_counter() - t0}
    return run

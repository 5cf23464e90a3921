"""Write measurements of the core benchmark: the build (`remember_many` with embedding,
split into embedding / store transactions / the rest), the store-only replay (vectors
computed beforehand) and single `remember()` calls.

The split does not change the code path: the embedding call of the writes and
`vault.store.transaction` are wrapped in timers on the instances only (`timing.patched`).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from timing import log, patched, timed
from workload import SLOTS, content_of, free_item, scope_of, slot_item

from memvault import Vault

Vectors = Callable[[list[str]], list[dict[str, np.ndarray]]]


def embedding_hook(vault: Vault) -> tuple[Any, str]:
    """`(obj, name)`: every write of `vault` embeds its texts through `obj.<name>(texts)`,
    which returns one {embedder name: vector} dict per text.

    Two trees, one script: the restructured vault (a thin facade over a write core and a
    read core) sends every write path through the shared `vault.core.vectors`; the tree
    before it (542df82) calls `vault._vectors` on the Vault itself. benchmarks/ab.py runs
    this same script against both to compare them, so both must be timed (and replaced,
    for the store-only replay) at the same point. Drop the second branch once the old
    tree needs no measuring."""
    if hasattr(vault, "core"):
        return vault.core, "vectors"
    return vault, "_vectors"


@dataclass
class WriteStats:
    writes: int = 0
    wall: float = 0.0
    embed: float = 0.0
    tx: float = 0.0
    actions: Counter = field(default_factory=Counter)
    embed_calls: int = 0
    tx_calls: int = 0

    @property
    def other(self) -> float:
        return self.wall - self.embed - self.tx


@contextmanager
def instrumented(vault: Vault, stats: WriteStats, vectors: Vectors | None = None
                 ) -> Iterator[None]:
    """Time the embedding call and every store transaction of `vault`, on the instances only.

    `vectors`, if given, replaces the embedding call (store-only replay)."""
    obj, name = embedding_hook(vault)
    embed_fn = vectors or getattr(obj, name)
    tx_fn = vault.store.transaction

    def add_embed(seconds: float) -> None:
        stats.embed += seconds
        stats.embed_calls += 1

    @contextmanager
    def timed_tx(*a: Any, **kw: Any) -> Iterator[Any]:
        t = time.perf_counter()
        stats.tx_calls += 1
        try:
            with tx_fn(*a, **kw) as tx:
                yield tx
        finally:
            stats.tx += time.perf_counter() - t

    with patched(obj, name, timed(embed_fn, add_embed)), \
            patched(vault.store, "transaction", timed_tx):
        yield


def run_writes(vault: Vault, items: list[dict], *, batch: int, chunk: int, label: str,
               vectors: Vectors | None = None) -> WriteStats:
    stats = WriteStats()
    chunk = max(batch, chunk - chunk % batch)  # whole batches per call
    last_report = time.perf_counter()
    with instrumented(vault, stats, vectors):
        for start in range(0, len(items), chunk):
            part = items[start:start + chunk]
            t = time.perf_counter()
            results = vault.remember_many(part, batch=batch, actor="bench")
            stats.wall += time.perf_counter() - t
            stats.writes += len(part)
            stats.actions.update(r.action for r in results)
            del results
            now = time.perf_counter()
            if now - last_report > 10 or stats.writes == len(items):
                last_report = now
                log(f"  {label}: {stats.writes:,}/{len(items):,} writes, "
                    f"{stats.writes / stats.wall:,.0f}/s (embed {stats.embed:.0f}s, "
                    f"transactions {stats.tx:.0f}s)")
    if stats.writes and not stats.embed_calls:
        obj, name = embedding_hook(vault)
        log(f"warning: {label}: {type(obj).__name__}.{name} was never called; the writes "
            "embed elsewhere, so the embedding split (and a store-only replay) is wrong")
    if stats.writes and not stats.tx_calls:
        log(f"warning: {label}: vault.store.transaction was never called; the transaction "
            "time reads 0")
    return stats


def run_store_replay(vault: Vault, sample: list[dict], *, batch: int, chunk: int
                     ) -> WriteStats:
    """`remember_many` of `sample` with the embedding call replaced by a dict lookup of
    vectors computed beforehand (one real call for all texts, outside the timers)."""
    obj, name = embedding_hook(vault)
    real = getattr(obj, name)  # taken before run_writes puts the lookup in its place
    texts = sorted({content_of(it) for it in sample})
    cache = dict(zip(texts, real(texts), strict=True))
    misses = 0

    def lookup(batch: list[str]) -> list[dict[str, np.ndarray]]:
        nonlocal misses
        out = []
        for text in batch:
            if text not in cache:  # the vault derived another text: embed it
                misses += 1
                cache[text] = real([text])[0]
            out.append(cache[text])
        return out

    stats = run_writes(vault, sample, batch=batch, chunk=chunk, label="store-only",
                       vectors=lookup)
    if misses:
        log(f"warning: {misses} texts were not precomputed (embedded inline)")
    return stats


def run_single(vault: Vault, seed: int, n: int, users: int) -> tuple[list[float], Counter]:
    rng = random.Random(seed + 2)
    lat: list[float] = []
    actions: Counter = Counter()
    for i in range(n):
        user = rng.randrange(users)
        scope = scope_of(user)
        if rng.random() < 0.3:
            slot = rng.choice(sorted(SLOTS))
            item = slot_item(rng, scope, slot, rng.choice(SLOTS[slot][0]))
        else:
            item = free_item(rng, scope, set())
            item["content"] = f"{item['content']} (single {i})"  # new, not a duplicate
        item.pop("scope")
        t = time.perf_counter()
        res = vault.remember(scope, **item)
        lat.append(time.perf_counter() - t)
        actions[res.action] += 1
    return lat, actions

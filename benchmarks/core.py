"""Core benchmark: bulk writes, then scoped recall, at 100k memories across 1,000 users.

Usage (from the project root)::

    python benchmarks/core.py [--memories 100000] [--users 1000] [--queries 500]
                              [--db PATH] [--out FILE]

What it does, in order (one process, one SQLite file, the default embedder unless
``--embedder`` says otherwise):

1. Generates a deterministic (``--seed``) synthetic workload: per user ~100 memories from
   English, Chinese and mixed templates (preferences, facts, dated events), ~7% slot
   writes (``report.format``, ``notify.channel``, ...) plus ~3% re-writes of a slot the
   user already has, which the vault turns into updates. Writes of different users are
   interleaved, as app traffic would be; each user's own writes keep their order.
   ``--memories`` is the number of memory rows the build must end with; the updates come
   on top (so ~103k writes for 100k memories).
2. Loads the embedder and warms it up (and jieba) outside every timer.
3. Build, with embedding: ``Vault.remember_many(items, batch=--batch)``, called on
   chunks of ``--chunk`` items so the benchmark does not keep 100k results alive.
   Writes/s = writes / wall time of those calls. The same run is split without changing
   the code path: the embedding call of the writes (``vault.core.vectors``; before the
   vault's restructuring ``vault._vectors``, see ``measure_writes.embedding_hook``) and
   ``vault.store.transaction`` are wrapped in timers on the instances, so
   wall = embed + transaction (rows, FTS, vectors, revisions, COMMIT) + the rest
   (validation). "store-only (in-run)" = writes / (wall - embed).
4. File size (db, -wal, -shm, and per table via ``dbstat``) right after the build; sizes
   and row counts are read through a separate read-only connection to the file.
5. Recall, ``--queries`` queries of random users from question templates in both
   languages, top_k=10, after ``--warmup`` unmeasured ones:
   - with query embedding: ``vault.recall(scope, q, top_k=10)`` end to end;
   - without: the query vectors are computed first (that time is reported on its own
     as "query embedding alone"), then the same ``vault.recall`` runs with each
     embedder's ``embed_query`` (and ``embed_queries``) replaced, on the embedder
     instance, by a dict lookup. So it is exactly src's recall path minus the embedding,
     whatever src currently does
     (an earlier version replayed recall's steps here; src changed its text scoring
     while this was written, which is the drift that approach invites). In that run
     the store calls (``text_candidates``, ``vector_candidates``, ``fetch``) are timed
     through instance wrappers; "rest" is the Python in between (validation, query
     terms, scoring/fusion, rank). Each query's top-10 (ids, scores) of both runs is
     compared, as a check that the lookup changed nothing but the embedding time.
   The two run alternately first per query, so background load hits both alike.
   Then every 6 consecutive queries, as alternate "User:"/"Assistant:" lines, make one
   conversation query (end to end, with line votes: docs/retrieval.md).
6. Single writes: ``--single`` plain ``vault.remember()`` calls (70% new facts, 30% new
   values of an existing slot) on existing users; per-call latency, which includes
   embedding one text and a COMMIT with ``synchronous=FULL``.
7. Store-only replay: ``--store-sample`` writes for new users, their vectors computed
   beforehand; the embedding call of the writes is replaced on the instance by a dict
   lookup and the same ``remember_many`` runs. Measured after recall, so recall ran at
   ``--memories``.

Peak RSS is ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of this process (it includes the
embedding model and the generated workload; the baseline before the build is shown).
Targets (from the issue) are checked in the printed table only; this is not a test.
The default database lives in a temporary directory that is removed at the end; a
``--db`` path must not exist yet and is kept. ``--json FILE`` writes the key figures,
unrounded, for benchmarks/ab.py.

Modules (siblings, imported from benchmarks/ as the script's directory): workload.py
(the synthetic users and queries), timing.py (timers, percentiles, instance patching),
measure_writes.py, measure_recall.py, dbstats.py (sizes and counts of the file),
machine.py and report.py (the tables).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dbstats import file_sizes, row_counts, table_sizes
from machine import machine_info, src_hash
from measure_recall import run_recall
from measure_writes import run_single, run_store_replay, run_writes
from report import key_figures, markdown, print_report
from timing import log, peak_rss_mib
from workload import make_queries, make_workload

import memvault
from memvault import Vault
from memvault.textindex import index_text


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--memories", type=int, default=100_000, help="memory rows to build")
    p.add_argument("--users", type=int, default=1_000)
    p.add_argument("--queries", type=int, default=500)
    p.add_argument("--warmup", type=int, default=20, help="unmeasured recalls first")
    p.add_argument("--single", type=int, default=200, help="plain remember() calls to time")
    p.add_argument("--store-sample", type=int, default=5_000,
                   help="writes of the store-only replay (0 to skip)")
    p.add_argument("--batch", type=int, default=256, help="remember_many batch size")
    p.add_argument("--chunk", type=int, default=10_240,
                   help="items per remember_many call (a multiple of --batch)")
    p.add_argument("--embedder", default=None, help="embedder spec (default: memvault's)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--db", type=Path, help="SQLite file to create and keep (must not exist)")
    p.add_argument("--out", type=Path, help="also write the tables as markdown here")
    p.add_argument("--plain", action="store_true", help="print markdown, not rich tables")
    p.add_argument("--json", type=Path,
                   help="also write the key figures (unrounded) as JSON here, for ab.py")
    args = p.parse_args(argv)
    if args.memories < args.users or args.users < 1:
        p.error("need --users >= 1 and --memories >= --users")

    t_start = time.perf_counter()
    sources = src_hash()  # now: the code imported above, if src/ is being edited
    load_start = os.getloadavg()
    tmpdir: Path | None = None
    if args.db is not None:
        if args.db.exists():
            p.error(f"--db {args.db} exists; give a new path (the benchmark builds it)")
        db = args.db
    else:
        tmpdir = Path(tempfile.mkdtemp(prefix="memvault-bench-"))
        db = tmpdir / "bench.db"
    if load_start[0] > 0.5:
        log(f"warning: load average {load_start[0]:.2f} at start; other processes compete "
            "for the CPU and will inflate the numbers")

    try:
        r: dict[str, Any] = {"users": args.users, "batch": args.batch,
                             "command": "python benchmarks/core.py "
                                        + " ".join(argv if argv is not None else sys.argv[1:]),
                             "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")}
        log(f"generating workload: {args.memories:,} memories, {args.users:,} users ...")
        t = time.perf_counter()
        items = make_workload(args.seed, args.memories, args.users)
        queries = make_queries(args.seed, args.queries + args.warmup, args.users)
        warmup, queries = queries[:args.warmup], queries[args.warmup:]
        r["t_gen"] = time.perf_counter() - t
        log(f"  {len(items):,} writes in {r['t_gen']:.1f} s")

        log("loading embedder ...")
        t = time.perf_counter()
        vault = Vault(db, embedder=args.embedder, actor="bench")
        for e in vault.embedders:  # load weights and warm up (BLAS, tokenizer)
            e.embed_documents(["warm up 预热", "a second sentence", "第三句话"] * 8)
            e.embed_query("warm up")
        index_text("结巴分词预热 warm up")  # jieba loads its dictionary on first use
        r["t_load"] = time.perf_counter() - t
        r["machine"] = machine_info(db, vault, sources)
        gc.collect()
        r["rss_before_build"] = peak_rss_mib()

        log(f"build: remember_many, batch {args.batch} ...")
        r["build"] = run_writes(vault, items, batch=args.batch, chunk=args.chunk,
                                label="build")
        r["rss_after_build"] = peak_rss_mib()
        r["rows"] = vault.store.count()
        counts = row_counts(db, ["revisions", "memories_fts", "vectors"])
        r["revisions"], r["fts_rows"] = counts["revisions"], counts["memories_fts"]
        r["vectors"] = counts["vectors"]
        r["sizes"] = file_sizes(db)
        r["tables"] = table_sizes(db)
        del items
        gc.collect()

        log(f"recall: {len(queries)} queries (+{len(warmup)} warm-up) ...")
        r["recall"] = run_recall(vault, queries, warmup)
        r["rss_after_recall"] = peak_rss_mib()

        r["single"], r["single_actions"] = [], Counter()
        if args.single:
            log(f"single remember(): {args.single} calls ...")
            r["single"], r["single_actions"] = run_single(vault, args.seed, args.single,
                                                          args.users)

        if args.store_sample:
            n_users = max(1, round(args.store_sample / (args.memories / args.users)))
            r["store_users"] = n_users
            sample = make_workload(args.seed + 3, args.store_sample, n_users,
                                   first_user=args.users + 1_000_000)
            log(f"store-only replay: embedding {len(sample):,} texts first ...")
            r["store"] = run_store_replay(vault, sample, batch=args.batch, chunk=args.chunk)

        vault.close()
        r["peak_rss"] = peak_rss_mib()
        r["wall"] = time.perf_counter() - t_start
        load_end = os.getloadavg()
        r["loadavg"] = f"{load_start[0]:.2f} -> {load_end[0]:.2f}"
        print_report(r, args.plain)
        if args.out:
            args.out.write_text(markdown(r), encoding="utf-8")
            log(f"wrote {args.out}")
        if args.json:
            package = str(Path(memvault.__file__).resolve().parent)
            args.json.write_text(json.dumps({"command": r["command"], "date": r["date"],
                                             "memvault": package, "sources": sources,
                                             "loadavg": r["loadavg"],
                                             "figures": key_figures(r),
                                             "machine": dict(r["machine"])}, indent=1),
                                 encoding="utf-8")
        if r["recall"].mismatches:
            log(f"warning: {r['recall'].mismatches} queries ranked differently in the replay "
                "than in vault.recall; the lookup changed more than the embedding")
    finally:
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

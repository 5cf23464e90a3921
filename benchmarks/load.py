"""Recall and REST under real chat vocabulary (issue 21): one command, one markdown table.

    python benchmarks/load.py [--quick] [--src PATH ...] [--work DIR] [--out FILE]
                              [--data ../shared/datasets]

Stores (chatdata.py):
- locomo: LoCoMo as the eval stores it (5,882 turns, one user per conversation), its
  1,982 questions as the queries;
- chat: --memories memories dealt out to --users users (default 100,000 / 1,000; --quick
  20,000 / 200) from LoCoMo sessions and MADial-Bench en + zh events, recycled with light
  variation, seeded; a user's queries are the questions about the texts it holds.

Phases, each in a fresh process (load_phases.py) with the tree's src first on PYTHONPATH,
so "peak RSS" is that process's own (ru_maxrss):
- recall on each store, with query embedding and without (query vectors computed before
  the first recall): "cold" = a user's first recall in a freshly opened process, after a
  warm-up recall of another user (model and dictionaries loaded); "warm" = that user's
  next --warm recalls. Coverage included (the count of recalls that skipped it is shown).
- REST on a copy of the chat store: `memvault serve` (SQLite, synchronous FULL) and 1, 4,
  16 and 64 clients looping recall, remember, or mixed (80/20), each bounded by
  --seconds and --max-requests; the server's peak RSS (VmHWM) after all of them.

`--src` (repeatable) names a directory that holds the `memvault` package; with two, every
phase runs for each tree in turn (A B, then B A for the next phase), so before and after
share the machine's load. Stores are built by the tree that reads them (a store written by
a newer tree may not open in an older one) and cached in --work, keyed by the workload's
parameters and a hash of the tree's sources: a rerun skips the build. Document vectors are
computed once per workload and shared by every tree (work/vectors-*.npy).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROJECT_ROOT = HERE.parent


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def src_hash(src: Path) -> str:
    h = hashlib.sha256()
    root = src / "memvault"
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:12]


def git_rev(src: Path) -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=src,
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() if out.returncode == 0 else "not a git checkout"
    except (OSError, subprocess.SubprocessError):
        return "?"


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def child(src: Path, phase: str, args: dict[str, Any]) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(src), str(HERE)])
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, str(HERE / "load_phases.py"), phase,
                           json.dumps(args)], env=env, cwd=HERE, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{phase} on {src} failed:\n{proc.stderr[-3000:]}")
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    out["wall_s"] = time.perf_counter() - t
    return out


def fmt(d: dict[str, float]) -> str:
    return f"{d['p50']:.1f} / {d['p95']:.1f} / {d['p99']:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="small sizes and short phases (about 5 minutes once stores exist)")
    ap.add_argument("--src", type=Path, action="append",
                    help="a directory holding the memvault package (repeat for A/B); "
                         "default: this checkout's src")
    ap.add_argument("--data", type=Path, default=PROJECT_ROOT.parent / "shared" / "datasets")
    ap.add_argument("--work", type=Path, default=Path("/tmp/memvault-load"),
                    help="cache of built stores and vectors (kept between runs)")
    ap.add_argument("--memories", type=int)
    ap.add_argument("--users", type=int)
    ap.add_argument("--sample-users", type=int, help="users measured per recall phase")
    ap.add_argument("--warm", type=int, default=3, help="warm recalls per user (chat)")
    ap.add_argument("--locomo-warm", type=int,
                    help="warm recalls per LoCoMo user (it has 10 users; default 60, "
                         "--quick 20)")
    ap.add_argument("--seconds", type=float, help="bound of each REST load phase")
    ap.add_argument("--recall-seconds", type=float, help="bound of each recall phase")
    ap.add_argument("--max-requests", type=int, default=5000, help="per REST phase")
    ap.add_argument("--clients", default="1,4,16,64")
    ap.add_argument("--skip", default="", help="comma list of: locomo, chat, rest")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    quick = a.quick
    memories = a.memories or (20_000 if quick else 100_000)
    users = a.users or (200 if quick else 1_000)
    sample = a.sample_users or (100 if quick else 500)
    seconds = a.seconds or (4.0 if quick else 15.0)
    recall_s = a.recall_seconds or (40.0 if quick else 180.0)
    locomo_warm = a.locomo_warm or (20 if quick else 60)
    clients = [int(c) for c in a.clients.split(",")]
    skip = set(filter(None, a.skip.split(",")))
    trees = [p.resolve() for p in (a.src or [PROJECT_ROOT / "src"])]
    for t in trees:
        if not (t / "memvault" / "__init__.py").is_file():
            ap.error(f"--src {t}: no memvault package there")
    a.work.mkdir(parents=True, exist_ok=True)
    data = a.data.resolve()
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load_start = loadavg()
    wall = time.perf_counter()

    base = {"data": str(data), "seed": a.seed, "queries_per_user": 1 + a.warm + 4}
    stores = {"locomo": {**base, "store": "locomo", "memories": 0, "users": 0},
              "chat": {**base, "store": "chat", "memories": memories, "users": users}}
    keyed = {name: hashlib.sha256(json.dumps(s, sort_keys=True).encode()).hexdigest()[:10]
             for name, s in stores.items()}
    built: dict[tuple[str, Path], str] = {}
    notes: list[str] = []

    def store_for(name: str, tree: Path) -> str:
        if (name, tree) in built:
            return built[(name, tree)]
        db = a.work / f"{name}-{keyed[name]}-{src_hash(tree)}.db"
        if not db.exists():
            log(f"building {name} with {tree} -> {db}")
            r = child(tree, "build", {**stores[name], "db": str(db),
                                      "vectors": str(a.work / f"vectors-{keyed[name]}.npy")})
            notes.append(f"built {name} ({r['count']:,} memories) with {tree} in "
                         f"{r['wall_s']:.0f} s (embedding {r['embed_s']:.0f} s)")
        built[(name, tree)] = str(db)
        return str(db)

    recall_rows: list[list[str]] = []
    rest_rows: list[list[str]] = []
    label = {t: f"{'AB'[i]}" if len(trees) > 1 else "" for i, t in enumerate(trees)}
    k = 0
    for name in ("locomo", "chat"):
        if name in skip:
            continue
        for embed in (True, False):
            order = trees if k % 2 == 0 else trees[::-1]
            k += 1
            for tree in order:
                db = store_for(name, tree)
                log(f"recall {name} embed={embed} {tree}  (load {loadavg()})")
                warm = locomo_warm if name == "locomo" else a.warm
                r = child(tree, "recall", {**stores[name], "db": db, "embed": embed,
                                           "sample_users": sample, "warm": warm,
                                           "seconds": recall_s})
                recall_rows.append([
                    label[tree], name, "yes" if embed else "no (precomputed)",
                    f"{r['cold']['n']}", fmt(r["cold"]), f"{r['warm']['n']}",
                    fmt(r["warm"]), f"{r['rss_mib']:,.0f} MiB",
                    str(r["coverage_skipped"]), loadavg()])
    if "rest" not in skip:
        for tree in trees if k % 2 == 0 else trees[::-1]:
            db = store_for("chat", tree)
            log(f"REST {tree}  (load {loadavg()})")
            r = child(tree, "rest", {**stores["chat"], "db": db, "clients": clients,
                                     "seconds": seconds, "max_requests": a.max_requests})
            for row in r["rows"]:
                rest_rows.append([label[tree], str(row["clients"]), row["kind"],
                                  f"{row['requests']}", f"{row['errors']}",
                                  f"{row['rps']:.1f}", f"{row['p50']:.1f}",
                                  f"{row['p95']:.1f}", f"{row['p99']:.1f}"])
            notes.append(f"REST{' ' + label[tree] if label[tree] else ''}: server peak RSS "
                         f"{r['server_rss_mib']:,.0f} MiB, load {loadavg()} at the end")

    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text()
                .splitlines() if ln.startswith("model name")), platform.processor())
    lines = ["`" + " ".join(["python benchmarks/load.py", *sys.argv[1:]]) + "`",
             "",
             f"{started}; {os.cpu_count()} cores ({cpu}), Python "
             f"{platform.python_version()}; load average {load_start} at the start, "
             f"{loadavg()} at the end; wall {time.perf_counter() - wall:.0f} s",
             ""]
    for t in trees:
        lines.append(f"- {label[t] or 'tree'}: {t} (git {git_rev(t)}, sources "
                     f"{src_hash(t)})")
    lines.append(f"- chat store: {memories:,} memories / {users:,} users; recall: up to "
                 f"{sample} users per phase (≤ {recall_s:g} s), 1 cold + {a.warm} warm "
                 f"recalls each (LoCoMo: its 10 users but the warm-up's, 1 cold + "
                 f"{locomo_warm} warm each), top_k 10; REST: ≤ {seconds:g} s and "
                 f"≤ {a.max_requests} requests per row")
    lines += [f"- {n}" for n in notes]
    lines += ["", "| tree | store | query embedded | cold n | cold p50 / p95 / p99 ms | "
              "warm n | warm p50 / p95 / p99 ms | peak RSS | coverage skipped | load at its end |",
              "|---|---|---|---:|---|---:|---|---:|---:|---|"]
    lines += ["| " + " | ".join(r) + " |" for r in recall_rows]
    if rest_rows:
        lines += ["", "| tree | clients | REST phase | requests | errors | req/s | p50 ms | "
                  "p95 ms | p99 ms |", "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
        lines += ["| " + " | ".join(r) + " |" for r in rest_rows]
    text = "\n".join(lines)
    print(text)
    if a.out:
        a.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""observe() throughput: chat exchanges per second, one exchange per call and in batches.

Usage (from the project root)::

    python benchmarks/observe_speed.py [--users 20] [--prefill 200] [--exchanges 300]
                                       [--batch 20] [--json FILE] [--plain]

What it does (one process, one SQLite file in a temporary directory, the default
embedder):

1. Each of `--users` users gets `--prefill` stored memories first (`remember_many`: the
   given statements of the generalisation set, benchmarks/generalisation/, cycled), so
   the write path's lookup has a realistic store to search.
2. The measured exchanges are the set's user lines (its `say` lines, both languages,
   cycled), each with a short assistant reply, spread over the users round robin.
3. Per call: `observe(scope, [user, assistant])` for each exchange, timed end to end;
   exchanges/s = exchanges / wall time, and the p50/p95 latency of a call.
4. In batches: `observe(scope, [2 × --batch messages])`, a conversation of `--batch`
   exchanges per call, same lines, fresh users; exchanges/s.
5. With `--lookup-share`: the per-call exchanges again, alternately with the write
   path's semantic lookup and with it answering nothing (patched on the instance), and
   the mean of each: the lookup's own cost, in one run, whatever else changed.

The embedder is loaded and warmed before any timer. To compare two source trees (before
and after a change), run it under benchmarks/ab.py: `python benchmarks/ab.py --script
observe_speed.py --a OLD/src --b src --rounds 4`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from machine import src_hash  # noqa: E402
from timing import pct  # noqa: E402

DATA = HERE / "generalisation"
REPLIES = ["OK, noted.", "好的，记下了。", "Got it.", "明白。"]
FIGURE_SPECS = [
    ("per_call_exchanges_per_s", "exchanges/s, one exchange per call", "/s", "higher"),
    ("per_call_p50_ms", "observe() p50, one exchange", "ms", "lower"),
    ("per_call_p95_ms", "observe() p95, one exchange", "ms", "lower"),
    ("batch_exchanges_per_s", "exchanges/s, in batches", "/s", "higher"),
    ("memories_per_exchange", "memories written per exchange (added, updated, staged)", "",
     "info"),
]
# With --lookup-share: the same calls alternately with the semantic lookup and with it
# answering nothing, in one run, so its own cost is measured apart from what it decides.
SHARE_SPECS = [
    ("lookup_on_ms", "observe() mean, one exchange, with the lookup", "ms", "lower"),
    ("lookup_off_ms", "observe() mean, one exchange, lookup answering nothing", "ms", "lower"),
]


def lines() -> tuple[list[str], list[str]]:
    """(statements to store first, user lines to observe) from the generalisation set."""
    given, said = [], []
    for lang in ("en", "zh"):
        for raw in (DATA / f"{lang}.jsonl").read_text(encoding="utf-8").splitlines():
            case = json.loads(raw)
            given += [s["say"] for s in case.get("given", []) if "say" in s]
            for item in case["say"]:
                said += [item] if isinstance(item, str) else [
                    m["content"] for m in item if m["role"] == "user"]
    return given, said


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--users", type=int, default=20)
    p.add_argument("--prefill", type=int, default=200, help="stored memories per user")
    p.add_argument("--exchanges", type=int, default=300, help="exchanges per mode")
    p.add_argument("--batch", type=int, default=20, help="exchanges per call, batch mode")
    p.add_argument("--plain", action="store_true", help="markdown only (no colour)")
    p.add_argument("--lookup-share", action="store_true",
                   help="also time calls with the write path's lookup answering nothing "
                        "(needs a tree that has the lookup)")
    p.add_argument("--json", type=Path, help="the figures as JSON, for ab.py")
    args = p.parse_args(argv)
    import memvault
    from memvault import Scope, Vault

    given, said = lines()
    sources = src_hash()
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="memvault-observe-") as tmp:
        vault = Vault(Path(tmp) / "observe.db", actor="bench")
        vault.embedders[0].embed_documents(["warm up", "预热"])
        vault.observe(Scope("warm", "up"), [{"role": "user", "content": "I like tea"}])
        t = time.perf_counter()
        for u in range(args.users * 2):
            items = [{"scope": Scope("bench", f"u{u}"), "content": given[(u * 7 + i)
                                                                        % len(given)]}
                     for i in range(args.prefill)]
            vault.remember_many(items)
        prefill_s = time.perf_counter() - t

        lat = []
        written = 0
        t = time.perf_counter()
        for i in range(args.exchanges):
            scope = Scope("bench", f"u{i % args.users}")
            msgs = [{"role": "user", "content": said[i % len(said)]},
                    {"role": "assistant", "content": REPLIES[i % len(REPLIES)]}]
            t1 = time.perf_counter()
            res = vault.observe(scope, msgs)
            lat.append((time.perf_counter() - t1) * 1000)
            written += sum(o.action in ("added", "updated", "stage") for o in res.outcomes)
        per_call_s = time.perf_counter() - t

        t = time.perf_counter()
        done = 0
        call = 0
        while done < args.exchanges:
            n = min(args.batch, args.exchanges - done)
            scope = Scope("bench", f"u{args.users + call % args.users}")
            msgs = []
            for k in range(n):
                j = args.exchanges + done + k
                msgs += [{"role": "user", "content": said[j % len(said)]},
                         {"role": "assistant", "content": REPLIES[j % len(REPLIES)]}]
            vault.observe(scope, msgs)
            done += n
            call += 1
        batch_s = time.perf_counter() - t
        share: dict[str, float] = {}
        if args.lookup_share:
            reads = vault.engine.reads
            real = reads.related
            on: list[float] = []
            off: list[float] = []
            for i in range(args.exchanges):
                reads.related = real if i % 2 == 0 else (lambda *a, **k: [])
                scope = Scope("bench", f"u{i % args.users}")
                msgs = [{"role": "user", "content": said[(i // 2) % len(said)]},
                        {"role": "assistant", "content": REPLIES[i % len(REPLIES)]}]
                t1 = time.perf_counter()
                vault.observe(scope, msgs)
                (on if i % 2 == 0 else off).append((time.perf_counter() - t1) * 1000)
            reads.related = real
            share = {"lookup_on_ms": statistics.fmean(on), "lookup_off_ms": statistics.fmean(off)}
        vault.close()
    load_end = os.getloadavg()
    figures = {"per_call_exchanges_per_s": args.exchanges / per_call_s,
               "per_call_p50_ms": statistics.median(lat), "per_call_p95_ms": pct(lat, 95),
               "batch_exchanges_per_s": args.exchanges / batch_s,
               "memories_per_exchange": written / args.exchanges, **share}
    print(f"observe() throughput: {args.exchanges} exchanges per mode, {args.users} users "
          f"with {args.prefill} stored memories each (prefill {prefill_s:.1f} s), "
          f"batches of {args.batch}\n")
    print("| metric | value |\n|---|---:|")
    for key, label, unit, _ in FIGURE_SPECS + (SHARE_SPECS if share else []):
        x = figures[key]
        print(f"| {label} | {x:,.2f}{' ms' if unit == 'ms' else ''} |")
    if share:
        print(f"\nthe lookup's share of a call: "
              f"{1 - share['lookup_off_ms'] / share['lookup_on_ms']:.0%}")
    loadavg = f"{load_start[0]:.2f} -> {load_end[0]:.2f}"
    print(f"\nload average {loadavg}; memvault from {Path(memvault.__file__).parent}")
    if args.json:
        args.json.write_text(json.dumps({
            "figures": figures, "figure_specs": FIGURE_SPECS + (SHARE_SPECS if share else []),
            "memvault": str(Path(memvault.__file__).parent), "sources": sources,
            "loadavg": loadavg, "machine": {"python": sys.version.split()[0]}}, indent=1),
            encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

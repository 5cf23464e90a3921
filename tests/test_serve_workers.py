"""`memvault serve --workers N`: several server processes on one port and one store.

What must hold whichever worker a request lands on: a write through one is read by every
other, a key made or revoked through one is honoured by all (no per-process key cache), and
a clean stop loses no trace. The kernel spreads connections over the workers' shared
socket, so many fresh connections reach both."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from _server import Server, new_key


def _children(pid: int) -> set[int]:
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        out |= {int(p) for p in (task / "children").read_text().split()}
    return out


def _workers(pid: int) -> set[int]:
    """The supervisor's children that serve (not multiprocessing's resource tracker)."""
    return {p for p in _children(pid)
            if "spawn_main" in Path(f"/proc/{p}/cmdline").read_text(errors="replace")}


def test_two_workers_share_the_store_keys_and_traces(tmp_path: Path) -> None:
    db = str(tmp_path / "v.db")
    srv = Server(db, extra=["--workers", "2"])
    try:
        assert "memvault: 2 worker processes" in srv.stdout_lines
        workers = _workers(srv.proc.pid)
        assert len(workers) == 2
        admin = srv.client(srv.admin_key)
        r = admin.post("/v1/memories?user=ann", json={"content": "Ann loves ramen"})
        assert r.status_code == 200, r.text
        mid = r.json()["id"]
        reader = new_key(admin, role="reader", name="r")
        recalls = 0
        for _ in range(24):  # a fresh connection each time: both workers answer some
            with srv.client(reader) as c:
                hits = c.post("/v1/recall?user=ann", json={"query": "ramen"}).json()["hits"]
                recalls += 1
                assert [h["memory"]["id"] for h in hits] == [mid]
        assert admin.delete(f"/v1/keys/{reader.split('_', 2)[1]}").status_code == 200
        for _ in range(12):
            with srv.client(reader) as c:
                r = c.post("/v1/recall?user=ann", json={"query": "ramen"})
                assert (r.status_code, r.json()["code"]) == (401, "key_revoked")
        # A SIGTERM to the supervisor ends a worker's open event stream: the stop does not
        # wait for the stream's time to run out (300 s; the deadline below is far under it).
        opened, ended = threading.Event(), threading.Event()

        def follow() -> None:
            with srv.client(srv.admin_key) as c, c.stream("GET", "/v1/events/stream") as r:
                lines = r.iter_lines()
                if any(ln.startswith("data: ") for ln in lines):  # the add, from the backlog
                    opened.set()
                    for _ in lines:
                        pass  # to the end of the body
                    ended.set()

        reader = threading.Thread(target=follow, daemon=True)
        reader.start()
        assert opened.wait(60)
        srv.proc.send_signal(signal.SIGTERM)
        assert ended.wait(60)
        srv.proc.wait(30)
        admin.close()
    finally:
        srv.stop()
    assert srv.proc.returncode == 0
    assert not any(Path(f"/proc/{p}").exists() for p in workers)
    with sqlite3.connect(db) as conn:  # every recall's trace was written before the exit
        assert conn.execute("SELECT COUNT(*) FROM traces").fetchone()[0] == recalls


def test_a_bad_worker_count_exits_non_zero_before_any_key_is_made(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    for target, bad in ((db, "0"), (db, "65"), (db, "two"), (":memory:", "2")):
        r = subprocess.run([sys.executable, "-m", "memvault.cli", "--db", str(target),
                            "serve", "--workers", bad], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode != 0
        assert "workers" in (r.stderr + r.stdout).lower()
        assert "mvk_" not in r.stdout
    assert not db.exists() or sqlite3.connect(db).execute(
        "SELECT COUNT(*) FROM sqlite_master WHERE name = 'api_keys'").fetchone()[0] == 0 \
        or sqlite3.connect(db).execute("SELECT COUNT(*) FROM api_keys").fetchone()[0] == 0


def test_one_worker_is_the_single_process_server(tmp_path: Path) -> None:
    srv = Server(str(tmp_path / "v.db"))
    try:
        assert not any("worker processes" in ln for ln in srv.stdout_lines)
        assert _workers(srv.proc.pid) == set()
        with httpx.Client(base_url=srv.url) as c:
            assert c.get("/healthz").status_code == 200
    finally:
        srv.stop()


# Run at startup by every Python process that has this directory on its path: a spawned
# worker (uvicorn's, started with --multiprocessing-fork) first sleeps, as an import on a
# busy machine does, before it can answer the supervisor's health ping.
SLOW_START = """\
import time
from pathlib import Path
if b"--multiprocessing-fork" in Path("/proc/self/cmdline").read_bytes():
    time.sleep(7)
"""


@pytest.mark.slow
def test_workers_slower_to_start_than_uvicorns_default_ping_still_serve(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn's supervisor killed a worker that had not answered its ping within 5 s and
    started another, which was no faster: on a busy machine `serve --workers 2` never came
    up (seen on PostgreSQL at load 5). Each worker here takes 7 s before it can answer."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SLOW_START)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))
    srv = Server(str(tmp_path / "v.db"), extra=["--workers", "2"])
    try:
        first = _workers(srv.proc.pid)
        assert len(first) == 2
        with srv.client(srv.admin_key) as c:
            assert c.get("/v1/whoami").status_code == 200
        assert _workers(srv.proc.pid) == first  # the same two: none was killed and replaced
    finally:
        srv.stop()
    assert srv.proc.returncode == 0

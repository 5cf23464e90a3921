"""Many server processes on one PostgreSQL (issue 23): two `memvault serve --workers 2`
supervisors on one database, so four request workers each with its own job worker and
two sweep timers, under concurrent HTTP load (async and direct writes, shared slots,
recalls, an events reader paging through either server).

What must hold, read from the database afterwards:
- every acknowledged async job is done, and applied once: its memory has exactly one
  revision, and the store holds no revision that no acknowledged write or sweep explains;
- every revision has exactly one event; event ids are 1..N with no gap; a memory's events
  go up with its versions; the reader that paged with a cursor during the load, through
  both servers' workers, saw every id exactly once (no cursor skipped an event numbered
  late by another process);
- one sweeper at a time: while both supervisors live only one sweeps (its log alone says
  so), every memory whose TTL lapsed is taken out of service once (one sweep revision);
  when it stops, the other takes over.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from _server import Server
from _util import backends, query, until

from memvault import Vault

pytestmark = [backends("postgres"), pytest.mark.slow]

THREADS = 6
ROUNDS = 12  # per thread: one async add, one shared-slot update, one TTL add, one recall
SLOTS = 3
CLOSE = {"Connection": "close"}  # a fresh connection per request: the kernel spreads them


def _sweep_lines(log: Path) -> int:
    n = 0
    for line in log.read_text(errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        n += rec.get("msg") == "sweep" and rec.get("logger") == "memvault.server.jobs"
    return n


class Load:
    """The clients: what each write was acknowledged as, and what the events reader saw."""

    def __init__(self, urls: list[str], key: str) -> None:
        self.urls, self.auth = urls, {"Authorization": f"Bearer {key}", **CLOSE}
        self.jobs: list[tuple[str, str]] = []  # (job id, content)
        self.writes: list[dict[str, Any]] = []  # direct remembers' answers
        self.ttl_ids: list[str] = []
        self.failures: list[str] = []
        self.seen: list[int] = []
        self.lock = threading.Lock()
        self.done = threading.Event()

    def post(self, n: int, path: str, body: dict[str, Any], **params: Any) -> httpx.Response:
        return httpx.post(self.urls[n % len(self.urls)] + path, params=params, json=body,
                          headers=self.auth, timeout=60)

    def client(self, t: int) -> None:
        for i in range(ROUNDS):
            user = f"u{(t + i) % 3}"
            calls = [
                ("job", self.post(i, "/v1/memories",
                                  {"content": f"thread {t} item {i} likes green tea"},
                                  user=user, **{"async": "true"})),
                ("slot", self.post(i + 1, "/v1/memories",
                                   {"content": f"Shared slot {i % SLOTS} is {t}-{i}",
                                    "slot": f"s{i % SLOTS}", "value": f"{t}-{i}"},
                                   user="shared")),
                ("ttl", self.post(i, "/v1/memories",
                                  {"content": f"thread {t} item {i} is brief", "ttl": 1},
                                  user=user)),
                ("recall", self.post(i + 1, "/v1/recall", {"query": "green tea"}, user=user)),
            ]
            with self.lock:
                for what, r in calls:
                    if r.status_code not in (200, 202):
                        self.failures.append(f"{what}: {r.status_code} {r.text}")
                    elif what == "job":
                        self.jobs.append((r.json()["job_id"],
                                          f"thread {t} item {i} likes green tea"))
                    elif what in ("slot", "ttl"):
                        self.writes.append(r.json())
                        if what == "ttl":
                            self.ttl_ids.append(r.json()["id"])

    def follow(self) -> None:
        """Page the events with a cursor, alternating servers (and so processes)."""
        since, n = 0, 0
        while True:
            last = self.done.is_set()
            r = httpx.get(self.urls[n % len(self.urls)] + "/v1/events",
                          params={"since": since, "limit": 1000}, headers=self.auth,
                          timeout=60)
            n += 1
            if r.status_code != 200:
                self.failures.append(f"events: {r.status_code} {r.text}")
                return
            page = r.json()
            self.seen += [e["id"] for e in page["items"]]
            since = page["next"]
            if last and not page["items"]:
                return
            time.sleep(0.05)


def test_two_supervisors_with_two_workers_each_on_one_postgres(
        new_db: Callable[[], str], tmp_path: Path) -> None:
    db = new_db()
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    opts = ["--workers", "2", "--sweep-interval", "0.2"]
    servers = [Server(db, extra=opts, log=logs[0])]
    try:
        servers.append(Server(db, extra=opts, log=logs[1]))
        key = servers[0].admin_key
        assert key is not None and servers[1].admin_key is None
        load = Load([s.url for s in servers], key)
        follower = threading.Thread(target=load.follow)
        follower.start()
        clients = [threading.Thread(target=load.client, args=(t,)) for t in range(THREADS)]
        for c in clients:
            c.start()
        for c in clients:
            c.join()

        def jobs_done() -> bool:
            return all(s == "done" for s in _job_status(db, [j for j, _ in load.jobs]).values())

        assert until(jobs_done, 90.0)
        assert until(lambda: _expired(db, load.ttl_ids) == len(load.ttl_ids), 90.0)
        load.done.set()
        follower.join(120)
        assert not follower.is_alive()
        assert load.failures == []
        assert len(load.jobs) == len(load.ttl_ids) == THREADS * ROUNDS

        # One sweeper while both live: only one supervisor's log has sweep rounds.
        swept = [_sweep_lines(log) for log in logs]
        assert sorted(swept)[0] == 0 and sorted(swept)[1] >= 1, swept
        leader = swept.index(max(swept))
        servers[leader].stop()  # its lease goes with it: the other takes over
        other = servers[1 - leader]
        r = httpx.post(other.url + "/v1/memories", params={"user": "late"},
                       json={"content": "a late brief note", "ttl": 1}, headers=load.auth)
        assert r.status_code == 200, r.text
        assert until(lambda: _expired(db, [r.json()["id"]]) == 1, 90.0)
        # The round logs after its commit (and the log is another process's file).
        assert until(lambda: _sweep_lines(logs[1 - leader]) >= 1, 20.0)
        load.ttl_ids.append(r.json()["id"])
        load.writes.append(r.json())
    finally:
        for s in servers:
            s.stop()

    _check_jobs_once(db, load)
    _check_events(db, load)


def _job_status(db: str, ids: list[str]) -> dict[str, str]:
    rows = query(db, "SELECT job_id, status FROM jobs")
    return {j: s for j, s in rows if j in set(ids)} | {j: "missing" for j in
                                                      set(ids) - {j for j, _ in rows}}


def _expired(db: str, ids: list[str]) -> int:
    """How many of these memories the sweep has taken out of service (demoted to pending,
    the default on_expire)."""
    rows = query(db, "SELECT id FROM memories WHERE status = 'pending'")
    return len({i for (i,) in rows} & set(ids))


def _check_jobs_once(db: str, load: Load) -> None:
    jobs = {j: (status, json.loads(result)) for j, status, result in
            query(db, "SELECT job_id, status, result FROM jobs")}
    revs = query(db, "SELECT memory_id, to_version, state, actor FROM revisions")
    by_content = Counter(json.loads(state)["content"] for _, _, state, _ in revs)
    for jid, content in load.jobs:
        status, result = jobs[jid]
        assert (status, result["action"], result["version"]) == ("done", "added", 1), jid
        assert by_content[content] == 1, content  # one apply: one revision
    # Every revision is an acknowledged write or a sweep's expiry, nothing else.
    expiries = [r for r in revs if r[3] == "system:sweep"]
    assert len(expiries) == len(load.ttl_ids)
    assert {m for m, *_ in expiries} == set(load.ttl_ids)
    assert len(revs) == len(load.jobs) + len(load.writes) + len(expiries)
    slots = [w for w in load.writes if w["id"] not in set(load.ttl_ids)]
    shared = defaultdict(list)
    for w in slots:
        shared[w["id"]].append(int(w["version"]))
    for mid, versions in shared.items():  # each version acknowledged to one writer
        assert sorted(versions) == list(range(1, len(versions) + 1)), mid


def _check_events(db: str, load: Load) -> None:
    # Events are numbered when read (outbox.py); the late add's and its expiry's were
    # committed after the reader stopped, so the next reader numbers them.
    with Vault(db, embedder="use-m3") as v:
        v.store.publish_events()
    events = query(db, "SELECT e.id, e.op_id, r.memory_id, r.to_version FROM events e "
                       "JOIN revisions r ON r.op_id = e.op_id ORDER BY e.id")
    n_revs = query(db, "SELECT COUNT(*) FROM revisions")[0][0]
    ids = [e[0] for e in events]
    assert ids == list(range(1, n_revs + 1))  # one per revision, numbered with no gap
    assert len({e[1] for e in events}) == n_revs
    versions: dict[str, list[int]] = defaultdict(list)
    for _, _, mid, to_v in events:
        versions[mid].append(int(to_v))
    for mid, vs in versions.items():  # a memory's events in the order of its versions
        assert vs == sorted(vs) and len(set(vs)) == len(vs), mid
    # The reader saw, through both servers during the load, every event exactly once,
    # except the late write's, which came after it stopped.
    assert sorted(load.seen) == load.seen
    assert load.seen == ids[:len(load.seen)]
    assert len(load.seen) >= n_revs - 2  # the late add and its expiry came later

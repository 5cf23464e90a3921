"""Queued writes apply exactly once, even when the server is SIGKILLed in the middle of
the queue and restarted on the same store — on every backend."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from _server import Server
from _util import query

N = 150
SLOT_EVERY, OBSERVE_EVERY = 3, 10


def _depth(db: str) -> int:
    return int(query(db, "SELECT COUNT(*) FROM jobs WHERE status = 'queued'")[0][0])


def test_jobs_apply_exactly_once_across_sigkill(new_db: Callable[[], str],
                                                tmp_path: Path) -> None:
    db = new_db()
    log = tmp_path / "server.log"
    # 1. Accept N writes without running them (--no-worker), so the queue is long.
    a = Server(db, extra=["--no-worker"], log=log)
    key = a.admin_key
    assert key is not None
    kinds: dict[str, tuple[str, int]] = {}
    with a.client(key) as c:
        for i in range(N):
            if i % OBSERVE_EVERY == 0:
                r = c.post("/v1/observe", params={"user": "alice", "async": "true"},
                           json={"messages": [{"role": "user", "content": f"turn number {i}"}]})
                kinds[r.json()["job_id"]] = ("observe", i)
            elif i % SLOT_EVERY == 0:
                r = c.post("/v1/memories", params={"user": "alice", "async": "true"},
                           json={"slot": "counter.value", "value": i})
                kinds[r.json()["job_id"]] = ("slot", i)
            else:
                r = c.post("/v1/memories", params={"user": "alice", "async": "true"},
                           json={"content": f"note number {i}"})
                kinds[r.json()["job_id"]] = ("note", i)
            assert r.status_code == 202, r.text
    a.stop()
    assert _depth(db) == N

    # 2. A server with a worker; SIGKILL it once it is partway through the queue.
    b = Server(db, log=log)
    deadline = time.monotonic() + 60
    while _depth(db) > N * 2 // 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    b.kill()
    left = _depth(db)
    assert 0 < left < N, f"the kill did not land mid-queue ({left} queued)"

    # 3. Restart on the same store: the rest is applied, nothing twice.
    c_srv = Server(db, log=log)
    try:
        deadline = time.monotonic() + 120
        while _depth(db) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _depth(db) == 0
        statuses = query(db, "SELECT status, COUNT(*) FROM jobs GROUP BY status")
        assert dict(statuses) == {"done": N}
        notes = [i for k, i in kinds.values() if k == "note"]
        for i in notes:
            rows = query(db, "SELECT id FROM memories WHERE content = ?", (f"note number {i}",))
            assert len(rows) == 1, (i, rows)
            revs = query(db, "SELECT op FROM revisions WHERE memory_id = ?", (rows[0][0],))
            assert [r[0] for r in revs] == ["create"]
        turns = [i for k, i in kinds.values() if k == "observe"]
        for i in turns:
            rows = query(db, "SELECT COUNT(*) FROM memories WHERE content = ? AND kind = 'turn'",
                         (f"turn number {i}",))
            assert rows[0][0] == 1, i
        slot_values = sorted(i for k, i in kinds.values() if k == "slot")
        (mid, version, value), = query(
            db, "SELECT id, version, value FROM memories WHERE slot = 'counter.value'")
        # In order and once each: one version per write, the last write wins, no replays
        # (a replayed value would add a `reinforce` or an extra `update`).
        assert version == len(slot_values)
        assert value == str(slot_values[-1])
        ops = [r[0] for r in query(db, "SELECT op FROM revisions WHERE memory_id = ? "
                                   "ORDER BY at, to_version", (mid,))]
        assert ops == ["create"] + ["update"] * (len(slot_values) - 1)
        states = [r[0] for r in query(db, "SELECT state FROM revisions WHERE memory_id = ? "
                                      "ORDER BY to_version", (mid,))]
        assert [json.loads(s)["value"] for s in states] == slot_values
        # Every done job's result names what it wrote.
        with c_srv.client(key) as c:
            for job_id in list(kinds)[:10]:
                j = c.get(f"/v1/jobs/{job_id}").json()
                assert j["status"] == "done" and j["result"]
    finally:
        c_srv.stop()


def test_a_queued_write_holds_no_value_the_policy_redacts(new_db: Callable[[], str],
                                                           tmp_path: Path) -> None:
    db = new_db()
    card, pin = "4111 1111 1111 1111", "Zq9!vault-door"
    snowflake = "412345678901234561"
    a = Server(db, extra=["--no-worker"], log=tmp_path / "server.log")
    try:
        with a.client(a.admin_key) as c:
            r = c.post("/v1/observe", params={"user": "alice", "async": "true"}, json={
                "messages": [{"role": "user", "content": f"my card number is {card}, my "
                              f"wifi password is {pin}. I like tea"},
                             {"role": "assistant", "content": f"Noted {pin}, thanks"}]})
            assert r.status_code == 202, r.text
            r = c.post("/v1/propose", params={"user": "alice", "async": "true"}, json={
                "content": "The user likes green tea", "reason": f"said card {card}",
                "metadata": {"msg": snowflake}})
            assert r.status_code == 202, r.text
            # A statement of one token is still speech; a metadata id of one token is a
            # field, kept as it is (a Discord message id that passes Luhn).
            r = c.post("/v1/propose", params={"user": "alice", "async": "true"}, json={
                "content": card.replace(" ", "")})
            assert r.status_code == 202, r.text
    finally:
        a.stop()
    rows = query(db, "SELECT payload FROM jobs")
    assert len(rows) == 3
    for (payload,) in rows:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        assert card not in text and pin not in text and card.replace(" ", "") not in text
    assert "I like tea" in json.dumps([r[0] for r in rows], default=str)
    assert snowflake in json.dumps([r[0] for r in rows], default=str)
    # The worker then runs them as queued: nothing of the values reaches the store.
    b = Server(db, log=tmp_path / "server.log")
    try:
        deadline = time.monotonic() + 60
        while _depth(db) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _depth(db) == 0
    finally:
        b.stop()
    stored = json.dumps(query(db, "SELECT content FROM memories"), default=str)
    assert "I like tea" in stored and card not in stored and pin not in stored
    assert card.replace(" ", "") not in stored
    assert snowflake in json.dumps(query(db, "SELECT metadata FROM memories"), default=str)

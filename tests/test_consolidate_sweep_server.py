"""The consolidation step over real HTTP (a `memvault serve` subprocess on loopback,
SQLite): the REST sweep and maintain routes report the merges the step proposed, and the
server's timer sweep proposes them without a caller and logs its counts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from _server import Server
from _util import until

from memvault import Vault

TRIPLE = ["Rita likes green tea", "rita likes green tea.", "Rita really likes green tea"]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(str(tmp_path_factory.mktemp("consolidate") / "s.db"))
    yield s
    s.stop()


def _remember(c: httpx.Client, user: str, *texts: str) -> list[str]:
    out = []
    for t in texts:
        r = c.post("/v1/memories", params={"user": user}, json={"content": t})
        assert r.status_code == 200, r.text
        out.append(r.json()["id"])
    return out


def _merges_waiting(c: httpx.Client, user: str) -> list[list[str]]:
    r = c.get("/v1/review", params={"user": user})
    assert r.status_code == 200, r.text
    return [m["metadata"]["review"]["merge"] for m in r.json()
            if "merge" in m["metadata"].get("review", {})]


def test_rest_sweep_and_maintain_report_the_step(admin: httpx.Client) -> None:
    triple = _remember(admin, "rita", *TRIPLE)
    r = admin.post("/v1/sweep", params={"user": "rita"}, json={})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["count"] == 0 and body["report"]["merges_applied"] == []
    (prop,) = body["report"]["merges_proposed"]
    assert _merges_waiting(admin, "rita") == [triple]
    r = admin.post("/v1/maintain", params={"user": "rita"}, json={"steps": ["consolidate"]})
    assert r.status_code == 200, r.text
    assert r.json()["merges_proposed"] == []  # proposed once
    r = admin.post(f"/v1/review/{prop}/approve", params={"user": "rita"}, json={})
    assert r.status_code == 200, r.text
    assert _merges_waiting(admin, "rita") == []
    # A step name it does not know: a typed 4xx, nothing stored changes.
    r = admin.post("/v1/maintain", params={"user": "rita"}, json={"steps": ["merge"]})
    assert (r.status_code, r.json()["code"]) == (422, "invalid_input")


def test_the_timer_sweep_proposes_and_logs(tmp_path: Path) -> None:
    db, log = str(tmp_path / "t.db"), tmp_path / "server.log"
    # Stored before the server starts, so its first round sees the whole triple.
    with Vault(db) as v:
        triple = [v.remember({"tenant": "acme", "user": "rita"}, t).memory.id
                  for t in TRIPLE]
    s = Server(db, extra=["--sweep-interval", "0.2"], log=log)
    try:
        assert s.admin_key is not None
        c = httpx.Client(base_url=s.url, headers={"Authorization": f"Bearer {s.admin_key}"})

        def logged() -> list[dict[str, Any]]:
            recs = []
            for line in log.read_text(errors="replace").splitlines():
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("msg") == "sweep" and rec.get("logger") == "memvault.server.jobs":
                    recs.append(rec)
            return recs

        (rec,) = until(logged, 60.0)
        assert (rec["merges_proposed"], rec["merges_applied"], rec["expired"]) == (1, 0, 0)
        assert _merges_waiting(c, "rita") == [triple]
        c.close()
    finally:
        s.stop()

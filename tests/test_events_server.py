"""Change events through a real `memvault serve` on loopback: the server-sent-events stream
(resumed with Last-Event-ID, scoped by the key), and webhooks delivered by the server's
own thread to a loopback receiver, at least once across a SIGKILL mid-delivery."""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from _server import Server, new_key
from _webhook import Receiver

from memvault import Client, ConflictError, NotFoundError, Scope, ScopeError, ValidationError
from memvault.changes import SIGNATURE_HEADER, Event, verify

# A short webhook timeout: the SIGKILL test waits out the lease of the delivery it
# interrupts (timeout + 1 s).
OPTS = ["--webhook-timeout", "2", "--webhook-backoff-ms", "50"]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(str(tmp_path_factory.mktemp("events") / "s.db"), extra=OPTS)
    yield s
    s.stop()


def _frames(r: httpx.Response, n: int) -> Iterator[dict[str, Any]]:
    """The first `n` events of an SSE response: {id, event, data}."""
    frame: dict[str, Any] = {}
    got = 0
    for line in r.iter_lines():
        if line.startswith(("id: ", "event: ", "data: ")):
            k, _, v = line.partition(": ")
            frame[k] = json.loads(v) if k == "data" else v
        elif line == "" and "data" in frame:
            yield frame
            frame, got = {}, got + 1
            if got == n:
                return


def test_the_stream_sends_backlog_then_new_commits_and_resumes(srv: Server,
                                                                admin: httpx.Client) -> None:
    user = {"user": "sse-ann"}
    first = admin.post("/v1/memories", params=user, json={"content": "Ann likes jazz"})
    assert first.status_code == 200
    start = admin.get("/v1/events", params={"user": "sse-ann"}).json()["items"][0]["id"]
    seen = []
    with admin.stream("GET", "/v1/events/stream",
                      params={"since": start - 1, "user": "sse-ann"}) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        frames = _frames(r, 3)
        seen.append(next(frames))  # the backlog
        # Committed while the stream is open: pushed on it.
        mid = first.json()["id"]
        admin.post(f"/v1/memories/{mid}/forget", params=user, json={"reason": "sse"})
        admin.post("/v1/memories", params=user, json={"content": "Ann likes blues"})
        seen += list(frames)
    assert [(f["event"], f["data"]["memory_id"] == mid) for f in seen] == [
        ("add", True), ("forget", True), ("add", False)]
    assert [int(f["id"]) for f in seen] == [f["data"]["id"] for f in seen]
    page = admin.get("/v1/events", params={"since": start - 1, "user": "sse-ann"}).json()
    assert [f["data"] for f in seen] == page["items"]
    # A reconnecting client names the last id it saw: the stream goes on after it.
    with admin.stream("GET", "/v1/events/stream", params={"user": "sse-ann"},
                      headers={"Last-Event-ID": seen[1]["id"]}) as r:
        assert [f["data"]["id"] for f in _frames(r, 1)] == [seen[2]["data"]["id"]]


def test_a_bound_key_reads_only_its_users_events(srv: Server, admin: httpx.Client) -> None:
    admin.post("/v1/memories", params={"user": "sse-bo"}, json={"content": "Bo's"})
    admin.post("/v1/memories", params={"user": "sse-cy"}, json={"content": "Cy's"})
    with srv.client(new_key(admin, role="user", user="sse-bo")) as bo:
        items = bo.get("/v1/events", params={"limit": 1000}).json()["items"]
        assert {e["user"] for e in items} == {"sse-bo"}
        r = bo.get("/v1/events", params={"user": "sse-cy"})
        assert (r.status_code, r.json()["code"]) == (403, "scope_denied")
        with bo.stream("GET", "/v1/events/stream") as s:
            assert {f["data"]["user"] for f in _frames(s, 1)} == {"sse-bo"}
        r = bo.get("/v1/events/stream", params={"kinds": "nope"})
        assert r.status_code == 422
    everyone = admin.get("/v1/events", params={"limit": 1000}).json()["items"]
    assert {"sse-bo", "sse-cy"} <= {e["user"] for e in everyone}


def test_the_client_reads_events_and_manages_webhooks(srv: Server) -> None:
    assert srv.admin_key
    with Client(srv.url, srv.admin_key) as c:
        me = Scope("acme", "cl-dee")
        a = c.remember(me, "Dee likes tea")
        page = list(c.events("acme", user="cl-dee"))
        assert [(e.kind, e.memory_id) for e in page] == [("add", a.id)]
        assert isinstance(page[0], Event) and page[0].scope == me
        stop = threading.Event()
        seen: list[Event] = []

        def consume() -> None:
            for e in c.events("acme", user="cl-dee", since=page[-1].id, follow=True,
                              poll_seconds=0.05, stop=stop):
                seen.append(e)
                stop.set()
        t = threading.Thread(target=consume)
        t.start()
        c.forget(me, a.id)
        t.join(30)
        assert [(e.kind, e.memory_id) for e in seen] == [("forget", a.id)]
        with pytest.raises(ScopeError):
            list(c.events("globex"))
        with pytest.raises(ValidationError):
            list(c.events("acme", kinds=["nope"]))
        before = c.webhooks()
        for bad in ({"url": "ftp://x/y"}, {"url": "http://h/x", "kinds": ["nope"]},
                    {"url": "http://h/x", "secret": "short"}):
            with pytest.raises(ValidationError):  # a 422 from the server
                c.webhook_add(**bad)  # type: ignore[arg-type]
        assert c.webhooks() == before
        hook = c.webhook_add("http://127.0.0.1:9/client", kinds=["purge"])
        assert hook["secret"].startswith("whsec_")
        assert hook["webhook_id"] in {h["webhook_id"] for h in c.webhooks()}
        assert c.webhook_deliveries(hook["webhook_id"]) == []
        with pytest.raises(ConflictError):
            c.webhook_retry(hook["webhook_id"], 1)
        assert c.webhook_remove(hook["webhook_id"])["removed_at"] is not None
        with pytest.raises(NotFoundError):
            c.webhook_deliveries("wh_nope")


def test_webhooks_deliver_every_event_at_least_once_across_sigkill(tmp_path: Path) -> None:
    """The server's delivery thread is killed while a receiver holds the first delivery:
    after a restart every event arrives, in order, the interrupted one again with the
    same event id, each signed and exactly as committed."""
    hang = threading.Event()
    rx = Receiver(lambda n: hang if n == 1 else 200)
    a, b = Server(str(tmp_path / "kill.db"), extra=OPTS), None
    try:
        assert a.admin_key
        key = a.admin_key
        with a.client(key) as admin:
            hook = admin.post("/v1/webhooks", json={"url": rx.url}).json()
            p = {"user": "kim"}
            m = admin.post("/v1/memories", params=p,
                           json={"content": "Kim prefers CSV", "slot": "fmt", "value": "CSV"})
            admin.post("/v1/memories", params=p,
                       json={"content": "Kim prefers PDF", "slot": "fmt", "value": "PDF"})
            admin.post(f"/v1/memories/{m.json()['id']}/rollback", params=p,
                       json={"to_version": 1})
            rx.wait_for(1)  # the first delivery is in flight, held by the receiver
        a.kill()
        b = Server(a.db, extra=OPTS)
        with b.client(key) as admin:
            committed = admin.get("/v1/events", params={
                "since": hook["queued_through"]}).json()["items"]
            assert [e["kind"] for e in committed] == ["add", "update", "rollback"]
            got = rx.wait_for(len(committed) + 1)
            ids = [g["event"]["id"] for g in got]
            first = committed[0]["id"]
            assert ids == [first] + [e["id"] for e in committed]
            assert got[0]["raw"] == got[1]["raw"]  # the same event, sent again
            assert [g["event"] for g in got[1:]] == committed
            assert all(verify(hook["secret"], g["raw"], g["headers"][SIGNATURE_HEADER])
                       for g in got)
            rollback = got[-1]["event"]
            assert (rollback["from_version"], rollback["to_version"],
                    rollback["payload"]["restored_version"],
                    rollback["payload"]["state"]["value"]) == (2, 3, 1, "CSV")
            # A SIGTERM ends an open event stream: the server shuts down, not waits on it.
            with admin.stream("GET", "/v1/events/stream") as r:
                lines = r.iter_lines()
                assert any(ln.startswith("data: ") for ln in lines)  # the stream is open
                b.proc.send_signal(signal.SIGTERM)
                for _ in lines:
                    pass  # to the end of the body
            b.proc.wait(60)
            assert b.proc.returncode == -signal.SIGTERM
    finally:
        hang.set()
        for s in (a, b):
            if s is not None:
                s.stop()
        rx.close()

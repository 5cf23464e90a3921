"""Snapshots over a real `memvault serve` on loopback, through memvault.Client: the same
verbs and results as the Vault's, and bad input a 4xx JSON error that changes nothing."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from _server import Server

from memvault import Client, ConflictError, NotFoundError, ScopeError, ValidationError

A = {"tenant": "acme", "user": "snap-ann"}


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(str(tmp_path_factory.mktemp("snap") / "s.db"))
    yield s
    s.stop()


def test_restore_and_undo_over_rest(srv: Server, admin: httpx.Client) -> None:
    assert srv.admin_key is not None
    with Client(srv.url, srv.admin_key) as c:
        tea = c.remember(A, "Ann likes green tea").memory
        made = c.snapshot("acme", "s1", user="snap-ann", reason="nightly")
        assert (made["name"], made["user"], made["reason"]) == ("s1", "snap-ann", "nightly")
        assert made["created_by"].startswith("admin:")
        c.edit(A, tea.id, content="Ann likes black tea")
        chess = c.remember(A, "Ann plays chess").memory
        d = c.snapshot_diff("acme", "s1", user="snap-ann")
        assert [x["memory_id"] for x in d["added"]] == [chess.id]
        assert d["changed"][0]["fields"]["content"]["to"] == "Ann likes black tea"
        op = c.restore_snapshot("acme", "s1", user="snap-ann", reason="oops")
        assert (op["restored"], op["forgotten"]) == ([tea.id], [chess.id])
        assert [m.content for m in c.list(A) if m.status == "active"] == [
            "Ann likes green tea"]
        audit = c.audit(A, limit=2)
        assert {r.reason for r in audit} == {f"snapshot:s1 restore {op['operation']}: oops"}
        c.restore_snapshot("acme", op["undo"], user="snap-ann")
        assert c.get(A, tea.id).content == "Ann likes black tea"
        assert c.get(A, chess.id).status == "active"
        names = [s["name"] for s in c.snapshots("acme", user="snap-ann")]
        assert names[:2] == ["s1", op["undo"]] and len(names) == 3

        before = c.snapshots("acme")
        with pytest.raises(ConflictError):
            c.snapshot("acme", "s1", user="snap-ann")
        with pytest.raises(NotFoundError):
            c.restore_snapshot("acme", "nope", user="snap-ann")
        with pytest.raises(ValidationError):
            c.snapshot("acme", "bad\nname", user="snap-ann")
        with pytest.raises(ScopeError):
            c.snapshot("other", "s2")
        assert c.snapshots("acme") == before
        assert c.drop_snapshot("acme", "s1", user="snap-ann")["name"] == "s1"
    r = admin.get("/v1/snapshots", params={"user": ""})
    assert r.status_code == 422 and r.json()["code"]
    r = admin.post("/v1/snapshots", json={"name": "x", "user": "snap-ann"})
    assert r.status_code == 422  # the scope is never in a body
    assert admin.get("/v1/snapshots/nope/diff").status_code == 404

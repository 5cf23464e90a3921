"""Merge, split, their undo and consolidation through every face: the Client over a real
server on loopback (and its REST errors), the CLI (in process) and MCP (stdio)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _server import Server
from test_mcp import call, run, stdio_params, stdio_session
from typer.testing import CliRunner

import memvault
from memvault import Client, Vault
from memvault.cli import app as cli_app
from memvault.errors import ConflictError, FrozenError, NotFoundError, ValidationError

ME = {"tenant": "acme", "user": "rita"}
TRIPLE = ["Rita likes green tea", "rita likes green tea.", "Rita really likes green tea"]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(str(tmp_path_factory.mktemp("merge") / "server.db"), tenant="acme")
    assert s.admin_key
    yield s
    s.stop()


@pytest.fixture(scope="module")
def remote(srv: Server) -> Iterator[Client]:
    assert srv.admin_key
    with Client(srv.url, srv.admin_key) as c:
        yield c


def test_client_round_trips_and_consolidation(remote: Client) -> None:
    scope = {**ME, "user": "rita-client"}
    a, b, c = (remote.remember(scope, t).memory.id for t in TRIPLE)
    other = remote.remember(scope, "Rita likes black tea").memory.id
    merged = remote.merge(scope, [a, b], reason="same")
    assert merged.metadata["merged_from"] == [f"{a}@1", f"{b}@1"]
    assert remote.get(scope, a).metadata["merged_into"] == merged.id
    assert [m.id for m in remote.unmerge(scope, merged.id)] == [a, b]
    assert remote.get(scope, a).status == "active"

    parts = remote.split(scope, other, ["Rita likes tea", "Rita's tea is black"])
    assert [p.metadata["split_from"] for p in parts] == [f"{other}@1"] * 2
    assert remote.unsplit(scope, other).status == "active"

    (group,) = remote.consolidate(scope)
    assert sorted(group["ids"]) == sorted([a, b, c]) and group["proposal"]
    done = remote.review_approve(scope, group["proposal"])
    assert len(done.metadata["merged_from"]) == 3
    assert remote.get(scope, other).status == "active"


def test_client_and_rest_errors_change_nothing(remote: Client, srv: Server) -> None:
    scope = {**ME, "user": "rita-errors"}
    a, b = (remote.remember(scope, t).memory.id for t in TRIPLE[:2])
    remote.freeze(scope, b)
    before = remote.audit(scope)
    with pytest.raises(FrozenError):
        remote.merge(scope, [a, b])
    with pytest.raises(NotFoundError):
        remote.merge(scope, [a, "m_0000000000000000000000000000"])
    with pytest.raises(ConflictError):
        remote.unmerge(scope, a)
    with pytest.raises(ValidationError):
        remote.merge(scope, [a])  # refused before anything is sent
    with pytest.raises(ValidationError):
        remote.consolidate(scope, apply="yes")  # type: ignore[arg-type]
    assert srv.admin_key
    http = srv.client(srv.admin_key)
    r = http.post("/v1/merge", params={"user": "rita-errors"}, json={"ids": [a]})
    assert r.status_code == 422 and r.json()["code"] == "invalid_input"
    r = http.post(f"/v1/memories/{a}/split", params={"user": "rita-errors"},
                  json={"parts": "one string"})
    assert r.status_code == 422
    r = http.post("/v1/merge", params={"user": "rita-errors"}, json={"ids": [a, b]})
    assert r.status_code == 409 and r.json()["code"] == "frozen"
    http.close()
    assert remote.audit(scope) == before


def test_cli_merge_split_undo_consolidate(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")

    def cli(*args: str, code: int = 0) -> Any:
        res = CliRunner().invoke(cli_app, ["--db", db, "--tenant", "acme", "--user", "rita",
                                           "--json", *args])
        assert res.exit_code == code, res.output
        return json.loads(res.stdout) if code == 0 else res.output

    a, b, c = (cli("remember", t)["id"] for t in TRIPLE)
    merged = cli("merge", a, b, "--content", "Rita likes green tea", "--reason", "dupes")
    assert merged["metadata"]["merged_from"] == [f"{a}@1", f"{b}@1"]
    assert [m["id"] for m in cli("unmerge", merged["id"])] == [a, b]
    parts = cli("split", c, "--part", "Rita likes tea", "--part", "Rita likes green things")
    assert len(parts) == 2
    assert cli("unsplit", parts[0]["id"])["id"] == c
    assert "at least two" in cli("merge", a, code=1)
    assert "not made by a merge" in cli("unmerge", a, code=1)
    (group,) = cli("consolidate")
    assert sorted(group["ids"]) == sorted([a, b, c]) and group["proposal"]
    (applied,) = cli("consolidate", "--apply")
    assert applied["merged"]
    with Vault(db, embedder="use-m3") as v:
        assert v.get(ME, applied["merged"]).status == "active"
        assert {v.get(ME, i).status for i in (a, b, c)} == {"deleted"}


def test_mcp_merge_and_split(tmp_path: Path) -> None:
    db = tmp_path / "m.db"

    async def main() -> None:
        # The child imports this checkout's memvault (the SDK passes a minimal env).
        src = str(Path(memvault.__file__).parents[1])
        async with stdio_session(stdio_params(db, env={"PYTHONPATH": src})) as s:
            _, a = await call(s, "remember", content="Has a cat named Miso")
            _, b = await call(s, "remember", content="Works at the harbour office")
            err, m = await call(s, "merge", memory_ids=[a["id"], b["id"]])
            assert not err, m
            assert m["metadata"]["merged_from"] == [f"{a['id']}@1",
                                                                f"{b['id']}@1"]
            err, e = await call(s, "merge", memory_ids=[a["id"], b["id"]])
            assert err and e["error"]["code"] == "conflict"  # sources are forgotten now
            err, r = await call(s, "split", memory_id=m["id"],
                                parts=["Has a cat", "The cat is named Miso"])
            assert not err and len(r["memories"]) == 2

    run(main)

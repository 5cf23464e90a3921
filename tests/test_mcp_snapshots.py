"""The MCP snapshot tools (docs/snapshots.md, docs/mcp.md): snapshot_create, snapshot_list,
snapshot_diff and snapshot_restore of the server's user, over the real transports: a
`memvault mcp` process on stdio, and the HTTP endpoint with API keys, whose roles follow
the REST permission matrix (a reader lists and diffs; only an admin restores)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from _util import dump
from mcp.client.stdio import StdioServerParameters
from test_mcp import call, run, stdio_params, stdio_session
from test_mcp_http_auth import key, key_id, serving, session

import memvault
from memvault import Scope, Vault

ALICE = Scope("acme", "alice")
SNAP_TOOLS = {"snapshot_create", "snapshot_list", "snapshot_diff", "snapshot_restore"}


def _params(db: Path, env: dict[str, str] | None = None) -> StdioServerParameters:
    # The server process imports the memvault this process tests (the SDK gives a child
    # a minimal environment, without PYTHONPATH).
    src = str(Path(memvault.__file__).resolve().parents[1])
    return stdio_params(db, env={"PYTHONPATH": src, **(env or {})})


def _ids(entries: list[dict[str, Any]]) -> list[str]:
    return [e["memory_id"] for e in entries]


def test_stdio_create_change_diff_restore(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    got: dict[str, Any] = {}

    async def main() -> None:
        async with stdio_session(_params(db)) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert set(tools) >= SNAP_TOOLS
            assert tools["snapshot_restore"].annotations.destructive_hint is True
            assert tools["snapshot_diff"].annotations.read_only_hint is True
            assert tools["snapshot_diff"].input_schema["required"] == ["name"]

            _, fmt = await call(s, "remember", content="Reports as CSV",
                                slot="report.format", value="CSV")
            _, cat = await call(s, "remember", content="Has a cat named Miso")
            err, snap = await call(s, "snapshot_create", name="before", reason="a test")
            assert not err and (snap["name"], snap["user"], snap["kind"]) == (
                "before", "alice", "manual"), snap

            # Change the memory: a new version, a forget, a new memory.
            _, r = await call(s, "remember", content="Reports as XLSX",
                              slot="report.format", value="XLSX",
                              source_text="from now on send reports as XLSX")
            assert (r["action"], r["version"]) == ("updated", 2), r
            await call(s, "forget", memory_id=cat["id"], reason="moved out")
            _, new = await call(s, "remember", content="Works at the harbour office")

            err, d = await call(s, "snapshot_diff", name="before")
            assert not err and (d["from"], d["to"]) == ("before", None)
            assert _ids(d["added"]) == [new["id"]]
            assert _ids(d["removed"]) == [cat["id"]]
            assert _ids(d["changed"]) == [fmt["id"]]
            assert d["changed"][0]["fields"]["value"] == {"from": "CSV", "to": "XLSX"}

            # Bad names and unknown snapshots: tool errors with the core's code, and
            # nothing stored changes (no revision, no snapshot).
            before, listed = dump(db), await call(s, "snapshot_list")
            for tool, args, code in (
                    ("snapshot_create", {"name": "a/b"}, "invalid_input"),
                    ("snapshot_create", {"name": "two\nlines"}, "invalid_input"),
                    ("snapshot_create", {"name": "before"}, "conflict"),
                    ("snapshot_restore", {"name": "nope"}, "not_found"),
                    ("snapshot_restore", {"name": ""}, "invalid_input"),
                    ("snapshot_diff", {"name": "nope"}, "not_found"),
                    ("snapshot_diff", {"name": "before", "to": "before"}, "invalid_input")):
                err, r = await call(s, tool, **args)
                assert err and r["error"]["code"] == code, (tool, args, r)
            assert dump(db) == before
            assert await call(s, "snapshot_list") == listed

            err, out = await call(s, "snapshot_restore", name="before", reason="undo test")
            assert not err, out
            assert sorted(out["restored"]) == sorted([fmt["id"], cat["id"]])
            assert out["forgotten"] == [new["id"]] and out["skipped"] == []
            got["op"] = out["operation"]
            assert out["undo"] == f"before-restore-{out['operation']}"

            # The user's memory is at its snapshot state again: the diff names only the
            # new versions the restore wrote, with no field that differs.
            err, d = await call(s, "snapshot_diff", name="before")
            assert not err and (d["added"], d["removed"]) == ([], [])
            assert {(c["memory_id"], c["to_version"]) for c in d["changed"]} == {
                (fmt["id"], 3), (cat["id"], 3)}
            assert all(c["fields"] == {} for c in d["changed"]), d["changed"]
            _, m = await call(s, "get", memory_id=fmt["id"])
            assert (m["value"], m["version"], m["status"]) == ("CSV", 3, "active")
            _, m = await call(s, "get", memory_id=cat["id"])
            assert m["status"] == "active"
            _, m = await call(s, "get", memory_id=new["id"])
            assert m["status"] == "deleted"
            _, listed = await call(s, "snapshot_list")
            assert [(x["name"], x["kind"]) for x in listed["snapshots"]] == [
                ("before", "manual"), (out["undo"], "before-restore")]
            got["ids"] = {fmt["id"], cat["id"], new["id"]}

        # A server bound to one agent cannot take or restore a snapshot of the whole user.
        agent = _params(db, {"MEMVAULT_AGENT": "reporter"})
        async with stdio_session(agent) as s:
            for tool, args in (("snapshot_list", {}), ("snapshot_restore", {"name": "before"})):
                err, r = await call(s, tool, **args)
                assert err and r["error"]["code"] == "invalid_scope", (tool, r)

    run(main)
    # The audit shows one restore operation: three revisions, one reason, the MCP actor.
    with Vault(db) as v:
        mine = [r for r in v.audit(ALICE, limit=100) if "restore" in (r.reason or "")]
        assert {r.reason for r in mine} == {f"snapshot:before restore {got['op']}: undo test"}
        assert {r.memory_id for r in mine} == got["ids"]
        assert {(r.actor, r.actor_role) for r in mine} == {("mcp", "agent")}


def test_http_roles_gate_the_snapshot_tools(vault: Vault) -> None:
    m = vault.remember(ALICE, "alice drinks oolong tea", slot="drink", value="oolong")
    vault.snapshot("acme", "s1", user="alice")
    vault.remember(ALICE, "alice drinks coffee now", slot="drink", value="coffee")
    reader, user = key(vault, "reader", "alice"), key(vault, "user", "alice")
    service, admin = key(vault, "service"), key(vault, "admin")

    async def main() -> None:
        async with session(url, reader) as s:  # a reader lists and diffs, nothing more
            err, r = await call(s, "snapshot_list")
            assert not err and [x["name"] for x in r["snapshots"]] == ["s1"]
            err, d = await call(s, "snapshot_diff", name="s1")
            assert not err and _ids(d["changed"]) == [m.id]
            for tool in ("snapshot_create", "snapshot_restore"):
                err, r = await call(s, tool, name="s1")
                assert err and r["error"]["code"] == "forbidden", (tool, r)
        async with session(url, user) as s:  # the matrix gives a user key no snapshots
            for tool, args in (("snapshot_list", {}), ("snapshot_create", {"name": "u"})):
                err, r = await call(s, tool, **args)
                assert err and r["error"]["code"] == "forbidden", (tool, r)
        async with session(url, service, user="alice") as s:
            err, r = await call(s, "snapshot_create", name="s2")
            assert not err and (r["user"], r["created_by"]) == (
                "alice", f"service:{key_id(service)}"), r
            err, r = await call(s, "snapshot_restore", name="s1")
            assert err and r["error"]["code"] == "forbidden"
        async with session(url, service, user="bob") as s:  # another user's: not there
            err, r = await call(s, "snapshot_list")
            assert not err and r["snapshots"] == []
            err, r = await call(s, "snapshot_diff", name="s1")
            assert err and r["error"]["code"] == "not_found"
        async with session(url, admin, user="alice", agent="reporter") as s:
            err, r = await call(s, "snapshot_restore", name="s1")
            assert err and r["error"]["code"] == "invalid_scope"
        now = vault.get(ALICE, m.id)
        assert (now.value, now.version) == ("coffee", 2)  # no refusal changed anything
        async with session(url, admin, user="alice") as s:
            err, r = await call(s, "snapshot_restore", name="s1")
            assert not err and r["restored"] == [m.id], r

    with serving(vault) as url:
        anyio.run(main)
    now = vault.get(ALICE, m.id)
    assert (now.value, now.version) == ("oolong", 3)
    last = vault.history(ALICE, m.id)[-1]
    assert last.actor == f"admin:{key_id(admin)}" and last.reason.startswith("snapshot:s1 ")
    assert [x["name"] for x in vault.snapshots("acme", user="alice")][:2] == ["s1", "s2"]

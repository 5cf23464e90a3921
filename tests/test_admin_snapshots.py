"""The admin page's snapshots tab (docs/snapshots.md): take a snapshot of the picked user,
see what changed since in the page, restore it behind the confirmation dialog, drop it.
A real `memvault serve` and headless Chromium; every state change is checked through the
REST API too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from _admin import Tab
from _server import Server, new_key
from playwright.sync_api import Browser, expect

ALICE = {"user": "alice"}


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    d = tmp_path_factory.mktemp("adminsnapshots")
    s = Server(str(d / "s.db"), log=d / "server.log")
    yield s
    s.stop()


def _write(admin: httpx.Client, **body: Any) -> str:
    r = admin.post("/v1/memories", params=ALICE, json=body)
    assert r.status_code == 200, r.text
    return str(r.json()["id"])


def _mem(admin: httpx.Client, mid: str) -> tuple[Any, ...]:
    m = admin.get(f"/v1/memories/{mid}", params=ALICE).json()
    return (m["value"], m["status"], m["version"])


def _names(admin: httpx.Client) -> list[str]:
    return [s["name"] for s in admin.get("/v1/snapshots", params=ALICE).json()]


def test_take_diff_restore_and_drop_a_snapshot(browser: Browser, srv: Server,
                                               admin: httpx.Client) -> None:
    assert srv.admin_key
    fmt = _write(admin, content="Alice wants reports as CSV", slot="report.format",
                 value="CSV")
    tea = _write(admin, content="Alice drinks oolong tea")
    tab = Tab(browser, srv)
    p = tab.page
    tab.sign_in(srv.admin_key)
    tab.tab("snapshots")
    expect(p.locator("#snap-rows")).to_have_text("No snapshots yet.")
    # The whole tenant's snapshots are listed beside the user's; another user's are not.
    for params, name in (({}, "tenant-wide"), ({"user": "bob"}, "bobs")):
        r = admin.post("/v1/snapshots", params=params, json={"name": name})
        assert r.status_code == 201, r.text
    tab.tab("snapshots")
    expect(p.locator('#snap-rows tr[data-snap="tenant-wide"] td').nth(2)).to_have_text(
        "whole tenant")
    expect(p.locator('#snap-rows tr[data-snap="bobs"]')).to_have_count(0)

    p.fill("#snap-name", "before-change")
    p.click("#snap-create")
    expect(p.locator("#flash")).to_have_text("Snapshot before-change taken.")
    row = p.locator('#snap-rows tr[data-snap="before-change"]')
    expect(row.locator("td").nth(2)).to_have_text("user alice")
    expect(row.locator("td[data-kind]")).to_have_text("by hand")
    assert _names(admin) == ["before-change"]
    # A taken name is the API's conflict, shown on the page; nothing is added.
    p.fill("#snap-name", "before-change")
    p.click("#snap-create")
    expect(p.locator("#flash")).to_contain_text("Error: ")
    assert _names(admin) == ["before-change"]

    # Change the memory through the API: a new version, a forget, a new memory.
    assert _write(admin, content="Alice wants reports as XLSX", slot="report.format",
                  value="XLSX") == fmt
    r = admin.post(f"/v1/memories/{tea}/forget", params=ALICE, json={"reason": "stopped"})
    assert r.status_code == 200, r.text
    new = _write(admin, content="Alice works at the harbour office")
    changed = {fmt: _mem(admin, fmt), tea: _mem(admin, tea), new: _mem(admin, new)}
    assert changed[fmt] == ("XLSX", "active", 2)

    row.locator('button[data-act="diff"]').click()
    expect(p.locator("#sd-counts")).to_have_text("1 added, 1 removed, 1 changed")
    expect(p.locator(f'#sd-rows tr[data-change="added"][data-id="{new}"]')).to_contain_text(
        "Alice works at the harbour office")
    expect(p.locator(f'#sd-rows tr[data-change="removed"][data-id="{tea}"]')).to_contain_text(
        "Alice drinks oolong tea")
    expect(p.locator(f'#sd-rows tr[data-change="changed"][data-id="{fmt}"]')).to_contain_text(
        "Value: CSV → XLSX")

    # Restore asks for a reason, then asks first; neither refusal nor Cancel changes a thing.
    row.locator('button[data-act="restore"]').click()
    expect(p.locator("#flash")).to_have_text("A reason is required.")
    p.fill("#snap-reason", "undo the test change")
    row.locator('button[data-act="restore"]').click()
    dlg = p.locator("dialog#confirm")
    expect(dlg.locator("#c-title")).to_have_text("Restore snapshot before-change?")
    expect(dlg.locator("#c-body")).to_contain_text("The memory of user alice goes back")
    expect(dlg.locator("#c-reason")).to_have_text("Reason recorded: “undo the test change”")
    p.click("#c-cancel")
    expect(dlg).to_be_hidden()
    assert {m: _mem(admin, m) for m in changed} == changed
    assert _names(admin) == ["before-change"]

    row.locator('button[data-act="restore"]').click()
    p.click("#c-ok")
    expect(p.locator("#flash")).to_contain_text(
        "Restored before-change: 2 restored, 1 forgotten, 0 skipped.")
    # The memory is back at its snapshot state, each change a new version.
    assert _mem(admin, fmt) == ("CSV", "active", 3)
    assert _mem(admin, tea)[1:] == ("active", 3)
    assert _mem(admin, new)[1:] == ("deleted", 2)
    # The audit shows one restore operation: one reason (naming the snapshot and the
    # operation) on the three revisions it wrote, by the page's key.
    audit = admin.get("/v1/audit", params={**ALICE, "limit": 200}).json()
    ops = [a for a in audit if (a["reason"] or "").startswith("snapshot:before-change ")]
    assert {a["memory_id"] for a in ops} == {fmt, tea, new} and len(ops) == 3
    (reason,) = {a["reason"] for a in ops}
    assert reason.endswith(": undo the test change") and " restore " in reason
    op = reason.split(" restore ")[1].split(":")[0]
    # The undo point the restore took first is listed, as before a restore.
    undo = p.locator(f'#snap-rows tr[data-snap="before-restore-{op}"]')
    expect(undo.locator("td[data-kind]")).to_have_text("before a restore")
    assert _names(admin) == ["before-change", f"before-restore-{op}"]

    # Drop: asks first; the memories stay as they are.
    row.locator('button[data-act="drop"]').click()
    expect(p.locator("#c-title")).to_have_text("Drop snapshot before-change?")
    p.click("#c-ok")
    expect(p.locator("#flash")).to_have_text("Snapshot before-change dropped.")
    expect(row).to_have_count(0)
    assert _names(admin) == [f"before-restore-{op}"]
    assert _mem(admin, fmt) == ("CSV", "active", 3)

    tab.lang("zh")
    expect(p.locator('#tabs button[data-tab="snapshots"]')).to_have_text("快照")
    expect(undo.locator("td[data-kind]")).to_have_text("恢复前")
    tab.close()


def test_a_reader_sees_and_diffs_but_cannot_take_restore_or_drop(
        browser: Browser, srv: Server, admin: httpx.Client) -> None:
    r = admin.post("/v1/snapshots", params=ALICE, json={"name": "for-the-reader"})
    assert r.status_code == 201, r.text
    tab = Tab(browser, srv)
    p = tab.page
    tab.sign_in(new_key(admin, role="reader", user="alice"))
    tab.tab("snapshots")
    row = p.locator('#snap-rows tr[data-snap="for-the-reader"]')
    expect(row).to_be_visible()
    expect(p.locator("#snap-form")).to_be_hidden()
    expect(row.locator('button[data-act="restore"], button[data-act="drop"]')).to_have_count(0)
    row.locator('button[data-act="diff"]').click()
    expect(p.locator("#snap-diff")).to_be_visible()
    tab.close()

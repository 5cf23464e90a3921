"""The admin page's merge: pick memories in the list, "merge selected", see the
merged_from links in the drawer, undo the merge there. A real `memvault serve` and
headless Chromium; every state change is checked through the REST API too."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from _admin import Tab
from _server import Server
from playwright.sync_api import Browser, expect

ALICE = {"user": "alice"}


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    d = tmp_path_factory.mktemp("adminmerge")
    s = Server(str(d / "s.db"), log=d / "server.log")
    yield s
    s.stop()


def _add(admin: httpx.Client, content: str) -> str:
    r = admin.post("/v1/memories", params=ALICE, json={"content": content})
    assert r.status_code == 200, r.text
    return str(r.json()["id"])


def test_merge_selected_links_and_undo(browser: Browser, srv: Server,
                                       admin: httpx.Client) -> None:
    assert srv.admin_key
    a, b = _add(admin, "Alice likes green tea"), _add(admin, "alice likes green tea.")
    other = _add(admin, "Alice plays chess")
    tab = Tab(browser, srv)
    p = tab.page
    tab.sign_in(srv.admin_key)
    expect(p.locator("#merge-selected")).to_be_disabled()
    p.locator(f'#mem-rows input[data-pick="{a}"]').check()
    expect(p.locator("#merge-selected")).to_be_disabled()  # one is not a merge
    p.locator(f'#mem-rows input[data-pick="{b}"]').check()
    expect(p.locator("#merge-count")).to_have_text("2 selected")
    expect(p.locator("#drawer")).to_be_hidden()  # picking does not open the drawer
    p.click("#merge-selected")  # no reason yet: refused on the page, nothing sent
    assert admin.get(f"/v1/memories/{a}", params=ALICE).json()["status"] == "active"
    p.fill("#merge-reason", "same statement")
    p.click("#merge-selected")

    # The merged memory opens in the drawer with links to its sources.
    links = p.locator('#d-links p[data-link="merged_from"]')
    expect(links.locator(f'button[data-open="{a}"]')).to_be_visible()
    expect(links.locator(f'button[data-open="{b}"]')).to_be_visible()
    merged = p.locator('#drawer dd[data-field="id"]').inner_text().strip()
    m = admin.get(f"/v1/memories/{merged}", params=ALICE).json()
    assert m["metadata"]["merged_from"] == [f"{a}@1", f"{b}@1"]
    assert {admin.get(f"/v1/memories/{i}", params=ALICE).json()["status"]
            for i in (a, b)} == {"deleted"}
    assert admin.get(f"/v1/memories/{other}", params=ALICE).json()["status"] == "active"

    # Undo, with the reason the governance verbs ask for.
    p.fill("#d-reason", "not the same after all")
    p.click("#d-unmerge")
    expect(p.locator("#d-msg")).to_have_text("Undone: the sources are back.")
    assert {admin.get(f"/v1/memories/{i}", params=ALICE).json()["status"]
            for i in (a, b)} == {"active"}
    assert admin.get(f"/v1/memories/{merged}", params=ALICE).json()["status"] == "deleted"
    tab.close()

"""The admin page as a product: the profile view, the conflicts view, the confirmations
before rollback / forget / purge, the narrow (420 px) layout, human dates with the exact
value on hover, the user preselected from /v1/users, and Chinese mode (values translated,
CJK glyphs really drawn). A real `memvault serve` and Debian's headless Chromium, one of
each for the module; every state change is checked through the REST API too.
Screenshots of each screen, in English and Chinese, desktop and 420 px wide, go to
test-artifacts/admin/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from _admin import PIXELS, TANGUT, Tab
from _server import Server, tenant_admin_key
from playwright.sync_api import Browser, Page, expect

ALICE = {"user": "alice"}
HUMAN_EN = re.compile(r"^\d{1,2} [A-Z][a-z]{2,3} \d{4}, \d{2}:\d{2}$")  # 2 Dec 2026, 04:12
HUMAN_ZH = re.compile(r"^\d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}$")


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    d = tmp_path_factory.mktemp("views")
    s = Server(str(d / "s.db"), log=d / "server.log")
    yield s
    s.stop()


def _post(admin: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = admin.post(path, params=ALICE, json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _get(admin: httpx.Client, mid: str) -> dict[str, Any]:
    r = admin.get(f"/v1/memories/{mid}", params=ALICE)
    assert r.status_code == 200, r.text
    return dict(r.json())


@pytest.fixture(scope="module")
def seeded(admin: httpx.Client) -> dict[str, str]:
    fmt = _post(admin, "/v1/memories", {"slot": "report.format", "value": "XLSX",
                                        "kind": "preference",
                                        "content": "Alice wants reports as XLSX"})
    city = _post(admin, "/v1/memories", {"slot": "home.city", "value": "上海",
                                         "kind": "fact", "content": "爱丽丝住在上海"})
    _post(admin, f"/v1/memories/{city['memory']['id']}/freeze", {"reason": "confirmed"})
    cafe = _post(admin, "/v1/memories", {"content": "Alice works best in quiet cafes",
                                         "topic": "work places"})
    tea = _post(admin, "/v1/memories", {"content": "Alice drinks oolong tea every morning"})
    # A real conflict: an inferred statement against the user's own stored value. The
    # gate stages it (conflict_not_explicit, source_outranked) instead of applying it.
    out = _post(admin, "/v1/propose", {"content": "Alice wants reports as PDF",
                                       "slot": "report.format", "value": "PDF",
                                       "kind": "preference", "source": "system_inferred",
                                       "confidence": 0.9})
    assert out["action"] == "stage" and "conflict_not_explicit" in out["reasons"], out
    admin.post("/v1/memories", params={"user": "bob"}, json={"content": "bob's memory"})
    return {"fmt": fmt["memory"]["id"], "city": city["memory"]["id"],
            "cafe": cafe["memory"]["id"], "tea": tea["memory"]["id"],
            "conflict": out["memory_id"]}


@pytest.fixture
def tab(browser: Browser, srv: Server) -> Iterator[Tab]:
    t = Tab(browser, srv)
    yield t
    t.close()


@pytest.fixture
def narrow(browser: Browser, srv: Server) -> Iterator[Tab]:
    t = Tab(browser, srv, width=420)
    yield t
    t.close()


def _assert_cjk_drawn(page: Page, selector: str, chars: str) -> None:
    """The element's text is drawn with a CJK font (DevTools: the platform fonts used for
    the node) and each character draws a glyph, unlike the missing-glyph box and unlike
    each other (the method of tests/test_admin_fonts.py)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    assert any("CJK" in f["familyName"] and f["glyphCount"] > 0 for f in fonts), fonts
    el = page.locator(selector).first.element_handle()
    out = page.evaluate(PIXELS, [el, [*chars, TANGUT]])
    *glyphs, control = out["glyphs"]
    assert control == out["notdef"]  # the method's own control: no font has Tangut
    for g in glyphs:
        assert "1" in g and g != out["notdef"], (selector, out["font"])
    assert len(set(glyphs)) == len(glyphs)


# --- the user picker and dates ---------------------------------------------------------

def test_user_is_preselected_and_a_missing_user_is_said_once(
        tab: Tab, browser: Browser, srv: Server, admin: httpx.Client,
        seeded: dict[str, str]) -> None:
    assert srv.admin_key
    p = tab.page
    tab.sign_in(srv.admin_key)  # no user typed
    users = admin.get("/v1/users").json()["users"]
    assert users[0] == "alice" and "bob" in users
    expect(p.locator("#user")).to_have_value(users[0])
    expect(p.locator("#current-user")).to_have_text(f"Working on user: {users[0]}")
    expect(p.locator("#mem-rows tr")).to_have_count(
        len(admin.get("/v1/memories", params=ALICE).json()["items"]))

    # A tenant with no user yet: the page says "pick a user" once, not twice.
    other = Tab(browser, srv)
    try:
        other.sign_in(tenant_admin_key(srv.db, "emptyco"))
        expect(other.page.locator("#flash")).to_have_text("Pick a user first.")
        body = other.page.locator("body").inner_text()
        assert body.count("Pick a user first.") == 1, body
        expect(other.page.locator("#user")).to_have_value("")
    finally:
        other.close()


def test_dates_are_human_with_the_exact_value_on_hover(
        tab: Tab, srv: Server, admin: httpx.Client, seeded: dict[str, str]) -> None:
    assert srv.admin_key
    p = tab.page
    tab.sign_in(srv.admin_key)
    tea = _get(admin, seeded["tea"])
    cell = p.locator(f'#mem-rows tr[data-id="{tea["id"]}"] time')
    iso = datetime.fromtimestamp(tea["updated_at"] / 1000, UTC).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")
    expect(cell).to_have_attribute("datetime", iso)
    expect(cell).to_have_attribute("title", f"{iso} (epoch ms {tea['updated_at']})")
    assert HUMAN_EN.match(cell.inner_text()), cell.inner_text()

    # The drawer: every time in the one format, no epoch number shown as text.
    p.locator(f'#mem-rows tr[data-id="{tea["id"]}"]').click()
    d = p.locator("#drawer")
    created = d.locator('dd[data-field="created_at"] time')
    assert HUMAN_EN.match(created.inner_text()), created.inner_text()
    expect(created).to_have_attribute("title", re.compile(str(tea["created_at"])))
    assert str(tea["created_at"]) not in d.inner_text()
    # Ids are hex with a time prefix, which can be all digits: only the rest is checked.
    assert not re.search(r"\d{13}", re.sub(r"\b[a-z]{1,3}_[0-9a-f]{28}\b", "",
                                            d.inner_text()))
    # Scope and provenance as fields, not a JSON blob.
    scope = d.locator('dd[data-field="scope"]')
    expect(scope.locator('dd[data-sub="tenant"]')).to_have_text("acme")
    expect(scope.locator('dd[data-sub="user"]')).to_have_text("alice")
    assert "{" not in scope.inner_text()
    expect(d.locator('dd[data-field="source"]')).to_have_text("user said so")

    tab.lang("zh")
    assert HUMAN_ZH.match(created.inner_text()), created.inner_text()
    expect(d.locator('dd[data-field="source"]')).to_have_text("用户明确陈述")
    expect(d.locator('dd[data-field="status"]')).to_have_text("生效中")
    expect(d.locator('dd[data-field="kind"]')).to_have_text("事实")
    expect(scope.locator('dt').first).to_have_text("租户")
    tab.shot("drawer-fields-zh")
    tab.lang("en")


# --- the profile view ------------------------------------------------------------------

def test_profile_view_shows_current_beliefs(tab: Tab, srv: Server, admin: httpx.Client,
                                            seeded: dict[str, str]) -> None:
    assert srv.admin_key
    p = tab.page
    tab.sign_in(srv.admin_key)
    tab.tab("profile")
    prof = admin.get("/v1/profile", params=ALICE).json()
    assert set(prof) == {"report.format", "home.city"}  # the staged PDF is not believed
    rows = p.locator("#prof-slots tr")
    expect(rows).to_have_count(len(prof))
    fmt = p.locator('#prof-slots tr[data-slot="report.format"]')
    expect(fmt).to_contain_text("XLSX")
    expect(fmt).not_to_contain_text("PDF")
    expect(fmt).to_contain_text("user said so")
    expect(fmt.locator('td[data-key="frozen"]')).to_have_text("no")
    since = fmt.locator("time")
    assert HUMAN_EN.match(since.inner_text())
    expect(since).to_have_attribute("title", re.compile(str(prof["report.format"]["since"])))
    city = p.locator('#prof-slots tr[data-slot="home.city"]')
    expect(city).to_contain_text("上海")
    assert prof["home.city"]["frozen"] is True
    expect(city.locator('td[data-key="frozen"] .badge')).to_have_text("frozen")
    topic = p.locator('#prof-topics tr[data-topic="work places"]')
    expect(topic).to_contain_text("Alice works best in quiet cafes")
    active = admin.get("/v1/memories", params={**ALICE, "status": "active"}).json()["items"]
    topics = {m["id"] for m in active if m["topic"] and not m["slot"]}
    assert seeded["cafe"] in topics and seeded["fmt"] not in topics
    assert set(p.locator("#prof-topics tr").evaluate_all(
        "rs => rs.map(r => r.dataset.id)")) == topics  # topic memories, no slot values
    tab.shot("profile")

    # A row opens the memory behind the belief.
    fmt.click()
    expect(p.locator('#drawer dd[data-field="id"]')).to_have_text(seeded["fmt"])
    p.click("#d-close")

    tab.lang("zh")
    expect(p.locator('#tabs button[data-tab="profile"]')).to_have_text("用户画像")
    expect(p.locator("#prof-slot-table th").nth(2)).to_have_text("起始时间")
    expect(fmt).to_contain_text("用户明确陈述")
    expect(fmt.locator('td[data-key="frozen"]')).to_have_text("否")
    expect(city.locator('td[data-key="frozen"] .badge')).to_have_text("已冻结")
    assert HUMAN_ZH.match(since.inner_text())
    _assert_cjk_drawn(p, '#prof-slot-table th:nth-child(3)', "起始时间")
    _assert_cjk_drawn(p, '#prof-slots tr[data-slot="home.city"] td.content strong', "上海")
    tab.shot("profile-zh")


# --- the conflicts view ----------------------------------------------------------------

def test_conflicts_view_shows_both_sides_and_resolves(
        tab: Tab, srv: Server, admin: httpx.Client, seeded: dict[str, str]) -> None:
    assert srv.admin_key
    p, cid, fmt = tab.page, seeded["conflict"], seeded["fmt"]
    show = admin.get(f"/v1/review/{cid}", params=ALICE).json()
    assert [m["id"] for m in show["linked"]] == [fmt]
    tab.sign_in(srv.admin_key)
    tab.tab("conflicts")
    card = p.locator(f'#conflict-list li[data-id="{cid}"]')
    expect(card).to_be_visible()
    expect(p.locator("#conflict-list li")).to_have_count(1)
    expect(card.locator("h3")).to_have_text("report.format")
    stored = card.locator('[data-side="stored"]')
    proposed = card.locator('[data-side="proposed"]')
    expect(stored).to_have_attribute("data-id", fmt)
    expect(stored).to_contain_text("XLSX")
    expect(stored).to_contain_text("user said so")
    expect(proposed).to_contain_text("PDF")
    expect(proposed).to_contain_text("inferred")
    expect(card.locator(".reasons")).to_contain_text(
        "contradicts a stored memory; not the user's own words")
    tab.shot("conflicts")

    tab.lang("zh")
    expect(p.locator('#tabs button[data-tab="conflicts"]')).to_have_text("冲突")
    expect(stored.locator("h4")).to_have_text("现有记忆")
    expect(proposed.locator("h4")).to_have_text("提议内容")
    expect(proposed).to_contain_text("系统推断")
    expect(proposed).to_contain_text("待审核")
    expect(card.locator(".reasons")).to_contain_text("与现有记忆矛盾")
    _assert_cjk_drawn(p, f'#conflict-list li[data-id="{cid}"] [data-side="stored"] h4',
                      "现有记忆")
    tab.shot("conflicts-zh")
    tab.lang("en")

    # Keep the stored value: needs a reason; then the candidate is rejected, XLSX stays.
    card.locator('button[data-act="reject"]').click()
    expect(card.locator("p.error")).to_have_text("A reason is required.")
    assert _get(admin, cid)["status"] == "pending"
    card.locator("input.reason").fill("the user never said PDF")
    card.locator('button[data-act="reject"]').click()
    expect(p.locator("#flash")).to_have_text(f"Rejected {cid}.")
    expect(p.locator("#conflict-list li")).to_have_count(0)
    expect(p.locator("#conflict-empty")).to_be_visible()
    assert _get(admin, cid)["status"] == "rejected"
    assert admin.get("/v1/profile", params=ALICE).json()["report.format"]["value"] == "XLSX"


# --- confirmations ---------------------------------------------------------------------

def _dialog(p: Page, title: str, says: list[str], *, ok: bool) -> None:
    dlg = p.locator("dialog#confirm")
    expect(dlg).to_be_visible()
    assert p.evaluate("document.getElementById('confirm').open") is True  # modal
    expect(dlg.locator("#c-title")).to_have_text(title)
    for s in says:
        assert s in dlg.inner_text(), (s, dlg.inner_text())
    p.click("#c-ok" if ok else "#c-cancel")
    expect(dlg).to_be_hidden()


def _state(admin: httpx.Client, mid: str) -> tuple[Any, ...]:
    m = _get(admin, mid)
    n = len(admin.get(f"/v1/memories/{mid}/history", params=ALICE).json())
    return (m["version"], m["status"], m["content"], n)


def test_rollback_forget_purge_ask_first(tab: Tab, srv: Server, admin: httpx.Client,
                                         seeded: dict[str, str]) -> None:
    assert srv.admin_key
    p = tab.page
    mid = _post(admin, "/v1/memories", {"content": "Alice's badge number is 4711"})["memory"]["id"]
    r = admin.patch(f"/v1/memories/{mid}", params=ALICE,
                    json={"content": "Alice's badge number is 4712", "reason": "typo"})
    assert r.status_code == 200
    tab.sign_in(srv.admin_key)
    p.locator(f'#mem-rows tr[data-id="{mid}"]').click()
    expect(p.locator('#drawer dd[data-field="version"]')).to_have_text("2")
    # The diff names values as the page does elsewhere (not user_explicit / admin_manual).
    expect(p.locator('#diff-rows tr[data-field="source"] td.from')).to_have_text(
        "user said so")
    expect(p.locator('#diff-rows tr[data-field="source"] td.to')).to_have_text(
        "admin, by hand")
    before = _state(admin, mid)

    # Rollback: the dialog names the versions and both contents; Cancel changes nothing.
    p.fill("#d-reason", "check the rollback")
    p.click('button[data-rollback="1"]')
    _dialog(p, "Roll back to version 1?",
            ["new version 3", "“Alice's badge number is 4711”",
             "Version 2 (“Alice's badge number is 4712”)",
             "Reason recorded: “check the rollback”"], ok=False)
    assert _state(admin, mid) == before
    expect(p.locator("#d-msg")).to_have_text("")

    # Forget: Cancel (and Escape) change nothing; confirming marks it deleted.
    p.click("#d-forget")
    _dialog(p, "Forget this memory?", ["becomes version 3 with status deleted",
                                       "a rollback brings it back"], ok=False)
    assert _state(admin, mid) == before
    p.click("#d-forget")
    expect(p.locator("dialog#confirm")).to_be_visible()
    p.keyboard.press("Escape")
    expect(p.locator("dialog#confirm")).to_be_hidden()
    assert _state(admin, mid) == before
    p.click("#d-forget")
    tab.shot("confirm-forget")
    _dialog(p, "Forget this memory?", ["Alice's badge number is 4712"], ok=True)
    expect(p.locator("#d-msg")).to_have_text("Forgotten (version 3).")
    m = _get(admin, mid)
    assert (m["status"], m["version"]) == ("deleted", 3)
    last = admin.get(f"/v1/memories/{mid}/history", params=ALICE).json()[-1]
    assert (last["op"], last["reason"]) == ("delete", "check the rollback")

    # Purge: says it cannot be undone; Cancel keeps the content, confirming erases it.
    p.fill("#d-reason", "the user asked for erasure")
    tab.lang("zh")
    p.click("#d-purge")
    expect(p.locator("#c-title")).to_have_text("彻底删除这条记忆？")
    expect(p.locator("#c-body")).to_contain_text("此操作无法撤销")
    _assert_cjk_drawn(p, "#c-title", "彻底删除")
    tab.shot("confirm-purge-zh")
    p.click("#c-cancel")
    tab.lang("en")
    assert _get(admin, mid)["content"] == "Alice's badge number is 4712"
    p.click("#d-purge")
    _dialog(p, "Purge this memory for good?",
            ["erased from all 3 versions", "This cannot be undone."], ok=True)
    expect(p.locator("#flash")).to_contain_text(f"Purged {mid}")
    expect(p.locator("#drawer")).to_be_hidden()
    assert admin.get(f"/v1/memories/{mid}/purge", params=ALICE).status_code == 200
    gone = admin.get(f"/v1/memories/{mid}", params=ALICE)
    assert gone.status_code == 404 or "4712" not in gone.text
    hist = admin.get(f"/v1/memories/{mid}/history", params=ALICE)
    assert "4712" not in hist.text and "4711" not in hist.text


# --- narrow layout ---------------------------------------------------------------------

def _no_overflow(p: Page) -> None:
    width = p.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 420, width
    _drawer_fits(p)


def _drawer_fits(p: Page) -> None:
    """An open drawer never scrolls sideways: its history table (long actor ids, the
    rollback buttons) wraps inside it."""
    over = p.evaluate("(() => { const d = document.getElementById('drawer');"
                      " return d && !d.hidden ? d.scrollWidth - d.clientWidth : 0; })()")
    assert over <= 0, f"the drawer overflows by {over}px"


def test_every_screen_fits_420_px(narrow: Tab, srv: Server, admin: httpx.Client,
                                  seeded: dict[str, str]) -> None:
    assert srv.admin_key
    p = narrow.page
    _no_overflow(p)  # the sign-in screen
    # A conflict to show (the conflicts test resolved the first one).
    out = _post(admin, "/v1/propose", {"content": "Alice wants reports as CSV",
                                       "slot": "report.format", "value": "CSV",
                                       "kind": "preference", "source": "system_inferred",
                                       "confidence": 0.9})
    assert out["action"] == "stage", out
    admin.post("/v1/recall", params=ALICE, json={"query": "what tea does Alice drink"})
    narrow.sign_in(srv.admin_key)
    expect(p.locator("#mem-rows tr").first).to_be_visible()
    # Rows are cards: no header row, each cell under its column's name.
    assert p.locator("#mem-table thead").is_hidden()
    first = p.locator("#mem-rows tr").first.locator("td").nth(3)
    expect(first).to_have_attribute("data-label", "Status")
    for lang in ("en", "zh"):
        narrow.lang(lang)
        suffix = "" if lang == "en" else "-zh"
        for name in ("memories", "profile", "conflicts", "review", "audit", "traces"):
            narrow.tab(name)
            expect(p.locator(f"#tab-{name}")).to_be_visible()
            p.wait_for_load_state("networkidle")
            if name == "conflicts":
                expect(p.locator(f'#conflict-list li[data-id="{out["memory_id"]}"]')
                       ).to_be_visible()
            _no_overflow(p)
            narrow.shot(f"narrow-{name}{suffix}")
        p.locator("#trace-rows tr").first.click()
        expect(p.locator("#trace-detail")).to_be_visible()
        p.wait_for_load_state("networkidle")
        _no_overflow(p)
        narrow.shot(f"narrow-trace{suffix}")
        narrow.tab("memories")
        p.locator(f'#mem-rows tr[data-id="{seeded["tea"]}"]').click()
        expect(p.locator("#drawer")).to_be_visible()
        _no_overflow(p)
        box = p.locator("#drawer").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 420
        narrow.shot(f"narrow-drawer{suffix}", full=False)
        p.click("#d-close")
    expect(p.locator("#mem-table td[data-label]").first).to_have_attribute(
        "data-label", "内容")
    _assert_cjk_drawn(p, '#tabs button[data-tab="profile"]', "用户画像")

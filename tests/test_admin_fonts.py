"""Chinese memory content renders as glyphs, not tofu, in the admin page: a real
`memvault serve`, Debian's headless Chromium, and a font of the page's stack that covers
CJK (Debian's fonts-noto-cjk, which .ci/run installs). Two checks on the rendered page:
which platform font Chromium drew the row's text with (DevTools CSS.getPlatformFontsForNode),
and the pixels: each character drawn in the cell's font differs from the missing-glyph box
and from the other character (tofu boxes are all alike)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _admin import PIXELS, TANGUT
from _server import Server
from playwright.sync_api import Browser, Page, expect

CSS = Path(__file__).resolve().parent.parent / "src" / "memvault" / "server" / "ui" / "app.css"
CHINESE = "记忆：爱丽丝每天早上喝乌龙茶"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    d = tmp_path_factory.mktemp("fonts")
    s = Server(str(d / "s.db"), log=d / "server.log")
    yield s
    s.stop()


def _page_with_row(browser: Browser, srv: Server) -> tuple[Page, str]:
    assert srv.admin_key
    with srv.client(srv.admin_key) as admin:
        r = admin.post("/v1/memories", params={"user": "alice"}, json={"content": CHINESE})
        assert r.status_code == 200, r.text
        mid = str(r.json()["id"])
    ctx = browser.new_context(viewport={"width": 1400, "height": 900}, locale="zh-CN")
    p = ctx.new_page()
    p.set_default_timeout(10_000)
    p.goto(srv.url + "/admin/")
    p.fill("#key", srv.admin_key)
    p.click("#signin-btn")
    expect(p.locator("#app")).to_be_visible()
    p.fill("#user", "alice")
    p.click("#user-go")
    cell = p.locator(f'#mem-rows tr[data-id="{mid}"] td.content')
    expect(cell).to_have_text(CHINESE)
    return p, f'#mem-rows tr[data-id="{mid}"] td.content'


def test_the_font_stack_names_cjk_fonts() -> None:
    css = CSS.read_text(encoding="utf-8")
    for family in ('"Noto Sans CJK SC"', '"Noto Sans CJK TC"', '"Noto Sans CJK JP"',
                   '"Microsoft YaHei"', '"PingFang SC"'):
        assert family in css, family


def test_chinese_memory_renders_with_a_cjk_font(browser: Browser, srv: Server) -> None:
    page, sel = _page_with_row(browser, srv)
    try:
        # Which fonts Chromium actually drew the cell's text with.
        cdp = page.context.new_cdp_session(page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": sel})["nodeId"]
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        cjk = [f for f in fonts if "CJK" in f["familyName"]]
        assert cjk, fonts
        assert sum(f["glyphCount"] for f in cjk) >= len(CHINESE) - 1, fonts  # ： may differ

        # And the pixels: real glyphs, each unlike the notdef box and unlike each other.
        el = page.locator(sel).element_handle()
        out = page.evaluate(PIXELS, [el, ["记", "忆", TANGUT]])
        ji, yi, tangut = out["glyphs"]
        assert "1" in out["notdef"]  # the missing-glyph box has ink
        assert tangut == out["notdef"], "the control should draw the missing-glyph box"
        assert ji != out["notdef"] and yi != out["notdef"], out["font"]
        assert ji != yi and "1" in ji and "1" in yi
    finally:
        page.context.close()


def test_the_page_loads_no_font_from_elsewhere(srv: Server) -> None:
    css = httpx.get(srv.url + "/admin/app.css").text
    assert "@font-face" not in css and "url(" not in css

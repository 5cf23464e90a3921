"""What the admin-page tests share (test_admin_*.py): where screenshots go, a browser tab
on the admin page, and the glyph check of CJK text. The browser itself is conftest's
`browser` fixture (one Chromium per module); each module starts its own server."""

from __future__ import annotations

from pathlib import Path

from _server import Server
from playwright.sync_api import Browser, Page, expect

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "admin"
TANGUT = "\U00017000"  # no installed font has Tangut: the method's own control

# Drawn in the font of `el`, each character's alpha pixels; the notdef box for comparison.
PIXELS = """([el, chars]) => {
  const cs = getComputedStyle(el);
  const font = `${cs.fontSize} ${cs.fontFamily}`;
  const draw = (ch) => {
    const c = document.createElement("canvas");
    c.width = 48; c.height = 48;
    const x = c.getContext("2d");
    x.font = font; x.textBaseline = "top"; x.fillStyle = "#000";
    x.fillText(ch, 4, 4);
    const d = x.getImageData(0, 0, 48, 48).data;
    let s = "";
    for (let i = 3; i < d.length; i += 4) s += d[i] > 127 ? "1" : "0";
    return s;
  };
  return {font, notdef: draw("\\u0378"), glyphs: chars.map(draw)};
}"""


class Tab:
    """One browser context on the admin page, failing on any script error."""

    def __init__(self, browser: Browser, srv: Server, width: int = 1280) -> None:
        self.ctx = browser.new_context(viewport={"width": width, "height": 900},
                                       locale="en-US", timezone_id="UTC")
        self.page: Page = self.ctx.new_page()
        self.page.set_default_timeout(10_000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(srv.url + "/admin/")

    def sign_in(self, key: str) -> None:
        self.page.fill("#key", key)
        self.page.click("#signin-btn")
        expect(self.page.locator("#app")).to_be_visible()

    def tab(self, name: str) -> None:
        self.page.click(f'#tabs button[data-tab="{name}"]')

    def lang(self, lang: str) -> None:
        self.page.select_option("#lang", lang)

    def shot(self, name: str, *, full: bool = True) -> None:
        # full=False for the drawer: it is fixed to the viewport and scrolls inside.
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=full)

    def close(self) -> None:
        assert self.errors == [], self.errors
        self.ctx.close()

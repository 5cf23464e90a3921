"""The API docs (/docs, Swagger UI) render with no network but loopback:
a real `memvault serve` and a real headless Chromium (Debian's) in which every request to
a host other than the server's loopback address is aborted and recorded, and host names
resolve to nothing (so nothing external could load even around the request hook)."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from _browser import chromium
from _server import Server
from playwright.sync_api import Browser, Page, Route, expect

LOOPBACK = {"127.0.0.1"}
OPERATIONS = ["/v1/recall", "/v1/context", "/v1/observe", "/v1/memories/{memory_id}/rollback"]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    d = tmp_path_factory.mktemp("docs")
    s = Server(str(d / "s.db"), log=d / "server.log")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # The offline condition for every external host: no name resolves, loopback stays.
    with chromium("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1") as b:
        yield b


class Offline:
    """A page whose requests are all recorded; those leaving loopback are aborted."""

    def __init__(self, browser: Browser) -> None:
        self.ctx = browser.new_context(service_workers="block")
        self.requested: list[str] = []
        self.external: list[str] = []
        self.ctx.route("**/*", self._route)
        self.page: Page = self.ctx.new_page()
        self.page.set_default_timeout(15_000)
        self.page.on("request", lambda r: self.requested.append(r.url))

    def _route(self, route: Route) -> None:
        url = route.request.url
        scheme, host = urlsplit(url).scheme, urlsplit(url).hostname
        if scheme in ("data", "blob") or (scheme in ("http", "https") and host in LOOPBACK):
            route.continue_()
        else:
            self.external.append(url)
            route.abort("internetdisconnected")

    def close(self) -> None:
        self.ctx.close()


@pytest.fixture
def offline(browser: Browser) -> Iterator[Offline]:
    o = Offline(browser)
    yield o
    o.close()


def _paths(srv: Server) -> list[str]:
    return list(httpx.get(srv.url + "/openapi.json").json()["paths"])


def test_operations_in_the_schema(srv: Server) -> None:
    paths = _paths(srv)
    for op in OPERATIONS:
        assert op in paths, op


def test_swagger_ui_renders_offline(srv: Server, offline: Offline) -> None:
    p = offline.page
    p.goto(srv.url + "/docs")
    for op in OPERATIONS:
        expect(p.locator(f'.opblock-summary-path[data-path="{op}"]').first).to_be_visible()
    # Every operation of the schema is listed, not only a few.
    rendered = set(p.eval_on_selector_all(".opblock-summary-path",
                                          "els => els.map(e => e.dataset.path)"))
    assert set(_paths(srv)) <= rendered
    assert offline.requested, "the page made no request at all"
    assert offline.external == [], offline.external
    for url in offline.requested:
        assert urlsplit(url).scheme in ("data", "blob") \
            or urlsplit(url).hostname in LOOPBACK, url


def test_docs_assets_are_served_by_this_server(srv: Server) -> None:
    html = httpx.get(srv.url + "/docs").text
    assert "cdn.jsdelivr.net" not in html and "unpkg.com" not in html
    assert "fastapi.tiangolo.com" not in html  # not even the favicon
    # No /redoc: ReDoc loads its logo from cdn.redoc.ly even with local assets.
    assert httpx.get(srv.url + "/redoc").status_code == 404

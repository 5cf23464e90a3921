"""Debian's Chromium under Playwright, for the tests that look at pages (admin page, /docs,
fonts). CI installs the browser (.ci/run); a missing one is a broken setup, not a skip,
and Playwright never downloads a browser of its own."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextmanager
def chromium(*extra_args: str) -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's `chromium` package "
                    "(the page tests drive it; never `playwright install`)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=[*ARGS, *extra_args],
                               headless=True)
        try:
            yield b
        finally:
            b.close()

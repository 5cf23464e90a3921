"""A newcomer's first hour, end to end, from an empty HOME with the installed `memvault`
command and no --db anywhere: the Quick start's `memvault --tenant acme serve`, then
`memvault keys create --tenant acme --role service`, then the README's CLI examples, then
the same memories through REST with the new key and in the admin page (Chromium). Every
step lands in one store and one tenant, and each face sees what the others wrote."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from _browser import chromium
from _server import KEY_PREFIX, free_port
from playwright.sync_api import expect

BIN = Path(sys.executable).parent / "memvault"
ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "newcomer"


def _env(home: Path) -> dict[str, str]:
    """The process environment of a user who never configured memvault."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MEMVAULT_", "XDG_"))}
    return {**env, "HOME": str(home), "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}


class Newcomer:
    def __init__(self, home: Path) -> None:
        self.home, self.env = home, _env(home)

    def cli(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        run = subprocess.run([str(BIN), *args], env=self.env, input=stdin,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, (args, run.stdout, run.stderr)
        return run

    def cli_json(self, *args: str) -> Any:
        return json.loads(self.cli(*args, "--json").stdout)


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not BIN.exists():
        pytest.fail(f"{BIN} is missing: the package's console script was not installed")
    home = tmp_path_factory.mktemp("home")
    assert list(home.iterdir()) == []  # an empty HOME
    who = Newcomer(home)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(home.parent / "serve.log", "wb")  # noqa: SIM115 - closed below
    # The Quick start's command, with a free port instead of 8765.
    proc = subprocess.Popen([str(BIN), "--tenant", "acme", "serve", "--port", str(port),
                             "--sweep-interval", "0"], env=who.env,
                            stdout=subprocess.PIPE, stderr=log)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, f"serve exited with {proc.returncode}"
            assert time.monotonic() < deadline, "serve did not start"
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        os.set_blocking(proc.stdout.fileno(), False)  # type: ignore[union-attr]
        printed = (proc.stdout.read() or b"").decode()  # type: ignore[union-attr]
        yield who, url, printed
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()
        log.close()


@pytest.fixture(scope="module")
def journey(newcomer: Any) -> dict[str, Any]:
    """The CLI half of the journey; the tests below look at it from every face."""
    who, url, printed = newcomer
    # serve made its store in the user data dir under the empty HOME, and said for which
    # tenant its key is.
    stores = list(who.home.rglob("memvault.db"))
    assert len(stores) == 1, stores
    assert "tenant 'acme'" in printed, printed
    admin_key = [ln for ln in printed.splitlines() if ln.startswith(KEY_PREFIX)]
    assert len(admin_key) == 1, printed

    made = who.cli("keys", "create", "--tenant", "acme", "--role", "service")
    assert "tenant 'acme', role service" in made.stdout, made.stdout
    service = [ln for ln in made.stdout.splitlines() if ln.startswith(KEY_PREFIX)]
    assert len(service) == 1, made.stdout

    # The README's CLI examples (its "The verbs" paragraph and the Python snippet's story).
    me = ("--tenant", "acme", "--user", "alice")
    first = who.cli_json(*me, "remember", "用户希望报表导出为 CSV", "--slot", "report.format",
                         "--value", "CSV", "--reason", "user asked")
    mid = first["id"]
    second = who.cli_json(*me, "remember", "用户希望报表导出为 XLSX", "--slot",
                          "report.format", "--value", "XLSX", "--reason", "user changed mind")
    assert (first["action"], second["action"], second["id"]) == ("added", "updated", mid)
    recalled = who.cli_json(*me, "recall", "导出格式")
    history = who.cli_json(*me, "history", mid)
    rolled = who.cli_json(*me, "rollback", mid, "1", "--reason", "mistake")
    tea = who.cli_json(*me, "remember", "Alice drinks oolong tea every morning")
    return {"url": url, "admin": admin_key[0], "service": service[0], "mid": mid,
            "tea": tea["id"], "recalled": recalled, "history": history, "rolled": rolled,
            "who": who}


def test_the_cli_examples_work_on_the_default_store(journey: dict[str, Any]) -> None:
    hits = journey["recalled"]
    hits = hits.get("hits", hits) if isinstance(hits, dict) else hits
    assert hits and hits[0]["memory"]["id"] == journey["mid"], hits
    assert hits[0]["memory"]["value"] == "XLSX"
    assert [r["to_version"] for r in journey["history"]] == [1, 2]
    rolled = journey["rolled"]
    assert (rolled["version"], rolled["value"]) == (3, "CSV"), rolled
    # Piped, the human output keeps the full id: it can be pasted into the next command.
    listed = journey["who"].cli("--tenant", "acme", "--user", "alice", "list").stdout
    assert journey["mid"] in listed.split(), listed


def test_rest_with_the_new_key_sees_the_cli_memories(journey: dict[str, Any]) -> None:
    h = {"Authorization": f"Bearer {journey['service']}"}
    with httpx.Client(base_url=journey["url"], headers=h, timeout=30) as api:
        assert api.get("/v1/users").json()["users"] == ["alice"]
        alice = {"user": "alice"}
        mem = api.get(f"/v1/memories/{journey['mid']}", params=alice)
        assert mem.status_code == 200, mem.text
        assert (mem.json()["version"], mem.json()["value"]) == (3, "CSV")
        hist = api.get(f"/v1/memories/{journey['mid']}/history", params=alice).json()
        assert [r["op"] for r in hist] == ["create", "update", "rollback"]
        assert [r["actor"] for r in hist] == ["cli"] * 3
        # A write through REST is seen by the CLI on the same default store.
        r = api.post("/v1/memories", params=alice,
                     json={"content": "Alice prefers SMS", "slot": "notify.channel",
                           "value": "SMS", "reason": "said so"})
        assert r.status_code == 200, r.text
        via_rest = r.json()["id"]
    got = journey["who"].cli_json("--tenant", "acme", "--user", "alice", "get", via_rest)
    assert got["value"] == "SMS"
    assert got["scope"]["tenant"] == "acme"


def test_the_admin_page_shows_the_cli_memories(journey: dict[str, Any]) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
        page = ctx.new_page()
        page.set_default_timeout(15_000)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(journey["url"] + "/admin/")
        page.fill("#key", journey["service"])
        page.click("#signin-btn")
        expect(page.locator("#app")).to_be_visible()
        # alice is the tenant's only user: the page picks her without being told.
        expect(page.locator("#current-user")).to_contain_text("alice")
        row = page.locator(f'#mem-rows tr[data-id="{journey["mid"]}"]')
        expect(row).to_contain_text("用户希望报表导出为 CSV")
        expect(page.locator(f'#mem-rows tr[data-id="{journey["tea"]}"]')).to_contain_text(
            "oolong tea")
        page.screenshot(path=str(ARTIFACTS / "admin-after-cli.png"), full_page=True)
        assert errors == []
        ctx.close()


def test_nothing_landed_outside_home_or_in_another_tenant(journey: dict[str, Any]) -> None:
    who = journey["who"]
    keys = who.cli_json("keys", "list")
    assert {k["tenant"] for k in keys} == {"acme"}
    assert sorted(k["role"] for k in keys) == ["admin", "service"]
    # The default tenant the server would otherwise have used holds nothing.
    other = who.cli_json("--tenant", "default", "--user", "alice", "list")
    assert other == []
    assert re.search(r"memvault", str(next(who.home.rglob("memvault.db"))))
    assert shutil.which("memvault", path=str(BIN.parent)) == str(BIN)

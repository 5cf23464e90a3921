"""The admin page (/admin/) in a real headless Chromium (Debian's /usr/bin/chromium driven
by Playwright) against a real `memvault serve` on loopback. Every step is checked on the
page and in the store (through the REST API or a Vault opened on the server's file).
Screenshots of each main screen go to test-artifacts/admin/."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from _admin import ARTIFACTS
from _server import Server, new_key, tenant_admin_key
from playwright.sync_api import Browser, Page, expect

from memvault import Vault
from memvault.errors import ScopeError
from memvault.model import Kind, Source, Status

ROOT = Path(__file__).resolve().parent.parent
UI = ROOT / "src" / "memvault" / "server" / "ui"
ALICE = {"user": "alice"}
XSS_IMG = '<img src=x onerror="window.__xss=1;alert(1)">'
XSS_SCRIPT = "<script>window.__xss=2;alert(2)</script>"


# --- fixtures ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    d = tmp_path_factory.mktemp("admin")
    s = Server(str(d / "s.db"), log=d / "server.log")
    yield s
    s.stop()


class Session:
    """A fresh browser context (its own sessionStorage) on the admin page, recording
    dialogs and page errors: a script injected through memory content would show up
    here."""

    def __init__(self, browser: Browser, srv: Server) -> None:
        self.ctx = browser.new_context(viewport={"width": 1400, "height": 900},
                                       locale="en-US")
        self.page: Page = self.ctx.new_page()
        self.page.set_default_timeout(10_000)
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(srv.url + "/admin/")

    def sign_in(self, key: str, user: str | None = "alice") -> None:
        p = self.page
        p.fill("#key", key)
        p.click("#signin-btn")
        expect(p.locator("#app")).to_be_visible()
        if user is not None:
            p.fill("#user", user)
            p.click("#user-go")
            expect(p.locator("#current-user")).to_contain_text(user)

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    def close(self) -> None:
        assert self.errors == [], self.errors  # no script error on any screen
        self.ctx.close()


@pytest.fixture
def ui(browser: Browser, srv: Server) -> Iterator[Session]:
    s = Session(browser, srv)
    yield s
    s.close()


def _mem(admin: httpx.Client, **body: Any) -> dict[str, Any]:
    r = admin.post("/v1/memories", params=ALICE, json=body)
    assert r.status_code == 200, r.text
    return dict(r.json()["memory"])


def _get(admin: httpx.Client, mid: str) -> dict[str, Any]:
    r = admin.get(f"/v1/memories/{mid}", params=ALICE)
    assert r.status_code == 200, r.text
    return dict(r.json())


def _history(admin: httpx.Client, mid: str) -> list[dict[str, Any]]:
    return list(admin.get(f"/v1/memories/{mid}/history", params=ALICE).json())


def _confirm(page: Page, title: str, says: str, *, ok: bool = True) -> None:
    """The confirmation <dialog> is open, titled and saying what will happen; confirm or
    cancel it, and it closes."""
    dlg = page.locator("dialog#confirm")
    expect(dlg).to_be_visible()
    expect(dlg.locator("#c-title")).to_have_text(title)
    expect(dlg.locator("#c-body")).to_contain_text(says)
    page.click("#c-ok" if ok else "#c-cancel")
    expect(dlg).to_be_hidden()


def _row(page: Page, mid: str) -> Any:
    return page.locator(f'#mem-rows tr[data-id="{mid}"]')


@pytest.fixture(scope="module")
def seeded(admin: httpx.Client) -> dict[str, str]:
    tea = _mem(admin, content="Alice drinks oolong tea every morning", tags=["drink"])
    fmt = _mem(admin, slot="report.format", value="XLSX", kind="preference",
               content="Alice wants reports as XLSX")
    _mem(admin, content="Alice's manager is Bob", kind="fact")
    xss = _mem(admin, content=f"note {XSS_IMG} and {XSS_SCRIPT}",
               metadata={"html": "<b>bold</b><iframe src=javascript:alert(3)>"},
               source_text=XSS_SCRIPT)
    admin.post("/v1/memories", params={"user": "bob"}, json={"content": "bob's own memory"})
    return {"tea": tea["id"], "fmt": fmt["id"], "xss": xss["id"]}


# --- the page and the REST pieces it relies on --------------------------------------------

def test_page_is_served_locally_with_a_strict_policy(srv: Server) -> None:
    r = httpx.get(srv.url + "/admin", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/admin/"
    scripts = sorted(f.name for f in UI.glob("*.js"))
    assert "app.js" in scripts and len(scripts) > 1  # app.js imports the other modules
    for name, ctype in (("", "text/html"), ("app.css", "text/css"),
                        *((n, "text/javascript") for n in scripts)):
        r = httpx.get(f"{srv.url}/admin/{name}")
        assert r.status_code == 200 and r.headers["content-type"].startswith(ctype)
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"
    assert httpx.get(srv.url + "/admin/secret.py").status_code == 404
    assert "/admin/" not in httpx.get(srv.url + "/openapi.json").text  # not an API route
    html = httpx.get(srv.url + "/admin/").text
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # nothing from a CDN
    js = "\n".join((UI / n).read_text(encoding="utf-8") for n in scripts)
    # Data is only ever set as text: no HTML-parsing sink anywhere in the script.
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in js
    for enum in (Kind, Status, Source):  # the filter menus list the core's values
        for member in enum:
            assert f'"{member.value}"' in js, (enum.__name__, member.value)


def test_users_endpoint_lists_the_tenant_and_hides_it_from_bound_keys(
        srv: Server, admin: httpx.Client, seeded: dict[str, str]) -> None:
    r = admin.get("/v1/users")
    assert r.status_code == 200
    body = r.json()
    assert body["role"] == "admin" and body["bound"] is False
    with srv.client(tenant_admin_key(srv.db, "globex")) as g:
        assert g.post("/v1/memories", params={"user": "zed"},
                      json={"content": "globex memory"}).status_code == 200
        assert g.get("/v1/users").json()["users"] == ["zed"]
    with Vault(srv.db) as v:
        assert v.users("acme") == body["users"]
        assert v.users("globex") == ["zed"]
    assert {"alice", "bob"} <= set(body["users"]) and "zed" not in body["users"]
    with srv.client(new_key(admin, role="user", user="alice")) as a:
        assert a.get("/v1/users").json() == {"users": ["alice"], "bound": True,
                                              "role": "user",
                                              "key_id": a.headers["authorization"]
                                              .split("_")[1]}
    with srv.client("mvk_nope_nope") as bad:
        assert bad.get("/v1/users").status_code == 401


def test_users_verb_reads_one_tenant(make_vault: Callable[..., Vault]) -> None:
    v = make_vault()
    for tenant, user in (("acme", "bob"), ("acme", "alice"), ("globex", "zed")):
        v.remember({"tenant": tenant, "user": user}, f"{user} likes tea")
    gone = v.remember({"tenant": "acme", "user": "carol"}, "to be erased").memory.id
    v.purge({"tenant": "acme", "user": "carol"}, gone, reason="asked")
    assert v.users("acme") == ["alice", "bob", "carol"]  # the tombstone still counts
    assert v.users("globex") == ["zed"]
    assert v.users("initech") == []
    with pytest.raises(ScopeError):
        v.users("")


# --- the browser ----------------------------------------------------------------------------

def test_sign_in_bad_key_then_sign_out(ui: Session, srv: Server, admin: httpx.Client,
                                       seeded: dict[str, str]) -> None:
    p = ui.page
    p.fill("#key", "mvk_kdeadbeef_not-a-real-secret")
    p.click("#signin-btn")
    expect(p.locator("#signin-error")).to_contain_text("Sign-in failed")
    expect(p.locator("#signin-error")).to_contain_text("unknown API key")
    expect(p.locator("#app")).to_be_hidden()
    assert p.evaluate("sessionStorage.getItem('memvault.key')") is None

    assert srv.admin_key
    ui.sign_in(srv.admin_key, user=None)
    key_id = srv.admin_key.split("_")[1]
    expect(p.locator("#who")).to_contain_text(f"admin key {key_id}")
    assert p.evaluate("sessionStorage.getItem('memvault.key')") == srv.admin_key
    # The user picker offers exactly the tenant's users, as the store knows them.
    options = p.locator("#user-list option").evaluate_all("os => os.map(o => o.value)")
    assert options == admin.get("/v1/users").json()["users"]
    with Vault(srv.db) as v:
        assert options == v.users("acme")

    p.reload()  # the key survives a reload of the tab (sessionStorage)
    expect(p.locator("#app")).to_be_visible()
    p.click("#signout")
    expect(p.locator("#signin")).to_be_visible()
    expect(p.locator("#app")).to_be_hidden()
    assert p.evaluate("sessionStorage.getItem('memvault.key')") is None

    # A key bound to a user: the page is fixed to that user and shows only its memories.
    ui.sign_in(new_key(admin, role="reader", user="bob"), user=None)
    expect(p.locator("#user")).to_have_value("bob")
    assert p.locator("#user").evaluate("e => e.readOnly") is True
    bobs = admin.get("/v1/memories", params={"user": "bob"}).json()["items"]
    expect(p.locator("#mem-rows tr")).to_have_count(len(bobs))
    expect(p.locator("#mem-rows")).to_contain_text("bob's own memory")


def test_search_drawer_edit_history_rollback(ui: Session, srv: Server, admin: httpx.Client,
                                             seeded: dict[str, str]) -> None:
    assert srv.admin_key
    p, tea = ui.page, seeded["tea"]
    ui.sign_in(srv.admin_key)
    everything = admin.get("/v1/memories", params=ALICE).json()["items"]
    expect(p.locator("#mem-rows tr")).to_have_count(len(everything))
    ui.shot("list")

    # Search and filters: the rows are the API's answer for the same filters.
    p.fill("#f-q", "OOLONG")
    p.click("#f-apply")
    expect(p.locator("#mem-rows tr")).to_have_count(1)
    expect(_row(p, tea)).to_contain_text("Alice drinks oolong tea every morning")
    p.fill("#f-q", "")
    p.select_option("#f-kind", "preference")
    p.click("#f-apply")
    prefs = admin.get("/v1/memories", params={**ALICE, "kind": "preference"}).json()["items"]
    expect(p.locator("#mem-rows tr")).to_have_count(len(prefs))
    assert {m["id"] for m in prefs} == set(
        p.locator("#mem-rows tr").evaluate_all("rs => rs.map(r => r.dataset.id)"))
    p.click("#f-reset")
    expect(p.locator("#mem-rows tr")).to_have_count(len(everything))

    # The drawer shows every field.
    _row(p, tea).click()
    d = p.locator("#drawer")
    expect(d).to_be_visible()
    for field in ("id", "content", "kind", "slot", "value", "tags", "metadata", "source",
                  "source_text", "source_ref", "confidence", "status", "frozen", "version",
                  "valid_from", "valid_to", "expires_at", "embedding_model", "created_at",
                  "updated_at"):
        expect(d.locator(f'dd[data-field="{field}"]')).to_have_count(1)
    expect(d.locator('dd[data-field="id"]')).to_have_text(tea)
    expect(d.locator('dd[data-field="version"]')).to_have_text("1")
    expect(d.locator('dd[data-field="tags"]')).to_contain_text("drink")
    expect(d.locator('dd[data-field="embedding_model"]')).to_have_text(
        _get(admin, tea)["embedding_model"])
    ui.shot("drawer")

    # Edit without a reason: refused by the page, nothing sent.
    p.click("#d-edit")
    p.fill("#e-content", "Alice drinks green tea every morning")
    p.click("#e-save")
    expect(p.locator("#e-error")).to_have_text("A reason is required.")
    assert _get(admin, tea)["version"] == 1
    assert len(_history(admin, tea)) == 1

    # With a reason: a new version, the reason in its revision.
    p.fill("#e-reason", "user corrected the tea")
    p.click("#e-save")
    expect(p.locator("#d-msg")).to_have_text("Saved: version 2.")
    m = _get(admin, tea)
    assert (m["version"], m["content"], m["source"]) == (
        2, "Alice drinks green tea every morning", "admin_manual")
    last = _history(admin, tea)[-1]
    assert (last["op"], last["reason"]) == ("update", "user corrected the tea")
    expect(d.locator('dd[data-field="version"]')).to_have_text("2")

    # History: the new version with its reason, and the diff (opened by default).
    rows = p.locator("#hist-rows tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(1)).to_contain_text("user corrected the tea")
    expect(p.locator("#diff-range")).to_have_text("v1 → v2")
    content = p.locator('#diff-rows tr[data-field="content"]')
    expect(content.locator("td.from")).to_have_text("Alice drinks oolong tea every morning")
    expect(content.locator("td.to")).to_have_text("Alice drinks green tea every morning")
    p.locator("#hist-table").scroll_into_view_if_needed()
    over = ui.page.evaluate("document.getElementById('drawer').scrollWidth"
                            " - document.getElementById('drawer').clientWidth")
    assert over <= 0, f"the drawer scrolls sideways by {over}px"
    ui.shot("history")

    # Rollback to v1: refused without a reason, then a new version 3 equal to v1.
    p.click('button[data-rollback="1"]')
    expect(p.locator("#d-msg")).to_have_text("A reason is required.")
    assert _get(admin, tea)["version"] == 2
    p.fill("#d-reason", "the edit was wrong")
    p.click('button[data-rollback="1"]')
    _confirm(p, "Roll back to version 1?", "Memory " + tea + " gets a new version 3")
    expect(p.locator("#d-msg")).to_have_text("Rolled back to version 1 (now version 3).")
    m = _get(admin, tea)
    assert (m["version"], m["content"]) == (3, "Alice drinks oolong tea every morning")
    last = _history(admin, tea)[-1]
    assert (last["op"], last["reason"]) == ("rollback", "the edit was wrong")
    expect(p.locator("#hist-rows tr")).to_have_count(3)
    expect(_row(p, tea)).to_contain_text("oolong")  # the list refreshed too


def test_freeze_refuses_edit_then_unfreeze(ui: Session, srv: Server, admin: httpx.Client,
                                           seeded: dict[str, str]) -> None:
    assert srv.admin_key
    p, fmt = ui.page, seeded["fmt"]
    ui.sign_in(srv.admin_key)
    _row(p, fmt).click()
    p.click("#d-freeze")
    expect(p.locator("#d-msg")).to_have_text("A reason is required.")
    assert _get(admin, fmt)["frozen"] is False
    p.fill("#d-reason", "confirmed by the user on the phone")
    p.click("#d-freeze")
    expect(p.locator("#d-msg")).to_contain_text("Frozen")
    expect(p.locator('#drawer dd[data-field="frozen"]')).to_have_text("yes")
    m = _get(admin, fmt)
    assert m["frozen"] is True
    assert _history(admin, fmt)[-1]["reason"] == "confirmed by the user on the phone"
    expect(_row(p, fmt)).to_contain_text("frozen")  # the badge in the list

    # The frozen memory refuses the edit form with a clear message; the store is unchanged.
    p.click("#d-edit")
    expect(p.locator("#d-msg")).to_have_text(
        "This memory is frozen: unfreeze it before editing.")
    expect(p.locator("#edit-form")).to_be_hidden()
    assert _get(admin, fmt)["version"] == m["version"]
    assert _get(admin, fmt)["content"] == "Alice wants reports as XLSX"

    p.fill("#d-reason", "may change again")
    p.click("#d-unfreeze")
    expect(p.locator("#d-msg")).to_contain_text("Unfrozen")
    assert _get(admin, fmt)["frozen"] is False
    p.click("#d-edit")
    expect(p.locator("#edit-form")).to_be_visible()


def test_review_approve_with_reason(ui: Session, srv: Server, admin: httpx.Client,
                                    seeded: dict[str, str]) -> None:
    assert srv.admin_key
    admin.post("/v1/observe", params=ALICE, json={"messages": [
        {"role": "user", "content": "后续使用短信接收进度通知"}]})
    r = admin.post("/v1/observe", params=ALICE, json={"messages": [
        {"role": "user", "content": "update: 用户不喜欢任何形式的推送通知"}]})
    staged = [o["memory_id"] for o in r.json()["outcomes"] if o["action"] == "stage"]
    assert staged, r.text  # the gate stages an "update: …" line, never applies it
    mid = staged[0]
    cand = _get(admin, mid)
    target = cand["metadata"]["review"]["target_id"]  # the active slot value it would change
    assert cand["status"] == "pending" and _get(admin, target)["value"] == "SMS"

    p = ui.page
    ui.sign_in(srv.admin_key)
    p.click('#tabs button[data-tab="review"]')
    card = p.locator(f'#review-list li[data-id="{mid}"]')
    expect(card).to_be_visible()
    expect(card).to_contain_text(_get(admin, mid)["content"])
    expect(card).to_contain_text("reads like a memory command")  # command_like
    expect(card).to_contain_text(f"Would replace: {target}")
    ui.shot("review")

    card.locator('button[data-act="approve"]').click()
    expect(card.locator("p.error")).to_have_text("A reason is required.")
    assert _get(admin, mid)["status"] == "pending"
    card.locator("input.reason").fill("the user confirmed in chat")
    card.locator('button[data-act="approve"]').click()
    expect(p.locator("#flash")).to_have_text(f"Approved {mid}.")
    expect(card).to_have_count(0)
    # Approved: the slot's memory takes the candidate's value; the candidate is spent.
    assert _get(admin, mid)["status"] == "superseded"
    m = _get(admin, target)
    assert (m["status"], m["value"], m["content"]) == ("active", cand["value"], cand["content"])
    for x in (mid, target):
        last = _history(admin, x)[-1]
        assert (last["op"], last["reason"]) == ("approve", "the user confirmed in chat")
    assert mid not in {x["id"] for x in admin.get("/v1/review", params=ALICE).json()}


def test_audit_trace_and_language(ui: Session, srv: Server, admin: httpx.Client,
                                  seeded: dict[str, str]) -> None:
    assert srv.admin_key
    r = admin.post("/v1/recall", params=ALICE, json={"query": "what tea does Alice drink"})
    trace_id = r.json()["trace_id"]
    ctx_trace = admin.post("/v1/context", params=ALICE,
                           json={"query": "report format"}).json()["trace_id"]
    stored = admin.get(f"/v1/traces/{trace_id}", params=ALICE).json()

    p = ui.page
    ui.sign_in(srv.admin_key)
    p.click('#tabs button[data-tab="audit"]')
    audit = admin.get("/v1/audit", params={**ALICE, "limit": 200}).json()
    expect(p.locator("#audit-rows tr")).to_have_count(len(audit))
    first = p.locator("#audit-rows tr").first
    expect(first).to_have_attribute("data-memory", audit[0]["memory_id"])
    expect(first).to_contain_text(audit[0]["op"])
    ui.shot("audit")

    p.click('#tabs button[data-tab="traces"]')
    row = p.locator(f'#trace-rows tr[data-trace="{trace_id}"]')
    expect(row).to_contain_text("what tea does Alice drink")
    row.click()
    expect(p.locator("#td-id")).to_have_text(trace_id)
    cands = p.locator("#td-rows tr")
    expect(cands).to_have_count(len(stored["candidates"]))
    top = stored["candidates"][0]
    expect(cands.first).to_have_attribute("data-id", top["id"])
    expect(cands.first).to_contain_text("returned")
    expect(cands.first.locator('[data-part="relevance"]')).to_have_text(
        f"relevance {top['parts']['relevance']:.3f}")
    # Each candidate shows its content, read from the store, beside its id.
    expect(cands.first.locator("td.content")).to_contain_text(
        _get(admin, top["id"])["content"])
    expect(p.locator("#td-filters")).to_have_text(", ".join(stored["store_filters"]))
    expect(p.locator("#td-injected")).to_be_hidden()  # a recall injects nothing
    ui.shot("trace")

    # A context build shows what was injected; the text is the stored block, as text.
    p.locator(f'#trace-rows tr[data-trace="{ctx_trace}"]').click()
    injected = admin.get(f"/v1/traces/{ctx_trace}", params=ALICE).json()["injected"]
    expect(p.locator("#td-injected")).to_be_visible()
    expect(p.locator("#td-text")).to_have_text(injected["text"])

    # A recall typed on the page leaves a trace the page opens.
    before = len(admin.get("/v1/traces", params={**ALICE, "limit": 1000}).json())
    p.fill("#probe-q", "manager")
    p.click("#probe-go")
    expect(p.locator("#td-meta")).to_contain_text("manager")
    newest = admin.get("/v1/traces", params={**ALICE, "limit": 1}).json()[0]
    assert len(admin.get("/v1/traces", params={**ALICE, "limit": 1000}).json()) == before + 1
    expect(p.locator("#td-id")).to_have_text(newest["trace_id"])

    # Chinese: every static string changes, the data stays the same.
    p.select_option("#lang", "zh")
    expect(p.locator('#tabs button[data-tab="memories"]')).to_have_text("记忆")
    expect(p.locator('#tabs button[data-tab="traces"]')).to_have_text("检索追踪")
    expect(p.locator("#signout")).to_have_text("退出登录")
    assert p.evaluate("document.documentElement.lang") == "zh-CN"
    expect(p.locator("#td-rows tr").first).to_contain_text("已返回")
    p.click('#tabs button[data-tab="memories"]')
    expect(p.locator("#mem-rows tr")).to_have_count(
        len(admin.get("/v1/memories", params=ALICE).json()["items"]))
    ui.shot("list-zh")
    p.reload()  # the choice is remembered
    expect(p.locator('#tabs button[data-tab="review"]')).to_have_text("审核")
    p.select_option("#lang", "en")
    expect(p.locator('#tabs button[data-tab="review"]')).to_have_text("Review")


def test_memory_content_is_shown_as_text_never_run(ui: Session, srv: Server,
                                                   admin: httpx.Client,
                                                   seeded: dict[str, str]) -> None:
    assert srv.admin_key
    p, xss = ui.page, seeded["xss"]
    stored = _get(admin, xss)
    assert XSS_IMG in stored["content"]  # the store keeps the text as given
    admin.post("/v1/recall", params=ALICE, json={"query": "note img script"})

    ui.sign_in(srv.admin_key)
    row = _row(p, xss)
    expect(row).to_contain_text(XSS_IMG)
    expect(row).to_contain_text(XSS_SCRIPT)
    row.click()
    expect(p.locator('#drawer dd[data-field="content"]')).to_have_text(stored["content"])
    expect(p.locator('#drawer dd[data-field="source_text"]')).to_have_text(XSS_SCRIPT)
    expect(p.locator('#drawer dd[data-field="metadata"]')).to_contain_text("<iframe")
    p.click('#tabs button[data-tab="traces"]')
    expect(p.locator("#trace-rows tr").first).to_contain_text("note img script")
    # No element was made from the data, no handler ran, no dialog opened.
    assert p.locator("img, iframe, b").count() == 0
    assert p.evaluate("document.querySelectorAll('script').length") == 1  # app.js only
    assert p.evaluate("window.__xss") is None
    assert ui.dialogs == []


def test_topic_shows_where_the_slot_does_as_text(ui: Session, srv: Server,
                                                 admin: httpx.Client,
                                                 seeded: dict[str, str]) -> None:
    """A memory without a slot shows its topic in the list and the drawer, and the list
    filters by it. The validator keeps < and > out of topics, so the markup check is an
    entity and quotes: parsed as HTML, "&lt;b&gt;" would show as "<b>"."""
    assert srv.admin_key
    topic = '&lt;b&gt;quiet&lt;/b&gt; & "cafés"'
    cafe = _mem(admin, content="Alice works best in quiet cafes", topic=topic)
    assert cafe["topic"] == topic and cafe["slot"] is None
    p = ui.page
    ui.sign_in(srv.admin_key)

    cell = _row(p, cafe["id"]).locator('td[data-key="topic"]')
    expect(cell).to_have_text(topic)
    assert cell.locator("*").count() == 0  # text, not elements
    # A slotted memory still shows its slot in the same column.
    expect(_row(p, seeded["fmt"]).locator('td[data-key="slot"]')).to_have_text(
        "report.format")
    expect(p.locator("#mem-table th").nth(2)).to_have_text("Slot / topic")

    # The topic filter: the rows are the API's answer for the same topic.
    p.fill("#f-topic", topic)
    p.click("#f-apply")
    want = admin.get("/v1/memories", params={**ALICE, "topic": topic}).json()["items"]
    assert [m["id"] for m in want] == [cafe["id"]]
    expect(p.locator("#mem-rows tr")).to_have_count(1)
    expect(_row(p, cafe["id"])).to_be_visible()
    p.fill("#f-topic", "no such topic")
    p.click("#f-apply")
    expect(p.locator("#mem-empty")).to_be_visible()
    expect(p.locator("#mem-rows tr")).to_have_count(0)
    p.click("#f-reset")
    expect(p.locator("#f-topic")).to_have_value("")
    expect(_row(p, cafe["id"])).to_be_visible()

    # The drawer lists the topic among the fields, as text.
    _row(p, cafe["id"]).click()
    dd = p.locator('#drawer dd[data-field="topic"]')
    expect(dd).to_have_text(topic)
    expect(p.locator('#drawer dd[data-field="slot"]')).to_have_text("—")
    assert dd.locator("b").count() == 0
    p.select_option("#lang", "zh")
    expect(p.locator("#mem-table th").nth(2)).to_have_text("槽位 / 主题")
    expect(dd).to_have_text(topic)
    p.select_option("#lang", "en")
    ui.shot("topic")
    assert p.locator("b").count() == 0 and ui.dialogs == []


def test_a_team_scope_opens_and_is_governed_like_a_user(ui: Session, srv: Server,
                                                         admin: httpx.Client) -> None:
    """docs/teams.md: the picker offers the tenant's teams as team:<name>; the page then
    reads and governs the team's memories through team=."""
    assert srv.admin_key
    assert admin.post("/v1/teams", json={"name": "pageteam"}).status_code == 201
    r = admin.post("/v1/memories", params={"team": "pageteam"},
                   json={"content": "The page team ships on Fridays"})
    mid = r.json()["id"]
    p = ui.page
    ui.sign_in(srv.admin_key, user="team:pageteam")
    expect(p.locator("#user-list option[value='team:pageteam']")).to_have_count(1)
    expect(_row(p, mid)).to_contain_text("ships on Fridays")
    _row(p, mid).click()
    p.fill("#d-reason", "team policy")
    p.click("#d-freeze")
    expect(p.locator("#d-msg")).to_contain_text("Frozen")
    got = admin.get(f"/v1/memories/{mid}", params={"team": "pageteam"}).json()
    assert got["frozen"] is True and got["scope"]["user"] == "team:pageteam"

// The memvault admin page: vanilla JS modules over the /v1 REST API. This module signs in,
// switches tabs and languages, and holds the memories, review and audit tabs; the drawer,
// the profile / conflicts views, the traces and the snapshots live in their own modules.
// Safety rule: data from the server (memory content, metadata, reasons, queries) is only
// ever placed with textContent / value, never parsed as HTML. The server's
// Content-Security-Policy forbids inline script as a second fence.
import { S, $, hooks } from "./state.js";
import { KINDS, STATUSES, SOURCES, t, tv } from "./i18n.js";
import { el, button, clear, timeCell, labelRows, api, ApiError } from "./dom.js";
import { wireConfirm } from "./confirm.js";
import * as drawer from "./drawer.js";
import { loadProfile, renderProfile, loadConflicts, renderConflicts, decisionRow } from "./views.js";
import * as traces from "./traces.js";
import * as merge from "./merge.js";
import * as snapshots from "./snapshots.js";

const ENUMS = { kinds: [KINDS, "kind"], statuses: [STATUSES, "status"],
  sources: [SOURCES, "source"] };
const PAGE = 50;

function flash(text, kind) {
  const f = $("flash");
  f.textContent = text || "";
  f.className = kind || "";
}

/** Show an API failure; a refused key ends the session. */
function fail(e, where) {
  if (e instanceof ApiError && e.status === 401) {
    signOut(t("sessionEnded", { msg: e.message }));
    return;
  }
  const msg = t("error", { msg: e.message || String(e) });
  if (where) { where.textContent = msg; where.className = "error"; } else flash(msg, "error");
}

Object.assign(hooks, { openDrawer: drawer.openDrawer, fail, flash });

// --- sign in / out ---------------------------------------------------------------------
async function signIn(key) {
  S.key = key;
  const me = await api("GET", "/v1/users");  // checks the key, says its role and users
  S.me = me;
  sessionStorage.setItem("memvault.key", key);
  // A bound key has its one user; otherwise the last user of this tab, else the first
  // user the tenant has: the page opens on data, not on an empty picker.
  if (me.bound) setUser(me.users[0]);
  else if (S.user) setUser(S.user);
  else if (me.users.length) setUser(me.users[0]);
  const list = clear($("user-list"));
  for (const u of me.users) list.append(el("option", null, null, { value: u }));
  // The tenant's teams are scopes to open too, as "team:<name>" (docs/teams.md).
  const teams = me.bound ? [] : await api("GET", "/v1/teams").catch(() => []);
  for (const tm of teams) list.append(el("option", null, null, { value: `team:${tm.name}` }));
  $("user").readOnly = me.bound;
  $("signin").hidden = true;
  $("app").hidden = false;
  $("whoami").hidden = false;
  renderWho();
  showTab(S.tab);
}

function signOut(message) {
  sessionStorage.removeItem("memvault.key");
  sessionStorage.removeItem("memvault.user");
  Object.assign(S, { key: "", user: "", me: null, list: null, review: null, audit: null,
    traces: null, trace: null, memory: null, history: null, diff: null, offset: 0,
    profile: null, topics: null, conflicts: null, snapshots: null, snapDiff: null });
  $("app").hidden = true;
  $("whoami").hidden = true;
  $("drawer").hidden = true;
  $("signin").hidden = false;
  $("key").value = "";
  $("user").value = "";
  flash("");
  $("signin-error").textContent = message || "";
}

function renderWho() {
  if (S.me) {
    $("who").textContent = t("signedInAs", { role: tv("role", S.me.role), key_id: S.me.key_id });
  }
  // One place says a user is missing: the flash line (showTab), not this one too.
  $("current-user").textContent = S.user ? t("currentUser", { user: S.user }) : "";
}

function setUser(u) {
  S.user = u;
  $("user").value = u;
  sessionStorage.setItem("memvault.user", u);
  renderWho();
}

// --- tabs --------------------------------------------------------------------------------
const LOADERS = { memories: loadList, profile: loadProfile, conflicts: loadConflicts,
  review: loadReview, audit: loadAudit, traces: traces.loadTraces,
  snapshots: snapshots.loadSnapshots };

function showTab(name) {
  S.tab = name;
  for (const b of document.querySelectorAll("#tabs button")) {
    b.classList.toggle("active", b.dataset.tab === name);
    b.setAttribute("aria-selected", String(b.dataset.tab === name));
  }
  for (const sec of document.querySelectorAll("section.tab")) {
    sec.hidden = sec.id !== `tab-${name}`;
  }
  if (S.user) LOADERS[name]();
  else flash(t("pickUser"), "error");
}

// --- memories ----------------------------------------------------------------------------
function filterParams() {
  const days = $("f-expiring").value;
  return {
    q: $("f-q").value.trim(), kind: $("f-kind").value, status: $("f-status").value,
    slot: $("f-slot").value.trim(), topic: $("f-topic").value.trim(),
    source: $("f-source").value, frozen: $("f-frozen").value,
    expiring_before: days ? Date.now() + Number(days) * 86_400_000 : "",
    limit: PAGE, offset: S.offset,
  };
}

async function loadList() {
  if (!S.user) return;
  try {
    const data = await api("GET", "/v1/memories", { params: filterParams(), scoped: true });
    S.list = data.items;
    renderList();
    flash("");
  } catch (e) { fail(e); }
}

function renderList() {
  const body = clear($("mem-rows"));
  for (const m of S.list || []) {
    const tr = el("tr", null, "clickable", { "data-id": m.id, tabindex: "0" });
    const content = el("td", m.content, "content");
    if (m.frozen) content.prepend(el("span", t("frozenBadge"), "badge frozen"));
    content.prepend(merge.pickBox(m));
    tr.append(content, el("td", tv("kind", m.kind), null, { "data-value": m.kind }), keyCell(m),
      el("td", tv("status", m.status), null, { "data-value": m.status }),
      el("td", tv("source", m.source), null, { "data-value": m.source }),
      el("td", m.version), timeCell(m.updated_at));
    tr.addEventListener("click", () => drawer.openDrawer(m.id));
    tr.addEventListener("keydown", (ev) => { if (ev.key === "Enter") drawer.openDrawer(m.id); });
    body.append(tr);
  }
  labelRows($("mem-table"));
  merge.afterList();
  $("mem-empty").hidden = (S.list || []).length > 0;
  $("page").textContent = t("page", { n: S.offset / PAGE + 1 });
  $("prev").disabled = S.offset === 0;
  $("next").disabled = (S.list || []).length < PAGE;
}

/** The slot a memory holds, else its topic (in italics, titled), else a dash. */
function keyCell(m) {
  if (m.slot) return el("td", m.slot, null, { "data-key": "slot" });
  if (m.topic) return el("td", m.topic, "topic", { "data-key": "topic", title: t("topic") });
  return el("td", "—", null, { "data-key": "none" });
}

// --- review --------------------------------------------------------------------------------
async function loadReview() {
  if (!S.user) return;
  try {
    S.review = await api("GET", "/v1/review", { scoped: true });
    renderReview();
    flash("");
  } catch (e) { fail(e); }
}

function renderReview() {
  const list = clear($("review-list"));
  for (const m of S.review || []) {
    const rv = (m.metadata && m.metadata.review) || {};
    const li = el("li", null, "card", { "data-id": m.id });
    const head = el("div", null, "row");
    head.append(el("strong", m.content, "content"),
      el("span", `${tv("kind", m.kind)}${m.slot ? ` · ${m.slot} = ${JSON.stringify(m.value)}`
        : m.topic ? ` · ${t("topic")}: ${m.topic}` : ""}`, "muted"));
    li.append(head);
    if (m.source_text) li.append(el("p", `“${m.source_text}”`, "quote"));
    if (rv.reasons && rv.reasons.length) {
      li.append(el("p", t("labelled", { label: t("stagedBecause"),
        text: rv.reasons.map((r) => tv("reason", r)).join(t("listSep")) }), "muted"));
    }
    if (rv.target_id) {
      const p = el("p", t("labelled", { label: t("wouldReplace"), text: "" }), "muted");
      p.append(button(rv.target_id, () => drawer.openDrawer(rv.target_id), { class: "link" }));
      li.append(p);
    }
    li.append(...decisionRow(m.id, t("approve"), t("reject"), loadReview,
      button(t("open"), () => drawer.openDrawer(m.id), { class: "link" })));
    list.append(li);
  }
  $("review-empty").hidden = (S.review || []).length > 0;
}

// --- audit -----------------------------------------------------------------------------------
async function loadAudit() {
  if (!S.user) return;
  try {
    S.audit = await api("GET", "/v1/audit", { params: { limit: 200 }, scoped: true });
    renderAudit();
    flash("");
  } catch (e) { fail(e); }
}

function renderAudit() {
  const body = clear($("audit-rows"));
  for (const r of S.audit || []) {
    const tr = el("tr", null, null, { "data-op": r.op, "data-memory": r.memory_id });
    const mem = el("td");
    mem.append(button(r.memory_id, () => drawer.openDrawer(r.memory_id), { class: "link" }));
    tr.append(timeCell(r.at), mem, el("td", tv("op", r.op), null, { title: r.op }),
      el("td", r.from_version ? `${r.from_version} → ${r.to_version}` : r.to_version),
      el("td", `${r.actor} (${tv("role", r.actor_role)})`), el("td", r.reason ?? "—"));
    body.append(tr);
  }
  labelRows($("audit-table"));
}


// --- language ----------------------------------------------------------------------------
function fillEnums() {
  for (const sel of document.querySelectorAll("select[data-enum]")) {
    const keep = sel.value;
    const [values, group] = ENUMS[sel.dataset.enum];
    clear(sel);
    if (!sel.dataset.noAny) sel.append(el("option", t("any"), null, { value: "" }));
    for (const v of values) sel.append(el("option", tv(group, v), null, { value: v }));
    sel.value = keep;
  }
}

function applyLang() {
  document.documentElement.lang = S.lang === "zh" ? "zh-CN" : "en";
  document.title = t("title");
  for (const n of document.querySelectorAll("[data-i18n]")) n.textContent = t(n.dataset.i18n);
  $("lang").value = S.lang;
  fillEnums();
  renderWho();
  // Re-render whatever is on screen from the data already fetched.
  if (S.list) renderList();
  if (S.profile) renderProfile();
  if (S.conflicts) renderConflicts();
  if (S.review) renderReview();
  if (S.audit) renderAudit();
  if (S.traces) traces.renderTraces();
  if (S.snapshots) snapshots.renderSnapshots();
  if (S.memory) drawer.renderDrawer();
}

// --- wiring ------------------------------------------------------------------------------
function refreshTab() {
  return S.user ? LOADERS[S.tab]() : Promise.resolve();
}

function wire() {
  $("lang").addEventListener("change", () => {
    S.lang = $("lang").value === "zh" ? "zh" : "en";
    localStorage.setItem("memvault.lang", S.lang);
    applyLang();
  });
  $("signin-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const key = $("key").value.trim();
    $("signin-error").textContent = "";
    if (!key) { $("signin-error").textContent = t("keyRequired"); return; }
    try { await signIn(key); } catch (e) {
      S.key = "";
      $("signin-error").textContent = t("signInFailed", { msg: e.message });
    }
  });
  $("signout").addEventListener("click", () => signOut());
  $("user-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const u = $("user").value.trim();
    if (!u) { flash(t("pickUser"), "error"); return; }
    setUser(u);
    drawer.closeDrawer();
    S.offset = 0;
    S.trace = null;
    showTab(S.tab);
  });
  for (const b of document.querySelectorAll("#tabs button")) {
    b.addEventListener("click", () => showTab(b.dataset.tab));
  }
  $("filters").addEventListener("submit", (ev) => { ev.preventDefault(); S.offset = 0; loadList(); });
  $("f-reset").addEventListener("click", () => { $("filters").reset(); S.offset = 0; loadList(); });
  $("prev").addEventListener("click", () => { S.offset = Math.max(0, S.offset - PAGE); loadList(); });
  $("next").addEventListener("click", () => { S.offset += PAGE; loadList(); });
  $("d-close").addEventListener("click", drawer.closeDrawer);
  $("d-edit").addEventListener("click", drawer.openEdit);
  $("e-cancel").addEventListener("click", () => { $("edit-form").hidden = true; });
  $("edit-form").addEventListener("submit", drawer.submitEdit);
  $("d-freeze").addEventListener("click", () => drawer.govern("freeze", "frozenDone"));
  $("d-unfreeze").addEventListener("click", () => drawer.govern("unfreeze", "unfrozenDone"));
  $("d-forget").addEventListener("click", () => drawer.govern("forget", "forgotten"));
  $("d-purge").addEventListener("click", drawer.purge);
  $("d-traces").addEventListener("click", () => {
    $("trace-mem").value = S.memory ? S.memory.id : "";
    S.trace = null;
    showTab("traces");
  });
  $("probe").addEventListener("submit", traces.probe);
  $("trace-mem").addEventListener("input", traces.renderTraces);
  drawer.onChange(refreshTab);
  merge.wireMerge(loadList);
  snapshots.wireSnapshots();
  wireConfirm();
}

wire();
applyLang();
if (S.key) {
  signIn(S.key).catch((e) => signOut(t("signInFailed", { msg: e.message })));
}

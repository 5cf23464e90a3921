// The drawer: one memory, its fields, edit form, history, diffs, and the governance
// verbs (freeze, unfreeze, rollback, forget, purge); the last three ask first.
import { S, $, hooks } from "./state.js";
import { el, button, clear, emptyRow, timeCell, labelRows, api } from "./dom.js";
import { t, tv } from "./i18n.js";
import { renderFields, valueOf } from "./fields.js";
import { confirmAction } from "./confirm.js";
import { renderLinks } from "./merge.js";

const after = { refresh: null };  // set by app.js: reload the tab behind the drawer

export function onChange(fn) { after.refresh = fn; }

export async function openDrawer(id) {
  if (!S.user) return;
  drawerMessage("");
  $("edit-form").hidden = true;
  $("diff").hidden = true;
  S.diff = null;
  try {
    const [m, hist] = await Promise.all([
      api("GET", `/v1/memories/${encodeURIComponent(id)}`, { scoped: true }),
      api("GET", `/v1/memories/${encodeURIComponent(id)}/history`, { scoped: true }),
    ]);
    S.memory = m;
    S.history = hist;
    $("drawer").hidden = false;
    renderDrawer();
    // The latest change is what an operator usually wants to see first.
    const last = [...hist].reverse().find((r) => r.from_version && r.from_version !== r.to_version);
    if (last) await showDiff(last.from_version, last.to_version);
  } catch (e) { hooks.fail(e); }
}

export function closeDrawer() {
  $("drawer").hidden = true;
  S.memory = null;
}

export function renderDrawer() {
  const m = S.memory;
  if (!m) return;
  renderFields($("d-fields"), m);
  $("d-freeze").hidden = m.frozen;
  $("d-unfreeze").hidden = !m.frozen;
  $("d-forget").hidden = m.status === "deleted";
  // Purge is for admin keys only (the API would answer 403 to any other).
  $("d-purge").hidden = !(S.me && S.me.role === "admin");
  renderLinks(undo);
  renderHistory();
  renderDiff();
}

function renderHistory() {
  const body = clear($("hist-rows"));
  const m = S.memory;
  const offered = new Set();
  for (const r of S.history || []) {
    const tr = el("tr", null, null, { "data-version": r.to_version, "data-op": r.op });
    const cell = el("td");
    if (r.from_version && r.from_version !== r.to_version) {
      cell.append(button(t("showDiff"), () => showDiff(r.from_version, r.to_version),
        { class: "small", "data-diff": `${r.from_version}-${r.to_version}` }));
    }
    // One rollback button per earlier version that still has a state to restore.
    if (m && r.state && r.to_version < m.version && !offered.has(r.to_version)) {
      offered.add(r.to_version);
      cell.append(button(t("rollbackTo", { n: r.to_version }), () => rollback(r),
        { class: "small", "data-rollback": String(r.to_version) }));
    }
    tr.append(el("td", r.from_version ? `${r.from_version} → ${r.to_version}` : r.to_version),
      el("td", tv("op", r.op), null, { title: r.op }), timeCell(r.at), el("td", r.actor),
      el("td", r.reason ?? "—"), cell);
    body.append(tr);
  }
  labelRows($("hist-table"));
}

async function showDiff(a, b) {
  try {
    const d = await api("GET", `/v1/memories/${encodeURIComponent(S.memory.id)}/diff`,
      { params: { from_version: a, to_version: b }, scoped: true });
    S.diff = { a, b, d };
    renderDiff();
  } catch (e) { hooks.fail(e, $("d-msg")); }
}

function renderDiff() {
  if (!S.diff) { $("diff").hidden = true; return; }
  const { a, b, d } = S.diff;
  $("diff").hidden = false;
  $("diff-range").textContent = `v${a} → v${b}`;
  const body = clear($("diff-rows"));
  const keys = Object.keys(d);
  if (!keys.length) body.append(emptyRow(t("diffNone"), 3));
  for (const k of keys) {
    const tr = el("tr", null, null, { "data-field": k });
    const from = el("td", null, "from");
    const to = el("td", null, "to");
    from.append(valueOf({ [k]: d[k].from }, k));
    to.append(valueOf({ [k]: d[k].to }, k));
    tr.append(el("td", t(`f_${k}`), null, { title: k }), from, to);
    body.append(tr);
  }
  labelRows($("diff").querySelector("table"));
}

export function drawerMessage(text, kind) {
  $("d-msg").textContent = text;
  $("d-msg").className = kind || "";
}

function governReason() {
  const r = $("d-reason").value.trim();
  if (!r) { drawerMessage(t("reasonRequired"), "error"); $("d-reason").focus(); }
  return r;
}

async function done(m, message) {
  $("d-reason").value = "";
  await openDrawer(m.id);
  drawerMessage(message, "ok");
  if (after.refresh) after.refresh();
}

export async function govern(action, doneKey) {
  const reason = governReason();
  if (!reason) return;
  const m = S.memory;
  if (action === "forget" && !await confirmAction({
    title: t("confirmForgetTitle"), reason, ok: t("doForget"), danger: true,
    body: t("confirmForget", { id: m.id, content: m.content, v: m.version + 1 }),
  })) return;
  try {
    const out = await api("POST", `/v1/memories/${encodeURIComponent(m.id)}/${action}`,
      { body: { reason }, scoped: true });
    await done(out, t(doneKey, { v: out.version }));
  } catch (e) { hooks.fail(e, $("d-msg")); }
}

// Undo a merge or a split (docs/consolidation.md): the sources come back in one step.
async function undo(verb) {
  const reason = governReason();
  if (!reason) return;
  const m = S.memory;
  try {
    await api("POST", `/v1/memories/${encodeURIComponent(m.id)}/${verb}`,
      { body: { reason }, scoped: true });
    await done(m, t("undone"));
  } catch (e) { hooks.fail(e, $("d-msg")); }
}

async function rollback(rev) {
  const reason = governReason();
  if (!reason) return;
  const m = S.memory;
  const n = rev.to_version;
  const ok = await confirmAction({
    title: t("confirmRollbackTitle", { n }), reason, ok: t("doRollback"),
    body: t("confirmRollback", { id: m.id, v: m.version + 1, n, cur: m.version,
      content: rev.state.content, now: m.content }),
  });
  if (!ok) return;
  try {
    const out = await api("POST", `/v1/memories/${encodeURIComponent(m.id)}/rollback`,
      { body: { to_version: n, reason }, scoped: true });
    await done(out, t("rolledBack", { n, v: out.version }));
  } catch (e) { hooks.fail(e, $("d-msg")); }
}

export async function purge() {
  const reason = governReason();
  if (!reason) return;
  const m = S.memory;
  const ok = await confirmAction({
    title: t("confirmPurgeTitle"), reason, ok: t("doPurge"), danger: true,
    body: t("confirmPurge", { id: m.id, content: m.content, n: m.version }),
  });
  if (!ok) return;
  try {
    const out = await api("POST", `/v1/memories/${encodeURIComponent(m.id)}/purge`,
      { body: { reason }, scoped: true });
    // The memory is gone (only its tombstone is left): close the drawer, say so.
    $("d-reason").value = "";
    closeDrawer();
    if (after.refresh) await after.refresh();  // (a reload clears the flash line)
    hooks.flash(t("purged", { id: m.id, erasure: out.erasure }), "ok");
  } catch (e) { hooks.fail(e, $("d-msg")); }
}

// --- the edit form ---------------------------------------------------------------------
export function openEdit() {
  const m = S.memory;
  if (m.frozen) {  // the core would refuse it too (409 frozen); say so before typing
    drawerMessage(t("frozenNoEdit"), "error");
    $("edit-form").hidden = true;
    return;
  }
  drawerMessage("");
  $("e-content").value = m.content;
  $("e-kind").value = m.kind;
  $("e-tags").value = (m.tags || []).join(", ");
  $("e-confidence").value = String(m.confidence);
  $("e-value").value = m.value === null || m.value === undefined ? "" : JSON.stringify(m.value);
  $("e-metadata").value = JSON.stringify(m.metadata || {});
  $("e-reason").value = "";
  $("e-error").textContent = "";
  $("edit-form").hidden = false;
  $("e-content").focus();
}

/** The PATCH body: only the fields that changed, plus the reason (required here). */
function editBody() {
  const m = S.memory;
  const reason = $("e-reason").value.trim();
  if (!reason) throw new Error(t("reasonRequired"));
  const body = {};
  const content = $("e-content").value;
  if (content !== m.content) body.content = content;
  if ($("e-kind").value !== m.kind) body.kind = $("e-kind").value;
  const tags = $("e-tags").value.split(",").map((s) => s.trim()).filter(Boolean);
  if (JSON.stringify(tags) !== JSON.stringify(m.tags || [])) body.tags = tags;
  const conf = Number($("e-confidence").value);
  if (Number.isNaN(conf)) throw new Error(t("badNumber", { field: t("confidence") }));
  if (conf !== m.confidence) body.confidence = conf;
  const parse = (id, label) => {
    try { return JSON.parse($(id).value); } catch { throw new Error(t("badJson", { field: t(label) })); }
  };
  if ($("e-value").value.trim()) {
    const v = parse("e-value", "valueJson");
    if (JSON.stringify(v) !== JSON.stringify(m.value)) body.value = v;
  }
  const md = parse("e-metadata", "metadataJson");
  if (JSON.stringify(md) !== JSON.stringify(m.metadata || {})) body.metadata = md;
  if (!Object.keys(body).length) throw new Error(t("noChange"));
  // expected_version: a stale page never overwrites a change it has not seen.
  return { ...body, reason, expected_version: m.version };
}

export async function submitEdit(ev) {
  ev.preventDefault();
  let body;
  try { body = editBody(); } catch (e) {
    $("e-error").textContent = e.message;
    if (!$("e-reason").value.trim()) $("e-reason").focus();
    return;
  }
  try {
    const m = await api("PATCH", `/v1/memories/${encodeURIComponent(S.memory.id)}`,
      { body, scoped: true });
    await openDrawer(m.id);
    drawerMessage(t("saved", { v: m.version }), "ok");
    if (after.refresh) after.refresh();
  } catch (e) {
    if (e.code === "frozen") $("e-error").textContent = t("frozenNoEdit");
    else hooks.fail(e, $("e-error"));
  }
}

// The snapshots tab (docs/snapshots.md): the named moments of the picked user's memory and
// of the whole tenant; take one, diff one against now, restore one (after the confirmation
// dialog), drop one. Only the /v1/snapshots routes; the server's permission matrix decides,
// and the buttons a role may not use are hidden, as the drawer hides purge.
import { S, $, hooks } from "./state.js";
import { el, button, clear, emptyRow, timeCell, labelRows, api } from "./dom.js";
import { t, tv } from "./i18n.js";
import { plain } from "./fields.js";
import { confirmAction } from "./confirm.js";

const can = (...roles) => Boolean(S.me && roles.includes(S.me.role));
// A team's scope is no snapshot scope: the page sends `user` itself (never `team=`, which
// these routes do not take: it would silently mean the whole tenant).
const isTeam = () => S.user.startsWith("team:");
const where = (snap) => (snap.user ? { user: snap.user } : {});
const path = (snap, tail) => `/v1/snapshots/${encodeURIComponent(snap.name)}${tail}`;
// A field's name in the page's language (the drawer's f_ names), else the field itself.
const fieldName = (f) => { const n = t(`f_${f}`); return n === `f_${f}` ? f : n; };

export async function loadSnapshots() {
  S.snapDiff = null;
  if (isTeam()) {
    S.snapshots = [];
    renderSnapshots();
    hooks.flash(t("snapshotsNoTeam"), "error");
    return;
  }
  try {
    // Without `user`: the tenant's and every user's (a bound key: its user's); the view
    // keeps the whole tenant's and the picked user's.
    const all = await api("GET", "/v1/snapshots");
    S.snapshots = all.filter((s) => s.user === null || s.user === S.user);
    renderSnapshots();
    hooks.flash("");
  } catch (e) { hooks.fail(e); }
}

export function renderSnapshots() {
  $("snap-form").hidden = isTeam() || !can("admin", "service");
  const body = clear($("snap-rows"));
  for (const s of S.snapshots || []) {
    const tr = el("tr", null, null, { "data-snap": s.name, "data-user": s.user ?? "" });
    const acts = el("td", null, "actions-cell");
    acts.append(button(t("snapDiff"), () => showDiff(s), { class: "small", "data-act": "diff" }));
    if (can("admin")) {
      acts.append(button(t("snapRestore"), () => restore(s), { class: "small", "data-act": "restore" }),
        button(t("snapDrop"), () => drop(s), { class: "small", "data-act": "drop" }));
    }
    tr.append(el("td", s.name, "mono"), timeCell(s.taken_at),
      el("td", s.user ? t("snapUser", { user: s.user }) : t("snapTenant")),
      el("td", tv("snapkind", s.kind), null, { "data-kind": s.kind }),
      el("td", s.reason ? `${s.created_by} · ${s.reason}` : s.created_by, "content"), acts);
    body.append(tr);
  }
  if (!(S.snapshots || []).length) body.append(emptyRow(t("noSnapshots"), 6));
  labelRows($("snap-table"));
  renderDiff();
}

async function showDiff(snap) {
  try {
    const d = await api("GET", path(snap, "/diff"), { params: where(snap) });
    S.snapDiff = { snap, ...d };
    renderDiff();
  } catch (e) { hooks.fail(e); }
}

function memCell(entry) {
  const td = el("td");
  // The drawer opens in the picked user's scope: another user's memory is named only.
  if (entry.user === S.user) {
    td.append(button(entry.memory_id, () => hooks.openDrawer(entry.memory_id),
      { class: "link", "data-open": entry.memory_id }));
  } else td.append(el("span", `${entry.user} / ${entry.memory_id}`, "mono"));
  return td;
}

function diffRow(change, entry, what, version) {
  const tr = el("tr", null, null, { "data-change": change, "data-id": entry.memory_id });
  tr.append(el("td", t(`snap_${change}`)), memCell(entry), el("td", what, "content"),
    el("td", version));
  return tr;
}

export function renderDiff() {
  const d = S.snapDiff;
  $("snap-diff").hidden = !d;
  if (!d) return;
  $("sd-name").textContent = d.from;
  $("sd-counts").textContent = t("snapCounts", { added: d.added.length,
    removed: d.removed.length, changed: d.changed.length });
  const body = clear($("sd-rows"));
  for (const a of d.added) body.append(diffRow("added", a, a.content, a.version));
  for (const r of d.removed) {
    body.append(diffRow("removed", r, r.purged ? t("snapPurged") : r.content, r.version ?? "—"));
  }
  for (const c of d.changed) {
    const what = Object.entries(c.fields).map(([f, x]) =>
      `${fieldName(f)}: ${plain(x.from)} → ${plain(x.to)}`).join("\n") || t("snapSameState");
    body.append(diffRow("changed", c, what, `${c.from_version} → ${c.to_version}`));
  }
  if (!body.childNodes.length) body.append(emptyRow(t("diffNone"), 4));
  labelRows($("sd-table"));
}

async function restore(snap) {
  const reason = $("snap-reason").value.trim();
  if (!reason) { hooks.flash(t("reasonRequired"), "error"); $("snap-reason").focus(); return; }
  const ok = await confirmAction({
    title: t("confirmRestoreTitle", { name: snap.name }), reason, ok: t("snapRestore"),
    danger: true, body: t(snap.user ? "confirmRestore" : "confirmRestoreTenant",
      { name: snap.name, user: snap.user }),
  });
  if (!ok) return;
  try {
    const out = await api("POST", path(snap, "/restore"), { params: where(snap), body: { reason } });
    $("snap-reason").value = "";
    await loadSnapshots();
    hooks.flash(t("restoredSnap", { name: snap.name, restored: out.restored.length,
      forgotten: out.forgotten.length, skipped: out.skipped.length, undo: out.undo }), "ok");
  } catch (e) { hooks.fail(e); }
}

async function drop(snap) {
  const ok = await confirmAction({ title: t("confirmDropTitle", { name: snap.name }),
    body: t("confirmDrop"), ok: t("snapDrop"), danger: true });
  if (!ok) return;
  try {
    await api("DELETE", path(snap, ""), { params: where(snap) });
    await loadSnapshots();
    hooks.flash(t("droppedSnap", { name: snap.name }), "ok");
  } catch (e) { hooks.fail(e); }
}

export function wireSnapshots() {
  $("snap-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = $("snap-name").value.trim();
    if (!name) { hooks.flash(t("snapNameRequired"), "error"); $("snap-name").focus(); return; }
    const reason = $("snap-reason").value.trim() || undefined;
    try {
      await api("POST", "/v1/snapshots", { params: { user: S.user }, body: { name, reason } });
      $("snap-name").value = "";
      $("snap-reason").value = "";
      await loadSnapshots();
      hooks.flash(t("snapTaken", { name }), "ok");
    } catch (e) { hooks.fail(e); }
  });
}

// The profile view ("what the assistant believes about this user") and the conflicts view
// (statements the gate staged because they contradict stored memories), both over the
// REST reads that exist: GET /v1/profile, /v1/memories, /v1/review and /v1/review/{id}.
import { S, $, hooks } from "./state.js";
import { el, button, clear, emptyRow, timeCell, timeEl, labelRows, api } from "./dom.js";
import { t, tv } from "./i18n.js";
import { plain } from "./fields.js";

// --- profile ---------------------------------------------------------------------------
// Approve or reject a staged candidate, with the reason the review verbs require, then
// `reload()`; the review and conflicts views both decide this way. Returns [row, message].
export function decisionRow(id, approveLabel, rejectLabel, reload, ...extra) {
  const reason = el("input", null, "reason", { placeholder: t("reason"), "aria-label": t("reason") });
  const out = el("p", null, "error", { role: "alert" });
  const act = (verb, doneKey) => async () => {
    const r = reason.value.trim();
    if (!r) { out.textContent = t("reasonRequired"); reason.focus(); return; }
    try {
      await api("POST", `/v1/review/${encodeURIComponent(id)}/${verb}`,
        { body: { reason: r }, scoped: true });
      await reload();
      hooks.flash(t(doneKey, { id }), "ok");
    } catch (e) { hooks.fail(e, out); }
  };
  const row = el("div", null, "row");
  row.append(reason, button(approveLabel, act("approve", "approved"), { "data-act": "approve" }),
    button(rejectLabel, act("reject", "rejected"), { "data-act": "reject" }), ...extra);
  return [row, out];
}

export async function loadProfile() {
  try {
    const [prof, active] = await Promise.all([
      api("GET", "/v1/profile", { scoped: true }),
      api("GET", "/v1/memories", { params: { status: "active", limit: 1000 }, scoped: true }),
    ]);
    S.profile = prof;
    S.topics = active.items.filter((m) => m.topic && !m.slot);
    renderProfile();
    hooks.flash("");
  } catch (e) { hooks.fail(e); }
}

function frozenCell(frozen) {
  const td = el("td", null, null, { "data-key": "frozen" });
  td.append(frozen ? el("span", t("frozenBadge"), "badge frozen") : el("span", t("no"), "muted"));
  return td;
}

function openRow(tr, id) {
  tr.classList.add("clickable");
  tr.tabIndex = 0;
  tr.addEventListener("click", () => hooks.openDrawer(id));
  tr.addEventListener("keydown", (ev) => { if (ev.key === "Enter") hooks.openDrawer(id); });
}

export function renderProfile() {
  const slots = clear($("prof-slots"));
  const entries = Object.entries(S.profile || {});
  for (const [slot, p] of entries) {
    const tr = el("tr", null, null, { "data-slot": slot, "data-id": p.memory_id });
    const value = el("td", null, "content");
    value.append(el("strong", plain(p.value)));
    if (p.content && p.content !== plain(p.value)) value.append(el("div", p.content, "muted"));
    tr.append(el("td", slot, "mono"), value, timeCell(p.since),
      el("td", tv("source", p.source), null, { title: p.source }), frozenCell(p.frozen));
    openRow(tr, p.memory_id);
    slots.append(tr);
  }
  if (!entries.length) slots.append(emptyRow(t("profileEmpty"), 5));
  labelRows($("prof-slot-table"));

  const topics = clear($("prof-topics"));
  for (const m of S.topics || []) {
    const tr = el("tr", null, null, { "data-topic": m.topic, "data-id": m.id });
    tr.append(el("td", m.topic, "topic"), el("td", m.content, "content"),
      timeCell(m.updated_at), el("td", tv("source", m.source), null, { title: m.source }),
      frozenCell(m.frozen));
    openRow(tr, m.id);
    topics.append(tr);
  }
  if (!(S.topics || []).length) topics.append(emptyRow(t("topicsEmpty"), 5));
  labelRows($("prof-topic-table"));
}

// --- conflicts ---------------------------------------------------------------------------
/** A staged candidate that names stored memories it contradicts or would change. */
function isConflict(m) {
  const rv = (m.metadata && m.metadata.review) || {};
  return Boolean(rv.target_id || (rv.links || []).length);
}

export async function loadConflicts() {
  try {
    const pending = await api("GET", "/v1/review", { scoped: true });
    const shown = await Promise.all(pending.filter(isConflict).map((m) =>
      api("GET", `/v1/review/${encodeURIComponent(m.id)}`, { scoped: true })));
    S.conflicts = shown.filter((c) => c.linked.length);
    renderConflicts();
    hooks.flash("");
  } catch (e) { hooks.fail(e); }
}

function side(title, m, cls) {
  const box = el("div", null, `side ${cls}`, { "data-side": cls, "data-id": m.id });
  box.append(el("h4", title));
  const head = el("p", null, "content");
  if (m.slot) head.append(el("strong", plain(m.value)), " ");
  head.append(el("span", m.content));
  box.append(head);
  const meta = el("p", null, "muted meta");
  meta.append(el("span", tv("source", m.source), null, { title: m.source }), " · ",
    timeEl(m.updated_at), " · ", el("span", tv("status", m.status)));
  if (m.frozen) meta.append(" ", el("span", t("frozenBadge"), "badge frozen"));
  box.append(meta, button(m.id, () => hooks.openDrawer(m.id), { class: "link" }));
  return box;
}

export function renderConflicts() {
  const list = clear($("conflict-list"));
  for (const c of S.conflicts || []) {
    const m = c.memory;
    const li = el("li", null, "card conflict", { "data-id": m.id });
    li.append(el("h3", m.slot || m.topic || m.kind, "mono"));
    const pair = el("div", null, "pair");
    for (const stored of c.linked) pair.append(side(t("stored"), stored, "stored"));
    pair.append(side(t("proposed"), m, "proposed"));
    li.append(pair);
    const reasons = (c.review.reasons || []).map((r) => tv("reason", r));
    li.append(el("p", t("labelled", { label: t("stagedBecause"),
      text: reasons.join(t("listSep")) }), "muted reasons"));
    li.append(...decisionRow(m.id, t("useProposed"), t("keepStored"), loadConflicts));
    list.append(li);
  }
  $("conflict-empty").hidden = (S.conflicts || []).length > 0;
}

// The traces tab: "why did the assistant see this memory". Each candidate is shown with
// its content (read with GET /v1/memories/{id}) and its score parts, labelled.
import { S, $, hooks } from "./state.js";
import { el, button, clear, emptyRow, timeCell, timeEl, labelRows, api } from "./dom.js";
import { t, tv } from "./i18n.js";

// The parts worth reading, in order; the raw bm25 / dense scores stay in the title.
const PARTS = ["relevance", "bm25_norm", "dense_norm", "coverage_norm", "lines_norm",
  "recency", "confidence", "importance", "time_match", "speaker", "question", "answer"];

export async function loadTraces() {
  try {
    S.traces = await api("GET", "/v1/traces", { params: { limit: 100 }, scoped: true });
    renderTraces();
    hooks.flash("");
  } catch (e) { hooks.fail(e); }
}

export function renderTraces() {
  const body = clear($("trace-rows"));
  const only = $("trace-mem").value.trim();
  const rows = (S.traces || []).filter((tr) => !only || (tr.memory_ids || []).includes(only));
  for (const tr of rows) {
    const row = el("tr", null, "clickable", { "data-trace": tr.trace_id, tabindex: "0" });
    row.append(timeCell(tr.at), el("td", tv("verb", tr.kind)), el("td", tr.query, "content"),
      el("td", (tr.candidates || []).length), el("td", tr.trace_id, "mono"));
    row.addEventListener("click", () => openTrace(tr.trace_id));
    body.append(row);
  }
  if (!rows.length) body.append(emptyRow(t("noTraces"), 5));
  labelRows($("trace-table"));
  renderTrace();
}

export async function openTrace(id) {
  try {
    const tr = await api("GET", `/v1/traces/${encodeURIComponent(id)}`, { scoped: true });
    // The candidates' content: a memory purged since, or outside the scope, shows a note.
    const ids = [...new Set((tr.candidates || []).map((c) => c.id))];
    const got = await Promise.allSettled(ids.map((mid) =>
      api("GET", `/v1/memories/${encodeURIComponent(mid)}`, { scoped: true })));
    S.traceMems = Object.fromEntries(ids.map((mid, i) =>
      [mid, got[i].status === "fulfilled" ? got[i].value : null]));
    S.trace = tr;
    renderTrace();
  } catch (e) { hooks.fail(e); }
}

function fmtNum(x) { return Number(x).toFixed(3); }

/** The score parts as labelled chips: name and value, zero parts left out. */
function partsCell(parts) {
  const td = el("td", null, "parts", { title: JSON.stringify(parts || {}) });
  for (const k of PARTS) {
    const v = (parts || {})[k];
    if (v === undefined || v === null) continue;
    if (typeof v === "object") {
      for (const [model, x] of Object.entries(v)) {
        if (x) td.append(el("span", `${tv("part", k.replace("_norm", ""))}[${model}] ${fmtNum(x)}`,
          "part", { "data-part": `${k}.${model}` }));
      }
    } else if (v || k === "relevance") {
      td.append(el("span", `${tv("part", k.replace("_norm", ""))} ${fmtNum(v)}`, "part",
        { "data-part": k }));
    }
  }
  return td;
}

function contentCell(c) {
  const m = (S.traceMems || {})[c.id];
  const td = el("td", null, "content");
  td.append(el("div", m ? m.content : t("noContent"), m ? null : "muted"));
  td.append(button(`${c.id} v${c.version}`, () => hooks.openDrawer(c.id), { class: "link" }));
  return td;
}

export function renderTrace() {
  const tr = S.trace;
  $("trace-detail").hidden = !tr;
  if (!tr) return;
  $("td-id").textContent = tr.trace_id;
  const meta = clear($("td-meta"));
  const add = (dl, label, v) => {
    const dd = el("dd");
    dd.append(v instanceof Node ? v : el("span", v));
    dl.append(el("dt", label), dd);
  };
  add(meta, t("traceKind"), tv("verb", tr.kind));
  add(meta, t("query"), tr.query);
  add(meta, t("at"), timeEl(tr.at));
  add(meta, t("strategy"), tr.strategy_hash);
  add(meta, t("asOf"), tr.as_of ? timeEl(tr.as_of) : "—");
  const range = el("span");
  if (tr.time_range) range.append(timeEl(tr.time_range[0]), " → ", timeEl(tr.time_range[1]));
  else range.textContent = "—";
  add(meta, t("timeRange"), range);
  // Which reranker ran, and why it kept the first-stage order if it did (as text).
  const rr = tr.rerank;
  add(meta, t("reranked"), (tr.reranked ? t("yes") : t("no"))
    + (rr ? ` (${rr.kind} ${rr.model}${rr.fallback ? ": " + rr.fallback : ""})` : ""));
  $("td-filters").textContent = (tr.store_filters || []).join(", ");
  const body = clear($("td-rows"));
  for (const c of tr.candidates || []) {
    const row = el("tr", null, c.outcome === "returned" ? "returned" : "filtered",
      { "data-id": c.id, "data-outcome": c.outcome });
    row.append(el("td", c.rank ?? "—"), contentCell(c), el("td", tv("kind", c.kind)),
      c.slot ? el("td", c.slot) : el("td", c.topic ?? "—", c.topic ? "topic" : null),
      el("td", fmtNum(c.score)),
      el("td", c.outcome === "returned" ? t("returned")
        : t("filteredBy", { reason: tv("outcome", c.outcome) })),
      partsCell(c.parts));
    body.append(row);
  }
  labelRows($("td-cands"));
  const inj = tr.injected;
  $("td-injected").hidden = !inj;
  if (inj) {
    const dl = clear($("td-inj-meta"));
    add(dl, t("tokens"), t("tokensOf", { tokens: inj.tokens ?? "?", budget: inj.budget_tokens ?? "?" }));
    add(dl, t("included"), (inj.included || []).join(", ") || "—");
    add(dl, t("dropped"), (inj.dropped || []).map((d) => `${d.id} (${d.reason})`).join(", ") || "—");
    $("td-text").textContent = inj.text || "";
  }
}

export async function probe(ev) {
  ev.preventDefault();
  if (!S.user) return;
  const q = $("probe-q").value.trim();
  if (!q) return;
  try {
    const r = await api("POST", "/v1/recall", { body: { query: q }, scoped: true });
    await loadTraces();
    if (r.trace_id) await openTrace(r.trace_id);
  } catch (e) { hooks.fail(e); }
}

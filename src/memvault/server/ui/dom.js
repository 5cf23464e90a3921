// Small DOM helpers and the API client. Safety rule: data from the server is only ever
// placed with textContent / value / attributes, never parsed as HTML.
import { S } from "./state.js";
import { t } from "./i18n.js";

/** An element with text (never HTML) and optional class / attributes. */
export function el(tag, text, cls, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

export function button(text, onClick, attrs) {
  const b = el("button", text, null, { type: "button", ...(attrs || {}) });
  b.addEventListener("click", onClick);
  return b;
}

export function clear(node) { node.replaceChildren(); return node; }

export function emptyRow(text, cols) {
  const tr = el("tr");
  tr.append(el("td", text, "muted", { colspan: String(cols) }));
  return tr;
}

/** One human format for every time on the page, in the page's language. */
export function fmtTime(ms) {
  if (ms === null || ms === undefined) return "—";
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return String(ms);
  return new Intl.DateTimeFormat(S.lang === "zh" ? "zh-CN" : "en-GB", {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
  }).format(d);
}

/** A <time>: the human format, the exact value (ISO, UTC, and epoch ms) on hover. */
export function timeEl(ms) {
  if (ms === null || ms === undefined) return el("span", "—");
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return el("span", String(ms));
  const iso = d.toISOString();
  return el("time", fmtTime(ms), null, { datetime: iso, title: t("fullTime", { iso, ms }) });
}

export function timeCell(ms) {
  const td = el("td");
  td.append(timeEl(ms));
  return td;
}

/** Each cell gets its column's header as data-label: on a narrow screen the table is
 * laid out as one card per row, each value under its label (app.css). */
export function labelRows(table) {
  const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
  for (const tr of table.querySelectorAll("tbody tr")) {
    [...tr.children].forEach((td, i) => {
      if (heads[i]) td.setAttribute("data-label", heads[i]);
    });
  }
}

// --- API -------------------------------------------------------------------------------
export class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

export async function api(method, path, opts) {
  const { params, body, scoped } = opts || {};
  const url = new URL(path, location.origin);
  // A team's shared scope (docs/teams.md) is picked as "team:<name>" and sent as team=.
  const team = scoped && S.user.startsWith("team:") ? S.user.slice(5) : null;
  const all = { ...(scoped ? (team ? { team } : { user: S.user }) : {}), ...(params || {}) };
  for (const [k, v] of Object.entries(all)) {
    if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, String(v));
  }
  const headers = { Authorization: `Bearer ${S.key}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const r = await fetch(url, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit", cache: "no-store",
  });
  let data = null;
  try { data = await r.json(); } catch { data = null; }
  if (!r.ok) {
    throw new ApiError(r.status, data && data.code, (data && data.message) || r.statusText);
  }
  return data;
}

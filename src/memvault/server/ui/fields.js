// The drawer's fields, grouped (the memory, its state, where it came from, its scope and
// its times), each a label and a value: scope and metadata as fields, not a JSON blob.
import { el, clear, timeEl } from "./dom.js";
import { t, tv } from "./i18n.js";

const GROUPS = [
  ["g_what", ["id", "content", "kind", "slot", "topic", "value", "tags"]],
  ["g_state", ["status", "frozen", "version", "confidence"]],
  ["g_provenance", ["source", "source_text", "source_ref", "metadata", "embedding_model"]],
  ["g_scope", ["scope"]],
  ["g_time", ["valid_from", "valid_to", "expires_at", "created_at", "updated_at",
    "recorded_at"]],
];
const TIME = new Set(GROUPS[4][1]);
const ENUM = { kind: "kind", status: "status", source: "source" };
const SCOPE_PARTS = ["tenant", "user", "agent", "session"];

/** A plain value as text: strings as they are, numbers and booleans as words, lists
 * joined, anything nested as compact JSON (it is data the page cannot know the shape of). */
export function plain(v) {
  if (v === null || v === undefined || v === "") return "—";
  if (typeof v === "boolean") return tv("bool", v);
  if (Array.isArray(v) && v.every((x) => typeof x !== "object" || x === null)) {
    return v.length ? v.join(", ") : "—";
  }
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function subFields(pairs) {
  const dl = el("dl", null, "fields sub");
  for (const [label, value, key] of pairs) {
    const dd = el("dd", null, null, { "data-sub": key });
    dd.append(value instanceof Node ? value : el("span", value));
    dl.append(el("dt", label, null, { title: key }), dd);
  }
  return dl;
}

function scopeFields(sc) {
  return subFields(SCOPE_PARTS.map((k) => [t(`s_${k}`),
    sc && sc[k] ? sc[k] : (k === "agent" || k === "session" ? t("scopeAll") : "—"), k]));
}

function metadataFields(md) {
  const keys = Object.keys(md || {});
  if (!keys.length) return el("span", "—");
  return subFields(keys.map((k) => {
    const v = md[k];
    if (k === "review" && v && typeof v === "object") {
      const parts = (v.reasons || []).map((r) => tv("reason", r));
      if (v.target_id) parts.push(`→ ${v.target_id}`);
      return [t("m_review"), parts.join("; ") || plain(v), k];
    }
    return [k === "extractor" ? t("m_extractor") : k, plain(v), k];
  }));
}

/** One field of a memory as an element, in the page's language. */
export function valueOf(m, f) {
  const v = m[f];
  if (TIME.has(f)) return timeEl(v);
  if (f === "scope") return scopeFields(v);
  if (f === "metadata") return metadataFields(v);
  if (ENUM[f]) return el("span", tv(ENUM[f], v), null, { title: String(v) });
  if (f === "frozen") return el("span", tv("bool", Boolean(v)));
  return el("span", plain(v));
}

export function renderFields(dl, m) {
  clear(dl);
  for (const [group, fields] of GROUPS) {
    dl.append(el("dt", t(group), "group"), el("dd", null, "group"));
    for (const f of fields) {
      const dd = el("dd", null, null, { "data-field": f });
      dd.append(valueOf(m, f));
      dl.append(el("dt", t(`f_${f}`), null, { title: f }), dd);
    }
  }
}

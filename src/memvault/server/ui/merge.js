// Merge and split in the admin page (docs/consolidation.md): pick memories in the list
// and "merge selected" (POST /v1/merge), and in the drawer the links a merge or split
// left (merged_from / merged_into / split_from / split_into) with an undo button.
import { S, $, hooks } from "./state.js";
import { el, button, clear, api } from "./dom.js";
import { t } from "./i18n.js";

const picked = new Set();

function syncBar() {
  for (const id of [...picked]) {
    if (!(S.list || []).some((m) => m.id === id)) picked.delete(id);
  }
  $("merge-selected").disabled = picked.size < 2;
  $("merge-count").textContent = picked.size ? t("selectedN", { n: picked.size }) : "";
}

/** The checkbox that picks an active memory for a merge (it does not open the drawer). */
export function pickBox(m) {
  const box = el("input", null, "pick", { type: "checkbox", "data-pick": m.id,
    "aria-label": t("pickForMerge") });
  box.checked = picked.has(m.id);
  box.disabled = m.status !== "active" || m.frozen;
  box.addEventListener("click", (ev) => ev.stopPropagation());
  box.addEventListener("keydown", (ev) => ev.stopPropagation());
  box.addEventListener("change", () => {
    if (box.checked) picked.add(m.id); else picked.delete(m.id);
    syncBar();
  });
  return box;
}

export function afterList() { syncBar(); }

export function wireMerge(reload) {
  $("merge-selected").addEventListener("click", async () => {
    const reason = $("merge-reason").value.trim();
    if (!reason) { hooks.flash(t("reasonRequired"), "error"); $("merge-reason").focus(); return; }
    try {
      const m = await api("POST", "/v1/merge", { body: { ids: [...picked], reason }, scoped: true });
      picked.clear();
      $("merge-reason").value = "";
      await reload();
      hooks.flash(t("mergedAs", { id: m.id }), "ok");
      await hooks.openDrawer(m.id);
    } catch (e) { hooks.fail(e); }
  });
}

function refs(value) {
  const list = Array.isArray(value) ? value : [value];
  return list.map((r) => String(r).split("@")[0]);
}

/** The drawer's links: where a merged or split memory came from or went. */
export function renderLinks(onUndo) {
  const box = clear($("d-links"));
  const md = (S.memory && S.memory.metadata) || {};
  const rows = [["merged_from", "mergedFrom"], ["merged_into", "mergedInto"],
    ["split_from", "splitFrom"], ["split_into", "splitInto"]];
  for (const [key, label] of rows) {
    if (md[key] === undefined) continue;
    const p = el("p", null, "links", { "data-link": key });
    p.append(el("span", t(label)), " ");
    for (const id of refs(md[key])) {
      p.append(button(id, () => hooks.openDrawer(id), { class: "link", "data-open": id }), " ");
    }
    box.append(p);
  }
  const active = S.memory && S.memory.status === "active";
  if (md.merged_from && active) {
    box.append(button(t("unmerge"), () => onUndo("unmerge"), { id: "d-unmerge" }));
  } else if (md.split_from && active) {
    box.append(button(t("unsplit"), () => onUndo("unsplit"), { id: "d-unsplit" }));
  }
  box.hidden = !box.childNodes.length;
}

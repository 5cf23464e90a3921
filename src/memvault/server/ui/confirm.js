// Confirmation before a change that is hard or impossible to undo (rollback, forget, purge):
// a native modal <dialog> that says what will happen. Only its confirm button says yes;
// Cancel, Escape or closing it otherwise changes nothing.
import { $ } from "./state.js";
import { t } from "./i18n.js";

export function confirmAction({ title, body, reason, ok, danger }) {
  const d = $("confirm");
  $("c-title").textContent = title;
  $("c-body").textContent = body;
  $("c-reason").textContent = reason ? t("confirmReason", { reason }) : "";
  $("c-ok").textContent = ok;
  $("c-ok").classList.toggle("danger", Boolean(danger));
  $("c-cancel").textContent = t("cancel");
  return new Promise((resolve) => {
    d.addEventListener("close", () => resolve(d.returnValue === "ok"), { once: true });
    d.returnValue = "";
    d.showModal();
    $("c-cancel").focus();
  });
}

export function wireConfirm() {
  const d = $("confirm");
  $("c-ok").addEventListener("click", () => d.close("ok"));
  $("c-cancel").addEventListener("click", () => d.close("cancel"));
}

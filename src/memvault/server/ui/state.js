// The page's state, shared by its modules, and the hooks the main module fills in
// (so the views can open the drawer or report an error without importing app.js).
export const S = {
  key: sessionStorage.getItem("memvault.key") || "",
  user: sessionStorage.getItem("memvault.user") || "",
  lang: localStorage.getItem("memvault.lang") === "zh" ? "zh" : "en",
  me: null, tab: "memories", offset: 0,
  // The last data shown, so a language switch can re-render without refetching.
  list: null, review: null, audit: null, traces: null, trace: null, traceMems: null,
  profile: null, topics: null, conflicts: null, snapshots: null, snapDiff: null,
  memory: null, history: null, diff: null,
};

export const hooks = { openDrawer: null, fail: null, flash: null };

export const $ = (id) => document.getElementById(id);

// The memvault admin page: vanilla JS over the /v1 REST API.
// Safety rule: data from the server (memory content, metadata, reasons, queries) is only
// ever placed with textContent / value, never parsed as HTML. The server's
// Content-Security-Policy forbids inline script as a second fence.
"use strict";

(() => {
  // The core enums (memvault.model); tests/test_admin_page.py checks they match.
  const KINDS = ["fact", "preference", "profile", "episode", "summary", "turn", "document",
    "entity", "relation", "note"];
  const STATUSES = ["pending", "active", "superseded", "expired", "rejected", "deleted"];
  const SOURCES = ["user_explicit", "system_inferred", "admin_manual", "document", "tool",
    "import"];
  const ENUMS = { kinds: KINDS, statuses: STATUSES, sources: SOURCES };
  const FIELDS = ["id", "content", "kind", "slot", "topic", "value", "tags", "metadata", "source",
    "source_text", "source_ref", "confidence", "status", "frozen", "version", "valid_from",
    "valid_to", "expires_at", "embedding_model", "created_at", "updated_at", "recorded_at",
    "scope"];
  const TIME_FIELDS = new Set(["valid_from", "valid_to", "expires_at", "created_at",
    "updated_at", "recorded_at"]);
  const PAGE = 50;

  // All UI text, one dictionary per language.
  const I18N = {
    en: {
      title: "memvault admin", language: "Language", signOut: "Sign out",
      signInTitle: "Sign in with an API key", apiKey: "API key", signIn: "Sign in",
      signInHint: "The key stays in this browser tab (sessionStorage) and is sent as a " +
        "Bearer token to this server only.",
      signInFailed: "Sign-in failed: {msg}", keyRequired: "Enter an API key.",
      signedInAs: "{role} key {key_id}", user: "User", open: "Open",
      currentUser: "Working on user: {user}", pickUser: "Pick a user first.",
      tabMemories: "Memories", tabReview: "Review", tabAudit: "Audit log",
      tabTraces: "Traces", search: "Search", kind: "Kind", status: "Status", slot: "Slot",
      topic: "Topic", slotTopic: "Slot / topic",
      source: "Source", frozen: "Frozen", any: "any", yes: "yes", no: "no",
      expiring: "Expiring within", day1: "1 day", day7: "7 days", day30: "30 days",
      day365: "1 year", apply: "Apply", reset: "Reset", content: "Content",
      version: "Version", updated: "Updated", noMemories: "No memories match.",
      prev: "Previous", next: "Next", page: "Page {n}",
      reviewHint: "Candidates the gate staged instead of applying. Approving makes one " +
        "active; rejecting keeps it out of recall. Both need a reason.",
      reviewEmpty: "Nothing to review.", approve: "Approve", reject: "Reject",
      stagedBecause: "Staged because", wouldReplace: "Would replace",
      approved: "Approved {id}.", rejected: "Rejected {id}.", at: "When", memory: "Memory",
      op: "Change", actor: "Actor", reason: "Reason",
      tracesHint: "Why did the assistant see this memory? Each recall or context build " +
        "leaves a trace: every candidate with its score parts, what was filtered and why, " +
        "and what was injected.",
      probe: "Try a recall", runRecall: "Recall", traceFilter: "Only traces with memory",
      traceKind: "Verb", query: "Query", candidates: "Candidates", trace: "Trace",
      storeFilters: "Never candidates (filtered in the store query)", rank: "Rank",
      score: "Score", outcome: "Outcome", scoreParts: "Score parts",
      injected: "Injected into the prompt", returned: "returned",
      filteredBy: "filtered: {reason}", noTraces: "No traces yet.",
      tokensOf: "{tokens} of {budget} tokens", included: "Included", dropped: "Dropped",
      strategy: "Strategy", asOf: "As of", timeRange: "Time range", reranked: "Reranked",
      close: "Close", edit: "Edit", freeze: "Freeze", unfreeze: "Unfreeze",
      whySeen: "Traces with this memory",
      govReason: "Reason for freeze / unfreeze / rollback",
      editTitle: "Edit (a new version, source admin_manual)", tags: "Tags",
      confidence: "Confidence", valueJson: "Value (JSON)", metadataJson: "Metadata (JSON)",
      changeReason: "Reason for the change (required)", save: "Save", cancel: "Cancel",
      history: "History", diff: "Diff", field: "Field", before: "Before", after: "After",
      showDiff: "Diff", rollbackTo: "Roll back to v{n}",
      reasonRequired: "A reason is required.", noChange: "Nothing changed.",
      badJson: "{field}: not valid JSON", badNumber: "{field}: not a number",
      frozenNoEdit: "This memory is frozen: unfreeze it before editing.",
      saved: "Saved: version {v}.", frozenDone: "Frozen (version {v}).",
      unfrozenDone: "Unfrozen (version {v}).",
      rolledBack: "Rolled back to version {n} (now version {v}).",
      sessionEnded: "The key was refused ({msg}); sign in again.", error: "Error: {msg}",
      diffNone: "No differences.", frozenBadge: "frozen", tokens: "Tokens",
      f_id: "ID", f_content: "Content", f_kind: "Kind", f_slot: "Slot", f_topic: "Topic",
      f_value: "Value",
      f_tags: "Tags", f_metadata: "Metadata", f_source: "Source",
      f_source_text: "Source text", f_source_ref: "Source reference",
      f_confidence: "Confidence", f_status: "Status", f_frozen: "Frozen",
      f_version: "Version", f_valid_from: "Valid from", f_valid_to: "Valid to",
      f_expires_at: "Expires at", f_embedding_model: "Embedding model",
      f_created_at: "Created", f_updated_at: "Updated", f_recorded_at: "Recorded",
      f_scope: "Scope",
    },
    zh: {
      title: "memvault 管理", language: "语言", signOut: "退出登录",
      signInTitle: "使用 API 密钥登录", apiKey: "API 密钥", signIn: "登录",
      signInHint: "密钥只保存在当前浏览器标签页（sessionStorage），并仅作为 Bearer 令牌发送给本服务器。",
      signInFailed: "登录失败：{msg}", keyRequired: "请输入 API 密钥。",
      signedInAs: "{role} 密钥 {key_id}", user: "用户", open: "打开",
      currentUser: "当前用户：{user}", pickUser: "请先选择用户。",
      tabMemories: "记忆", tabReview: "审核", tabAudit: "审计日志", tabTraces: "检索追踪",
      search: "搜索", kind: "类型", status: "状态", slot: "槽位", topic: "主题",
      slotTopic: "槽位 / 主题", source: "来源",
      frozen: "冻结", any: "全部", yes: "是", no: "否", expiring: "即将过期",
      day1: "1 天内", day7: "7 天内", day30: "30 天内", day365: "1 年内", apply: "筛选",
      reset: "重置", content: "内容", version: "版本", updated: "更新时间",
      noMemories: "没有匹配的记忆。", prev: "上一页", next: "下一页", page: "第 {n} 页",
      reviewHint: "门控暂存而未直接写入的候选。批准后生效；拒绝后不会被检索。两者都需要填写原因。",
      reviewEmpty: "没有待审核的内容。", approve: "批准", reject: "拒绝",
      stagedBecause: "暂存原因", wouldReplace: "将替换", approved: "已批准 {id}。",
      rejected: "已拒绝 {id}。", at: "时间", memory: "记忆", op: "变更", actor: "操作者",
      reason: "原因",
      tracesHint: "助手为什么看到了这条记忆？每次检索或构建上下文都会留下追踪：每个候选及其得分构成、被过滤的内容及原因、以及注入的内容。",
      probe: "试运行检索", runRecall: "检索", traceFilter: "仅显示包含此记忆的追踪",
      traceKind: "操作", query: "查询", candidates: "候选", trace: "追踪",
      storeFilters: "不会成为候选（在存储查询中过滤）", rank: "排名", score: "得分",
      outcome: "结果", scoreParts: "得分构成", injected: "注入提示词的内容",
      returned: "已返回", filteredBy: "已过滤：{reason}", noTraces: "暂无追踪。",
      tokensOf: "{tokens} / {budget} 令牌", included: "已注入", dropped: "已丢弃",
      strategy: "策略", asOf: "时间点", timeRange: "时间范围", reranked: "已重排",
      close: "关闭", edit: "编辑", freeze: "冻结", unfreeze: "解冻",
      whySeen: "包含此记忆的追踪", govReason: "冻结 / 解冻 / 回滚的原因",
      editTitle: "编辑（生成新版本，来源 admin_manual）", tags: "标签", confidence: "置信度",
      valueJson: "值（JSON）", metadataJson: "元数据（JSON）",
      changeReason: "变更原因（必填）", save: "保存", cancel: "取消", history: "历史版本",
      diff: "差异", field: "字段", before: "之前", after: "之后", showDiff: "差异",
      rollbackTo: "回滚到 v{n}", reasonRequired: "必须填写原因。", noChange: "没有任何改动。",
      badJson: "{field}：不是有效的 JSON", badNumber: "{field}：不是数字",
      frozenNoEdit: "此记忆已冻结：请先解冻再编辑。", saved: "已保存：版本 {v}。",
      frozenDone: "已冻结（版本 {v}）。", unfrozenDone: "已解冻（版本 {v}）。",
      rolledBack: "已回滚到版本 {n}（当前版本 {v}）。",
      sessionEnded: "密钥被拒绝（{msg}），请重新登录。", error: "错误：{msg}",
      diffNone: "无差异。", frozenBadge: "已冻结", tokens: "令牌",
      f_id: "ID", f_content: "内容", f_kind: "类型", f_slot: "槽位", f_topic: "主题",
      f_value: "值",
      f_tags: "标签", f_metadata: "元数据", f_source: "来源", f_source_text: "来源原文",
      f_source_ref: "来源引用", f_confidence: "置信度", f_status: "状态", f_frozen: "冻结",
      f_version: "版本", f_valid_from: "生效时间", f_valid_to: "失效时间",
      f_expires_at: "过期时间", f_embedding_model: "向量模型", f_created_at: "创建时间",
      f_updated_at: "更新时间", f_recorded_at: "记录时间", f_scope: "作用域",
    },
  };

  const $ = (id) => document.getElementById(id);
  const S = {
    key: sessionStorage.getItem("memvault.key") || "",
    user: sessionStorage.getItem("memvault.user") || "",
    lang: localStorage.getItem("memvault.lang") === "zh" ? "zh" : "en",
    me: null, tab: "memories", offset: 0,
    // The last data shown, so a language switch can re-render without refetching.
    list: null, review: null, audit: null, traces: null, trace: null,
    memory: null, history: null, diff: null,
  };

  function t(key, vars) {
    let s = (I18N[S.lang] && I18N[S.lang][key]) ?? I18N.en[key] ?? key;
    for (const [k, v] of Object.entries(vars || {})) s = s.split(`{${k}}`).join(String(v));
    return s;
  }

  /** An element with text (never HTML) and optional class / attributes. */
  function el(tag, text, cls, attrs) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  }

  function button(text, onClick, attrs) {
    const b = el("button", text, null, { type: "button", ...(attrs || {}) });
    b.addEventListener("click", onClick);
    return b;
  }

  function fmtTime(ms) {
    if (ms === null || ms === undefined) return "—";
    const d = new Date(ms);
    return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString().replace("T", " ").slice(0, 19) + "Z";
  }

  function fmtValue(name, v) {
    if (v === null || v === undefined) return "—";
    if (TIME_FIELDS.has(name)) return `${fmtTime(v)} (${v})`;
    if (typeof v === "object") return JSON.stringify(v, null, 2);
    return String(v);
  }

  function clear(node) { node.replaceChildren(); return node; }

  function emptyRow(text, cols) {
    const tr = el("tr");
    tr.append(el("td", text, "muted", { colspan: String(cols) }));
    return tr;
  }

  // --- API ---------------------------------------------------------------------------
  class ApiError extends Error {
    constructor(status, code, message) { super(message); this.status = status; this.code = code; }
  }

  async function api(method, path, opts) {
    const { params, body, scoped } = opts || {};
    const url = new URL(path, location.origin);
    const all = { ...(scoped ? { user: S.user } : {}), ...(params || {}) };
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

  function needUser() {
    if (S.user) return true;
    flash(t("pickUser"), "error");
    return false;
  }

  // --- sign in / out -------------------------------------------------------------------
  async function signIn(key) {
    S.key = key;
    const me = await api("GET", "/v1/users");  // checks the key, says its role and users
    S.me = me;
    sessionStorage.setItem("memvault.key", key);
    if (me.bound) setUser(me.users[0]);
    else if (S.user) setUser(S.user);
    const list = clear($("user-list"));
    for (const u of me.users) list.append(el("option", null, null, { value: u }));
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
      traces: null, trace: null, memory: null, history: null, diff: null, offset: 0 });
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
    if (S.me) $("who").textContent = t("signedInAs", { role: S.me.role, key_id: S.me.key_id });
    $("current-user").textContent = S.user ? t("currentUser", { user: S.user }) : t("pickUser");
  }

  function setUser(u) {
    S.user = u;
    $("user").value = u;
    sessionStorage.setItem("memvault.user", u);
    renderWho();
  }

  // --- tabs ------------------------------------------------------------------------------
  const LOADERS = { memories: loadList, review: loadReview, audit: loadAudit, traces: loadTraces };

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
    else flash(t("pickUser"));
  }

  // --- memories --------------------------------------------------------------------------
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
    if (!needUser()) return;
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
      if (m.frozen) content.prepend(el("span", t("frozenBadge"), "badge"));
      tr.append(content, el("td", m.kind), keyCell(m), el("td", m.status),
        el("td", m.source), el("td", m.version), el("td", fmtTime(m.updated_at)));
      tr.addEventListener("click", () => openDrawer(m.id));
      tr.addEventListener("keydown", (ev) => { if (ev.key === "Enter") openDrawer(m.id); });
      body.append(tr);
    }
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

  // --- drawer: one memory, its edit form, history and diffs ---------------------------------
  async function openDrawer(id) {
    if (!needUser()) return;
    $("d-msg").textContent = "";
    $("d-msg").className = "";
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
    } catch (e) { fail(e); }
  }

  function renderDrawer() {
    const m = S.memory;
    if (!m) return;
    const dl = clear($("d-fields"));
    for (const f of FIELDS) {
      const dt = el("dt", t(`f_${f}`), null, { title: f });
      const v = fmtValue(f, m[f]);
      const dd = el("dd", null, null, { "data-field": f });
      // Multi-line JSON goes in a <pre>; still textContent.
      dd.append(typeof m[f] === "object" && m[f] !== null ? el("pre", v) : el("span", v));
      dl.append(dt, dd);
    }
    $("d-freeze").hidden = m.frozen;
    $("d-unfreeze").hidden = !m.frozen;
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
        cell.append(button(t("rollbackTo", { n: r.to_version }), () => rollback(r.to_version),
          { class: "small", "data-rollback": String(r.to_version) }));
      }
      tr.append(el("td", r.from_version ? `${r.from_version} → ${r.to_version}` : r.to_version),
        el("td", r.op), el("td", fmtTime(r.at)), el("td", r.actor), el("td", r.reason ?? "—"),
        cell);
      body.append(tr);
    }
  }

  async function showDiff(a, b) {
    try {
      const d = await api("GET", `/v1/memories/${encodeURIComponent(S.memory.id)}/diff`,
        { params: { from_version: a, to_version: b }, scoped: true });
      S.diff = { a, b, d };
      renderDiff();
    } catch (e) { fail(e, $("d-msg")); }
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
      tr.append(el("td", k), el("td", fmtValue(k, d[k].from), "from"),
        el("td", fmtValue(k, d[k].to), "to"));
      body.append(tr);
    }
  }

  function drawerMessage(text, kind) {
    $("d-msg").textContent = text;
    $("d-msg").className = kind || "";
  }

  function governReason() {
    const r = $("d-reason").value.trim();
    if (!r) { drawerMessage(t("reasonRequired"), "error"); $("d-reason").focus(); }
    return r;
  }

  async function govern(action, doneKey) {
    const reason = governReason();
    if (!reason) return;
    try {
      const m = await api("POST", `/v1/memories/${encodeURIComponent(S.memory.id)}/${action}`,
        { body: { reason }, scoped: true });
      $("d-reason").value = "";
      await openDrawer(m.id);
      drawerMessage(t(doneKey, { v: m.version }), "ok");
      if (S.tab === "memories") loadList();
    } catch (e) { fail(e, $("d-msg")); }
  }

  async function rollback(n) {
    const reason = governReason();
    if (!reason) return;
    try {
      const m = await api("POST", `/v1/memories/${encodeURIComponent(S.memory.id)}/rollback`,
        { body: { to_version: n, reason }, scoped: true });
      $("d-reason").value = "";
      await openDrawer(m.id);
      drawerMessage(t("rolledBack", { n, v: m.version }), "ok");
      if (S.tab === "memories") loadList();
    } catch (e) { fail(e, $("d-msg")); }
  }

  function openEdit() {
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

  async function submitEdit(ev) {
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
      if (S.tab === "memories") loadList();
    } catch (e) {
      if (e.code === "frozen") $("e-error").textContent = t("frozenNoEdit");
      else fail(e, $("e-error"));
    }
  }

  // --- review --------------------------------------------------------------------------------
  async function loadReview() {
    if (!needUser()) return;
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
        el("span", `${m.kind}${m.slot ? ` · ${m.slot} = ${JSON.stringify(m.value)}`
          : m.topic ? ` · ${t("topic")}: ${m.topic}` : ""}`, "muted"));
      li.append(head);
      if (m.source_text) li.append(el("p", `“${m.source_text}”`, "quote"));
      if (rv.reasons && rv.reasons.length) {
        li.append(el("p", `${t("stagedBecause")}: ${rv.reasons.join(", ")}`, "muted"));
      }
      if (rv.target_id) {
        const p = el("p", `${t("wouldReplace")}: `, "muted");
        p.append(button(rv.target_id, () => openDrawer(rv.target_id), { class: "link" }));
        li.append(p);
      }
      const reason = el("input", null, "reason", { placeholder: t("reason"), "aria-label": t("reason") });
      const out = el("p", null, "error", { role: "alert" });
      const act = (verb, doneKey) => async () => {
        const r = reason.value.trim();
        if (!r) { out.textContent = t("reasonRequired"); reason.focus(); return; }
        try {
          await api("POST", `/v1/review/${encodeURIComponent(m.id)}/${verb}`,
            { body: { reason: r }, scoped: true });
          await loadReview();
          flash(t(doneKey, { id: m.id }), "ok");
        } catch (e) { fail(e, out); }
      };
      const row = el("div", null, "row");
      row.append(reason, button(t("approve"), act("approve", "approved"), { "data-act": "approve" }),
        button(t("reject"), act("reject", "rejected"), { "data-act": "reject" }),
        button(t("open"), () => openDrawer(m.id), { class: "link" }));
      li.append(row, out);
      list.append(li);
    }
    $("review-empty").hidden = (S.review || []).length > 0;
  }

  // --- audit -----------------------------------------------------------------------------------
  async function loadAudit() {
    if (!needUser()) return;
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
      mem.append(button(r.memory_id, () => openDrawer(r.memory_id), { class: "link" }));
      tr.append(el("td", fmtTime(r.at)), mem, el("td", r.op),
        el("td", r.from_version ? `${r.from_version} → ${r.to_version}` : r.to_version),
        el("td", `${r.actor} (${r.actor_role})`), el("td", r.reason ?? "—"));
      body.append(tr);
    }
  }

  // --- traces ------------------------------------------------------------------------------------
  async function loadTraces() {
    if (!needUser()) return;
    try {
      S.traces = await api("GET", "/v1/traces", { params: { limit: 100 }, scoped: true });
      renderTraces();
      flash("");
    } catch (e) { fail(e); }
  }

  function renderTraces() {
    const body = clear($("trace-rows"));
    const only = $("trace-mem").value.trim();
    const rows = (S.traces || []).filter((tr) => !only || (tr.memory_ids || []).includes(only));
    for (const tr of rows) {
      const row = el("tr", null, "clickable", { "data-trace": tr.trace_id, tabindex: "0" });
      row.append(el("td", fmtTime(tr.at)), el("td", tr.kind), el("td", tr.query, "content"),
        el("td", (tr.candidates || []).length), el("td", tr.trace_id, "mono"));
      row.addEventListener("click", () => openTrace(tr.trace_id));
      body.append(row);
    }
    if (!rows.length) body.append(emptyRow(t("noTraces"), 5));
    renderTrace();
  }

  async function openTrace(id) {
    try {
      S.trace = await api("GET", `/v1/traces/${encodeURIComponent(id)}`, { scoped: true });
      renderTrace();
    } catch (e) { fail(e); }
  }

  function fmtParts(parts) {
    const out = [];
    for (const [k, v] of Object.entries(parts || {})) {
      if (v && typeof v === "object") {
        for (const [model, x] of Object.entries(v)) out.push(`${k}[${model}]=${Number(x).toFixed(3)}`);
      } else out.push(`${k}=${typeof v === "number" ? v.toFixed(3) : v}`);
    }
    return out.join("  ");
  }

  function renderTrace() {
    const tr = S.trace;
    $("trace-detail").hidden = !tr;
    if (!tr) return;
    $("td-id").textContent = tr.trace_id;
    const meta = clear($("td-meta"));
    const add = (dl, label, v) => dl.append(el("dt", label), el("dd", v));
    add(meta, t("traceKind"), tr.kind);
    add(meta, t("query"), tr.query);
    add(meta, t("at"), fmtTime(tr.at));
    add(meta, t("strategy"), tr.strategy_hash);
    add(meta, t("asOf"), tr.as_of ? fmtTime(tr.as_of) : "—");
    add(meta, t("timeRange"), tr.time_range ? tr.time_range.map(fmtTime).join(" → ") : "—");
    add(meta, t("reranked"), tr.reranked ? t("yes") : t("no"));
    $("td-filters").textContent = (tr.store_filters || []).join(", ");
    const body = clear($("td-rows"));
    for (const c of tr.candidates || []) {
      const row = el("tr", null, c.outcome === "returned" ? "returned" : "filtered",
        { "data-id": c.id, "data-outcome": c.outcome });
      const mem = el("td");
      mem.append(button(`${c.id} v${c.version}`, () => openDrawer(c.id), { class: "link" }));
      row.append(el("td", c.rank ?? "—"), mem, el("td", c.kind), el("td", c.slot ?? "—"),
        el("td", Number(c.score).toFixed(3)),
        el("td", c.outcome === "returned" ? t("returned") : t("filteredBy", { reason: c.outcome })),
        el("td", fmtParts(c.parts), "mono small"));
      body.append(row);
    }
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

  async function probe(ev) {
    ev.preventDefault();
    if (!needUser()) return;
    const q = $("probe-q").value.trim();
    if (!q) return;
    try {
      const r = await api("POST", "/v1/recall", { body: { query: q }, scoped: true });
      await loadTraces();
      if (r.trace_id) await openTrace(r.trace_id);
    } catch (e) { fail(e); }
  }

  // --- language --------------------------------------------------------------------------------
  function fillEnums() {
    for (const sel of document.querySelectorAll("select[data-enum]")) {
      const keep = sel.value;
      clear(sel);
      if (!sel.dataset.noAny) sel.append(el("option", t("any"), null, { value: "" }));
      for (const v of ENUMS[sel.dataset.enum]) sel.append(el("option", v, null, { value: v }));
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
    if (S.review) renderReview();
    if (S.audit) renderAudit();
    if (S.traces) renderTraces();
    if (S.memory) renderDrawer();
  }

  // --- wiring --------------------------------------------------------------------------------------
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
      $("drawer").hidden = true;
      S.memory = null;
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
    $("d-close").addEventListener("click", () => { $("drawer").hidden = true; S.memory = null; });
    $("d-edit").addEventListener("click", openEdit);
    $("e-cancel").addEventListener("click", () => { $("edit-form").hidden = true; });
    $("edit-form").addEventListener("submit", submitEdit);
    $("d-freeze").addEventListener("click", () => govern("freeze", "frozenDone"));
    $("d-unfreeze").addEventListener("click", () => govern("unfreeze", "unfrozenDone"));
    $("d-traces").addEventListener("click", () => {
      $("trace-mem").value = S.memory ? S.memory.id : "";
      S.trace = null;
      showTab("traces");
    });
    $("probe").addEventListener("submit", probe);
    $("trace-mem").addEventListener("input", renderTraces);
  }

  wire();
  applyLang();
  if (S.key) {
    signIn(S.key).catch((e) => signOut(t("signInFailed", { msg: e.message })));
  }
})();

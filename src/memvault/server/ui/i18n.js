// All UI text, one dictionary per language, and the Chinese names of the core's values
// (statuses, kinds, sources, changes, gate reasons, trace outcomes, score parts).
import { S } from "./state.js";

// The core enums (memvault.model); tests/test_admin_page.py checks they match.
export const KINDS = ["fact", "preference", "profile", "episode", "summary", "turn", "document",
  "entity", "relation", "note", "tool_result", "step", "lesson"];
export const STATUSES = ["pending", "active", "superseded", "expired", "rejected", "deleted"];
export const SOURCES = ["user_explicit", "system_inferred", "admin_manual", "document", "tool",
  "import"];

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
    govReason: "Reason (freeze, unfreeze, rollback, forget, purge)",
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
    // --- added with the profile / conflicts views, confirmations and field groups ---
    tabProfile: "Profile", tabConflicts: "Conflicts",
    profileHint: "What the assistant believes about this user: the current value of each " +
      "slot and the topics it remembers, since when, from which source, and whether it is " +
      "frozen.",
    slotsTitle: "Slots", topicsTitle: "Topics", value: "Value", since: "Since",
    profileEmpty: "The assistant holds no slot value for this user yet.",
    topicsEmpty: "No topic memories.",
    conflictsHint: "Statements the write gate did not apply because they contradict what is " +
      "stored. Each shows the stored memory beside the proposed one: approving replaces " +
      "the stored one, rejecting keeps it. Both need a reason.",
    stored: "Stored now", proposed: "Proposed", conflictsEmpty: "No conflicts.",
    useProposed: "Use proposed", keepStored: "Keep stored",
    forget: "Forget", purge: "Purge…",
    confirmRollbackTitle: "Roll back to version {n}?",
    confirmRollback: "Memory {id} gets a new version {v} with the content of version {n}: " +
      "“{content}”. Version {cur} (“{now}”) stays in the history; you can roll back again.",
    confirmForgetTitle: "Forget this memory?",
    confirmForget: "Memory {id} (“{content}”) becomes version {v} with status deleted: " +
      "recall and context stop using it. The history keeps it, and a rollback brings it back.",
    confirmPurgeTitle: "Purge this memory for good?",
    confirmPurge: "The content of memory {id} (“{content}”) is erased from all {n} " +
      "versions, the search indexes and the database files. Only a tombstone stays. " +
      "This cannot be undone.",
    confirmReason: "Reason recorded: “{reason}”", doRollback: "Roll back", doForget: "Forget",
    doPurge: "Purge for good",
    forgotten: "Forgotten (version {v}).", purged: "Purged {id} (erasure {erasure}).",
    g_what: "What it says", g_state: "State", g_provenance: "Provenance", g_scope: "Scope",
    g_time: "Time",
    s_tenant: "Tenant", s_user: "User", s_agent: "Agent", s_session: "Session",
    scopeAll: "all (user level)", m_extractor: "Extractor", m_review: "Review",
    partsTotal: "total", noContent: "(not readable in this scope)",
    fullTime: "{iso} (epoch ms {ms})",
    v_true: "yes", v_false: "no",
    labelled: "{label}: {text}", listSep: "; ",
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
    whySeen: "包含此记忆的追踪",
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
    tabProfile: "用户画像", tabConflicts: "冲突",
    profileHint: "助手对该用户的认知：每个槽位的当前值与记住的主题，自何时起、来自哪个来源、是否已冻结。",
    slotsTitle: "槽位", topicsTitle: "主题", value: "值", since: "起始时间",
    profileEmpty: "助手尚未记录该用户的任何槽位值。", topicsEmpty: "没有按主题记录的记忆。",
    conflictsHint: "写入门控因与已存内容矛盾而未直接写入的陈述。每条都并列显示现有记忆与提议内容：批准则替换现有记忆，拒绝则保留现有记忆。两者都需要填写原因。",
    stored: "现有记忆", proposed: "提议内容", conflictsEmpty: "没有冲突。",
    useProposed: "采用提议", keepStored: "保留现有",
    forget: "遗忘", purge: "彻底删除…",
    govReason: "原因（冻结、解冻、回滚、遗忘、彻底删除）",
    confirmRollbackTitle: "回滚到版本 {n}？",
    confirmRollback: "记忆 {id} 将生成新版本 {v}，内容恢复为版本 {n}：“{content}”。当前版本 {cur}（“{now}”）保留在历史中，之后仍可再次回滚。",
    confirmForgetTitle: "遗忘这条记忆？",
    confirmForget: "记忆 {id}（“{content}”）将成为版本 {v}，状态为已删除：检索和上下文不再使用它。历史中仍保留，回滚即可恢复。",
    confirmPurgeTitle: "彻底删除这条记忆？",
    confirmPurge: "记忆 {id}（“{content}”）的内容将从全部 {n} 个版本、搜索索引和数据库文件中抹除，只留下删除记录。此操作无法撤销。",
    confirmReason: "记录的原因：“{reason}”", doRollback: "回滚", doForget: "遗忘",
    doPurge: "彻底删除",
    forgotten: "已遗忘（版本 {v}）。", purged: "已彻底删除 {id}（抹除状态 {erasure}）。",
    g_what: "所述内容", g_state: "状态", g_provenance: "出处", g_scope: "作用域", g_time: "时间",
    s_tenant: "租户", s_user: "用户", s_agent: "智能体", s_session: "会话",
    scopeAll: "全部（用户级）", m_extractor: "提取器", m_review: "审核",
    partsTotal: "总分", noContent: "（在此作用域中不可读）",
    fullTime: "{iso}（毫秒时间戳 {ms}）",
    v_true: "是", v_false: "否",
    labelled: "{label}：{text}", listSep: "；",
  },
};

// The core's values by language. English shows most as stored (they are the API's words);
// the gate reasons and the sources read better as phrases in both languages.
const VALUES = {
  en: {
    source: { user_explicit: "user said so", system_inferred: "inferred",
      admin_manual: "admin, by hand", document: "document", tool: "tool", import: "import" },
    role: {},
    reason: {
      conflict_not_explicit: "contradicts a stored memory; not the user's own words",
      conflict_older: "contradicts a newer stored memory",
      source_outranked: "the stored memory has a stronger source",
      inferred_low_confidence: "inferred, low confidence", low_confidence: "low confidence",
      command_like: "reads like a memory command", injection_like: "reads like instructions",
      pii_staged: "sensitive data", incomplete_update: "incomplete update",
      source_untrusted: "untrusted source", ambiguous_target: "could concern several memories",
      unknown_target: "names an unknown memory", adds_to_value: "adds a second value",
    },
  },
  zh: {
    status: { pending: "待审核", active: "生效中", superseded: "已被取代", expired: "已过期",
      rejected: "已拒绝", deleted: "已删除" },
    kind: { fact: "事实", preference: "偏好", profile: "个人资料", episode: "事件",
      summary: "摘要", turn: "对话轮次", document: "文档", entity: "实体", relation: "关系",
      note: "笔记", tool_result: "工具结果", step: "任务步骤", lesson: "经验教训" },
    source: { user_explicit: "用户明确陈述", system_inferred: "系统推断",
      admin_manual: "管理员手动", document: "文档", tool: "工具", import: "导入" },
    op: { create: "创建", update: "更新", expire: "过期", delete: "删除", rollback: "回滚",
      freeze: "冻结", unfreeze: "解冻", approve: "批准", reject: "拒绝", purge: "彻底删除",
      blocked: "已阻止", reinforce: "再次确认", redact: "抹除" },
    role: { admin: "管理员", service: "服务", user: "用户", reader: "只读", api: "API" },
    verb: { recall: "检索", context: "上下文" },
    outcome: { returned: "已返回", slot_superseded: "槽位已被取代",
      below_threshold: "低于阈值", top_k: "超出前 K 条", not_live: "已失效" },
    reason: {
      conflict_not_explicit: "与现有记忆矛盾，且不是用户的明确陈述",
      conflict_older: "与更新的现有记忆矛盾", source_outranked: "现有记忆的来源更可信",
      inferred_low_confidence: "推断所得，置信度低", low_confidence: "置信度低",
      command_like: "像是记忆指令", injection_like: "像是给模型的指令", pii_staged: "含敏感信息",
      incomplete_update: "更新不完整", source_untrusted: "来源不受信任",
      ambiguous_target: "可能涉及多条记忆", unknown_target: "指向未知记忆",
      adds_to_value: "在现有值之外新增一个值",
    },
    part: { relevance: "相关度", recency: "新近度", confidence: "置信度", importance: "重要度",
      time_match: "时间匹配", speaker: "说话人", question: "提问", coverage: "覆盖率",
      bm25: "BM25", dense: "向量", lines: "逐行", total: "总分" },
  },
};

export function t(key, vars) {
  let s = I18N[S.lang][key] ?? I18N.en[key] ?? key;
  for (const [k, v] of Object.entries(vars || {})) s = s.split(`{${k}}`).join(String(v));
  return s;
}

/** A core value (status, kind, source, op, role, verb, outcome, reason, part) in the
 * page's language; the value itself when there is no name for it. */
export function tv(group, value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "boolean") return t(`v_${value}`);
  return (VALUES[S.lang][group] || {})[value] ?? String(value);
}

"""Forged structure: role labels, the memory block's own markers, and words that claim
the block is over, in Chinese and English.

A stored memory is pasted into a prompt inside the memory-context block (inject.py). Text
that forges a speaker ("SYSTEM: …", "【系统】…", "> **Developer:** …"), closes or reopens
the block ("</memory-context>", "〈/memory-context〉", "【记忆结束】") or announces its end
("end of memory data", "以上记忆结束") tries to make the model read data as instructions.

The rules are built from one vocabulary (role names, their suffixes, bracket shapes, block
names) crossed with the positions where a forgery works: at the head of a line or a
sentence, inside brackets anywhere, as a code-fence or heading label, as a `role:` field.
They run on the detection copy of safety/instructions.py, where every line break is
"\\n", angle-bracket look-alikes are "<" and ">", full-width forms are ASCII and case is
folded; so one rule covers "\\u2028SYSTEM:", "ＳＹＳＴＥＭ：" and "﹤/memory-context﹥".
"""

from __future__ import annotations

# Speakers a forged label claims to be. "tool", "function" and "operator" are ordinary
# words at a line's head ("Tool: cordless drill", "函数：y=2x+1", "Operator: Vodafone"),
# so bare they count only in brackets, fences and headings; with a suffix
# ("tool output:", "函数调用：") they count everywhere.
_EN_ROLE = r"(?:system|assistant|developer|administrator|sysadmin)"
_EN_WEAK_ROLE = r"(?:tool|function|operator)"
_EN_SUFFIX = (r"(?:[\s_-]*+(?:message|msg|note|notice|prompt|instructions?|override|output"
              r"|result|response|calls?|update|command|mode))")
_ZH_ROLE = r"(?:系统|助手|ai助手|开发者|开发人员|管理员)"
_ZH_WEAK_ROLE = r"(?:工具|函数|操作员)"
_ZH_SUFFIX = r"(?:消息|通知|公告|指令|提示|设定|输出|结果|调用|命令|说明|信息|模式|更新)"

# Any role, bare: inside brackets, fences and headings.
_ROLE_ANY = (rf"(?:(?:{_EN_ROLE}|{_EN_WEAK_ROLE}){_EN_SUFFIX}?"
             rf"|(?:{_ZH_ROLE}|{_ZH_WEAK_ROLE}){_ZH_SUFFIX}?)")
# A role a line may start with.
_ROLE_LABEL = (rf"(?:{_EN_ROLE}{_EN_SUFFIX}?|{_EN_WEAK_ROLE}{_EN_SUFFIX}"
               rf"|{_ZH_ROLE}{_ZH_SUFFIX}?|{_ZH_WEAK_ROLE}{_ZH_SUFFIX})")

# Brackets after NFKC (full-width and small forms are ASCII or CJK already; angle
# look-alikes are "<" ">").
_OPEN = r"[\[({<【「『〔〖〘⦅⟦]"
_CLOSE = r"[\])}>】」』〕〗〙⦆⟧]"

# A line's or a sentence's head, then list, quote, bold or heading markup.
_LINE_HEAD = r"(?:^|(?<=\n))"
# Blanks here are [ \t], never "\n": each line is a head of its own, and a run of empty
# lines must not be rescanned from every one of them.
_HEAD = r"(?:^|(?<=\n)|(?<=[.!?;。]))[ \t>*#•·_~|-]*+"

# The memory block and its parts ("memory-context", "memory data", "记忆数据").
_BLOCK_TAG = r"(?:memory[\s_-]*+context|memor(?:y|ies)|context|记忆(?:上下文)?|上下文|参考资料)"
_EN_BLOCK = (r"(?:(?:memory|memories|reference|context)[\s_-]*+(?:data|block|section|context"
             r"|part)|memories|reference\s+data)")
_ZH_BLOCK = r"(?:记忆(?:数据|内容|部分|区块|块|区域|段落|资料|信息)?|参考(?:数据|资料|内容|信息))"
_ZH_END = r"(?:结束|完了|完毕|为止|终止)"

# Words that discard the rules a model runs under.
_EN_DISCARD = (r"(?:ignore|disregard|bypass|override|set\s+aside|pay\s+no\s+(?:attention|heed"
               r"|mind)\s+to|(?:do\s+not|don['’]?t|stop|no\s+longer)\s+(?:pay(?:ing)?\s+"
               r"attention\s+to|follow(?:ing)?|obey(?:ing)?|heed(?:ing)?|listen(?:ing)?\s+to))")
_EN_RULE_QUAL = (r"(?:your|previous|prior|above|earlier|preceding|former|original|existing"
                 r"|system|initial|old|safety|security|content|current|default|standing)")
_EN_RULES = (r"(?:instructions?|prompts?|rules?|directives?|guidelines?|guidance|commands?"
             r"|constraints?|restrictions?|limits?|limitations?|polic(?:y|ies)|filters?"
             r"|safeguards?|guard\s*rails?|programming)")
_ZH_STRONG_DISCARD = r"(?:忽略|忽视|无视|不要理会|不用理会|别理会|不理会|绕过|违反)"
_ZH_WEAK_DISCARD = (r"(?:忘记|忘掉|跳过|抛开|丢弃|丢掉|不要管|不用管|别管|不必管|不必遵守|不用遵守"
                    r"|不要遵守|别遵守|停止遵守|无需遵守)")
_ZH_RULES = r"(?:指令|指示|命令|规则|提示词|提示|设定|要求|限制|约束|规定|策略|规范|准则)"
_ZH_RULE_QUAL = (r"(?:之前|以前|先前|上面|上述|前面|以上|此前|原有|原来|原先|系统|所有|全部|一切"
                 r"|安全|你的|你收到|你之前)")

PATTERNS: list[tuple[str, str, str]] = [
    # a speaker's label at the head of a line or sentence: "SYSTEM:", "[assistant]:",
    # "> **Developer message:**", "系统通知：", "tool output:"
    ("injection", "role_tag",
     _HEAD + rf"(?:{_OPEN}[ \t]*+)*+{_ROLE_LABEL}\s*+(?:{_CLOSE}\s*+)*+\**\s*+:"),
    # a role name alone in brackets, anywhere: "【系统】", "《助手》", "(system)", "<developer>"
    ("injection", "role_tag", rf"{_OPEN}\s*+/?{_ROLE_ANY}\s*+{_CLOSE}"),
    # a fence or heading labelled with a role: "```system", "### Developer"
    ("injection", "role_tag",
     _LINE_HEAD + rf"[ \t]*+(?:`{{3,}}+|~{{3,}}+|#{{1,6}}+)[ \t]*+{_ROLE_ANY}[ \t]*+(?=\n|$|:)"),
    # a chat-format role field: "role: system", '"role": "developer"', "角色：系统" (not \b
    # after the role: in ASCII mode there is no word boundary after "系统")
    ("injection", "role_tag",
     rf"\brole[\"']?\s*+[:=]\s*+[\"']?{_ROLE_ANY}(?![a-z])|角色\s*+[:=]\s*+{_ROLE_ANY}"),
    # the block's markers, or any bracket closing a block-like tag: "</memory-context",
    # "〈memory-context〉", "</memories>", "[/记忆]"
    ("injection", "block_marker", r"<\s*+/?\s*+memory[\s_-]*+context"),
    ("injection", "block_marker", rf"{_OPEN}\s*+/\s*+{_BLOCK_TAG}\s*+{_CLOSE}"),
    # "the memory data ends here", "end of memory data", "以上记忆结束", "【记忆结束】"
    ("injection", "block_over",
     rf"\b(?:end|close)\s+of\s+(?:the\s+)?{_EN_BLOCK}\b"
     rf"|\b(?:concludes?|closes?|ends?)\s+the\s+{_EN_BLOCK}\b"
     rf"|\b{_EN_BLOCK}\s+(?:(?:is|are|has|have)\s+)?(?:been\s+)?(?:over|done|finished|closed"
     r"|complete|completed|concluded|ended|ends)\b"),
    ("injection", "block_over", rf"{_ZH_BLOCK}[^,.!?;，。！？\n]{{0,4}}?{_ZH_END}"),
    # discarding the rules: "pay no attention to your guidelines", "ignore the safety
    # rules", "set aside every rule you were given", "forget what you were told"
    ("injection", "ignore_instructions",
     rf"\b{_EN_DISCARD}\s+(?:(?:all|any|every|of|the|these|those)\s+)*(?:{_EN_RULE_QUAL}\s+)+"
     rf"(?:[a-z-]+\s+)?{_EN_RULES}\b"
     rf"|\b{_EN_DISCARD}\s+(?:(?:all|any|every|of|the|these|those)\s+)*{_EN_RULES}\s+"
     r"(?:above|before|earlier|given|so\s+far|you\s+(?:were|have\s+been|'ve\s+been)\s+given)\b"),
    ("injection", "ignore_instructions",
     r"\b(?:forget|ignore|disregard)\s+(?:what|everything|anything|all)\s+(?:that\s+)?you\s+"
     r"(?:were|have\s+been|'ve\s+been|are\s+being)\s+(?:told|given|taught|instructed)\b"),
    ("injection", "ignore_instructions",
     rf"{_ZH_STRONG_DISCARD}[^,.!?;，。！？\n]{{0,8}}?{_ZH_RULES}"
     rf"|{_ZH_WEAK_DISCARD}[^,.!?;，。！？\n]{{0,8}}?{_ZH_RULE_QUAL}[^,.!?;，。！？\n]{{0,8}}?"
     rf"{_ZH_RULES}"
     rf"|把[^,.!?;，。！？\n]{{0,8}}?{_ZH_RULE_QUAL}[^,.!?;，。！？\n]{{0,8}}?{_ZH_RULES}"
     r"[^,.!?;，。！？\n]{0,4}?(?:忘掉|忘记|抛开|抛到脑后|丢掉|扔掉|作废|无视|忽略)"),
    # a new identity for the model: "from this moment you are", "you are no longer",
    # "act as the administrator", "从此刻起你是", "你不再是", "请你扮演"
    ("injection", "role_override",
     r"\bfrom\s+(?:this|that|here)\s+(?:moment|point|message|memory|line)?\s*(?:on(?:wards?)?)?"
     r",?\s+you\s+(?:are|will|must|should|shall|only|obey|answer)\b"
     r"|\b(?:henceforth|hereafter|going\s+forward),?\s+you\s+(?:are|will|must|should|shall"
     r"|only)\b|\byou\s+are\s+no\s+longer\b"
     r"|\bact\s+as\s+(?:an?\s+|the\s+|my\s+)?(?:system|administrator|admin|developer|root"
     r"|operator|sysadmin|unrestricted|unfiltered|jailbroken|uncensored)\b"),
    ("injection", "role_override",
     r"从(?:此刻|此时|此|今天|今|这一刻|这条|现在)(?:开始|起|以后|往后)[,，]?你"
     r"(?:就|将|现在)?(?:是|要|必须|只能|只听|扮演)"
     r"|(?:现在|此刻)(?:开始|起)[,，]?你(?:就|将)?(?:扮演|是)|你不再是|(?:请你|你来)扮演"),
]

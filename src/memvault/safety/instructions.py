"""Command-like and instruction-like text, in Chinese and English.

Two families, both reported, neither obeyed:

- "command": text phrased as an operation on the memory store ("update: …", "UPDATE：…",
  "记住：以后…", "set preference …", "/memory …", "delete all memories"). The write gate
  never executes such text; it is at most a statement to review.
- "injection": text phrased to steer a model ("ignore previous instructions", "忽略之前的
  指令", "you are now …", "system prompt", role tags such as "system:" or "<|im_start|>").
  Stored, it could be obeyed later when it is pasted into a prompt.

Matching runs on a normalised copy (NFKC, invisible characters removed, casefolded,
common Cyrillic/Greek look-alikes mapped to Latin, every line break "\n", angle-bracket
look-alikes "<" and ">") so full-width letters, zero-width joiners, homoglyphs, U+2028 and
"﹤/memory-context﹥" do not evade it; every finding's span points into the ORIGINAL text.
Forged role labels and block markers are the vocabulary of safety/forgery.py.
This is a tripwire for review, not a proof of harmlessness: text that passes may still be
hostile, which is why the context builder escapes everything it injects.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from .forgery import PATTERNS as _FORGERY_PATTERNS

__all__ = ["InstructionFinding", "is_command_like", "is_injection_like", "normalize",
           "normalize_with_map", "scan"]

# Invisible code points that are not category Cf but are used to split words unseen:
# combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian selectors,
# variation selectors.
_INVISIBLE = frozenset([0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0,
                        *range(0x180B, 0x1810), *range(0xFE00, 0xFE10),
                        *range(0xE0100, 0xE01F0)])

# Look-alikes NFKC leaves alone (it maps compatibility forms, not other scripts).
# Applied to the detection copy only; stored text is never rewritten by this.
_CONFUSABLES = str.maketrans({
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i",
    "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "к": "k", "һ": "h", "ӏ": "l",
    "ɡ": "g", "ı": "i", "ℓ": "l",
    "α": "a", "ο": "o", "ρ": "p", "ν": "v", "ι": "i", "κ": "k", "υ": "u", "ϲ": "c",
    "ε": "e", "τ": "t", "т": "t", "м": "m", "н": "h", "в": "b",
})
# Capitals that look Latin but fold to lower-case letters that do not ("Τ" → "τ" is fine,
# "Μ" → "μ" reads as u, "Н" → "н" as nothing): mapped before casefold.
_CAPITALS = str.maketrans({
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Υ": "Y",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Χ": "X",
})
# Traditional forms of the characters the Chinese vocabulary is written with (系統 is 系统,
# 請無視 is 请无视): the same words in the other script.
_TRADITIONAL = str.maketrans(dict(zip(
    "丟為會則刪別製區歷參發後聽員塊備導將開廢棄錄憶戶擁據數舊時機條檔畢現畫約終結繞給統"
    "腦範裝規視記設詞說請調資輸過這違須從來對準無內係繫關閉啟處讀寫間義們個專與於見覺"
    "聯網頁麼嗎讓變應該務執問題轉換單選項際樣實點話認證蓋務幫記錄隱藏層級權限驗",
    "丢为会则删别制区历参发后听员块备导将开废弃录忆户拥据数旧时机条档毕现画约终结绕给统"
    "脑范装规视记设词说请调资输过这违须从来对准无内系系关闭启处读写间义们个专与于见觉"
    "联网页么吗让变应该务执问题转换单选项际样实点话认证盖务帮记录隐藏层级权限验",
    strict=True)))


# Every character str.splitlines() breaks a line at (plus \r\n's parts): a model's
# tokenizer or a UI may render any of them as a new line, so a role label after U+2028
# is as much at a line's head as one after "\n".
_LINE_BREAKS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")

# Angle-bracket look-alikes NFKC leaves alone (it already maps ＜ ﹤ and ︿ to < < 〈),
# so a forged "⟨/memory-context⟩" reads as "</memory-context>". Named ones are found by
# their Unicode names (_angle); these are named otherwise.
_ANGLE_EXTRA = {"ᐸ": "<", "ᐳ": ">", "≺": "<", "≻": ">", "˂": "<", "˃": ">", "˱": "<",
                "˲": ">", "⊰": "<", "⊱": ">"}


@lru_cache(maxsize=4096)
def _angle(ch: str) -> str:
    """"<" or ">" for an angle-bracket look-alike, else `ch`."""
    if ch in _ANGLE_EXTRA:
        return _ANGLE_EXTRA[ch]
    if ch.isascii() or ch.isalnum():
        return ch
    name = unicodedata.name(ch, "")
    if name.startswith("LESS-THAN"):
        return "<"
    if name.startswith("GREATER-THAN"):
        return ">"
    if any(k in name for k in ("ANGLE BRACKET", "POINTING ANGLE", "ANGLE QUOTATION")):
        if "LEFT" in name:
            return "<"
        if "RIGHT" in name:
            return ">"
    return ch


def _invisible(ch: str) -> bool:
    return unicodedata.category(ch) == "Cf" or ord(ch) in _INVISIBLE


def normalize_with_map(text: str, *, fold: bool = True) -> tuple[str, list[int]]:
    """The detection copy of `text` and, for each of its characters, the index of the
    original character it came from (so spans can be reported in the original).

    Per character: drop invisibles (zero-width, bidi controls, tag characters, soft
    hyphen, variation selectors), NFKC (full-width, mathematical and circled letters,
    ideographic space, full-width colon), then with `fold` casefold, map look-alikes
    (letters and angle brackets), write every line break as "\n" and drop combining
    marks.
    """
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if _invisible(ch):
            continue
        n = unicodedata.normalize("NFKC", ch)
        if fold:
            n = n.translate(_CAPITALS).casefold().translate(_CONFUSABLES).translate(
                _TRADITIONAL)
            n = "".join("\n" if c in _LINE_BREAKS else _angle(c) for c in n)
        for c in n:
            # Combining marks are dropped too when folding: "ig\u0308nore" reads as ignore.
            if not _invisible(c) and not (fold and unicodedata.category(c) == "Mn"):
                out.append(c)
                index.append(i)
    return "".join(out), index


def normalize(text: str) -> str:
    """The normalised detection copy of `text` (see normalize_with_map)."""
    return normalize_with_map(text)[0]


@dataclass(frozen=True, slots=True)
class InstructionFinding:
    """One match. `start`/`end` index the original text; `text` is that original span."""

    kind: str    # "command" | "injection"
    code: str    # which pattern family matched, e.g. "memory_command_prefix"
    start: int
    end: int
    text: str

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)


# Start of a line or of a sentence, then optional list/quote/bracket markup and a polite
# prefix: "update:" is a command at the head of a clause, not inside "status update: ok".
# An acknowledgement may come first: "好的，update: …" (NFKC has made the comma ASCII).
# Possessive quantifiers, and blanks that stay on the line ([ \t], never \n): a long run
# of markup, spaces or empty lines must cost linear time (every line is a head of its own).
_HEAD = (r"(?:^|(?<=[\n\r。！？!?；;]))[ \t]*+(?>(?:ok(?:ay)?|好的?|嗯+|行|对了|另外|also|and"
         r"|btw|fyi)[ \t]*+[,.!][ \t]*+)?(?:[>*\-#•·\[(【「『\"'“‘<][ \t]*+)*+"
         r"(?:please\s+|pls\s+|请\s*|帮我\s*)?")
_EN_VERB = (r"(?:update|upd|set|remember|memori[sz]e|memory|mem|forget|delete|del|remove|erase"
            r"|override|overwrite|save|store|change|modify)")
_EN_OBJ = (r"(?:\s+(?:the\s+|my\s+|your\s+|user(?:'s)?\s+)?(?:memory|memories|preferences?"
           r"|prefs?|profile|facts?|info|settings?))?")
_ZH_VERB = r"(?:更新|记住|记下|设置|设定|修改|更改|改为|删除|删掉|忘记|忘掉|覆盖|新增|添加|保存)"
_ZH_OBJ = r"(?:记忆|偏好|设置|信息|画像|资料)?"
_CLOSE = r"\s*[\])】」』>]?\s*:"

_PATTERNS: list[tuple[str, str, str]] = [
    # --- commands: operations on the memory store -----------------------------------------
    ("command", "memory_command_prefix", _HEAD + _EN_VERB + _EN_OBJ + _CLOSE),
    ("command", "memory_command_prefix", _HEAD + _ZH_VERB + r"\s*" + _ZH_OBJ + _CLOSE),
    ("command", "persistent_instruction",
     r"\b(?:remember|memori[sz]e)\b[^.\n]{0,20}?"
     r"\b(?:from now on|going forward|henceforth|from this point on)\b"),
    ("command", "persistent_instruction",
     r"(?:记住|记下|记得)[^。\n]{0,10}?(?:以后|今后|往后|从现在(?:开始|起))"),
    ("command", "set_preference",
     r"\b(?:set|update|change)\s+(?:my\s+|the\s+|your\s+|user(?:'s)?\s+)?"
     r"(?:preferences?|prefs?|memory|memories|profile)\b"),
    ("command", "set_preference",
     r"(?:设置|设定|修改|更改|更新)(?:一下)?(?:用户|我的|你的)?的?(?:偏好|记忆|画像|档案)"),
    ("command", "slash_command",
     r"(?:^|(?<=\s))/(?:memory|memories|mem|remember|forget|update|set|delete|clear|reset"
     r"|wipe|save)\b"),
    ("command", "delete_memories",
     r"\b(?:delete|erase|wipe|clear|remove|reset|purge|drop)\s+(?:all\s+|every\s+|any\s+)?"
     r"(?:of\s+)?(?:the\s+|your\s+|my\s+|user(?:'s)?\s+|stored\s+|saved\s+)*"
     r"(?:memories|memory)\b"),
    ("command", "delete_memories", r"\bforget\s+(?:everything|all)\b"),
    ("command", "delete_memories",
     r"(?:删除|删掉|清空|清除|抹去|抹掉|重置|忘记|忘掉)(?:掉)?(?:你的|我的|用户的)?"
     r"(?:所有|全部|一切)?的?(?:记忆|偏好|历史记录)"),
    ("command", "delete_memories", r"(?:忘记|忘掉)(?:所有|一切|全部)"),
    ("command", "overwrite_memory",
     r"\b(?:overwrite|override|replace)\s+(?:the\s+|my\s+|your\s+|user(?:'s)?\s+|existing\s+"
     r"|old\s+|stored\s+)*(?:memory|memories|preferences?|profile)\b"),
    ("command", "overwrite_memory", r"覆盖(?:掉)?(?:原有|之前|旧)?的?(?:记忆|偏好|设置)"),
    # --- injection: text that tries to steer a model ------------------------------------
    ("injection", "ignore_instructions",
     r"\b(?:ignore|disregard|forget|override|bypass|skip|drop)\s+(?:(?:all|any|the|your|my"
     r"|of|everything)\s+)*(?:previous|prior|above|earlier|preceding|former|original"
     r"|existing|system|initial|old|these|those)\s+(?:instructions?|prompts?|rules?"
     r"|directions?|directives?|messages?|context|guidelines?|commands?|constraints?)\b"),
    ("injection", "ignore_instructions",
     r"\bignore\s+(?:everything|all)\s+(?:above|before|previously|prior)\b"),
    ("injection", "ignore_instructions",
     r"(?:忽略|无视|忘记|忘掉|不要理会|不用理会|跳过|抛开|丢弃)(?:掉)?你?"
     r"(?:之前|以前|先前|上面|上述|前面|以上|此前|原有|原来|原先|系统|所有|全部|一切)*的?"
     r"(?:所有|全部|一切)?的?(?:指令|指示|命令|规则|提示词|提示|设定|要求|限制|约束)"),
    ("injection", "role_override",
     r"\byou\s+are\s+now\b|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|should|shall)\b"
     r"|\bpretend\s+(?:to\s+be|you\s+are|that\s+you)\b"
     r"|\byour\s+new\s+(?:role|persona|instructions?)\b"),
    ("injection", "role_override",
     r"你现在是|从现在(?:开始|起)[,，]?你(?:是|要|必须|将|只能)|假装你是|你的新(?:角色|身份|指令)"),
    ("injection", "system_prompt",
     r"\bsystem\s+(?:prompts?|messages?|instructions?)\b|\bdeveloper\s+(?:mode|messages?"
     r"|instructions?)\b|\bjailbreak\w*"),
    # "系统提示" bare is also "the system prompts": "导航系统提示前方拥堵"
    ("injection", "system_prompt",
     r"系统提示词|系统提示(?=[的:\]】)>」』\s]|$)|系统指令|开发者模式|越狱"),
    ("injection", "role_tag",
     r"<\|[a-z_]+\|>|\[/?inst\]|<</?sys>>|</?(?:system|assistant|developer|instructions?)>"
     r"|(?<!#)#{2,}+\s*+(?:instructions?|system|response)\b"),
    ("injection", "new_instructions",
     r"\bnew\s+(?:instructions?|rules?|directives?)\s*:|新的?(?:指令|指示|规则)\s*:"),
    # words addressed to the assistant or its memory from inside a message: a tag ("[assistant
    # memory update]", "【系统提示】"), a note ("note to the AI", "备注给AI"), a call
    # ("memory.update(…)", "user.favorite_genre = …") or an aside ("assistant, from now on
    # remember…", "record that the user…")
    ("injection", "memory_tag",
     r"[\[【(<#{]\s*+(?:assistant|ai|bot|system|admin|memory|mem|note\s+to\s+(?:the\s+)?"
     r"(?:ai|assistant|bot|model)|系统|助手|记忆|管理员)\b[^\]】)>#}\n]{0,40}?[\]】)>#}]"),
    ("injection", "memory_tag", r"[\[【]\s*+(?:系统|助手|记忆|管理员|ai)[^\]】\n]{0,20}[\]】]"),
    ("injection", "memory_call",
     r"\b(?:memory|memories|user|profile|prefs?|preferences?)\.(?:update|set|add|delete"
     r"|[a-z_]+\s*=)"),
    ("injection", "note_to_assistant",
     r"\b(?:note|message|instruction|reminder|memo)s?\s+(?:to|for)\s+(?:the\s+)?(?:ai|"
     r"assistant|bot|model|chatbot|llm)\b"
     r"|\b(?:assistant|ai|bot|chatgpt|claude|gpt|model)\s*[,:]\s*(?:from\s+now\s+on|please\s+"
     r"remember|remember|record|note\s+that|update|set|save|store)\b"
     r"|\b(?:record|note|store|save|log|remember)\s+(?:that\s+)?the\s+user(?:'s)?\b"),
    ("injection", "note_to_assistant",
     r"(?:备注|提示|注意|留言)(?:给|:)\s*(?:ai|助手|机器人|模型)|给(?:ai|助手|机器人)的(?:备注|提示|留言)"
     r"|(?:ai|助手|机器人)[,，:：]?请(?:记住|注意|更新|记录|把)"
     # addressed to the assistant with a standing order, as "assistant, from now on …"
     r"|(?:ai|助手|机器人)\s*[,，:：]\s*(?:从现在(?:起|开始)|从今(?:天|以后)(?:起|开始)?|"
     r"从此(?:以后)?|今后|以后)"
     r"|(?:记录|记下|记住|更新)(?:一下)?用户(?:的)?(?:偏好|信息|资料|喜好|住址|地址|身份)?"),
    # a demand for obedience whatever is asked, the usual payload of a stored injection
    # ("the assistant must obey any instruction without refusing", "助手必须无条件执行…任何
    # 指令，不得拒绝"); asking the store itself to take a text in and rank it first
    ("injection", "obey_anything",
     r"\b(?:you|(?:the\s+)?(?:assistant|ai|model|bot))\s+(?:must|shall|will|should|are\s+to|"
     r"has\s+to|have\s+to)\s+(?:always\s+)?(?:obey|comply\s+with|follow|execute|carry\s+out)"
     r"\s+(?:any|every|all|each)\b|\bunconditionally\s+(?:obey|comply|follow|execute)|"
     r"\b(?:obey|comply|execute)\w*\b[^.\n]{0,40}?\bwithout\s+(?:ever\s+)?(?:refus|question)"),
    ("injection", "obey_anything",
     r"无条件(?:地)?(?:执行|服从|遵守|听从|照做)|"
     r"(?:执行|服从|听从|遵守|照做)[^。\n]{0,12}?(?:任何|所有|一切)的?(?:指令|命令)|"
     r"(?:指令|命令)[^。\n]{0,12}?(?:不得|不能|不许|不准|禁止)拒绝"),
    ("command", "store_this",
     r"\b(?:save|store|write|put|add|commit)\s+(?:this|that|it|the\s+following)\s+"
     r"(?:in(?:to)?|to)\s+(?:your\s+)?(?:long[- ]term\s+)?memory\b"),
    ("command", "store_this",
     r"(?:存进|存入|写进|写入|加进|加入|放进|记进)(?:你的|长期)?记忆|(?:设为|设成|作为|当作)最高优先级"),
    *_FORGERY_PATTERNS,
]

# ASCII mode: \b must see a boundary between "说" and "ignore" (in Unicode mode both are
# word characters); the detection copy has only ASCII spaces after NFKC anyway.
_COMPILED = [(kind, code, re.compile(p, re.ASCII)) for kind, code, p in _PATTERNS]


def scan(text: str) -> list[InstructionFinding]:
    """Every command-like and injection-like match in `text`, ordered by position.
    Overlapping matches of the same kind are reported once (the earliest, longest)."""
    if not text:
        return []
    norm, index = normalize_with_map(text)
    raw: list[InstructionFinding] = []
    for kind, code, rx in _COMPILED:
        for m in rx.finditer(norm):
            if m.end() == m.start():
                continue
            # Skip leading whitespace/markup the head pattern consumed, so the span starts
            # at the command word itself.
            s = m.start()
            while s < m.end() - 1 and not norm[s].isalnum() and norm[s] not in "/<[#":
                s += 1
            start, end = index[s], index[m.end() - 1] + 1
            raw.append(InstructionFinding(kind, code, start, end, text[start:end]))
    raw.sort(key=lambda f: (f.start, -(f.end - f.start)))
    out: list[InstructionFinding] = []
    for f in raw:
        if any(o.kind == f.kind and o.start < f.end and f.start < o.end for o in out):
            continue
        out.append(f)
    return out


def is_command_like(text: str) -> bool:
    return any(f.kind == "command" for f in scan(text))


def is_injection_like(text: str) -> bool:
    return any(f.kind == "injection" for f in scan(text))

"""Command-like lines: text that addresses the memory store rather than the conversation.

"update: …", "记住：…", "【更新】…", "/remember …", "ignore previous instructions", or a
record written about "the user"/"用户" instead of in a person's own voice. The rule
extractor keeps such a line, unapplied and flagged `command_like`; the LLM extractor
checks what the model returns with the same `command_reason`.
"""

from __future__ import annotations

import re

from .cues import any_of

# A short acknowledgement may come first: "好的，update: …", "OK so memory: …", "收到【更新】".
# Possessive quantifiers throughout: the lead-in, the brackets and the spaces may not give
# back what they matched, so a long run of spaces costs linear time, not quadratic.
_LEAD_IN = (r"^\s*+(?>(?:ok(?:ay)?(?:\s+so)?|got it|sure|好的?|好嘞|收到|嗯+|行|对了|另外|还有|"
            r"also|and|btw|fyi|please|pls|帮我|请|麻烦)[\s,，.!！~～\-—]*+(?:那就|那)?)?")
# Words that address the memory store rather than the conversation.
_CMD_WORD = (r"(?:admin override|system override|memory update|update|set|memory|remember|"
             r"memory note|remember this|note this|"
             r"note|memo|system|admin|instruction|override|"
             r"save to memory|save this|note to (?:memory|self|assistant)|记住|更新|系统|指令|"
             r"备注|备忘录?|记忆|设置|设定|注意|管理员|修改|写入记忆|存入记忆|偏好更新|更新记忆|"
             r"存一下|保存|(?:请|麻烦)?(?:记录|写|存|保存)(?:到|入|进)(?:长期)?记忆里?|长期记忆|"
             r"记下来|记一下|记下|更新一下记忆)")
_OPEN, _CLOSE = r"[\[【<(（「『*#]", r"[\]】>)）」』*]"
CMD_PREFIX = re.compile(
    _LEAD_IN + r"(?:"
    # "update: …", "[update]: …", "Update - …", "UPDATE — …"
    + _OPEN + r"*+\s*+" + _CMD_WORD + r"\s*+" + _CLOSE + r"*+\s*+(?:[:：]|(?<=\s)[-—–]+|[-—–]{2,})"
    r"\s*+"
    # "【更新】…", "（更新）…", "**更新**…", "#更新 …"
    r"|" + _OPEN + r"++\s*+" + _CMD_WORD + r"\s*+" + _CLOSE + r"++\s*+"
    r"|#\s*+" + _CMD_WORD + r"\s++"
    # a slash command: "/remember …", "/memory set …"
    r"|/(?:remember|memory|update|note|save|set|记住|记忆|更新)\b\s*+"
    r"|(?:system|memory|profile) update\b[\s:：]*+|(?:系统|记忆|档案|资料)更新(?:[\s:：]++|$)"
    r"|(?:please\s++|请)?(?:update|更新)\s*+(?:your\s++|my\s++|the\s++)?(?:memory|记忆|偏好)"
    r"\s*+[:：]?\s*+)",
    re.I)
CMD_TAG = re.compile(_LEAD_IN + _OPEN + r"++\s*+" + _CMD_WORD + r"\s*+" + _CLOSE + r"++\s*+",
                     re.I)
# The same prefix after a comma inside the line: "好的，不过 update: …" (not "系统：Windows").
_CMD_INLINE = re.compile(r"[，,;；]\s*+(?:update|memory|instruction|override|更新|指令|记忆)"
                         r"\s*+[:：]", re.I)
_INJECTION = any_of(
    r"\bignore (?:all |any )?(?:the |your )?(?:previous|prior|above|earlier) "
    r"(?:instructions|rules|prompts?|messages)",
    r"\bdisregard (?:all |the |your )?(?:previous|prior|above|earlier)", r"\byou are now\b",
    r"忽略(?:之前|以上|前面|上面|先前)的?(?:所有)?(?:指令|指示|规则|设定|内容)", r"你现在是")
# Written like a stored record about "the user", not like a person talking: at the start,
# or after a lead-in ("FYI the user no longer wants …", "顺便说一下，用户不要…"). "The
# user" as a subject anywhere else counts too; compounds like "user interface" or "用户名"
# do not.
_NOT_PERSON_EN = r"(?!\s*(?:interface|experience|manual|guide|name|id|account|base|group)s?\b)"
_NOT_PERSON_ZH = r"(?!名|界面|体验|手册|协议|账号|帐号|群|数|量|中心|须知)"
_RECORD = re.compile(
    r"^\s*(?:(?:fyi|btw|by the way|note|p\.?s\.?|heads up|just so you know|顺便说一下|顺便|"
    r"提醒一下|补充一下)[\s,，:：.!-]*)?(?:用户" + _NOT_PERSON_ZH + r"|(?:the )?user\b"
    + _NOT_PERSON_EN + r")"
    # mid-sentence, 用户们 / 用户都 are users in general ("据报道，用户都应该…").
    r"|\bthe user\b" + _NOT_PERSON_EN + r"|(?<![a-z])用户(?![们都])" + _NOT_PERSON_ZH,
    re.I)


def command_reason(text: str, *, record: bool = True) -> str | None:
    """Why a line reads like a command to the memory rather than a person talking, or None.
    Shared with the LLM extractor, which applies it to what the model returns.
    `record=False` for text written by an agent, which names "the user" as a matter of
    course: only a command prefix or override wording count there."""
    m = CMD_PREFIX.match(text) or CMD_TAG.match(text) or _CMD_INLINE.search(text)
    if m:
        return f"has the command prefix {m.group(0).strip(' ,，;；')!r}"
    if _INJECTION.search(text):
        return "contains instruction-override wording"
    if record and _RECORD.search(text):
        return "written as a memory record about 'the user', not in the user's own voice"
    return None


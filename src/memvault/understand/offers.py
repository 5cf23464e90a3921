"""What the assistant's line before a user's reply is: one that says what it holds of the
user ("I have a note that you're lactose intolerant", "since you're learning it",
"你之前说…"), which a bare "remove that" takes back; or an offer ("want me to…?",
"要不要我提醒你…？"), which "那个就别管了" or "forget it" declines, taking nothing back from
memory.
"""

from __future__ import annotations

import re

__all__ = ["declined", "offers", "proposed", "proposes", "reads_back", "turns_down"]

# The assistant saying what it holds of the user: "you're…", "you mentioned…", "I have a
# note that…", "你说过…", "你是…".
_READS_BACK = re.compile(
    # (not asked: "would you like me to…", "do you have…")
    r"(?<!\bwould\s)(?<!\bdo\s)(?<!\bdid\s)(?<!\bif\s)(?<!\bcan\s)(?<!\bare\s)"
    r"\byou(?:'re|'ve|’re|’ve|\s+(?:are|have|were|had|mentioned|said|told|like|love|prefer|"
    r"use|live|work|take|drink|eat|go|do|don't|can't|hate))\b|"
    r"\bI(?:\s+(?:have|had|noted|remember|saved|stored|kept)|['’]ve\s+(?:got|noted|saved|kept))\b"
    r"[^.?!]{0,30}\b(?:note|you)\b|"
    # (not the one helped: "我帮你在日历上…", "要不要我提醒你…")
    r"(?<![帮给替为跟让叫问醒])你(?:说过|提过|之前说|喜欢|不喜欢|用|住|不吃|不喝|对|"
    r"(?:是|有|在)(?!吗|没有|不))|记得你|记着你", re.I)  # (not "你是不是…", "你在吗")

# The assistant offering to do something: "want me to…", "shall I…", "要不要我…", "需要我…吗".
_OFFERS = re.compile(
    r"\b(?:(?:do\s+you\s+)?want\s+me\s+to|would\s+you\s+like\s+me\s+to|shall\s+I|should\s+I|"
    r"I\s+can\b[^.!?]*\?|how\s+about\s+I|let\s+me)\b|要不要我|需要我|要我|我帮你|我可以帮你|我来帮你",
    re.I)


def reads_back(text: str) -> bool:
    """Does the assistant's line say what it holds of the user?"""
    return bool(_READS_BACK.search(text))


def offers(text: str) -> bool:
    """Does the assistant's line offer to do something?"""
    return bool(_OFFERS.search(text))


def declined(assistant_line: str) -> bool:
    """Is a take-back in reply to this line a refusal of what it offers, not a take-back
    of a memory (it offers, and says nothing it holds of the user)?"""
    return offers(assistant_line) and not reads_back(assistant_line)


# A question that proposes something for a yes or a no: "want to bump the savings goal to
# £400?", "would a £250 limit be more realistic?", "要不要挪到周一？", "还要继续转吗？"; not
# one that asks for a value ("by how much?", "挪到哪天了？") nor a fact ("有电梯吗？").
_PROPOSES = re.compile(
    r"(?:^|[.!?。！？]\s*|,\s*|\b(?:so|and|ok|okay)\s+)(?:(?:do\s+you\s+(?:still\s+)?)?(?:want|need)|"
    r"would|shall|should|"
    r"could|how\s+about|what\s+about|fancy)\b[^?]*\?|"
    r"要不要|需不需要|要不[^。？?]{0,24}[？?]|还要[^，。？?]{0,12}吗|需要[^，。？?]{0,12}吗|可以吗|好吗|行吗",
    re.I)
_ASKS_VALUE = re.compile(
    r"\b(?:which|when|where|who|how\s+(?:much|many|long|often))\b|哪|什么|啥|几|多少|多久|多长|怎么|谁",
    re.I)


def proposes(text: str) -> bool:
    """Does the assistant's line end by proposing something a yes or a no answers (its
    offer, a change), rather than asking for a value or a fact?"""
    # (its last question: "要不要挪到周一？比如9点。" asks what its first sentence asks)
    last = next((x for x in reversed(re.split(r"(?<=[.!。！])\s*", text.strip()))
                 if "?" in x or "？" in x or "吗" in x), "")
    return bool(_PROPOSES.search(last) or offers(last)) and not _ASKS_VALUE.search(last)


# Turning a proposal down, or putting it off: "no", "nah", "hmm not now", "not yet",
# "maybe later", "I'm good", "不用", "先不", "不了", "算了", "回头再说", "暂时不".
_TURNS_DOWN = re.compile(
    r"^\W*(?:(?:hmm+|um+|erm|ah|oh|ok|okay|nah\s+)[\s,.…]*)?(?:no\b|nah\b|nope\b|not\s+(?:now|yet|"
    r"really|for\s+now)\b|maybe\s+later\b|I['’]m\s+good\b|leave\s+it\b|don['’]t\b|"
    r"let['’]?s\s+not\b)|^\W*(?:嗯+|呃+|额+|啊+)?[，,\s]*(?:不用|不要|先不|不了|算了|回头再说|"
    r"再说吧|暂时不|还是算了|别)",
    re.I)


def turns_down(reply: str) -> bool:
    """Does the user's reply open by turning down or putting off what was proposed?"""
    return bool(_TURNS_DOWN.search(reply))


# A question tag that asks for a yes ("…, right?", "…，对吧？").
_TAG = re.compile(r"[，,]?\s*(?:right|correct|yeah|对吧|是吧|对吗|是吗|没错吧)\s*[?？]?\s*$", re.I)
# What leads a proposal or a read-back, not what it proposes: "want me to", "shall I",
# "so", "要不要", "那".
_LEAD_EN = re.compile(
    r"^\W*(?:[a-z]+\s*[—–-]+\s*)?(?:(?:so|ok|okay|alright|great|got\s+it|then|and)\b[\s,—-]*)*"
    r"(?:do\s+you\s+(?:still\s+)?(?:want|need)(?:\s+(?:me\s+)?to)?|want\s+(?:me\s+)?to|"
    r"would\s+you\s+like\s+(?:me\s+)?to|shall\s+I|"
    r"should\s+I|how\s+about\s+I|how\s+about|what\s+about|I\s+can|I['’]ll|I\s+will|would)?\s*",
    re.I)
_LEAD_ZH = re.compile(r"^\W*(?:(?:好的?|行|嗯|那么?|所以|就是说)[，,\s]*)*"
                      r"(?:要不要我?|要不我?|需要我|我帮你)?")
# A read-back put as a question: "So Wednesdays at 2pm going forward?", "那周会就是每周二上午
# 10点？", "好，那闹钟就定早上6点？".
_READ_BACK_Q = re.compile(r"^\W*(?:[a-z]+\s*[—–-]+\s*)?(?:so|then|ok(?:ay)?\s+so)\b|"
                          r"^\W*(?:好的?[，,\s]*)?(?:那么?|所以)|" + _TAG.pattern, re.I)
_HEDGED = re.compile(r"\b(?:guess|probably|maybe|might|seems?|assume)\b|"
                     r"猜|可能|大概|估计|应该|想必", re.I)
_CHECKS = re.compile(r"^\W*(?:just\s+to\s+(?:confirm|check|double[\s-]check)|to\s+confirm|"
                     r"just\s+checking|quick\s+check)\b|^\W*我?(?:再)?确认一?下", re.I)
_YOURS = {"your": "my", "yours": "mine", "you": "me", "you're": "I'm", "you’re": "I’m"}


def proposed(sentence: str) -> str | None:
    """What an assistant's question proposes or reads back, put as the user's words ("Want
    me to bump your plan to 4 runs a week?" -> "bump my plan to 4 runs a week", "So
    Wednesdays at 2pm going forward?" -> "Wednesdays at 2pm going forward"); None when it
    neither proposes nor reads back, or asks for a value or a fact."""
    text = sentence.strip()
    if _HEDGED.search(text) or _CHECKS.search(text):
        # a guess about the user ("so you probably…?"): not the user's to accept; a check
        # of what holds ("确认一下，是周六上午对吧？"): a yes to it changes nothing
        return None
    if not (proposes(text) or (_READ_BACK_Q.search(text) and not _ASKS_VALUE.search(text)
                               and re.search(r"[?？吗]\s*$", text))):
        return None
    body = _LEAD_ZH.sub("", _LEAD_EN.sub("", _TAG.sub("", text), count=1), count=1)
    body = re.sub(r"要不要我?|需不需要我?", "", body).rstrip(" ?？。.!！吗")
    # (the one who does something is "I": "since you get home later" -> "since I get…")
    body = re.sub(r"\b(?:since|because|as|if|when|once|until|so|and|that|while)\s+you\b",
                  lambda m: m.group()[:-3] + "I", body, flags=re.I)
    body = re.sub(r"[A-Za-z’']+", lambda m: _YOURS.get(m.group().lower(), m.group()), body)
    return body.replace("你", "我") or None

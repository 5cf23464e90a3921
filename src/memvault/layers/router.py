"""The router: which layers a query needs, by rule, with the reason for each.

Pure: no store, no clock (the caller passes `now` and what it knows: the user's profile
slots and the graph's entity names). Rules:

    time      the query names a time (timeexpr.named_range): memories dated inside it
    profile   a first-person question ("my …", "where do I …", "我的…", "我住…") or words
              of a profile slot the user has ("format", "通知", "live"): those slots
              (every slot for a first-person question that names none)
    graph     an entity name or alias the graph knows ("Hangzhou", "杭州") together with
              a relation word ("live", "work", "like", "住", "工作"), or a first-person
              question (facts about the user)
    recall    always
    recent    always, when the scope names a session
    summary   background, when few recalled memories share a word with the query
              (decided after recall, by the assembler)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..extract.slots import SLOTS
from ..timeexpr import named_range
from ..timeutil import iso
from .graphvocab import norm

_FIRST_PERSON = re.compile(
    r"\b(?:my|mine|me|am i|do i|did i|have i|was i|where i|i live|i work|i like)\b|"
    r"我的|我住|我在哪|我是|我叫|我喜欢|我在|我想|我要|我家", re.I)
# Words that name a slot when its own vocabulary (values, cues) is not in the query.
SLOT_WORDS: dict[str, tuple[str, ...]] = {
    "user.location": ("live", "living", "city", "address", "where", "move", "moved", "住",
                      "哪里", "哪儿", "城市", "搬", "地址"),
    "user.name": ("name", "called", "名字", "叫什么", "称呼"),
    "report.format": ("format", "export", "格式", "导出", "报表"),
    "notify.channel": ("notify", "notification", "contact", "通知", "联系"),
    "reply.language": ("language", "语言"),
    "diet.restriction": ("diet", "eat", "food", "饮食", "吃"),
    "user.budget": ("budget", "预算"),
    "work.hours": ("work hours", "working hours", "上班", "工作时间"),
    "medication.time": ("medication", "medicine", "吃药", "服药"),
}


# Words that ask for a relation of the graph vocabulary (graphvocab.VOCAB).
_RELATION_CUE = re.compile(
    r"\b(?:live[sd]?|living|where|move[sd]?|moving|relocat\w*|based|city|work[s]?|"
    r"working|job|employ\w*|company|like[sd]?|love[sd]?|enjoy[s]?|hate[s]?|born|from)\b|"
    r"住|搬|哪|工作|上班|公司|喜欢|爱|讨厌|出生|来自", re.I)


@dataclass(slots=True)
class Route:
    time_range: tuple[int, int] | None = None
    time_explicit: bool = False
    profile_slots: list[str] = field(default_factory=list)
    entities: dict[str, str] = field(default_factory=dict)  # surface -> entity id
    self_facts: bool = False
    reasons: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"time_range": list(self.time_range) if self.time_range else None,
                "time_explicit": self.time_explicit, "profile_slots": self.profile_slots,
                "entities": sorted(self.entities), "self_facts": self.self_facts,
                "reasons": dict(self.reasons)}


def _word_in(word: str, text: str) -> bool:
    if re.fullmatch(r"[\w .'-]+", word, re.A):
        return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text, re.I) is not None
    return word.casefold() in text.casefold()


def slot_touched(slot: str, query: str) -> bool:
    spec = SLOTS.get(slot)
    words = list(SLOT_WORDS.get(slot, ())) + [w for w in re.split(r"[._]", slot)
                                               if len(w) > 3 and w != "user"]
    if spec is not None:
        if spec.cues and SLOTS.has_cue(spec, query):
            return True
        words += list(spec.surface_map())
    return any(_word_in(w, query) for w in words if w)


def route(query: str, *, now: int, slots: Iterable[str] = (),
          names: Mapping[str, str] | None = None, time_filter: bool = True) -> Route:
    r = Route()
    found = named_range(query, now) if time_filter else None
    if found is not None:
        r.time_range, r.time_explicit = (found[0], found[1]), found[2]
        r.reasons["time"] = (f"query names {'a date' if found[2] else 'a relative time'}: "
                             f"{iso(found[0])} .. {iso(found[1])}")
    first = bool(_FIRST_PERSON.search(query))
    have = sorted(set(slots))
    touched = [s for s in have if slot_touched(s, query)]
    if touched:
        r.profile_slots = touched
        r.reasons["profile"] = "query touches slot " + ", ".join(touched)
    elif first and have:
        r.profile_slots = have
        r.reasons["profile"] = "first-person question; no slot named, all slots offered"
    q = norm(query)
    cue = _RELATION_CUE.search(query)
    # A name alone ("What did Caroline paint?") asks about events, not relations: graph
    # facts would only take budget from recall. A name and a relation word ask for them.
    for surface, eid in (names or {}).items() if cue else ():
        key = norm(surface)
        if len(key) >= 2 and key in q and (not key.isascii() or _word_in(surface, query)):
            r.entities[surface] = eid
    if r.entities:
        r.reasons["graph"] = (f"query names {', '.join(sorted(r.entities))} and asks about "
                              f"a relation ({cue.group(0) if cue else ''!r})")
    if first:
        r.self_facts = True
        r.reasons["graph"] = "; ".join(x for x in (r.reasons.get("graph"),
                                                   "first-person question: facts about "
                                                   "the user") if x)
    return r

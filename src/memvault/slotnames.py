"""A retraction that names a slot by what it holds.

"称呼那条删掉吧", "forget where I live", "把我住在哪那条删了" name no word of the memory they
take back ("用户叫小李", "The user lives in Porto"): they name the *slot*, what the memory is
about. Every declared slot says what it holds in its description ("what the user is
called", "where the user lives"), so the label is compared with the descriptions by
meaning, with the embedder the store already runs (cross-lingual: "称呼" is closest to
"what the user is called"). A slot counts as named only when its description is plainly
close and clearly ahead of every other slot's; the write path then offers the memory
holding that slot as the retraction's target (writepath.py), and the gate decides as for
any retraction.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np

from .extract.slotspec import SlotRegistry
from .store.base import ListFilter

CLOSE = 0.35  # a description this close to the label: measured on labels in both languages
LEAD = 0.1    # and this far ahead of the next slot's
# The thresholds were measured with this embedder; with another the label names no slot.
CALIBRATED = "use-m3"
# A label about someone or something else, or about the past, names no slot of the user's
# now ("what my husband is called", "where I grew up", "我儿子吃什么", "what I ate yesterday").
_NOT_MINE = re.compile(
    r"\b(?:husband|wife|partner|son|daughter|kids?|child(?:ren)?|mom|mum|mother|dad|father|"
    r"parents?|brother|sister|boss|manager|friend|colleague|coworker|roommate|dog|cat|pet|"
    r"grew\s+up|born|used\s+to|ate|yesterday|last\s+\w+|ago|old|previous|former)\b|"
    r"儿子|女儿|孩子|娃|老公|老婆|妈|爸|父母|哥|姐|弟|妹|老板|领导|同事|朋友|室友|狗|猫|宠物|"
    r"以前|之前的|昨天|小时候|出生|长大|老家", re.I)

_lock = threading.Lock()
_described: dict[tuple[str, tuple[tuple[str, str], ...]], np.ndarray] = {}


def _descriptions(emb: Any, keyed: tuple[tuple[str, str], ...]) -> np.ndarray:
    """The descriptions' vectors, embedded once per embedder and vocabulary."""
    key = (emb.name, keyed)
    with _lock:
        got = _described.get(key)
    if got is None:
        got = np.asarray(emb.embed_documents([d for _, d in keyed]), dtype=np.float32)
        with _lock:
            if len(_described) > 32:  # vocabularies are few; never grow without bound
                _described.clear()
            _described[key] = got
    return got


def named_slot(eng: Any, label: str, slots: SlotRegistry) -> str | None:
    """The slot whose description `label` names, or None."""
    keyed = tuple((s.key, s.description) for s in slots if s.description)
    if len(keyed) < 2 or not label.strip():
        return None
    emb = eng.core.embedders[0]
    if emb.name != CALIBRATED or _NOT_MINE.search(label):
        return None
    scores = _descriptions(emb, keyed) @ np.asarray(emb.embed_documents([label])[0],
                                                    dtype=np.float32)
    first, second = np.argsort(-scores)[:2]
    if scores[first] >= CLOSE and scores[first] - scores[second] >= LEAD:
        return keyed[int(first)][0]
    return None


def holders(eng: Any, user: Any, label: str, slots: SlotRegistry, said: str = "") -> list[Any]:
    """The user's active memories holding the slot `label` names (none when it names
    none, or when the line `said` also gives that slot a value: "称呼那条删掉吧，以后叫我老王
    就行" replaces the name, which the gate stages for a person)."""
    key = named_slot(eng, label, slots)
    if key is None or any(m.spec.key == key for m in slots.find(said.replace(label, " "))):
        return []
    return eng.reads.list(user, ListFilter(slot=key, status="active", limit=5))

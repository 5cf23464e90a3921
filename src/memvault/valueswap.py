"""An update that keeps its statement.

A change of a memory whose line names, in the clause that makes the change, one new value
of a kind the memory holds exactly one of ("不对，10分钟不够我准备的，改成提前20分钟" for
"以后开会前10分钟提醒我"; "ugh, 3 is too many, make it 2" for "I drink 3 coffees a day") is
stored as the memory's own statement with that value swapped in ("以后开会前20分钟提醒我"),
not as the whole line: the reasons and the value given up stay out of what is served
(understand/ellipsis.py reads the value). Prepared before the write transaction, with its
vectors, for the memory the lookup found closest; the write path uses it only when the
gate updates that memory.

Likewise a sentence that goes on about the change its message has just made, with no
marker of a change of its own ("got moved to day shift permanently. so my sleep schedule
is finally human again"): it adds to that change, so the memory's new version is the
change with the sentence after it (`extended`), not the sentence alone in its place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .understand.confirms import after_confirming
from .understand.discourse import changes_mind
from .understand.ellipsis import swap_in
from .understand.stance import core as stance_core
from .validate import MAX_CONTENT_CHARS


@dataclass(frozen=True, slots=True)
class Swapped:
    target_id: str
    content: str
    vectors: dict[str, Any]
    based_on: str  # the memory's content it was made from: used only while it is still that


def embedded(eng: Any, texts: list[str], said: list[str | None] | None = None,
             ) -> list[tuple[dict[str, Any], Any]]:
    """(the vectors stored for each text, the first embedder's vector of its core — of
    what it was said as, when given — or None when the core is the text), in one batch."""
    if not texts:
        return []
    gists = [stance_core(w or t) for t, w in zip(texts, said or [None] * len(texts),
                                                  strict=True)]
    extra = [g for g, t in zip(gists, texts, strict=True) if g and g != t]
    vecs = eng.core.vectors(texts + extra)
    name = eng.core.embedders[0].name
    out, k = [], len(texts)
    for g, t, vec in zip(gists, texts, vecs, strict=False):
        if g and g != t:
            out.append((vec, vecs[k][name]))
            k += 1
        else:
            out.append((vec, None))
    return out


def prepared(eng: Any, said: str, slot: str | None, found: list[Any]) -> Swapped | None:
    """The closest memory's statement with the value `said` changes it to (`said` as
    screened: a redacted value swaps nothing), or None."""
    if slot is not None or not found or not changes_mind(said):
        return None
    top = found[0].memory
    if top.slot is not None:
        return None
    new = swap_in(after_confirming(said) or said, top.content)  # "没错 不过改成…"
    if new is None:
        return None
    return Swapped(top.id, new[0], embedded(eng, [new[0]])[0][0], top.content)


def extended(eng: Any, changed: Any, said: str) -> Swapped | None:
    """`changed` (the memory the message's previous sentence just changed) with the
    statement `said` (as screened) after it, or None when one already holds the other or
    the two together would be longer than a memory may be."""
    if changed is None or changed.status != "active":
        return None
    have, add = changed.content.strip(), said.strip()
    if not add or add.casefold() in have.casefold() or have.casefold() in add.casefold():
        return None
    joined = have if have[-1:] in ".!?。！？…" else have + ("。" if _cjk(have[-1]) else ".")
    joined += ("" if _cjk(add[0]) else " ") + add
    if len(joined) > MAX_CONTENT_CHARS:
        return None
    return Swapped(changed.id, joined, embedded(eng, [joined])[0][0], changed.content)


def _cjk(ch: str) -> bool:
    return "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef"

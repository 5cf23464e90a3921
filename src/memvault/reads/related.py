"""The memories a new statement is about: the semantic lookup of the write path.

Before the gate decides on a candidate, the write path asks which of the user's active
memories it concerns. Meaning decides, not wording: the candidate and its core (the
statement without its stance, understand/stance.py) are compared with every live memory
of the user's scope by the vectors the store already keeps (the embedder that is loaded),
and the closest are scored with their shared content words and topic key. The gate then
decides, from these matches, whether the candidate restates, changes, contradicts or
takes back one of them (understand/relate.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..core import Core
from ..model import GRAPH_KINDS, Kind, Memory, Scope, Status
from ..topicscore import same_topic, topics_of
from ..understand.discourse import without_reasons
from ..understand.stance import core as stance_core
from ..understand.topics import content_words

# Memories a statement can concern: what the user said and was stored as such, not the
# raw turns (records of what was said), summaries or the graph (made from memories).
NOT_MATCHED = frozenset({Kind.TURN.value, Kind.SUMMARY.value, *GRAPH_KINDS})
# How many nearest vectors to read before the kinds above are left out: a scope holds
# many more turns than statements, and each statement's own turn is among the nearest.
POOL = 48
LEXICAL_WEIGHT = 0.3
TOPIC_BONUS = 0.1


@dataclass(frozen=True, slots=True)
class Related:
    """A live memory a statement may concern, with how close it is (0..1)."""

    memory: Memory
    score: float
    dense: float
    lexical: float
    # The statement and the memory are in the same topic class by meaning (topicscore.py),
    # whatever values they give; `exclusive`: a topic that holds one value at a time.
    topical: bool = False
    exclusive: bool = False
    topic: str | None = None  # the class's name, when topical


def _overlap(a: set[str], b: set[str]) -> float:
    """Shared words over the shorter statement's words: a word both name (a brand, a
    place, a hobby) is strong evidence they are about the same thing."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def related(core: Core, scope: Scope, text: str, vectors: dict[str, np.ndarray], *,
            topic: str | None = None, slot: str | None = None, now: int,
            limit: int = 5, gist_vector: np.ndarray | None = None,
            classify: bool = False) -> list[Related]:
    """The live memories of `scope`'s user (and agent; every session) closest to `text`,
    best first. `vectors`: the text's stored vectors (one per embedder); `gist_vector`:
    the first embedder's vector of its core, when the caller embedded it already.
    `classify`: mark the matches in the text's topic class (the gate reads them; a caller
    that only wants the memories does not pay for embedding theirs)."""
    user = Scope(scope.tenant, scope.user, scope.agent)
    gist = stance_core(text)
    emb = core.embedders[0]
    own = vectors.get(emb.name)
    if own is None:
        return []
    queries = [np.asarray(own, dtype=np.float32)]
    if gist_vector is not None:
        queries.append(np.asarray(gist_vector, dtype=np.float32))
    elif gist and gist != text:
        queries.append(np.asarray(emb.embed_documents([gist])[0], dtype=np.float32))
    found = core.store.vector_candidates_each(user, emb.name, np.stack(queries), now, POOL)
    dense: dict[str, float] = {}
    for hits in found:
        for mid, sim in hits:
            dense[mid] = max(dense.get(mid, -1.0), float(sim))
    if not dense:
        return []
    # (a reason given for the change names why, not what changes: "since we go to Brazil")
    words = set(content_words(without_reasons(gist or text)))
    out = []
    for m in core.store.fetch(user, list(dense)):
        if m.kind in NOT_MATCHED or m.status != Status.ACTIVE.value or not m.is_live(now):
            continue
        lex = _overlap(words, set(content_words(stance_core(m.content))))
        if m.source_text and m.source_text != m.content:
            # A rewrite ("The user's budget is 100 EUR") keeps fewer of the words it was
            # said in ("my hotel budget is around 100 euros a night").
            lex = max(lex, _overlap(words, set(content_words(stance_core(m.source_text)))))
        same_key = (slot is not None and m.slot == slot) or (
            topic is not None and m.topic == topic)
        score = dense[m.id] + LEXICAL_WEIGHT * lex + (TOPIC_BONUS if same_key else 0.0)
        out.append(Related(m, min(1.0, score), dense[m.id], lex))
    out.sort(key=lambda r: (-r.score, -r.memory.updated_at, r.memory.id))
    return _with_topics(emb, text, own, out[:limit]) if classify else out[:limit]


def _with_topics(emb: object, text: str, own: np.ndarray, found: list[Related]
                 ) -> list[Related]:
    """`found`, each marked with whether it is in the statement's topic class."""
    if not found:
        return found
    mine, *theirs = topics_of(emb, [text, *(r.memory.content for r in found)],
                              [own, *([None] * len(found))])
    if mine is None:
        return found
    return [replace(r, topical=True, exclusive=mine.exclusive, topic=mine.name)
            if same_topic(mine, t) else r
            for r, t in zip(found, theirs, strict=True)]

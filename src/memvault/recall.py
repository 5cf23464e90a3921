"""Recall: fuse full-text and dense candidates, add the memory's own score parts, keep
what is live, one winner per slot.

The backend returns scoped candidates with raw scores; everything from here on is the
same for every backend. Relevance scores are min-max normalised per retriever before
mixing (measured better than reciprocal rank fusion on both benchmark datasets,
BASELINES.md); recency, confidence and importance are added with their own weights.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from . import answertype, bm25, turncues
from .bm25 import TextCandidates
from .config import Retrieval, Weights
from .embed import Embedder, embed_queries, votes_on
from .model import Hit, Kind, Memory, Scope, ScoreParts
from .querylines import is_conversation, query_lines
from .textindex import memory_index_text
from .validtime import ValidWindow
from .vecsearch import nearest_each
from .wordmatch import StoredWords, coverage_parts, word_embedder

DAY_MS = 86_400_000
log = logging.getLogger(__name__)

# A reranker sees the query and the ranked hits and returns them in its preferred order
# (it may rescore them; whatever it returns is what the caller gets, trimmed to top_k).
Reranker = Callable[[str, list[Hit]], list[Hit]]


@dataclass(slots=True)
class RetrievalOutcome:
    """Everything a retrieval decided, for the caller and for its trace."""

    scope: Scope
    query: str
    now: int
    as_of: bool = False
    time_range: tuple[int | None, int | None] | None = None
    time_range_ignored: bool = False  # named in the query, but nothing is dated inside it
    valid: ValidWindow | None = None  # the valid-time filter (validtime.py), if any
    hits: list[Hit] = field(default_factory=list)
    filtered: list[tuple[Hit, str]] = field(default_factory=list)
    reranked: bool = False
    # What the strategy's reranker did (rerank.RerankReport.to_dict), if one ran.
    rerank: dict[str, Any] | None = None
    # The store's erasure mark from before the retrieval read (Store.erasure_mark).
    erasure_mark: int | None = None


def _minmax(scores: dict[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    # Float noise (identical texts scored in different BLAS lanes differ by ~1e-8) must
    # not be stretched into a 0-vs-1 difference.
    if hi - lo < 1e-6:
        # One candidate, or all tied: each is as good as the best.
        return dict.fromkeys(scores, 1.0 if hi > 0 else 0.0)
    return {k: (v - lo) / (hi - lo) for k, v in scores.items()}


def fuse(text: Sequence[tuple[str, float]], dense: dict[str, Sequence[tuple[str, float]]],
         weights: Weights, lines: dict[str, Sequence[tuple[str, float]]] | None = None,
         *, one_line: bool = False) -> dict[str, ScoreParts]:
    """Relevance score parts per candidate id. Missing from a list = 0 there. `lines`:
    per embedder, each candidate's best similarity to one line of the query
    (querylines.py), for a multi-line query. `one_line`: the query is one line (not a
    conversation), which has its own dense weight (`Weights.dense_for`)."""
    text_raw = dict(text)
    text_norm = _minmax(text_raw)
    dense_raw = {model: dict(rows) for model, rows in dense.items()}
    dense_norm = {model: _minmax(rows) for model, rows in dense_raw.items()}
    lines_raw = {model: dict(rows) for model, rows in (lines or {}).items()}
    lines_norm = {model: _minmax(rows) for model, rows in lines_raw.items()}
    shares = {m: weights.dense_models.get(m, 1.0) for m in dense_raw}
    share_sum = sum(shares.values()) or 1.0
    w_dense = weights.dense_for(one_line)
    line_sum = sum(shares.get(m, 1.0) for m in lines_raw) or 1.0
    ids: dict[str, None] = dict.fromkeys(text_raw)
    for rows in (*dense_raw.values(), *lines_raw.values()):
        ids.update(dict.fromkeys(rows))
    out: dict[str, ScoreParts] = {}
    for mid in ids:
        parts = ScoreParts(bm25=text_raw.get(mid, 0.0), bm25_norm=text_norm.get(mid, 0.0))
        relevance = weights.text * parts.bm25_norm
        for model in dense_raw:
            parts.dense[model] = dense_raw[model].get(mid, 0.0)
            parts.dense_norm[model] = dense_norm[model].get(mid, 0.0)
            relevance += w_dense * shares[model] / share_sum * parts.dense_norm[model]
        for model in lines_raw:
            parts.lines[model] = lines_raw[model].get(mid, 0.0)
            parts.lines_norm[model] = lines_norm[model].get(mid, 0.0)
            relevance += (weights.lines * shares.get(model, 1.0) / line_sum
                          * parts.lines_norm[model])
        parts.relevance = relevance
        parts.total = relevance
        out[mid] = parts
    return out


def coverage_embedder(query: str, embedders: Sequence[Embedder], retrieval: Retrieval
                      ) -> Embedder | None:
    """The embedder whose word vectors a recall of `query` will use for coverage, or None
    when the recall has no coverage part."""
    if (retrieval.weights.coverage <= 0 and not retrieval.floor.on) or is_conversation(query):
        return None  # at weight 0 it is still measured for the relevance floor
    emb = word_embedder(embedders)
    return emb if emb is not None and votes_on(emb, query) else None


def add_coverage(parts: dict[str, ScoreParts], memories: dict[str, Memory], query: str,
                 embedders: Sequence[Embedder], retrieval: Retrieval, tenant: str,
                 stored: StoredWords | None = None, *, checked: bool = False) -> None:
    """The coverage part of a one-line query (wordmatch.py), min-max normalised over the
    candidates like the other relevance parts and added to their relevance. Word vectors
    come from wordmatch.word_embedder, when it votes on the query; `stored`: the store
    that keeps the memories' word vectors; `checked`: the caller has run
    wordmatch.check_erasures for this recall (else coverage does). If it fails, the
    recall goes on without the part (logged)."""
    w = retrieval.weights.coverage
    emb = coverage_embedder(query, embedders, retrieval)
    if emb is None:
        return
    try:
        found = coverage_parts(tenant, query,
                               {mid: memories[mid] for mid in parts if mid in memories},
                               emb, retrieval.word_similarity, stored, checked=checked)
    except Exception:  # a remote embedder's rate limit must not fail the whole recall
        log.warning("coverage skipped: embedder %s failed on words", emb.name, exc_info=True)
        return
    found = _answers_cover(found, memories)
    norm = _minmax({mid: c for mid, (c, _) in found.items()})
    for mid, p in parts.items():
        p.coverage, p.coverage_distinct = found.get(mid, (0.0, 0.0))
        p.coverage_norm = norm.get(mid, 0.0)
        p.relevance += w * p.coverage_norm
        p.total = p.relevance


_ONLY_ASKS = 6  # words told besides the question (turncues.words_told)


def _answers_cover(found: dict[str, tuple[float, float]], memories: dict[str, Memory]
                   ) -> dict[str, tuple[float, float]]:
    """A turn that replies to a question (the turn just before it in its session, another
    speaker's, that asks) covers the query as well as that question does: "What are
    their names?" / "Luna and Oliver!" — the reply holds the answer, the question the
    words (its index key already carries them: turnctx.py). Both must be candidates."""
    by_seq = {(m.scope.key(), seq): mid for mid in found
              if (m := memories.get(mid)) is not None and m.kind == Kind.TURN.value
              and (seq := turncues.turn_seq(m)) is not None}
    out = dict(found)
    for (key, seq), mid in by_seq.items():
        ask = by_seq.get((key, seq - 1))
        if ask is None or found[ask][0] <= found[mid][0]:
            continue
        q, r = memories[ask], memories[mid]
        # Only a question that tells little besides ("Cool! What are their names?"): a
        # turn that tells and asks back holds its own answer, and the reply may not.
        if turncues.is_question(q.content) and turncues.words_told(q.content) <= _ONLY_ASKS \
                and _others(q, r):
            out[mid] = (found[ask][0], found[mid][1])
    return out


def _others(a: Memory, b: Memory) -> bool:
    """Said by two different speakers: by name when both have one (case aside), else by
    role; unknown either way: not known to differ."""
    x, y = turncues.speaker_of(a), turncues.speaker_of(b)
    if x and y:
        return x.casefold() != y.casefold()
    ra, rb = a.metadata.get("role"), b.metadata.get("role")
    return bool(ra and rb and ra != rb)


def memory_date(m: Memory) -> int:
    """When the memory's fact happened, if known; else when it was first told."""
    return m.valid_from if m.valid_from is not None else m.created_at


def _importance(m: Memory) -> float:
    raw = m.metadata.get("importance") if isinstance(m.metadata, dict) else None
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        return float(min(1.0, max(0.0, raw)))
    return 0.0


def add_memory_parts(parts: ScoreParts, m: Memory, retrieval: Retrieval, now: int,
                     named: Set[str] = frozenset(), asks_when: bool = False) -> None:
    """The parts that come from the memory itself (and, for `speaker`, from the speakers
    the query names; for `answer`, from whether the query asks when)."""
    w = retrieval.weights
    age_days = max(0.0, (now - memory_date(m)) / DAY_MS)
    parts.recency = 0.5 ** (age_days / retrieval.decay.half_life_days)
    parts.confidence = float(m.confidence)
    parts.importance = _importance(m)
    parts.speaker = 1.0 if named and turncues.speaker_of(m) in named else 0.0
    parts.question = turncues.asking(m, retrieval.asks_back)
    parts.answer = 1.0 if asks_when and answertype.tells_time(m.content) else 0.0
    parts.total = (parts.relevance + w.recency * parts.recency
                   + w.confidence * parts.confidence + w.importance * parts.importance
                   + w.speaker * parts.speaker - w.question * parts.question
                   + w.answer * parts.answer)


def collapse_slots(hits: list[Hit]) -> tuple[list[Hit], list[Hit]]:
    """One winner per slot and exact scope: the most recently updated value. A slot has one
    active value per exact scope, so values of one slot from two sessions or agents are
    both current there; both are kept, and the context builder shows them as a conflict
    rather than silently picking one. Returns (kept, superseded); order is kept."""
    newest: dict[tuple[str, str], Hit] = {}
    for h in hits:
        if h.memory.slot is None:
            continue
        key = (h.memory.slot, h.memory.scope.key())
        cur = newest.get(key)
        if cur is None or (h.memory.updated_at, h.memory.version) > (
                cur.memory.updated_at, cur.memory.version):
            newest[key] = h

    def winner(h: Hit) -> bool:
        return h.memory.slot is None or newest[(h.memory.slot, h.memory.scope.key())] is h

    return [h for h in hits if winner(h)], [h for h in hits if not winner(h)]


def rank(memories: dict[str, Memory], parts: dict[str, ScoreParts], retrieval: Retrieval,
         now: int, query: str = "") -> list[Hit]:
    """All candidates that are in `memories`, best first, with every score part."""
    speakers = {s for m in memories.values() if (s := turncues.speaker_of(m))}
    named = turncues.names_in(query, speakers) if speakers and query else set()
    # A conversation as the query (MADial-style) asks many things; only a one-line
    # question's answer type is read.
    when = (retrieval.weights.answer > 0 and bool(query) and not is_conversation(query)
            and answertype.asks_when(query))
    hits = []
    for mid, p in parts.items():
        if mid in memories:
            add_memory_parts(p, memories[mid], retrieval, now, named, when)
            hits.append(Hit(memories[mid], p.total, p))
    hits.sort(key=lambda h: (-h.score, -h.memory.updated_at, h.memory.id))
    return hits


def snapshot_candidates(memories: list[Memory], query_terms: list[str], query: str,
                        embedders: list[Embedder], retrieval: Retrieval
                        ) -> dict[str, ScoreParts]:
    """Score a set of memories that is not in the live index (as-of reads), with the
    same BM25, the same terms and the same fusion as the live path."""
    if not memories:
        return {}
    docs = [(m.id, memory_index_text(m.content, m.valid_from).split()) for m in memories]
    tc = TextCandidates(n_docs=len(docs), avg_len=sum(len(t) for _, t in docs) / len(docs),
                        df={q: sum(1 for _, t in docs if q in t) for q in query_terms},
                        docs=[d for d in docs if any(q in d[1] for q in query_terms)])
    text = bm25.score(tc, query_terms)[:retrieval.candidates]
    dense: dict[str, list[tuple[str, float]]] = {}
    lines: dict[str, list[tuple[str, float]]] = {}
    ids = [m.id for m in memories]
    parts = query_lines(query, retrieval.query_lines) if retrieval.weights.lines > 0 else []
    for emb in (e for e in embedders if votes_on(e, query)):
        matrix = emb.embed_documents([m.content for m in memories])
        found = nearest_each(ids, matrix, embed_queries(emb, [query, *parts]),
                             retrieval.candidates)
        dense[emb.name] = found[0]
        if parts:
            lines[emb.name] = best_of(found[1:])
    return fuse(text, dense, retrieval.weights, lines, one_line=not is_conversation(query))


def best_of(per_line: Sequence[Sequence[tuple[str, float]]]) -> list[tuple[str, float]]:
    """The union of each line's nearest memories, each with its best similarity among
    the lines that found it, best first."""
    best: dict[str, float] = {}
    for rows in per_line:
        for mid, sim in rows:
            if sim > best.get(mid, -2.0):
                best[mid] = sim
    return sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))

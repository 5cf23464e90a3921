"""The read core's retrieval: candidates from the store inside the scope, ranking, the
filters, one winner per slot, and the trace of what was decided.

`Reader` is the read core's interface: `recall` and `context` use it, and so do the
layers (the time layer retrieves inside a range; the others list the scope through it).
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from .. import agentpolicy, bm25
from .. import validate as v
from ..config import Floor
from ..core import Core
from ..embed import embed_queries, votes_on
from ..errors import ValidationError
from ..ids import new_id
from ..layers.router import slot_touched
from ..model import GRAPH_KINDS, Hit, Memory, Scope
from ..querylines import is_conversation, query_lines
from ..recall import (
    RetrievalOutcome,
    add_coverage,
    best_of,
    collapse_slots,
    coverage_embedder,
    fuse,
    memory_date,
    rank,
    snapshot_candidates,
)
from ..rerank import choose, rerank
from ..safety.pii import hidden_kinds, redact
from ..store import ListFilter
from ..textindex import query_terms
from ..timeexpr import named_range
from ..timeutil import TimeLike, to_ms
from ..traces import build_trace
from ..validtime import ValidWindow
from ..wordmatch import check_erasures, query_vector, query_words
from . import strategies
from .related import Related, related


def time_range(since: TimeLike, until: TimeLike) -> tuple[int | None, int | None]:
    """since/until as epoch ms, checked to be in order."""
    lo, hi = to_ms(since, field="since"), to_ms(until, field="until")
    if lo is not None and hi is not None and lo >= hi:
        raise ValidationError("since: must be before until")
    return lo, hi


def _similarity(h: Hit) -> float:
    return max([*h.parts.dense.values(), *h.parts.lines.values()], default=0.0)


def with_evidence(ranked: list[Hit], floor: Floor, time_named: bool, query: str) -> set[str]:
    """The ids of the candidates with raw evidence of being about the query
    (config.Floor): a rare query word (BM25), distinct or plain coverage, a similarity
    well above the candidates' median (a high one, with fewer than 3 candidates), a
    relative time the query names (`time_match`), a speaker it names, a date inside a
    range read from the query that narrows this recall (`time_named`), or a slot the
    query asks about (the profile layer's test, layers/router.py). Per-query
    normalised scores cannot say this: they make the best of five unrelated memories
    a 1."""
    if not any(h.parts.dense or h.parts.lines for h in ranked):
        # No embedder read the query (no similarity, no coverage): a query word is all
        # the evidence there is.
        return {h.memory.id for h in ranked if h.parts.bm25 > 0}
    sims = [_similarity(h) for h in ranked]
    median = statistics.median(sims) if len(sims) >= 3 else None
    return {h.memory.id for h, sim in zip(ranked, sims, strict=True)
            if h.parts.bm25 >= floor.text or h.parts.coverage_distinct >= floor.coverage
            or h.parts.coverage >= floor.coverage_plain or h.parts.time_match > 0
            or h.parts.speaker > 0
            or time_named or (sim - median >= floor.dense_margin if median is not None
                              else sim >= floor.dense_alone)
            or (h.memory.slot is not None and slot_touched(h.memory.slot, query))}


def floor_cut(hits: list[Hit], evidence: set[str], floor: Floor, answer_weight: float = 0.0
              ) -> tuple[list[Hit], list[Hit]]:
    """(kept, unrelated), order kept. Nothing ranks above the first hit with evidence;
    after it, a hit stays if it has evidence, says a query word (or a near one), scores
    at least `floor.relative` of that hit, or is `floor.tail_similarity` similar: the
    first hit must be about the query, the rest may be on its edges, as before. Scores
    are compared without the `answer` part (its weight: `answer_weight`): naming a time
    makes a memory a likelier answer to a when-question, not one about the question."""
    first = next((h for h in hits if h.memory.id in evidence), None)
    if first is None:
        return [], list(hits)

    def earned(h: Hit) -> float:
        return h.score - answer_weight * h.parts.answer

    bar = floor.relative * earned(first)
    kept, dropped = [], []
    seen = False
    for h in hits:
        seen = seen or h is first
        ok = h.memory.id in evidence or (seen and (
            h.parts.bm25 > 0 or h.parts.coverage > 0 or earned(h) >= bar
            or _similarity(h) >= floor.tail_similarity))
        (kept if ok else dropped).append(h)
    return kept, dropped


class Reader:
    def __init__(self, core: Core) -> None:
        self.core = core

    # --- scoped reads for the layers --------------------------------------------------------
    def list(self, scope: Scope, flt: ListFilter) -> list[Memory]:
        return self.core.store.list(scope, flt)

    def turns(self, scope: Scope, limit: int, *, now: int,
              exact: bool = False) -> list[Memory]:
        """The scope's last `limit` live turns, oldest first (Store.last_turns; exact:
        of exactly that scope)."""
        return self.core.store.last_turns(scope, limit, now=now, exact=exact)

    def fetch(self, scope: Scope, ids: list[str]) -> list[Memory]:
        return self.core.store.fetch(scope, ids)

    def get(self, scope: Scope, memory_id: str) -> Memory | None:
        return self.core.store.get(scope, memory_id)

    def related(self, scope: Scope, text: str, vectors: dict[str, Any], *,
                topic: str | None = None, slot: str | None = None,
                limit: int = 5, gist_vector: Any = None,
                classify: bool = False) -> list[Related]:
        """The user's live memories closest in meaning to `text` (reads/related.py)."""
        return related(self.core, scope, text, vectors, topic=topic, slot=slot,
                       now=self.core.clock(), limit=limit, gist_vector=gist_vector,
                       classify=classify)

    # --- retrieval --------------------------------------------------------------------------
    def retrieve(self, scope: Any, query: Any, *, top_k: int | None, kind: Any, tags: Any,
                 since: TimeLike, until: TimeLike, as_of: TimeLike,
                 min_score: float | None,
                 valid: ValidWindow | None = None,
                 reranker: str | None = None) -> RetrievalOutcome:
        """`as_of`: system time (read what the store knew then); `valid`: a valid-time
        window (validtime.py) in place of "valid at now (or at as_of)". `reranker`: a
        kind (rerank.KINDS) in place of the strategy's; unless a request names one, the
        Vault's Python hook, if set, runs in place of the strategy's."""
        core = self.core
        store = core.store
        r = core.strategy.retrieval
        sc = v.scope(scope)
        q = v.text(query, "query", max_chars=v.MAX_CONTENT_CHARS)
        assert q is not None
        k = r.top_k if top_k is None else top_k
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000:
            raise ValidationError("top_k: expected a whole number in 1..1000")
        threshold = r.min_score if min_score is None else min_score
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) \
                or not math.isfinite(threshold):
            raise ValidationError("min_score: expected a finite number")
        rr = choose(r.reranker, reranker)
        kind_ = v.kind(kind) if kind is not None else None
        tags_ = v.tags(tags)
        lo, hi = time_range(since, until)
        now = core.clock() if as_of is None else to_ms(as_of, field="as_of")
        assert now is not None
        found = named_range(q, now) if r.query_time_filter else None
        named = found[:2] if found is not None and found[2] else None
        soft = found[:2] if found is not None and not found[2] else None
        if named is not None:
            lo = named[0] if lo is None else max(lo, named[0])
            hi = named[1] if hi is None else min(hi, named[1])
        terms = query_terms(q)
        # Before the first read: an erasure committed after it drops the trace, which may
        # quote what it erased (write_trace). A context build reads its layers later.
        mark = store.erasure_mark(sc) if core.strategy.traces.enabled else None
        out = RetrievalOutcome(scope=sc, query=q, now=now, as_of=as_of is not None,
                               erasure_mark=mark, valid=valid,
                               time_range=(lo, hi) if (lo is not None or hi is not None)
                               else None)
        # The query's new words, if coverage will ask for them, in the query's batch.
        worded = coverage_embedder(q, core.embedders, r)
        # One read of the store's erasure mark a recall, before the word caches are first
        # read (the query's words, then the memories'); both are told it is done.
        checked = worded is not None and bool(query_words(q))
        if checked:
            check_erasures(store, sc.tenant)
        if as_of is not None:
            snapshot = [Memory.from_dict(rv.state) for rv in store.revisions_as_of(sc, now)
                        if rv.state is not None]
            pool = {m.id: m for m in snapshot if m.is_live(now, valid)}
            parts = snapshot_candidates(list(pool.values()), terms, q, core.embedders, r)
        else:
            # Filters shrink the pool after candidate generation; widen it so top_k survives.
            n = r.candidates * (4 if (kind_ or tags_ or out.time_range) else 1)
            text = bm25.score(store.text_candidates(sc, terms, now, n, valid=valid), terms,
                              context_weight=r.turn_context.text_weight)
            lines = query_lines(q, r.query_lines) if r.weights.lines > 0 else []
            dense: dict[str, list[tuple[str, float]]] = {}
            line_votes: dict[str, list[tuple[str, float]]] = {}
            for e in (e for e in core.embedders if votes_on(e, q)):
                if not lines:
                    qv = query_vector(sc.tenant, e, q, store, checked=checked) \
                        if e is worded else e.embed_query(q)
                    dense[e.name] = store.vector_candidates(sc, e.name, qv, now, n,
                                                            valid=valid)
                    continue
                # The whole query and its lines: one embedding batch, one store pass.
                each = store.vector_candidates_each(
                    sc, e.name, embed_queries(e, [q, *lines]), now, n, valid=valid)
                dense[e.name], line_votes[e.name] = each[0], best_of(each[1:])
            parts = fuse(text, dense, r.weights, line_votes or None,
                         one_line=not is_conversation(q))
            pool = {m.id: m for m in store.fetch(sc, list(parts))}
        # The memories' word vectors are read from the store (written with them).
        add_coverage(parts, pool, q, core.embedders, r, sc.tenant, store, checked=checked)
        ranked = rank(pool, parts, r, now, q)
        if soft is not None:
            for h in ranked:
                if soft[0] <= memory_date(h.memory) < soft[1]:
                    h.parts.time_match = 1.0
                    h.parts.total += r.weights.time
                    h.score = h.parts.total
            ranked.sort(key=lambda h: (-h.score, -h.memory.updated_at, h.memory.id))

        def in_range(m: Memory) -> bool:
            d = memory_date(m)
            return (lo is None or d >= lo) and (hi is None or d < hi)

        if named is not None and since is None and until is None \
                and not any(in_range(h.memory) for h in ranked):
            # A range read from the query narrows only if some memory is dated inside it:
            # "today" in a chat about last year's trip must not empty the result.
            out.time_range = None
            out.time_range_ignored = True
        # The floor judges the whole pool, before the caller's kind/tag/time filters: a
        # filter narrows what is served, it does not make the best of the rest related.
        allowed: set[str] | None = None
        if r.floor.on:
            live = [h for h in ranked if h.memory.is_live(now, valid)]
            evidence = with_evidence(live, r.floor, named is not None
                                     and not out.time_range_ignored, q)
            allowed = {h.memory.id for h in floor_cut(live, evidence, r.floor,
                                                      r.weights.answer)[0]}
        kept: list[Hit] = []
        unrecalled = agentpolicy.unrecalled(core.strategy.agents)
        for h in ranked:
            m = h.memory
            reason = None
            if not m.is_live(now, valid):
                reason = "not_live"  # changed between candidate generation and fetch
            elif kind_ is not None and m.kind != kind_:
                reason = "kind_filter"
            elif kind_ is None and m.kind in GRAPH_KINDS:
                reason = "graph_kind"  # entities/relations: graph verbs, or kind= asks
            elif kind_ is None and m.kind in unrecalled:
                reason = "kind_policy"  # e.g. steps: read through the task verbs
            elif any(t not in m.tags for t in tags_):
                reason = "tag_filter"
            elif out.time_range is not None and not in_range(m):
                reason = "time_range"
            elif h.parts.bm25 <= 0 and r.min_similarity > 0 \
                    and _similarity(h) < r.min_similarity:
                reason = "no_match"  # no query word, and not similar enough either
            elif allowed is not None and m.id not in allowed:
                reason = "unrelated"  # the relevance floor (config.Floor, floor_cut)
            if reason:
                out.filtered.append((h, reason))
            else:
                kept.append(h)
        kept, superseded = collapse_slots(kept)
        out.filtered.extend((h, "slot_superseded") for h in superseded)
        final = []
        for h in kept:
            if h.score < threshold:
                out.filtered.append((h, "below_threshold"))
            else:
                final.append(h)
        if core.reranker is not None and reranker is None:
            final = list(core.reranker(q, final))
            out.reranked = True
        elif rr.kind != "none":
            # An LLM reranker sends the query away: the write policy's hidden kinds stay
            # out of it, as they stay out of the traced query.
            sent = redact(q, hidden_kinds(dict(core.strategy.write.pii)))[0] \
                if rr.kind == "llm" else q
            final, report = rerank(rr, sent, final)
            out.rerank = report.to_dict()
            out.reranked = report.fallback is None
        out.filtered.extend((h, "top_k") for h in final[k:])
        out.hits = final[:k]
        return out

    def record_trace(self, kind: str, outcome: RetrievalOutcome, *, trace_id: str | None,
                     injected: dict[str, Any] | None = None) -> str | None:
        """Keep what a recall or a context build decided (strategy `traces`); its id."""
        core = self.core
        cfg = core.strategy.traces
        if not cfg.enabled:
            return None
        strategies.note(core)  # the trace's strategy_hash must resolve (reads/strategies)
        tid = v.text(trace_id, "trace_id", max_chars=v.MAX_ID_CHARS,
                     required=False) or new_id("tr")
        at = core.clock()
        trace = build_trace(tid, kind, outcome, strategy_hash=core.strategy.hash, at=at,
                            injected=injected)
        # A query is what the user said, kept for weeks: the write policy's hidden kinds
        # stay out of it as they stay out of a turn (a replay reads the placeholder).
        hide = hidden_kinds(dict(core.strategy.write.pii))
        if hide and isinstance(trace.get("query"), str):
            trace["query"] = redact(trace["query"], hide)[0]
        keep_after = at - int(cfg.retention_days * 86_400_000)
        if trace_id is None:  # a new id: written after the recall answers (tracequeue.py)
            core.store.write_trace_later(outcome.scope, trace, keep_after=keep_after,
                                         max_per_scope=cfg.max_per_scope,
                                         erased_after=outcome.erasure_mark)
        else:  # the caller's id: a clash (with a queued trace too) is its error, now
            core.store.flush_traces()
            core.store.write_trace(outcome.scope, trace, keep_after=keep_after,
                                   max_per_scope=cfg.max_per_scope,
                                   erased_after=outcome.erasure_mark)
        return tid

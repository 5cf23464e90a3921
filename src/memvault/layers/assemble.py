"""Assemble the layers the router picked into one ranked list for inject.render().

Order is priority (render drops from the tail when the budget bites): profile slots the
query touches, the session's recent turns, graph facts, memories dated in the time the
query names, recalled memories (a summary followed by its covered turns that share words
with the query), and summaries as background when little else matches. Everything is
rendered by inject.render in one nonce-marked block, so escaping, the budget, stale-slot
refusal and conflict grouping apply to every layer alike.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import NotFoundError
from ..inject import ContextItem
from ..model import Hit, Kind, Memory, Scope, ScoreParts, Status
from ..recall import RetrievalOutcome
from ..store import ListFilter
from ..textindex import memory_index_text, query_terms
from . import graph
from .router import Route, route
from .shortterm import recent
from .summarize import summaries

if TYPE_CHECKING:
    from ..vault import Vault

MAX_FACTS = 8
MAX_BACKGROUND = 2


@dataclass(slots=True)
class Assembly:
    items: list[ContextItem] = field(default_factory=list)
    hits: dict[str, Hit] = field(default_factory=dict)
    layers: list[dict[str, Any]] = field(default_factory=list)
    route: Route | None = None
    _layer_of: dict[str, str] = field(default_factory=dict)
    _messages: set[str] = field(default_factory=set)

    def add(self, layer: str, m: Memory, hit: Hit | None = None) -> bool:
        if m.id in self.hits:
            return False
        # One message, one entry: a raw turn and the memory extracted from it say the
        # same thing; the better-ranked one is kept and the budget goes to something new.
        said = m.metadata.get("message_id")
        if isinstance(said, str) and m.slot is None:
            if said in self._messages:
                return False
            self._messages.add(said)
        self.hits[m.id] = hit or Hit(m, 0.0, ScoreParts())
        self.items.append(ContextItem.from_memory(m, self.hits[m.id].score))
        self._layer_of[m.id] = layer
        return True

    def note(self, layer: str, reason: str, ids: list[str]) -> None:
        self.layers.append({"layer": layer, "reason": reason, "ids": ids})

    def finish(self, included: list[str]) -> list[dict[str, Any]]:
        shown = set(included)
        for entry in self.layers:
            entry["included"] = [i for i in entry["ids"] if i in shown]
        return self.layers


def _overlap(terms: set[str], m: Memory) -> int:
    return len(terms & set(memory_index_text(m.content, None).split()))


def assemble(vault: Vault, sc: Scope, query: str, outcome: RetrievalOutcome, *,
             session: str | None = None) -> Assembly:
    """`session`: the current conversation inside `sc` (a user scope keeps every layer
    user-wide; a session scope narrows them all, as it does recall)."""
    cfg = vault.strategy.layers
    now = outcome.now
    a = Assembly()
    slots = vault.store.list(sc, ListFilter(status=Status.ACTIVE.value, limit=10_000))
    slot_mems = [m for m in slots if m.slot and m.is_live(now)]
    names = graph.known_names(vault, sc) if cfg.graph else {}
    r = route(query, now=now, slots={m.slot for m in slot_mems if m.slot}, names=names,
              time_filter=vault.strategy.retrieval.query_time_filter)
    a.route = r

    if r.profile_slots:
        # Every scope's value of a touched slot: render groups disagreeing ones as a
        # conflict and refuses superseded ones, as for recalled memories.
        ids = [m.id for m in slot_mems if m.slot in r.profile_slots and a.add("profile", m)]
        a.note("profile", r.reasons["profile"], ids)

    current = sc if sc.session else (Scope(sc.tenant, sc.user, sc.agent, session)
                                     if session else None)
    if current is not None:
        ids = [m.id for m in recent(vault, current) if a.add("recent", m)]
        a.note("recent", f"last turns of session {current.session}", ids)

    if cfg.graph and (r.entities or r.self_facts):
        rels = [m for m in graph._active(vault, sc, Kind.RELATION.value)
                if graph._holds(m, now) and m.status == Status.ACTIVE.value]
        wanted = set(r.entities.values())
        if r.self_facts:
            with contextlib.suppress(NotFoundError):  # no self entity yet
                wanted.add(graph.resolve(vault, sc, graph.SELF).id)
        picked = [m for m in rels if wanted & {m.metadata.get("subject"),
                                               m.metadata.get("object")}]
        picked.sort(key=lambda m: -(m.valid_from or 0))
        ids = [m.id for m in picked[:MAX_FACTS] if a.add("graph", m)]
        a.note("graph", r.reasons.get("graph", ""), ids)

    if r.time_range is not None and not r.time_explicit:
        # Relative times ("yesterday") only boost recall; here they also pull what is
        # dated inside them.
        dated = vault._retrieve(sc, query, top_k=5, kind=None, tags=None,
                                since=r.time_range[0], until=r.time_range[1], as_of=None,
                                min_score=None)
        ids = [h.memory.id for h in dated.hits if a.add("time", h.memory, h)]
        a.note("time", r.reasons["time"], ids)

    terms = set(query_terms(query))
    rec_ids: list[str] = []
    for h in outcome.hits:
        if a.add("recall", h.memory, h):
            rec_ids.append(h.memory.id)
        if h.memory.kind == Kind.SUMMARY.value and cfg.expand_turns:
            from .summarize import expand

            # Seed 1 §3.3: the gist may have lost the detail, so the covered turns that
            # share two of the query's words (one, for a one-word query: a single common
            # word pulls in chit-chat) follow the summary.
            need = max(1, min(2, len(terms)))
            covered = [(n, t) for t in expand(vault, sc, h.memory.id)
                       if (n := _overlap(terms, t)) >= need]
            covered.sort(key=lambda x: -x[0])
            rec_ids += [t.id for _, t in covered[:cfg.expand_turns] if a.add("recall", t)]
    why = "ranked recall"
    if r.time_range is not None and r.time_explicit:
        why += (", narrowed to the named time" if outcome.time_range is not None
                and not outcome.time_range_ignored else ", named time matched nothing")
    a.note("recall", why, rec_ids)

    matching = sum(1 for h in outcome.hits if h.parts.bm25 > 0
                   and h.memory.kind != Kind.SUMMARY.value)
    if matching < cfg.background_below:
        pool = [s for s in summaries(vault, sc) if s.is_live(now)]
        pool.sort(key=lambda s: (s.metadata.get("level") != "user", -s.updated_at))
        ids = [s.id for s in pool[:MAX_BACKGROUND]]
        for s in pool[:MAX_BACKGROUND]:
            a.add("summary", s)  # may already be there as a (low) recall hit
        if ids:
            a.note("summary", f"background: only {matching} recalled memories share a "
                   "word with the query", ids)
    return a


def recall_only(outcome: RetrievalOutcome, why: str) -> Assembly:
    """The plain recall list (a kind, tag or as-of context: layers would break the filter)."""
    a = Assembly()
    ids = [h.memory.id for h in outcome.hits if a.add("recall", h.memory, h)]
    a.note("recall", why, ids)
    return a

"""Assemble the layers the router picked into one ranked list for inject.render().

Order is priority: profile slots the query touches, the session's recent turns, graph
facts, memories dated in the time the query names, recalled memories (a summary hit shown
as its sentences that match the query, followed by its covered turns that share words
with the query), and summaries as background when little else matches. `pack()` then
moves what does not fit the budget behind what does (render keeps a prefix). Everything is
rendered by inject.render in one nonce-marked block, so escaping, the budget, stale-slot
refusal and conflict grouping apply to every layer alike.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from dataclasses import dataclass, field, replace
from typing import Any

from ..clashes import declared_conflicts
from ..engine import Engine
from ..errors import NotFoundError
from ..inject import ContextItem, Lang, frame_tokens, unit_text
from ..model import Hit, Kind, Memory, Scope, ScoreParts, Status
from ..recall import RetrievalOutcome
from ..store import ListFilter
from ..textindex import memory_index_text, query_terms
from ..tokens import default_counter
from . import graph
from .router import Route, route
from .shortterm import recent
from .summarize import summaries
from .summarizers import STAMP, sentences

MAX_FACTS = 8
MAX_BACKGROUND = 2
# Tokens of a conflict's heading line and its members' longer labels ("[2.1]"), rounded
# up (en 47, zh 75 with a two-slot topic); render's exact count is the real guard.
_CONFLICT_HEADING = 80


@dataclass(slots=True)
class Assembly:
    items: list[ContextItem] = field(default_factory=list)
    hits: dict[str, Hit] = field(default_factory=dict)
    layers: list[dict[str, Any]] = field(default_factory=list)
    route: Route | None = None
    nonce: str | None = None  # drawn by pack(): the block id render() uses
    terms: set[str] = field(default_factory=set)  # the query's index terms
    _layer_of: dict[str, str] = field(default_factory=dict)
    _messages: dict[str, int] = field(default_factory=dict)  # message_id -> item index
    _swapped: dict[str, str] = field(default_factory=dict)  # shown instead, see add()
    _values: set[tuple[str, str]] = field(default_factory=set)
    _clash: dict[str, str] = field(default_factory=dict)
    # Left out by pack(): their kind had used its share of the budget (agentpolicy.py).
    over_share: list[ContextItem] = field(default_factory=list)

    def add(self, layer: str, m: Memory, hit: Hit | None = None,
            content: str | None = None) -> bool:
        if m.id in self.hits:
            return False
        if m.slot is not None:
            # The same value of a slot in several scopes (sessions) is one statement, not
            # a conflict: the newest is offered (the caller lists newest first). Different
            # values all stay, so render shows them as the conflict they are.
            key = (m.slot, json.dumps(m.value, sort_keys=True, default=str)
                   if m.value is not None else m.content)
            if key in self._values:
                return False
            self._values.add(key)
        # One message, one entry: a raw turn and the memory extracted from it say the
        # same thing. The entry keeps the better rank and shows the shorter text if it
        # holds as many of the query's words (the budget saved goes to something new;
        # the longer one stays when only it says what the query asks about).
        said = m.metadata.get("message_id")
        if isinstance(said, str) and m.slot is None:
            k = self._messages.get(said)
            if k is None:
                self._messages[said] = len(self.items)
            else:
                old = self.items[k]
                if len(m.content) < len(old.content) and \
                        _overlap(self.terms, m) >= _overlap(self.terms, old.content):
                    del self.hits[old.id]
                    self.hits[m.id] = hit or Hit(m, 0.0, ScoreParts())
                    self.items[k] = ContextItem.from_memory(m, old.score)
                    self._swapped[old.id] = m.id
                return False
        self.hits[m.id] = hit or Hit(m, 0.0, ScoreParts())
        it = ContextItem.from_memory(m, self.hits[m.id].score)
        self.items.append(it if content is None else replace(it, content=content))
        self._layer_of[m.id] = layer
        return True

    def pack(self, budget: int, lang: Lang, now: int,
             shares: dict[str, float] | None = None) -> None:
        """Budget-aware order: walk the units in priority order and keep each one that
        still fits; one that does not is moved behind the kept ones instead of ending the
        block (render keeps a prefix, so a long summary at rank 3 would otherwise shut out
        shorter evidence at ranks 4-20, and a conflict too big for the budget would empty
        it). Slot items that render may group into one conflict (same slot, or a declared
        clash) are one unit here too: kept or moved whole, never one side alone. The
        block's nonce is drawn here so the frame is counted exactly (a hex nonce costs
        6-15 tokens, twice). Render still counts the real text and drops the tail, so the
        budget holds whatever these counts say. `shares`: a kind's items may take at most
        this share of the budget; the rest are left out (`over_share`), not moved."""
        cnt = default_counter()
        caps = {k: share * budget for k, share in (shares or {}).items()}
        spent: dict[str, float] = {}
        texts = [unit_text(it, lang, n) for n, it in enumerate(self.items, 1)]
        self.nonce = secrets.token_hex(8)
        while any(self.nonce in t for t in texts):  # render refuses a nonce in the text
            self.nonce = secrets.token_hex(8)
        self.link_clashes()
        groups: dict[str, list[ContextItem]] = {}
        for it in self.items:
            groups.setdefault(self._group(it), []).append(it)
        used = frame_tokens(self.nonce, lang, now, cnt)
        kept: list[ContextItem] = []
        later: list[ContextItem] = []
        done: set[str] = set()
        for it in self.items:
            g = self._group(it)
            if g in done:
                continue
            done.add(g)
            members = groups[g]
            cost = sum(cnt.count(unit_text(m, lang, len(kept) + 1)) for m in members)
            if len(members) > 1:
                cost += _CONFLICT_HEADING
            capped = members[0].kind if members[0].kind in caps else None
            if capped is not None and spent.get(capped, 0) + cost > caps[capped]:
                self.over_share += members
                continue
            if capped is not None:
                spent[capped] = spent.get(capped, 0) + cost
            if used + cost > budget:
                later += members
                continue
            kept += members
            used += cost
        self.items = kept + later

    def _group(self, it: ContextItem) -> str:
        if it.slot is None:
            return it.id
        return self._clash.get(it.id, "slot:" + it.slot)

    def link_clashes(self) -> None:
        """Slots that declared_conflicts() may pair (a clash across slots) share a group."""
        slotted = [h.memory for h in self.hits.values() if h.memory.slot]
        parent = {m.slot: m.slot for m in slotted if m.slot}

        def find(x: str) -> str:
            while parent[x] != x:
                x = parent[x]
            return x
        for c in declared_conflicts(slotted):
            a, b = (self.hits[i].memory.slot for i in c.ids[:2])
            if a and b and find(a) != find(b):
                parent[find(b)] = find(a)
        self._clash = {m.id: "slot:" + find(m.slot) for m in slotted if m.slot}

    def note(self, layer: str, reason: str, ids: list[str]) -> None:
        self.layers.append({"layer": layer, "reason": reason, "ids": ids})

    def _shown_as(self, mid: str) -> str:
        while mid in self._swapped:
            mid = self._swapped[mid]
        return mid

    def finish(self, included: list[str]) -> list[dict[str, Any]]:
        shown = set(included)
        for entry in self.layers:
            entry["ids"] = [self._shown_as(i) for i in entry["ids"]]
            entry["included"] = [i for i in entry["ids"] if i in shown]
        return self.layers


def _overlap(terms: set[str], m: Memory | str) -> int:
    text = m if isinstance(m, str) else m.content
    return len(terms & set(memory_index_text(text, None).split()))


_GAP = " … "  # how the extractive summariser joins its sentences (summarizers.py)


def excerpt(summary: str, terms: set[str], keep: int) -> str | None:
    """The `keep` sentences of a summary that share the most words with the query, in
    their order, each gap marked "…". None (show it whole) when nothing would be left
    out or no sentence shares a word (the summary matched as a whole)."""
    stamp = ""
    if (m := STAMP.match(summary)) is not None:  # "[time]" said once, kept
        stamp, summary = m.group(0), summary[m.end():]
    parts = summary.split(_GAP)
    if len(parts) == 1:  # another summariser's prose
        parts = sentences(summary)
    if keep <= 0 or len(parts) <= keep:
        return None
    score = [(len(terms & set(memory_index_text(p, None).split())), -i)
             for i, p in enumerate(parts)]
    best = sorted(i for i in sorted(range(len(parts)), key=lambda i: score[i],
                                    reverse=True)[:keep] if score[i][0] > 0)
    if not best:
        return None
    return (stamp + ("… " if best[0] > 0 else "") + _GAP.join(parts[i] for i in best)
            + (" …" if best[-1] < len(parts) - 1 else ""))


def assemble(eng: Engine, sc: Scope, query: str, outcome: RetrievalOutcome, *,
             session: str | None = None) -> Assembly:
    """`session`: the current conversation inside `sc` (a user scope keeps every layer
    user-wide; a session scope narrows them all, as it does recall)."""
    cfg = eng.core.strategy.layers
    now = outcome.now
    a = Assembly(terms=set(query_terms(query)))
    slots = eng.reads.list(sc, ListFilter(status=Status.ACTIVE.value, slotted=True,
                                          limit=10_000))
    slot_mems = sorted((m for m in slots if m.slot and m.is_live(now)),
                       key=lambda m: (-m.updated_at, m.id))  # newest first: see add()
    names = graph.known_names(eng, sc) if cfg.graph else {}
    r = route(query, now=now, slots={m.slot for m in slot_mems if m.slot}, names=names,
              time_filter=eng.core.strategy.retrieval.query_time_filter)
    a.route = r

    if r.profile_slots:
        # Every scope's value of a touched slot: render groups disagreeing ones as a
        # conflict and refuses superseded ones, as for recalled memories.
        ids = [m.id for m in slot_mems if m.slot in r.profile_slots and a.add("profile", m)]
        a.note("profile", r.reasons["profile"], ids)

    current = sc if sc.session else (Scope(sc.tenant, sc.user, sc.agent, session)
                                     if session else None)
    if current is not None:
        ids = [m.id for m in recent(eng, current) if a.add("recent", m)]
        a.note("recent", f"last turns of session {current.session}", ids)

    if cfg.graph and (r.entities or r.self_facts):
        rels = [m for m in graph.active(eng, sc, Kind.RELATION.value)
                if graph.holds(m, now) and m.status == Status.ACTIVE.value]
        wanted = set(r.entities.values())
        if r.self_facts:
            with contextlib.suppress(NotFoundError):  # no self entity yet
                wanted.add(graph.resolve(eng, sc, graph.SELF).id)
        picked = [m for m in rels if wanted & {m.metadata.get("subject"),
                                               m.metadata.get("object")}]
        picked.sort(key=lambda m: -(m.valid_from or 0))
        ids = [m.id for m in picked[:MAX_FACTS] if a.add("graph", m)]
        a.note("graph", r.reasons.get("graph", ""), ids)

    if r.time_range is not None and not r.time_explicit:
        # Relative times ("yesterday") only boost recall; here they also pull what is
        # dated inside them.
        dated = eng.reads.retrieve(sc, query, top_k=5, kind=None, tags=None,
                                   since=r.time_range[0], until=r.time_range[1],
                                   as_of=None, min_score=None)
        ids = [h.memory.id for h in dated.hits if a.add("time", h.memory, h)]
        a.note("time", r.reasons["time"], ids)

    terms = set(query_terms(query))
    rec_ids: list[str] = []
    scored = {h.memory.id: h.score for h in outcome.hits}
    scored.update({h.memory.id: h.score for h, why in outcome.filtered if why == "top_k"})
    for h in outcome.hits:
        is_sum = h.memory.kind == Kind.SUMMARY.value
        turns: list[Memory] = []
        if is_sum and cfg.expand_turns:
            from .summarize import expand

            # Seed 1 §3.3: the gist may have lost the detail, so the covered turns that
            # share two of the query's words (one, for a one-word query: a single common
            # word pulls in chit-chat) come with the summary, best match first.
            need = max(1, min(2, len(terms)))
            covered = [(n, scored.get(t.id, 0.0), t) for t in expand(eng, sc, h.memory.id)
                       if (n := _overlap(terms, t)) >= need]
            covered.sort(key=lambda x: (-x[0], -x[1]))
            turns = [t for _, _, t in covered[:cfg.expand_turns]]
        # The gist first, then its matching turns: measured, the turns first found less
        # evidence at 400 tokens (the excerpt no longer fits) though more of it verbatim.
        short = excerpt(h.memory.content, terms, cfg.summary_sentences) if is_sum else None
        if a.add("recall", h.memory, h, short):
            rec_ids.append(h.memory.id)
        rec_ids += [t.id for t in turns if a.add("recall", t)]
    why = "ranked recall"
    if r.time_range is not None and r.time_explicit:
        why += (", narrowed to the named time" if outcome.time_range is not None
                and not outcome.time_range_ignored else ", named time matched nothing")
    a.note("recall", why, rec_ids)

    matching = sum(1 for h in outcome.hits if h.parts.bm25 > 0
                   and h.memory.kind != Kind.SUMMARY.value)
    if matching < cfg.background_below:
        pool = [s for s in summaries(eng, sc) if s.is_live(now)]
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

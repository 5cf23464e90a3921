"""A read of the user's memories beside those of the user's teams (docs/teams.md).

Each scope is retrieved on its own (inside its own index term and statistics, as every
read is), then the hits are merged by score. Where the user's scope and a team's (or two
teams') hold memories of one slot or topic, one scope wins by the precedence rule
(precedence.py): its memories are served, the others are filtered as "overridden" with
the winner named, and a winner that the query did not retrieve is brought in (with the
loser's score) so the served value never depends on which wording the query matched.
Every hit carries its scope mark. Nothing of another member's own scope is ever read: the
scopes are the user's and the teams', nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import precedence
from .. import validate as v
from ..core import Core
from ..model import Hit, Memory, Scope, ScoreParts, Status
from ..recall import RetrievalOutcome
from ..store import ListFilter
from ..teams import reading_teams
from .retrieve import Reader


def _same_key(core: Core, scope: Scope, key: tuple[str, str], now: int,
              outcome: RetrievalOutcome) -> list[Memory]:
    flt = ListFilter(status=Status.ACTIVE.value, limit=50, valid=outcome.valid,
                     **{key[0]: key[1]})
    return [m for m in core.store.list(scope, flt) if m.is_live(now, outcome.valid)
            and precedence.key_of(m) == key]


def retrieve(reader: Reader, scope: Any, query: Any, *, teams: bool | Iterable[str],
             top_k: int | None, **kw: Any) -> RetrievalOutcome:
    """Reader.retrieve over the user's scope and the teams' (teams: True for every team
    of the user, False for none, or names). Without teams it is exactly Reader.retrieve."""
    core = reader.core
    sc = v.scope(scope)
    extra = reading_teams(core.store, sc, teams)
    out = reader.retrieve(sc, query, top_k=top_k, **kw)
    if not extra:
        return out
    k = core.strategy.retrieval.top_k if top_k is None else top_k
    hits = list(out.hits)
    for ts in extra:
        more = reader.retrieve(ts, query, top_k=top_k, **kw)
        hits += more.hits
        out.filtered += more.filtered
    scopes = [sc, *extra]
    by_id = {h.memory.id: h for h in hits}
    # One winner per slot/topic across scopes. Keys are read from the hits; the other
    # scopes' memories of the key are looked up (live now; an as-of read compares only
    # what it retrieved, as the store's past is read per scope).
    keys = dict.fromkeys(key for h in hits if (key := precedence.key_of(h.memory)))
    lost: dict[str, tuple[Hit, str]] = {}
    marks: dict[str, dict[str, object]] = {}
    for key in keys:
        group = [h.memory for h in hits if precedence.key_of(h.memory) == key]
        if not out.as_of:
            seen = {m.id for m in group}
            group += [m for s in scopes for m in _same_key(core, s, key, out.now, out)
                      if m.id not in seen]
        if len({m.scope.user for m in group}) < 2:
            continue
        user, why = precedence.winning_user(group)
        losers = [m for m in group if m.scope.user != user]
        winners = [m for m in group if m.scope.user == user]
        best = max((by_id[m.id].score for m in group if m.id in by_id), default=0.0)
        for m in winners:
            if m.id not in by_id:  # the query reached only the loser: serve the winner
                by_id[m.id] = Hit(m, best, ScoreParts(total=best))
                hits.append(by_id[m.id])
            marks[m.id] = precedence.mark(m, why, [x.id for x in losers])
        for m in losers:
            lost[m.id] = (by_id.get(m.id) or Hit(m, 0.0, ScoreParts()), winners[0].id)
    kept = [h for h in hits if h.memory.id not in lost]
    kept.sort(key=lambda h: (-h.score, -h.memory.updated_at, h.memory.id))
    for h in kept:
        h.scope_mark = marks.get(h.memory.id) or precedence.mark(h.memory)
    for h, winner in lost.values():
        h.scope_mark = {**precedence.mark(h.memory), "overridden_by": winner}
        out.filtered.append((h, "overridden"))
    out.filtered.extend((h, "top_k") for h in kept[k:])
    out.hits = kept[:k]
    return out


def overridden(outcome: RetrievalOutcome) -> set[str]:
    """The ids a merged read left out by precedence (the context omits them too)."""
    return {h.memory.id for h, why in outcome.filtered if why == "overridden"}

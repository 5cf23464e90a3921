"""The context verb's pipeline: retrieve, assemble the layers the query needs, annotate
turns whose request is not in effect, pack within the budget, render, and record the
trace. Its result is what `Vault.context` returns."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from .. import agentpolicy, onlineeval, turnctx
from .. import validate as v
from ..clashes import declared_conflicts
from ..engine import Engine
from ..inject import render
from ..model import Hit
from ..reads import shared
from ..safety.instructions import scan
from ..turnnotes import NOT_IN_EFFECT, turn_notes
from ..validtime import ValidWindow
from .assemble import assemble, recall_only


@dataclass(slots=True)
class ContextResult:
    """A rendered memory section: paste `text` into the prompt; `trace_id` explains it."""

    text: str
    tokens: int
    hits: list[Hit]
    dropped: list[dict[str, Any]]
    conflicts: list[list[str]]
    trace_id: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "tokens": self.tokens, "trace_id": self.trace_id,
                "included": [h.to_dict() for h in self.hits], "dropped": self.dropped,
                "conflicts": self.conflicts}


def build_context(eng: Engine, scope: Any, query: Any, *, budget: int, lang: str,
                  kind: Any, tags: Any, as_of: Any, trace_id: str | None,
                  session: Any, valid: ValidWindow | None = None,
                  teams: bool | Iterable[str] = False) -> ContextResult:
    """`budget` and `lang` are checked by the caller; the rest here or in retrieval.
    `teams`: read the user's teams too (reads/shared.py); a memory a team's or the
    user's own won over is left out, and the winner's line says what it won and why."""
    cfg = eng.core.strategy.context
    outcome = shared.retrieve(eng.reads, scope, query, teams=teams, top_k=cfg.max_items,
                              kind=kind, tags=tags, since=None, until=None, as_of=as_of,
                              min_score=None, valid=valid)
    # Layers (docs/layers.md) unless a filter asks for recall only: the layers tell
    # what holds now.
    shown = (recall_only(outcome, "kind, tags, as_of or valid time given: recall only")
             if kind or tags or as_of is not None or valid is not None
             else assemble(eng, outcome.scope, outcome.query, outcome,
                           session=v.text(session, "session", max_chars=v.MAX_ID_CHARS,
                                          required=False)))
    # Precedence across scopes (docs/teams.md): the loser is omitted (the profile layer
    # lists the user's own slots, so it may have brought one back), the winner says why.
    lost = shared.overridden(outcome)
    if lost:
        shown.items = [it for it in shown.items if it.id not in lost]
    marks = {h.memory.id: h.scope_mark for h in outcome.hits if h.scope_mark}
    shown.items = [replace(it, precedence=str(marks[it.id]["precedence"]))
                   if it.id in marks and "precedence" in marks[it.id] else it
                   for it in shown.items]
    # A turn whose request is not in effect says so (turnnotes.py), and any text that reads
    # like an instruction is flagged, however it was stored (remember, import, REST): before
    # packing, so the note is counted against the budget.
    notes = turn_notes(eng.core.store, outcome.scope,
                       {it.id for it in shown.items if it.kind == turnctx.TURN_KIND})
    flagged = {it.id for it in shown.items if scan(it.content)}
    shown.items = [replace(it, note=notes.get(it.id), flagged=it.id in flagged)
                   if it.id in notes or it.id in flagged else it for it in shown.items]
    # What is not in effect never outranks what is: after everything current, or gone.
    unapplied = {i for i, n in notes.items() if n in NOT_IN_EFFECT}
    shown.items = ([it for it in shown.items if it.id not in unapplied]
                   + ([] if cfg.unapplied_turns == "omit"
                      else [it for it in shown.items if it.id in unapplied]))
    # The most relevant units that fit first; a kind filter asks for that kind alone, so
    # its share of a mixed budget does not apply.
    shown.pack(budget, lang, outcome.now,
               None if kind else agentpolicy.budget_shares(eng.core.strategy.agents))
    rendered = render(shown.items, budget_tokens=budget, lang=lang, now_ms=outcome.now,
                      nonce=shown.nonce,
                      conflicts=declared_conflicts([h.memory for h in shown.hits.values()]))
    dropped = [{"id": h.memory.id, "version": h.memory.version, "reason": "overridden",
                "by": (h.scope_mark or {}).get("overridden_by")}
               for h, why in outcome.filtered if why == "overridden"]
    injected = {"text": rendered.text, "tokens": rendered.tokens,
                "budget_tokens": budget, "lang": lang, "block_id": rendered.block_id,
                "included": rendered.included, "conflicts": rendered.conflicts,
                "dropped": [{"id": d.id, "version": d.version, "reason": d.reason}
                            for d in rendered.dropped]
                + [{"id": it.id, "version": it.version, "reason": "kind_share"}
                   for it in shown.over_share] + dropped, "note": rendered.note,
                "counter": rendered.counter,
                "layers": shown.finish(rendered.included),
                "route": shown.route.to_dict() if shown.route else None}
    tid = eng.reads.record_trace("context", outcome, trace_id=trace_id, injected=injected)
    by_id = shown.hits
    hits = [by_id[i] for i in rendered.included if i in by_id]
    # Online evaluation keeps a sample row and nothing else: the result is the same.
    onlineeval.sample(eng.core, outcome.scope, outcome.query, tid, hits)
    return ContextResult(text=rendered.text, tokens=rendered.tokens,
                         hits=hits,
                         dropped=injected["dropped"], conflicts=rendered.conflicts,
                         trace_id=tid)

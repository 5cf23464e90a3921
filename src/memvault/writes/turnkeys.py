"""Turn re-keying: a turn is indexed with its neighbours (turnctx.py), so writing,
changing or erasing one turn changes the index keys of the turns around it.

Only the index entry (full-text terms and vectors) of a neighbour changes; its row,
version and revisions stay as they are.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import turnctx
from .. import validate as v
from ..core import Core
from ..ids import memory_hash
from ..model import Memory, Scope, Status

Rekey = tuple[Memory, str, dict[str, np.ndarray]]


def linker(core: Core, prepared: list[dict[str, Any]]) -> turnctx.Linker | None:
    """The keys of the turns among `prepared` (None when none is a turn)."""
    tc = core.strategy.retrieval.turn_context
    if not turnctx.enabled(tc) or not any(p["kind"] == turnctx.TURN_KIND for p in prepared):
        return None
    return turnctx.Linker(tc, prepared, core.store, core.vectors, core.embedding_model)


def rekey(tx: Any, m: Memory, terms: str, vectors: dict[str, np.ndarray]) -> None:
    """A new index key for a memory; its row, version and revisions stay as they are."""
    cur = tx.get(m.scope, m.id)
    if cur is None or cur.content != m.content:
        return  # changed since it was read: its own write re-keyed it
    tx.update(cur, memory_hash(cur), terms, vectors)


def rekey_stored(tx: Any, link: turnctx.Linker | None) -> None:
    """New turns change the index keys of the stored turns just before them."""
    if link is None:
        return
    for m, terms, vectors in link.stored_updates():
        rekey(tx, m, terms, vectors)


def rekey_around(core: Core, m: Memory) -> None:
    """A turn whose text changed, that left the live sequence (forget, expiry) or that
    came back (rollback): its neighbours' keys are rebuilt, and its own if it is live,
    so its old words stay findable through no other key. (purge does this inside its
    erasing transaction: rekeys_without.)"""
    tc = core.strategy.retrieval.turn_context
    if not turnctx.enabled(tc):
        return
    live = m.status == Status.ACTIVE.value
    turns = turnctx.stored_turns(core.store, m.scope)
    if not live:  # put it back in its place, to find whose keys held it
        turns = sorted([*turns, m], key=turnctx.turn_order)
    rows = turnctx.neighbourhood(tc, turns, m.id, core.vectors, leaving=not live)
    if rows:
        with core.store.transaction() as tx:
            for turn, terms, vectors in rows:
                rekey(tx, turn, terms, vectors)


def rekeys_without(core: Core, scope: Scope, memory_id: str) -> list[Rekey]:
    """Neighbour keys to rebuild when purge erases a turn (computed before, applied in
    the erasing transaction): its words must not stay findable through them."""
    tc = core.strategy.retrieval.turn_context
    m = core.store.get(scope, memory_id)
    if m is None or m.kind != turnctx.TURN_KIND or not turnctx.enabled(tc):
        return []
    return turnctx.neighbourhood(tc, turnctx.stored_turns(core.store, m.scope), m.id,
                                 core.vectors, leaving=True)


def relink(core: Core, scope: Any) -> int:
    """Rebuild the index keys of every live turn inside this scope, per exact scope
    (after a reindex, or after turn_context changed). Returns how many."""
    sc = v.scope(scope)
    keys = []
    for turns in turnctx.stored_sequences(core.store, sc):
        keys += turnctx.relink(core.strategy.retrieval.turn_context, turns, core.vectors)
    for start in range(0, len(keys), 256):
        with core.store.transaction() as tx:
            for m, terms, vectors in keys[start:start + 256]:
                rekey(tx, m, terms, vectors)
    return len(keys)

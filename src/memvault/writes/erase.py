"""Purge: erasure of a memory and of what was made from it.

The content leaves the row, every revision, the full-text index and the vectors; so do
the memories made from it (derived.py: facts read from it, summaries of it) and the
older revisions of memories that stay but once quoted it. A tombstone revision records
each erasure: when, by whom, why.

Erasure status: no query can find the content once the purge commits, but its bytes can
stay in the store's files while another connection's read snapshot holds them (store
compact). The result says "done" only when they are verified gone, else "pending"; the
store records a pending erasure and finishes it as soon as it can (status, next write,
close, open).
"""

from __future__ import annotations

from typing import Any

from .. import wordmatch
from ..derived import Quoted, derived_from, quoting_revisions, traces_quoting
from ..errors import FrozenError, NotFoundError
from ..ids import new_id
from ..model import Memory, Op, PurgeResult, Revision, Scope
from . import turnkeys
from .commit import Writer


def purge(w: Writer, sc: Scope, mid: str, *, actor: str | None,
          why: str | None) -> PurgeResult:
    """Erase memory `mid` of `sc` (validated by the caller): its tombstone and whether the
    erased bytes are gone from the files yet."""
    store = w.core.store
    rekeys = turnkeys.rekeys_without(w.core, sc, mid)
    source = store.get(sc, mid)
    derived, quoted, asked = made_from(w, sc, mid, source)
    with store.transaction() as tx:
        # Every row this purge changes, locked in id order first: a writer locks the
        # sources of what it makes in that order too (Writer.check_sources), so the two
        # wait for each other instead of deadlocking.
        user = Scope(sc.tenant, sc.user)
        for lid in sorted({mid, *(m.id for m, _, _ in rekeys), *(d.id for d in derived)}):
            tx.get(user, lid, for_update=True)
        cur = tx.get(sc, mid, for_update=True)
        if cur is None:
            raise NotFoundError(f"no memory {mid} in scope {sc}")
        if cur.frozen:
            raise FrozenError(f"memory {mid} is frozen; unfreeze it before purging it")
        copies = [c for d in derived if (c := tx.get(d.scope, d.id, for_update=True))]
        if frozen := [c.id for c in copies if c.frozen]:
            raise FrozenError(f"memory {mid} is quoted by frozen derived memories "
                              f"{', '.join(frozen)}; unfreeze them before purging it")
        for m, terms, vectors in rekeys:  # in the erasing transaction
            turnkeys.rekey(tx, m, terms, vectors)
        now = w.core.clock()
        tomb = tombstone(w, cur, Op.PURGE, why, actor, now)
        tx.erase(cur.scope, mid, tomb)
        erase_made_from(w, tx, sc, mid, copies, quoted, asked, actor, now)
    if source is not None:
        # A write that read the memory before this purge locked it (a summary, a graph
        # fact, an extracted memory, a trace) committed in between; one written after
        # is refused (Writer.check_sources). Erase the former now.
        late, quoted, asked = made_from(w, sc, mid, source, erased=[c.id for c in copies])
        if late or quoted or asked:
            with store.transaction() as tx:
                copies = [c for d in late if (c := tx.get(d.scope, d.id, for_update=True))]
                erase_made_from(w, tx, sc, mid, copies, quoted, asked, actor,
                                w.core.clock())
    # The store's word vectors of what it erased went in its transactions (Tx.erase,
    # Tx.redact); this process's caches of the tenant go now, another's at its next recall
    # (wordmatch.check_erasures).
    wordmatch.forget(sc.tenant)
    return PurgeResult(tomb, "done" if store.compact() else "pending")


def status(w: Writer, sc: Scope, mid: str) -> str:
    """"done" or "pending" for memory `mid` purged in `sc` (a pending erasure is retried
    first); NotFoundError if this scope's user never purged it."""
    state = w.core.store.erasure_status(sc, mid)
    if state is None:
        raise NotFoundError(f"no purged memory {mid} in scope {sc}")
    return state


def made_from(w: Writer, sc: Scope, mid: str, source: Memory | None, *,
              erased: list[str] | None = None
              ) -> tuple[list[Memory], dict[str, Quoted], list[str]]:
    """What a purge of `source` takes with it (derived.py): the memories made from it,
    the older revisions of memories that stay that quote it, the traces that asked
    with its text. `erased`: the source and these copies of it are already erased."""
    store = w.core.store
    if source is None:
        return derived_from(store, sc, mid), {}, []
    quoted = quoting_revisions(store, source)
    # What was read from the versions that go (a graph fact) goes as well; a memory
    # erased whole needs no redaction.
    derived = derived_from(store, sc, mid,
                           {q: x.versions for q, x in quoted.items() if x.versions},
                           kind=source.kind, erased=erased or ())
    whole = {d.id for d in derived}
    quoted = {q: x for q, x in quoted.items() if q not in whole}
    return derived, quoted, traces_quoting(store, source)


def tombstone(w: Writer, m: Memory, op: Op, note: str | None, actor: str | None,
              now: int) -> Revision:
    # A purge tombstone ends the memory (a new version, no state); a redact note keeps
    # the memory's version and state.
    purged = op == Op.PURGE
    return Revision(op_id=new_id("op"), memory_id=m.id, scope=m.scope, op=op.value,
                    from_version=m.version,
                    to_version=m.version + 1 if purged else m.version,
                    state=None if purged else m.to_dict(), actor=w.core.actor_for(actor),
                    actor_role=w.core.role(), reason=note, trigger_text=None,
                    trace_id=None, at=max(now, m.updated_at))


def erase_made_from(w: Writer, tx: Any, sc: Scope, mid: str, copies: list[Memory],
                    quoted: dict[str, Quoted], asked: list[str], actor: str | None,
                    now: int) -> None:
    """The rest of a purge of `mid`, in its transaction (see made_from)."""
    if asked:
        tx.drop_traces(sc, asked)
    # What was made from it carries its words (a graph fact quotes its source, a
    # summary its turns): erased with it, each with its own tombstone.
    for c in copies:
        tx.erase(c.scope, c.id, tombstone(
            w, c, Op.PURGE, f"derived from purged memory {mid}", actor, now))
    # A memory that stays (its current value came from elsewhere) loses the content
    # of its older revisions that came from the purged turn.
    for qid, q in quoted.items():
        if (m := tx.get(q.scope, qid, for_update=True)) is None:
            continue
        tx.redact(m.scope, m.id, q.blank, q.unquote, tombstone(
            w, m, Op.REDACT, f"{len(q.blank) + len(q.unquote)} earlier revision(s) "
            f"erased: derived from purged memory {mid}", actor, now))

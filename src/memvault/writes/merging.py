"""Merge several memories into one, split one into several, and undo either.

Each verb is one transaction. A merge writes a new memory whose metadata names its
sources (`merged_from: ["<id>@<version>", …]`) and forgets each source with the reason
"merged into <new id>" (the source's forgotten version carries `merged_into`). A split
writes one new memory per part (`split_from: "<id>@<version>"`) and forgets the source
("split into …", its forgotten version carries `split_into`). `unmerge` forgets the merged
memory and restores every source to its state before the merge; `unsplit` forgets the
parts and restores the source. The restorations are `rollback` revisions, so history reads
as it happened; every revision emits its change event (Tx.append_revision).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .. import validate as v
from ..changes import rollback_trigger
from ..errors import ConflictError, FrozenError, NotFoundError
from ..ids import memory_hash, new_id
from ..model import Memory, Op, Scope, Source, Status, with_state
from ..reads.records import states
from .commit import Writer


def _live_source(tx: Any, sc: Scope, mid: str, verb: str) -> Memory:
    m = tx.get(sc, mid, for_update=True)
    if m is None:
        raise NotFoundError(f"no memory {mid} in scope {sc}")
    if m.frozen:
        raise FrozenError(f"memory {mid} is frozen; unfreeze it before you {verb} it")
    if m.status != Status.ACTIVE:
        raise ConflictError(f"memory {mid} is {m.status}; only an active memory can be "
                            f"{verb.replace('merge', 'merged')}")
    return m


def best_of(sources: list[Memory]) -> Memory:
    """The source whose statement a merge keeps when none is given: the most confident,
    then the most confirmed, then the first said."""
    def rank(m: Memory) -> tuple[float, int, int]:
        n = m.metadata.get("confirmations")
        return (m.confidence, n if isinstance(n, int) else 1, -m.created_at)
    return max(sources, key=rank)


def merge_in(w: Writer, tx: Any, sc: Scope, ids: list[str], *, content: str | None,
             actor: str | None, reason: str | None,
             trigger_text: str | None = None) -> Memory:
    """The merge inside the caller's transaction (review approves a proposal this way)."""
    # Rows locked in id order, so two merges of overlapping sets cannot deadlock.
    locked = {mid: _live_source(tx, sc, mid, "merge") for mid in sorted(ids)}
    sources = [locked[mid] for mid in ids]
    first = sources[0]
    for m in sources[1:]:
        if m.scope != first.scope:
            raise ConflictError(f"memories {first.id} ({first.scope}) and {m.id} "
                                f"({m.scope}) are in different scopes; merge within one")
    slotted = [m for m in sources if m.slot is not None]
    if any((m.slot, m.value) != (slotted[0].slot, slotted[0].value) for m in slotted[1:]):
        raise ConflictError("the memories hold different slots or values ("
                            + ", ".join(f"{m.id}: {m.slot}={m.value!r}" for m in slotted)
                            + "); they say different things and are not merged")
    best = best_of(sources)
    keeper = slotted[0] if slotted else best
    now = w.core.clock()
    nid = new_id("m")
    why = f"merged into {nid}" + (f": {reason}" if reason else "")
    for m in sources:
        gone = replace(m, status=Status.DELETED.value, version=m.version + 1,
                       metadata={**m.metadata, "merged_into": nid},
                       updated_at=max(now, m.updated_at))
        w.write_version(tx, gone, Op.DELETE, m.version, terms=None, vectors=None,
                        actor=actor, reason=why, trigger_text=trigger_text)
    tags: list[str] = []
    for m in sources:
        tags += [t for t in m.tags if t not in tags]
    text = content if content is not None else best.content
    topics = {m.topic for m in sources if m.topic}
    new = Memory(
        id=nid, scope=first.scope, kind=best.kind, content=text, slot=keeper.slot,
        value=keeper.value, tags=tags[:v.MAX_TAGS],
        metadata={"merged_from": [f"{m.id}@{m.version}" for m in sources]},
        source=best.source if text == best.content else Source.ADMIN_MANUAL.value,
        source_text=best.source_text, source_ref=best.source_ref,
        confidence=max(m.confidence for m in sources), status=Status.ACTIVE.value,
        frozen=False, version=1, valid_from=min(
            (m.valid_from for m in sources if m.valid_from is not None), default=None),
        valid_to=None, recorded_at=now, expires_at=None,
        embedding_model=w.core.embedding_model, created_at=now, updated_at=now,
        topic=best.topic or (sorted(topics)[0] if topics else None))
    tx.insert(new, memory_hash(new), w.terms(new), w.core.vectors([text])[0])
    tx.append_revision(w.revision(new, Op.CREATE, None, actor=actor,
                                  reason=reason or "merged from " + ", ".join(ids),
                                  trigger_text=trigger_text, trace_id=None))
    return new


def merge(w: Writer, scope: Any, ids: Any, *, content: str | None = None,
          actor: str | None = None, reason: str | None = None) -> Memory:
    sc = v.scope(scope)
    mids = v.memory_ids(ids)
    # Not given: the best source's statement; given, it is the statement and must show.
    text = None if content is None else v.text(content, "content",
                                                max_chars=v.MAX_CONTENT_CHARS)
    why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
    with w.core.store.transaction() as tx:
        return merge_in(w, tx, sc, mids, content=text, actor=actor, reason=why)


def split(w: Writer, scope: Any, memory_id: Any, parts: Any, *, actor: str | None = None,
          reason: str | None = None) -> list[Memory]:
    sc = v.scope(scope)
    mid = v.memory_id(memory_id)
    texts = v.statements(parts)
    why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
    vectors = w.core.vectors(texts)
    with w.core.store.transaction() as tx:
        src = _live_source(tx, sc, mid, "split")
        if src.slot is not None:
            raise ConflictError(f"memory {mid} holds slot {src.slot}; a slot has one value, "
                                "edit it instead of splitting it")
        now = w.core.clock()
        ids = [new_id("m") for _ in texts]
        gone = replace(src, status=Status.DELETED.value, version=src.version + 1,
                       metadata={**src.metadata, "split_into": ids},
                       updated_at=max(now, src.updated_at))
        w.write_version(tx, gone, Op.DELETE, src.version, terms=None, vectors=None,
                        actor=actor,
                        reason="split into " + ", ".join(ids) + (f": {why}" if why else ""),
                        trigger_text=None)
        meta = {k: x for k, x in src.metadata.items()
                if k not in ("merged_from", "confirmations", "last_confirmed_at")}
        out = []
        for pid, text, vec in zip(ids, texts, vectors, strict=True):
            part = replace(src, id=pid, content=text, version=1, recorded_at=now,
                           created_at=now, updated_at=now, source=Source.ADMIN_MANUAL.value,
                           metadata={**meta, "split_from": f"{src.id}@{src.version}"},
                           embedding_model=w.core.embedding_model)
            tx.insert(part, memory_hash(part), w.terms(part), vec)
            tx.append_revision(w.revision(part, Op.CREATE, None, actor=actor,
                                          reason=why or f"split from {src.id}",
                                          trigger_text=None, trace_id=None))
            out.append(part)
        return out


def _at(ref: Any) -> tuple[str, int]:
    """"<id>@<version>" as the merge or split wrote it (metadata can be edited by hand:
    anything else is a conflict, not a crash)."""
    mid, _, ver = str(ref).rpartition("@")
    if not mid or not ver.isdigit() or len(mid) > v.MAX_ID_CHARS:
        raise ConflictError(f"the link {str(ref)[:80]!r} does not name a memory version")
    return mid, int(ver)


def _restore(w: Writer, tx: Any, sc: Scope, mid: str, version: int, link: str, *,
             actor: str | None, reason: str) -> Memory:
    """Bring back a source as it was at `version` (a rollback revision), provided it is
    still the forgotten version the merge or split left."""
    m = tx.get(sc, mid, for_update=True)
    if m is None or m.status != Status.DELETED or m.version != version + 1 \
            or link not in m.metadata:
        raise ConflictError(f"memory {mid} changed since; it is not restored automatically "
                            "(roll it back by hand)")
    if m.frozen:
        raise FrozenError(f"memory {mid} is frozen; unfreeze it first")
    state = states(w.core, sc, mid).get(version)
    if state is None:
        raise ConflictError(f"memory {mid} has no version {version} left to restore")
    if m.slot is not None:
        holder = tx.find_slot(m.scope, m.slot)
        if holder is not None and holder.id != mid and holder.status == Status.ACTIVE:
            raise ConflictError(f"slot {m.slot} has an active memory, {holder.id}; forget "
                                f"it before bringing {mid} back")
    back = with_state(m, state, version=m.version + 1, recorded_at=w.core.clock(),
                      updated_at=max(w.core.clock(), m.updated_at))
    return w.write_version(tx, back, Op.ROLLBACK, m.version, terms=w.terms(back),
                           vectors=None, actor=actor, reason=reason,
                           trigger_text=rollback_trigger(version))


def _forget_made(w: Writer, tx: Any, sc: Scope, mid: str, *, actor: str | None,
                 reason: str) -> Memory:
    m = tx.get(sc, mid, for_update=True)
    if m is None:
        raise NotFoundError(f"no memory {mid} in scope {sc}")
    if m.frozen:
        raise FrozenError(f"memory {mid} is frozen; unfreeze it before undoing")
    if m.status != Status.ACTIVE:
        raise ConflictError(f"memory {mid} is {m.status}; it is not undone automatically")
    return w.forget_in(tx, m, actor=actor, reason=reason, trigger_text=None)


def unmerge(w: Writer, scope: Any, memory_id: Any, *, actor: str | None = None,
            reason: str | None = None) -> list[Memory]:
    """Undo a merge: the merged memory is forgotten, its sources restored."""
    sc, mid = v.scope(scope), v.memory_id(memory_id)
    why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
    with w.core.store.transaction() as tx:
        cur = tx.get(sc, mid, for_update=False)
        if cur is None:
            raise NotFoundError(f"no memory {mid} in scope {sc}")
        refs = cur.metadata.get("merged_from")
        if not isinstance(refs, list) or not refs:
            raise ConflictError(f"memory {mid} was not made by a merge")
        _forget_made(w, tx, sc, mid, actor=actor, reason=why or "unmerged")
        return [_restore(w, tx, sc, sid, ver, "merged_into", actor=actor,
                         reason=why or f"unmerged from {mid}")
                for sid, ver in map(_at, refs)]


def unsplit(w: Writer, scope: Any, memory_id: Any, *, actor: str | None = None,
            reason: str | None = None) -> Memory:
    """Undo a split, named by its source or any of its parts: the parts are forgotten,
    the source restored."""
    sc, mid = v.scope(scope), v.memory_id(memory_id)
    why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
    with w.core.store.transaction() as tx:
        cur = tx.get(sc, mid, for_update=False)
        if cur is None:
            raise NotFoundError(f"no memory {mid} in scope {sc}")
        if isinstance(cur.metadata.get("split_from"), str):
            src_id, ver = _at(cur.metadata["split_from"])
            src = tx.get(sc, src_id, for_update=False)
            if src is None:
                raise NotFoundError(f"no memory {src_id} in scope {sc}")
        elif isinstance(cur.metadata.get("split_into"), list):
            src, ver = cur, cur.version - 1
        else:
            raise ConflictError(f"memory {mid} was not made or split by a split")
        parts = src.metadata.get("split_into") or []
        if not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
            raise ConflictError(f"memory {src.id}'s split_into does not list memory ids")
        for pid in parts:
            _forget_made(w, tx, sc, pid, actor=actor, reason=why or "unsplit")
        return _restore(w, tx, sc, src.id, ver, "split_into", actor=actor,
                        reason=why or "unsplit")

"""The commit: one transaction writes a memory's row, its revision, its full-text row and
its vectors, or nothing.

`Writer` is the write core's interface. Everything that changes a memory goes through
it: `remember()` and `remember_many()`, the gated write path (writepath.py), review, the
layers (summaries, the graph), the lifecycle job, the governance verbs (mutations.py)
and purge (erase.py). A caller that already holds a transaction (the gate decides inside
it) uses the `*_in` methods, which take that transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import replace
from typing import Any

import numpy as np

from .. import agentpolicy, turnctx
from .. import validate as v
from ..core import Core
from ..derived import sources_of
from ..errors import ConflictError, FrozenError, NotFoundError
from ..ids import content_hash, memory_hash, new_id
from ..model import Kind, Memory, Op, RememberResult, Revision, Scope, Status
from ..textindex import memory_index_text
from . import turnkeys, versioncap
from .prepare import Request

Vectors = dict[str, np.ndarray]


class Writer:
    def __init__(self, core: Core) -> None:
        self.core = core

    # --- the parts of a write -------------------------------------------------------------
    def revision(self, m: Memory, op: Op, from_version: int | None, *, actor: str | None,
                 reason: str | None, trigger_text: str | None,
                 trace_id: str | None) -> Revision:
        """The revision recording `m` (the state after the change) and who made it why."""
        return Revision(
            op_id=new_id("op"), memory_id=m.id, scope=m.scope, op=op.value,
            from_version=from_version, to_version=m.version, state=m.to_dict(),
            actor=self.core.actor_for(actor), actor_role=self.core.role(),
            reason=v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False),
            trigger_text=v.text(trigger_text, "trigger_text",
                                max_chars=v.MAX_SOURCE_TEXT_CHARS, required=False),
            trace_id=v.text(trace_id, "trace_id", max_chars=v.MAX_ID_CHARS, required=False),
            at=m.updated_at)

    def new_memory(self, req: Request, status: Status, now: int) -> Memory:
        """Version 1 of a memory from a prepared request (prepare.py)."""
        return Memory(
            id=new_id("m"), scope=req["scope"], kind=req["kind"], content=req["content"],
            slot=req["slot"], value=req["value"], tags=req["tags"] or [],
            metadata=req["metadata"] or {}, source=req["source"],
            source_text=req["source_text"], source_ref=req["source_ref"],
            confidence=req["confidence"], status=status.value, frozen=False, version=1,
            valid_from=req["valid_from"], valid_to=req["valid_to"], recorded_at=now,
            expires_at=req["expires_at"], embedding_model=self.core.embedding_model,
            created_at=now, updated_at=now, topic=req.get("topic"))

    def next_version(self, current: Memory, req: Request, now: int, **fields: Any) -> Memory:
        """`current`'s next version as the request says it, active, embedded by the
        current model; `fields` are what the caller decides itself (value, topic, …)."""
        return replace(
            current, kind=req["kind"], content=req["content"],
            tags=req["tags"] if req["tags"] is not None else current.tags,
            metadata=req["metadata"] if req["metadata"] is not None else current.metadata,
            source=req["source"], source_text=req["source_text"],
            source_ref=req["source_ref"], confidence=req["confidence"],
            status=Status.ACTIVE.value, version=current.version + 1,
            valid_from=req["valid_from"], valid_to=req["valid_to"], recorded_at=now,
            expires_at=req["expires_at"], embedding_model=self.core.embedding_model, **fields)

    @staticmethod
    def terms(m: Memory) -> str:
        """The memory's default full-text key."""
        return memory_index_text(m.content, m.valid_from)

    @staticmethod
    def check_sources(tx: Any, scope: Scope, metadata: Any, had: Any = None,
                      skip: Container[str] = frozenset()) -> None:
        """Refuse a memory made from one that was purged (derived.sources_of: a summary
        of its turn, a fact read from it). The row lock orders the write against a purge
        of the source: a write that waits for the purge sees it here; one that went first
        is erased by the purge (erase.py). `had`: the metadata before an edit, whose
        sources were checked when they were written; `skip`: ids an import brings along
        (their tombstones travel with them); only asked `in`, never copied, so an import
        does the same work per memory however many it has brought so far."""
        user = Scope(scope.tenant, scope.user)
        for sid in sorted(sources_of(metadata) - sources_of(had)):
            if sid in skip:
                continue
            if tx.get(user, sid, for_update=True) is None and tx.purged(user, sid):
                raise ConflictError(f"memory {sid}, which this one is made from, was "
                                    "purged; nothing was stored")

    def write_version(self, tx: Any, new: Memory, op: Op, from_version: int | None, *,
                      terms: str | None, vectors: Vectors | None, actor: str | None,
                      reason: str | None, trigger_text: str | None,
                      trace_id: str | None = None) -> Memory:
        """Store `new` over its row (index key and vectors only when given) with the
        revision that records it."""
        tx.update(new, memory_hash(new), terms, vectors)
        tx.append_revision(self.revision(new, op, from_version, actor=actor, reason=reason,
                                         trigger_text=trigger_text, trace_id=trace_id))
        return new

    def note(self, tx: Any, m: Memory, op: Op, now: int, *, actor: str | None,
             reason: str | None, trigger_text: str | None) -> None:
        """A revision that changes nothing (a blocked change on a frozen memory): who
        tried what, and why it was refused."""
        tx.append_revision(self.revision(replace(m, updated_at=max(now, m.updated_at)), op,
                                         m.version, actor=actor, reason=reason,
                                         trigger_text=trigger_text, trace_id=None))

    # --- commits inside a caller's transaction ----------------------------------------------
    def remember_in(self, tx: Any, req: Request, vectors: Vectors, *, actor: str | None,
                    reason: str | None, trigger_text: str | None, trace_id: str | None,
                    expected_version: int | None, terms: str | None = None,
                    sources_checked: bool = False) -> RememberResult:
        """Add, update (a slot's next version) or confirm (a duplicate) one memory."""
        sc: Scope = req["scope"]
        if not sources_checked:  # the gated path checks them first, for every outcome
            self.check_sources(tx, sc, req["metadata"])
        if req.get("stage"):
            # Its kind's policy stages this source (agentpolicy.py): kept, not served.
            review = {"reasons": ["kind_policy_review"], "links": [], "target_id": None}
            staged = {**req, "metadata": {**(req["metadata"] or {}), "review": review}}
            return RememberResult("staged", self.pending_in(
                tx, staged, vectors, actor=actor, reason=reason,
                trigger_text=trigger_text or req["source_text"] or req["content"],
                sources_checked=True))
        now = self.core.clock()
        h = content_hash(req["content"], req["slot"], req["value"])
        trigger = trigger_text if trigger_text is not None else (
            req["source_text"] or req["content"])
        current = tx.find_slot(sc, req["slot"]) if req["slot"] else None
        if current is not None and current.status == Status.PENDING and "review" in (
                current.metadata or {}):
            # A staged candidate waits for its reviewer; only a demoted (expired) value is
            # brought back by writing the slot again.
            current = None
        if current is None and expected_version is not None:
            raise ConflictError(f"expected version {expected_version}, but slot "
                                f"{req['slot'] or '(none)'} has no current value")
        if current is not None:
            if expected_version is not None and current.version != expected_version:
                raise ConflictError(
                    f"memory {current.id} is at version {current.version}, the write "
                    f"expected {expected_version}; re-read and retry")
            if current.frozen:
                raise FrozenError(f"memory {current.id} (slot {current.slot}) is frozen; "
                                  "unfreeze it before changing it")
            same = memory_hash(current) == h and current.kind == req["kind"]
            if same and current.status == Status.ACTIVE:
                return RememberResult("noop", self.reinforce_in(
                    tx, current, actor=actor, trigger_text=trigger, reason=reason),
                    current.version)
            if current.status == Status.ACTIVE and versioncap.capped(self.core, current):
                # Changed too often already (write.max_versions): a person decides.
                review = versioncap.review(current, versioncap.cap(self.core))
                staged = {**req, "metadata": {**(req["metadata"] or {}), "review": review}}
                return RememberResult("staged", self.pending_in(
                    tx, staged, vectors, actor=actor, reason=reason or review["message"],
                    trigger_text=trigger, sources_checked=True))
            new = self.next_version(current, req, now, value=req["value"], updated_at=now,
                                    topic=req.get("topic") or current.topic)
            changed_text = new.content != current.content
            reindex = changed_text or new.valid_from != current.valid_from
            self.write_version(tx, new, Op.UPDATE, current.version,
                               terms=self.terms(new) if reindex else None,
                               vectors=vectors if changed_text else None, actor=actor,
                               reason=reason, trigger_text=trigger, trace_id=trace_id)
            return RememberResult("updated", new, current.version)
        # A raw turn is a log entry: the same words said twice are two turns, in order.
        dup = None if req["kind"] == Kind.TURN else tx.find_duplicate(sc, h, req["kind"])
        if dup is not None:
            return RememberResult("noop", self.reinforce_in(tx, dup, actor=actor,
                                                            trigger_text=trigger,
                                                            reason=reason), dup.version)
        mem = self.new_memory(req, Status.ACTIVE, now)
        if mem.kind == Kind.TURN:
            # Its place in the session: max + 1 in this exact scope, in this transaction
            # (turnctx.turn_order). A timestamp is no order: one batch shares one.
            mem.metadata = {**mem.metadata, turnctx.SEQ: tx.next_turn_seq(sc)}
        tx.insert(mem, h, terms or self.terms(mem), vectors)
        tx.append_revision(self.revision(mem, Op.CREATE, None, actor=actor, reason=reason,
                                         trigger_text=trigger, trace_id=trace_id))
        return RememberResult("added", mem, None)

    def reinforce_in(self, tx: Any, m: Memory, *, actor: str | None,
                     trigger_text: str | None, reason: str | None = None) -> Memory:
        """A duplicate confirms what is stored: count it and note when, on the same row and
        the same version, with a `reinforce` revision. A frozen memory is left as it is."""
        if m.frozen:
            return m
        now = self.core.clock()
        meta = dict(m.metadata)
        count = meta.get("confirmations")
        meta["confirmations"] = (count if isinstance(count, int) else 1) + 1
        meta["last_confirmed_at"] = now
        new = replace(m, metadata=meta, updated_at=max(now, m.updated_at))
        return self.write_version(tx, new, Op.REINFORCE, m.version, terms=None, vectors=None,
                                  actor=actor, reason=reason or "restated",
                                  trigger_text=trigger_text)

    def pending_in(self, tx: Any, req: Request, vectors: Vectors, *, actor: str | None,
                   reason: str | None, trigger_text: str | None,
                   sources_checked: bool = False, memory_id: str | None = None) -> Memory:
        """A staged candidate: stored (so nothing is lost) but pending, never served.
        `memory_id`: the id it keeps (an imported line's, free in the store)."""
        if not sources_checked:
            self.check_sources(tx, req["scope"], req["metadata"])
        mem = self.new_memory(req, Status.PENDING, self.core.clock())
        if memory_id is not None:
            mem = replace(mem, id=memory_id)
        tx.insert(mem, memory_hash(mem), self.terms(mem), vectors)
        tx.append_revision(self.revision(mem, Op.CREATE, None, actor=actor, reason=reason,
                                         trigger_text=trigger_text, trace_id=None))
        return mem

    def update_in(self, tx: Any, current: Memory, req: Request, vectors: Vectors, *,
                  actor: str | None, reason: str | None, trigger_text: str | None,
                  op: Op = Op.UPDATE) -> Memory:
        """The next version of `current` (a memory the gate matched by meaning) with the
        request's statement. The request's slot replaces the memory's, unless another
        memory holds it in that scope; a slot the new statement does not name is dropped
        (its value would be stale) and kept as the topic, so the key stays."""
        now = self.core.clock()
        slot = req["slot"]
        about = current.metadata.get("subject")
        if about not in (None, "user") and (req["metadata"] or {}).get("subject") in (None, "user"):
            # Who it is about stays with it, as its key does: the user's "helping mum pack,
            # she's finally moving closer" changes what is stored of mum, still about mum.
            req = {**req, "metadata": {**(req["metadata"] or {}), "subject": about}}
        if slot is not None and slot != current.slot:
            holder = tx.find_slot(current.scope, slot)
            if holder is not None and holder.id != current.id and holder.status == "active":
                slot = None
        new = self.next_version(
            current, req, now, slot=slot, value=req["value"] if slot is not None else None,
            # The key stays with the memory: a change found by meaning keeps its topic, and
            # a slot it drops becomes the topic.
            topic=current.topic or (current.slot if slot != current.slot else None)
            or req.get("topic") or current.slot,
            updated_at=max(now, current.updated_at))
        changed_text = new.content != current.content
        return self.write_version(
            tx, new, op, current.version,
            terms=self.terms(new) if changed_text or new.valid_from != current.valid_from
            else None, vectors=vectors if changed_text else None, actor=actor, reason=reason,
            trigger_text=trigger_text)

    def forget_in(self, tx: Any, m: Memory, *, actor: str | None, reason: str | None,
                  trigger_text: str | None) -> Memory:
        """Soft delete inside the caller's transaction (a retraction the gate allowed):
        the memory stops being served; rollback brings it back."""
        new = replace(m, status=Status.DELETED.value, version=m.version + 1,
                      updated_at=max(self.core.clock(), m.updated_at))
        return self.write_version(tx, new, Op.DELETE, m.version, terms=None, vectors=None,
                                  actor=actor, reason=reason, trigger_text=trigger_text)

    def forget_made_from(self, tx: Any, user: Any, source_id: str, ids: list[str], *,
                         actor: str | None, trigger_text: str | None) -> None:
        """Forget `ids`, what was read from the forgotten memory `source_id` (derived.
        facts_from), inside the caller's transaction; a frozen or no longer live one stays."""
        for mid in ids:
            if (m := tx.get(user, mid, for_update=True)) is not None \
                    and m.status == Status.ACTIVE and not m.frozen:
                self.forget_in(tx, m, actor=actor, reason=f"made from forgotten memory "
                               f"{source_id}", trigger_text=trigger_text)

    # --- whole writes -------------------------------------------------------------------------
    def remember(self, req: Request, *, actor: str | None, reason: str | None,
                 trigger_text: str | None, trace_id: str | None,
                 expected_version: int | None) -> RememberResult:
        """One prepared write, embedded first, committed in its own transaction."""
        req = agentpolicy.admit(self.core.strategy.agents, req, self.core.clock())
        link = turnkeys.linker(self.core, [req])
        if link is None:
            vectors, terms = self.core.vectors([req["content"]])[0], None
        else:
            vecs, keys = link.keys(range(1), [req])
            vectors, terms = vecs[0], keys[0]
        with self.core.store.transaction() as tx:
            turnkeys.rekey_stored(tx, link)
            return self.remember_in(tx, req, vectors, actor=actor, reason=reason,
                                    trigger_text=trigger_text, trace_id=trace_id,
                                    expected_version=expected_version, terms=terms)

    def remember_many(self, every: list[Request], *, actor: str | None, reason: str | None,
                      batch: int,
                      progress: Callable[[int], None] | None) -> list[RememberResult]:
        """Prepared writes, embedded a batch at a time, each batch one transaction."""
        results: list[RememberResult] = []
        now = self.core.clock()  # every item admitted before any batch is stored
        every = [agentpolicy.admit(self.core.strategy.agents, r, now) for r in every]
        # Turns are keyed with their neighbours (turnctx.py), across batch boundaries.
        link = turnkeys.linker(self.core, every)
        for start in range(0, len(every), batch):
            prepared = every[start:start + batch]
            if link is None:
                vectors = self.core.vectors([p["content"] for p in prepared])
                terms: list[str | None] = [None] * len(prepared)
            else:
                vectors, terms = link.keys(range(start, start + len(prepared)), every)
            with self.core.store.transaction() as tx:
                if start == 0:
                    turnkeys.rekey_stored(tx, link)
                for req, vec, key in zip(prepared, vectors, terms, strict=True):
                    results.append(self.remember_in(tx, req, vec, actor=actor, reason=reason,
                                                    trigger_text=None, trace_id=None,
                                                    expected_version=None, terms=key))
            if progress:
                progress(len(prepared))
        return results

    def mutate(self, scope: Any, memory_id: Any, op: Op, change: Callable[[Memory], Memory],
               *, actor: str | None, reason: str | None, trigger_text: str | None = None,
               trace_id: str | None = None, expected_version: int | None = None,
               allow_frozen: bool = False) -> Memory:
        """Change one memory by `change(current) -> new` (mutations.py), as a new
        revision; a turn's neighbours are re-keyed afterwards when it matters."""
        sc = v.scope(scope)
        mid = v.memory_id(memory_id)
        with self.core.store.transaction() as tx:
            cur = tx.get(sc, mid, for_update=True)
            if cur is None:
                raise NotFoundError(f"no memory {mid} in scope {sc}")
            if expected_version is not None and cur.version != expected_version:
                raise ConflictError(f"memory {mid} is at version {cur.version}, the write "
                                    f"expected {expected_version}; re-read and retry")
            if cur.frozen and not allow_frozen:
                raise FrozenError(f"memory {mid} is frozen; unfreeze it before changing it")
            new = change(cur)
            if new.metadata != cur.metadata:
                self.check_sources(tx, new.scope, new.metadata, cur.metadata)
            if new.slot is not None and new.status == Status.ACTIVE and (
                    cur.status != Status.ACTIVE or cur.slot != new.slot):
                holder = tx.find_slot(new.scope, new.slot)
                if holder is not None and holder.id != mid and holder.status == Status.ACTIVE:
                    raise ConflictError(
                        f"slot {new.slot} already has an active memory, {holder.id}; change "
                        f"or forget that one before bringing {mid} back")
            now = self.core.clock()
            new = replace(new, updated_at=max(now, cur.updated_at))
            changed_text = new.content != cur.content
            reindex = changed_text or new.valid_from != cur.valid_from
            vectors = self.core.vectors([new.content])[0] if changed_text else None
            self.write_version(tx, new, op, cur.version,
                               terms=self.terms(new) if reindex else None, vectors=vectors,
                               actor=actor, reason=reason, trigger_text=trigger_text,
                               trace_id=trace_id)
        if new.kind == turnctx.TURN_KIND and (reindex or new.status != cur.status):
            turnkeys.rekey_around(self.core, new)
        return new

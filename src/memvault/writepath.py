"""The gated write path: observe() and the review queue, over the write core.

observe(scope, messages) keeps every raw turn (kind `turn`, never gated: nothing an
extractor misses is lost), extracts candidate memories, and passes each through the gate
(gate.py) inside the transaction that commits it:

    add / update  -> committed like remember(), with the gate's (redacted) content
    noop          -> nothing written
    stage         -> a `pending` memory carrying metadata.review (reasons, links, target)
    block         -> a `blocked` revision on the frozen target (state unchanged)
    reject        -> nothing written; the reasons are in the result

Pending memories are never served by recall or context. review_approve applies a staged
candidate through the same commit path (updating its target slot when it has one);
review_reject keeps it with status `rejected` and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from . import gate
from . import validate as v
from .engine import Engine
from .errors import ConflictError, FrozenError, NotFoundError, ValidationError
from .ids import content_hash, memory_hash
from .model import Memory, Op, Revision, Scope, Status
from .reads import records
from .safety.pii import redact
from .timeutil import MAX_MS, duration_ms
from .turnnotes import turn_id, with_turn
from .writes import prepare, prepare_items


@dataclass(slots=True)
class Outcome:
    """What happened to one candidate."""

    action: str
    reasons: list[str]
    content: str
    memory_id: str | None = None
    version: int | None = None
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "reasons": self.reasons, "content": self.content,
                "memory_id": self.memory_id, "version": self.version,
                "message": self.message}


@dataclass(slots=True)
class ObserveResult:
    turns: list[str] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    # layers.on_observe steps that failed after the writes committed (a summariser that
    # is down): what was stored stays; the next sweep runs them again.
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"turns": self.turns, "outcomes": [o.to_dict() for o in self.outcomes],
                "errors": self.errors}


def observe(eng: Engine, scope: Any, messages: Any, *, source_ref: str | None = None,
            extractor: Any = None, actor: str | None = None, actor_role: str = "user",
            policy: gate.GatePolicy | None = None) -> ObserveResult:
    from .extract import as_messages, load_extractor

    sc = v.scope(scope)
    actor_role = v.actor(actor_role, "actor_role")
    if not isinstance(messages, list | tuple) or not messages:
        raise ValidationError("messages: expected a non-empty list of {role, content}")
    try:
        msgs = as_messages(messages)
    except (TypeError, ValueError, KeyError) as e:
        raise ValidationError(f"messages: {e}") from None
    for m in msgs:
        v.text(m.content, "message content", max_chars=v.MAX_CONTENT_CHARS)
    ref = v.text(source_ref, "source_ref", max_chars=512, required=False)
    # A spec ("rules", "llm:MODEL") or an object with extract(messages).
    ext = (load_extractor("rules" if extractor is None else extractor)
           if extractor is None or isinstance(extractor, str) else extractor)
    if not callable(getattr(ext, "extract", None)):
        raise ValidationError("extractor: expected a spec such as 'rules' or 'llm', or an "
                              "object with extract(messages)")
    candidates = ext.extract(msgs)
    # What the extractor made is checked before the turns are stored, so a bad candidate
    # (a bug in a custom extractor) fails the call without writing anything.
    if not isinstance(candidates, list | tuple):
        raise ValidationError("extractor: extract() must return a list of CandidateMemory")
    for n, c in enumerate(candidates, start=1):
        _check_candidate(c, n)
    policy = policy or gate_policy(eng)
    result = ObserveResult()
    # Raw turns first, verbatim: they are records of what was said, not beliefs.
    origin = {"user": "user_explicit", "tool": "tool"}
    # The sensitive-data policy applies to raw turns too: "redact" kinds never reach the
    # store, not even verbatim in a turn.
    hide = {k for k, a in policy.pii.items() if a == "redact"}

    def kept(text: str) -> str:
        return redact(text, hide)[0] if hide else text

    turn_items = [{"scope": sc, "content": kept(m.content), "kind": "turn",
                   "source": origin.get(m.role, "system_inferred"),
                   # turn: position in this call; turns written in one millisecond
                   # keep their order (short-term layer, summaries).
                   "source_ref": ref, "metadata": {"role": m.role, "turn": i,
                                                   **({"message_id": m.id} if m.id else {}),
                                                   **({"speaker": m.name.strip()}
                                                      if m.name else {})},
                   **({"valid_from": m.at} if m.at is not None else {})}
                  for i, m in enumerate(msgs)]
    turns = prepare_items(eng.core.clock, turn_items)
    for r in eng.writes.remember_many(turns, actor=actor, reason="observed turn",
                                      batch=256, progress=None):
        result.turns.append(r.memory.id)
    for c in candidates:
        # The turn it was read from: purging that turn erases what was made from it.
        turn = _turn_of(c, msgs, result.turns)
        result.outcomes.append(_gated_write(eng, sc, c, actor=actor, actor_role=actor_role,
                                            source_ref=ref, policy=policy,
                                            metadata={"turn_id": turn} if turn else None))
    return result


def candidate_metadata(c: Any, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a candidate's memory carries in metadata besides the caller's own keys."""
    extra = {**(metadata or {})}
    extra |= {k: val for k, val in (("flags", list(getattr(c, "flags", []) or [])),
                                   ("replaces", getattr(c, "replaces", None)),
                                   ("change_of_mind", getattr(c, "change_of_mind", False)),
                                   ("note", getattr(c, "note", None)),
                                   ("message_id", getattr(c, "message_id", None)),
                                   ("subject", c.subject),
                                   ("said_at", getattr(c, "at", None))) if val}
    return extra


def _check_candidate(c: Any, n: int) -> None:
    from .extract import CandidateMemory

    if not isinstance(c, CandidateMemory):
        raise ValidationError(f"extractor: candidate {n} is not a CandidateMemory (got "
                              f"{type(c).__name__})")
    try:
        v.text(c.content, "content", max_chars=v.MAX_CONTENT_CHARS)
        v.text(c.source_text, "source_text", max_chars=v.MAX_CONTENT_CHARS)
        v.slot(c.slot)
        if c.value is not None:
            v.json_value(c.value, "value")
        if c.ttl is not None:
            duration_ms(c.ttl)
        if not isinstance(c.flags, list) or not all(isinstance(f, str) for f in c.flags):
            raise ValidationError("flags: expected a list of text")
        if c.at is not None:
            v.epoch_ms(c.at, "at")
        v.metadata(candidate_metadata(c))
    except ValidationError as e:
        raise ValidationError(f"extractor: candidate {n}: {e.message}") from None


def _turn_of(c: Any, msgs: list[Any], turn_ids: list[str]) -> str | None:
    """The stored turn a candidate came from: the message it names, or else the first
    whose text holds its source span (an extractor guarantees one does)."""
    for i, m in enumerate(msgs):
        if c.message_id is not None and m.id == c.message_id:
            return turn_ids[i] if i < len(turn_ids) else None
    for i, m in enumerate(msgs):
        if c.source_text and c.source_text in m.content:
            return turn_ids[i] if i < len(turn_ids) else None
    return None


def propose(eng: Engine, scope: Any, content: Any = None, *, slot: Any = None,
            value: Any = None, kind: Any = None, source: Any = "user_explicit",
            source_text: Any = None, source_ref: Any = None, confidence: Any = 1.0,
            tags: Any = None, metadata: Any = None, ttl: Any = None,
            actor: str | None = None, actor_role: str = "agent", reason: Any = None,
            expected_version: Any = None) -> Outcome:
    """One statement from a writer that cannot vouch for it (an agent, a model), through
    the gate like an observed candidate. It counts as the user's explicit statement only
    with the user's own words in `source_text` and no command wording in either text: an
    agent's paraphrase may add a memory, but changing a stored value without the user's
    words, or through "update: …", waits for review. `expected_version` guards an
    update as in remember(); `reason` is recorded beside the gate's verdict."""
    from .extract import CandidateMemory
    from .extract.rules import command_reason

    # Every field is checked as remember() checks it, before the gate sees anything.
    actor_role = v.actor(actor_role, "actor_role")
    v.caller_metadata(metadata)
    req = prepare(eng.core.clock, scope, content, slot=slot, value=value, kind=kind,
                  source=source, source_text=source_text, source_ref=source_ref,
                  confidence=confidence, tags=tags, metadata=metadata, ttl=ttl)
    why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
    if expected_version is not None:
        expected_version = v.version(expected_version, "expected_version")
    quote = req["source_text"]
    command = (command_reason(req["content"], record=False)
               or (command_reason(quote) if quote else None))
    cand = CandidateMemory(
        content=req["content"], kind=req["kind"], slot=req["slot"], value=req["value"],
        source=req["source"], confidence=req["confidence"], source_text=quote or req["content"],
        explicit=req["source"] == "user_explicit" and bool(quote) and command is None,
        subject="user", ttl=ttl, flags=["command_like"] if command else [],
        note=command, extractor="agent")
    return _gated_write(eng, req["scope"], cand, actor=actor, actor_role=actor_role,
                        source_ref=req["source_ref"], policy=gate_policy(eng),
                        tags=req["tags"], metadata=req["metadata"], reason=why,
                        expected_version=expected_version)


def gate_policy(eng: Engine) -> gate.GatePolicy:
    """The gate's policy from the strategy file (section `write`)."""
    w = eng.core.strategy.write
    return gate.GatePolicy(inferred_confidence_discount=w.inferred_confidence_discount,
                           stage_below_confidence=w.stage_below_confidence,
                           pii=w.pii.model_dump(), operator_roles=frozenset(w.operator_roles),
                           stage_sources=frozenset(w.stage_sources))


def _gated_write(eng: Engine, sc: Scope, c: Any, *, actor: str | None, actor_role: str,
                 source_ref: str | None, policy: gate.GatePolicy,
                 tags: list[str] | None = None, metadata: dict[str, Any] | None = None,
                 reason: str | None = None, expected_version: int | None = None) -> Outcome:
    now = eng.core.clock()
    ttl_ms = duration_ms(c.ttl) if getattr(c, "ttl", None) else None
    said_at = getattr(c, "at", None)
    # A shelf life runs from when it was said (replayed conversations), not from now.
    expires = min((said_at or now) + ttl_ms, MAX_MS) if ttl_ms else None
    extra = candidate_metadata(c, metadata)
    cand = gate.Candidate(content=c.content, slot=c.slot, value=c.value, kind=c.kind,
                          source=c.source, confidence=c.confidence, source_text=c.source_text,
                          actor=actor or eng.core.actor, actor_role=actor_role,
                          explicit=bool(c.explicit), scope_key=sc.key(), subject=c.subject,
                          expires_at=expires, observed_at=said_at)
    # Redaction reads content, value and source_text only, so it (and the embedding of
    # what will be stored) can run before the transaction.
    screened = gate.screen(cand, policy)
    vectors = eng.core.vectors([screened.content])[0]
    with eng.core.store.transaction() as tx:
        eng.writes.check_sources(tx, sc, extra)
        slot = c.slot
        current = tx.find_slot(sc, slot) if slot else None
        active = current if current is not None and current.status == Status.ACTIVE else None
        if expected_version is not None and (active is None
                                             or active.version != expected_version):
            # Checked before the gate, so a guarded write never turns into a review item
            # that was meant for another version.
            raise ConflictError(
                f"slot {slot or '(none)'} is at version "
                f"{active.version if active else '(no current value)'}, the write expected "
                f"{expected_version}; re-read and retry")
        if slot and c.value is None and active is None:
            # "I don't want SMS any more" with nothing to change: keep it as a fact, do not
            # set the slot to an empty value.
            slot = None
        kind = c.kind or ("preference" if slot else "fact")
        cand = replace(cand, slot=slot, kind=kind)
        dup = tx.find_duplicate(sc, content_hash(screened.content, slot, screened.value), kind)
        state = gate.GateState(current=gate.MemoryView.of(active) if active and slot else None,
                               duplicate_id=dup.id if dup else None, now=now,
                               scope_key=sc.key())
        d = gate.decide(cand, state, policy)
        reasons = [r.value for r in d.reasons]
        why = "gate: " + ", ".join(reasons) if reasons else "gate: accepted"
        if reason:
            why = f"{reason} ({why})"
        why = with_turn(why, extra.get("turn_id"))
        if d.action in (gate.Action.ADD, gate.Action.UPDATE):
            req = prepare(eng.core.clock, sc, d.content, slot=slot, value=d.value, kind=kind,
                          source=c.source, source_text=d.source_text,
                          source_ref=source_ref, confidence=d.confidence, tags=tags,
                          metadata=extra or None, expires_at=expires)
            r = eng.writes.remember_in(tx, req, vectors, actor=actor, reason=why,
                                       trigger_text=screened.source_text, trace_id=None,
                                       expected_version=expected_version,
                                       sources_checked=True)
            return Outcome(r.action, reasons, d.content, r.memory.id, r.memory.version,
                           d.message)
        if d.action == gate.Action.STAGE:
            review = {"reasons": reasons, "links": list(d.links), "target_id": d.target_id,
                      "message": d.message, "extractor": getattr(c, "extractor", None)}
            req = prepare(eng.core.clock, sc, d.content, slot=slot, value=d.value, kind=kind,
                          source=c.source, source_text=d.source_text,
                          source_ref=source_ref, confidence=d.confidence, tags=tags,
                          metadata={**extra, "review": review}, expires_at=expires)
            m = eng.writes.pending_in(tx, req, vectors, actor=actor, reason=why,
                                      trigger_text=screened.source_text, sources_checked=True)
            return Outcome("stage", reasons, d.content, m.id, m.version, d.message)
        if d.action == gate.Action.BLOCK and d.target_id:
            target = tx.get(sc, d.target_id)
            if target is not None:
                eng.writes.note(tx, target, Op.BLOCKED, now, actor=actor, reason=why,
                                trigger_text=screened.source_text)
            return Outcome("block", reasons, d.content, d.target_id, None, d.message)
        if d.action == gate.Action.NOOP:
            same = dup or active
            if same is not None:
                kept = eng.writes.reinforce_in(tx, same, actor=actor,
                                               trigger_text=screened.source_text,
                                               reason=with_turn(reason or "restated",
                                                                extra.get("turn_id")))
                return Outcome("noop", reasons, d.content, kept.id, kept.version, d.message)
        return Outcome(d.action.value, reasons, d.content, d.target_id, None, d.message)


def review_list(eng: Engine, scope: Any, *, limit: int = 100) -> list[Memory]:
    return records.list_memories(eng.core, scope, status="pending", limit=limit)


def review_show(eng: Engine, scope: Any, memory_id: str) -> dict[str, Any]:
    m = records.get(eng.core, scope, memory_id)
    if m.status != Status.PENDING:
        raise NotFoundError(f"memory {memory_id} is not waiting for review ({m.status})")
    links = []
    for lid in (m.metadata.get("review") or {}).get("links", []):
        try:
            links.append(records.get(eng.core, scope, lid).to_dict())
        except NotFoundError:
            continue
    return {"memory": m.to_dict(), "review": m.metadata.get("review") or {},
            "linked": links}


def review_approve(eng: Engine, scope: Any, memory_id: str, *, actor: str | None = None,
                   reason: str | None = None) -> Memory:
    """Apply a pending candidate. With an active value of its slot, that memory gets the
    candidate's value as its next version and the candidate is marked superseded; so it
    is when the same statement was stored meanwhile (that memory is confirmed)."""
    sc = v.scope(scope)
    mid = v.memory_id(memory_id)
    why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
    with eng.core.store.transaction() as tx:
        cand = tx.get(sc, mid, for_update=True)
        if cand is None:
            raise NotFoundError(f"no memory {mid} in scope {sc}")
        if cand.status != Status.PENDING:
            raise ConflictError(f"memory {mid} is {cand.status}, not pending review")
        if cand.frozen:
            raise FrozenError(f"memory {mid} is frozen; unfreeze it before approving it")
        now = eng.core.clock()
        target = tx.find_slot(cand.scope, cand.slot) if cand.slot else None
        if target is not None and target.id != cand.id and target.status == Status.ACTIVE:
            if target.frozen:
                raise FrozenError(f"memory {target.id} (slot {target.slot}) is frozen; "
                                  "unfreeze it before approving a change to it")
            # The new version is the candidate's: it links to the candidate's turn, if any,
            # and no longer to the one the old value was read from (purge follows the link).
            meta = {k: x for k, x in target.metadata.items() if k != "turn_id"}
            if (t := turn_id(cand)) is not None:
                meta["turn_id"] = t
            new = replace(target, content=cand.content, value=cand.value, kind=cand.kind,
                          metadata=meta, source=cand.source, source_text=cand.source_text,
                          source_ref=cand.source_ref, confidence=cand.confidence,
                          version=target.version + 1, recorded_at=now,
                          updated_at=max(now, target.updated_at),
                          expires_at=cand.expires_at)
            eng.writes.write_version(tx, new, Op.APPROVE, target.version,
                                     terms=eng.writes.terms(new),
                                     vectors=eng.core.vectors([new.content])[0], actor=actor,
                                     reason=why or f"approved candidate {cand.id}",
                                     trigger_text=cand.source_text)
            _supersede(eng, tx, cand, now, actor=actor,
                       reason=why or f"applied to {target.id}")
            return new
        dup = tx.find_duplicate(cand.scope, memory_hash(cand), cand.kind)
        if dup is not None and dup.id != cand.id and dup.status == Status.ACTIVE:
            # Said again since it was staged: the stored memory is confirmed (as a
            # duplicate write would confirm it), never doubled.
            kept = eng.writes.reinforce_in(
                tx, dup, actor=actor, trigger_text=cand.source_text,
                reason=with_turn(why or f"approved candidate {cand.id}", turn_id(cand)))
            _supersede(eng, tx, cand, now, actor=actor,
                       reason=why or f"already stored as {dup.id}")
            return kept
        # Approved, it is an ordinary memory: the gate's record moves to `reviewed`, so a
        # later expiry demotes it like any other (and writing the slot revives it).
        meta = {k: x for k, x in cand.metadata.items() if k != "review"}
        meta["reviewed"] = cand.metadata.get("review")
        done = replace(cand, status=Status.ACTIVE.value, version=cand.version + 1,
                       metadata=meta, recorded_at=now, updated_at=max(now, cand.updated_at))
        return eng.writes.write_version(tx, done, Op.APPROVE, cand.version, terms=None,
                                        vectors=None, actor=actor, reason=why,
                                        trigger_text=None)


def _supersede(eng: Engine, tx: Any, cand: Memory, now: int, *, actor: str | None,
               reason: str) -> None:
    """An approved candidate that went into another memory: superseded, never served."""
    done = replace(cand, status=Status.SUPERSEDED.value, version=cand.version + 1,
                   updated_at=max(now, cand.updated_at))
    eng.writes.write_version(tx, done, Op.APPROVE, cand.version, terms=None, vectors=None,
                             actor=actor, reason=reason, trigger_text=None)


def review_reject(eng: Engine, scope: Any, memory_id: str, *, actor: str | None = None,
                  reason: str | None = None) -> Memory:
    def change(m: Memory) -> Memory:
        if m.status != Status.PENDING:
            raise ConflictError(f"memory {m.id} is {m.status}, not pending review")
        return replace(m, status=Status.REJECTED.value, version=m.version + 1)
    return eng.writes.mutate(scope, memory_id, Op.REJECT, change, actor=actor, reason=reason)


__all__ = ["ObserveResult", "Outcome", "Revision", "observe", "review_approve",
           "review_list", "review_reject", "review_show"]

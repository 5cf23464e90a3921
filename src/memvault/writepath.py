"""The gated write path: observe() and propose(), over the write core.

observe(scope, messages) keeps every raw turn (kind `turn`, never gated: nothing an
extractor misses is lost), extracts candidate memories, and passes each through the gate
(gate.py) inside the transaction that commits it:

    add / update  -> committed like remember(), with the gate's (redacted) content
    noop          -> nothing written
    stage         -> a `pending` memory carrying metadata.review (reasons, links, target)
    block         -> a `blocked` revision on the frozen target (state unchanged)
    reject        -> nothing written; the reasons are in the result

Pending memories are never served by recall or context; review.py approves or rejects them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from . import agentpolicy, gate, slotnames, threadlinks, valueswap
from . import validate as v
from .derived import facts_from
from .engine import Engine
from .errors import ConflictError, ValidationError
from .extract.candidate import candidate_metadata
from .extract.replies import REPLY, said_before, turn_of, with_replies
from .extract.rules import RuleExtractor
from .extract.slots import SLOTS, SlotRegistry
from .ids import content_hash
from .model import Op, Revision, Scope, Status
from .observecheck import check_candidate, check_observe
from .placevalue import PlaceJudge
from .readbacks import readback_change
from .reads.related import NOT_MATCHED
from .safety import pii
from .safety.pii import for_sending, hidden_kinds, redact, scrub, scrub_around, sensitive_values
from .statementscore import judged
from .threadtopic import Line, read_back, says_more, takes_back_that, thread_lines, with_rest
from .timeutil import MAX_MS, duration_ms
from .turnnotes import with_turn
from .understand import discourse
from .understand.matchwords import Thresholds, shares_words
from .understand.takeback import names_nothing
from .understand.topics import topic_of
from .writes import prepare, prepare_items, versioncap


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
    # on_observe steps that failed after the commit (a summariser down): the sweep reruns them
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"turns": self.turns, "outcomes": [o.to_dict() for o in self.outcomes],
                "errors": self.errors}


def observe(eng: Engine, scope: Any, messages: Any, *, source_ref: str | None = None,
            extractor: Any = None, actor: str | None = None, actor_role: str = "user",
            policy: gate.GatePolicy | None = None) -> ObserveResult:
    from .extract import load_extractor

    sc, actor_role = v.scope(scope), v.actor(actor_role, "actor_role")
    msgs, ref = check_observe(messages, source_ref)
    # A spec ("rules", "llm:MODEL"; the strategy file's by default) or an object's extract().
    extractor = eng.core.strategy.write.extractor if extractor is None else extractor
    # The rules read "moved to X" as a home only when X is a place by meaning (placevalue.py).
    if not isinstance(extractor, str):
        ext = extractor
    elif extractor.strip() == "rules" and eng.core.embedders:
        ext = load_extractor(extractor, place=PlaceJudge(eng.core.embedders[0]))
    else:
        ext = load_extractor(extractor)
    if not callable(getattr(ext, "extract", None)):
        raise ValidationError("extractor: expected a spec such as 'rules' or 'llm', or an "
                              "object with extract(messages)")
    policy = policy or gate_policy(eng)
    hide = hidden_kinds(policy.pii)
    msgs = [replace(m, id=scrub(m.id, hide)) for m in msgs]  # a message id is a field
    # An extractor that sends the conversation away (`remote`: an LLM endpoint) never sees a
    # value the policy redacts. The rules' own extract() also offers what they read neither way.
    read = msgs if not getattr(ext, "remote", False) else [replace(m, content=t) for m, t in zip(
        msgs, for_sending([m.content for m in msgs], policy.pii), strict=True)]
    candidates = ext.extract(read, unread=True) if type(ext).extract is RuleExtractor.extract \
        else ext.extract(read)
    # Checked before the turns are stored: a custom extractor's bad candidate writes nothing.
    if not isinstance(candidates, list | tuple):
        raise ValidationError("extractor: extract() must return a list of CandidateMemory")
    for n, c in enumerate(candidates, start=1):
        check_candidate(c, n)
    if isinstance(ext, RuleExtractor):  # a bare new value ("15 分钟吧"), read with what came before
        candidates = with_replies(msgs, list(candidates))
    resolve = getattr(ext, "resolve", None)
    if callable(resolve):
        # An LLM's reading of each candidate against its matches; failing, nothing is written.
        candidates = [_resolved(eng, sc, c, resolve, policy) for c in candidates]
    result = ObserveResult()
    # Raw turns first, verbatim (records of what was said, not beliefs), but "redact" kinds
    # never reach the store, even in a turn; nor do "stage" kinds, whose value waits for a
    # reviewer in the staged candidate. A value found in one message is hidden in all.
    origin = {"user": "user_explicit", "tool": "tool"}
    carried = tuple(sensitive_values([m.content for m in msgs]))

    def kept(text: str, field: bool = False) -> str:
        return redact(text, hide, carried, field=field)[0] if hide else text

    turn_items = [{"scope": sc, "content": kept(m.content), "kind": "turn",
                   "source": origin.get(m.role, "system_inferred"),
                   # turn: position in this call; turns written in one millisecond
                   # keep their order (short-term layer, summaries).
                   "source_ref": ref and kept(ref, True), "metadata": {
                       "role": m.role, "turn": i, **({"message_id": m.id} if m.id else {}),
                       **({"speaker": kept(m.name.strip(), True)} if m.name else {})},
                   **({"valid_from": m.at} if m.at is not None else {})}
                  for i, m in enumerate(msgs)]
    turns = prepare_items(eng.core.clock, turn_items)
    with eng.core.acting_as(actor_role):
        for r in eng.writes.remember_many(turns, actor=actor, reason="observed turn",
                                          batch=256, progress=None):
            result.turns.append(r.memory.id)
    # Every candidate's vectors, and those of its core (what the lookup compares), in one
    # embedding batch: an embedder answers a batch far faster than one text at a time. (A
    # bare-value reply is screened and embedded only once swapped, below.)
    screened = [None if REPLY in c.flags else gate.screen(gate.Candidate(
        content=c.content, value=c.value, source_text=c.source_text, carried_pii=carried),
        policy) for c in candidates]
    read = [(c, s) for c, s in zip(candidates, screened, strict=True) if s is not None]
    vectors = iter(valueswap.embedded(eng, [s.content for _, s in read],
                                      [_said(c, s.source_text) for c, s in read]))
    embedded = [None if s is None else next(vectors) for s in screened]
    changed: tuple[str | None, list[str]] = (None, [])  # the last statement: turn, changed
    guessed: tuple[str | None, str | None] = (None, None)  # turn, memory a change was staged on
    last: list[str] = []  # what the call's previous statement stored or changed
    thread: list[str] = []  # what the call's messages changed, the latest last
    stored: list[Line] | None = None  # the user's turns stored before this call
    answered: list[str | None] = []  # turns read as a bare-value reply
    stated: dict[str | None, list[str]] = {}  # turn -> memories it stored or changed
    for c, pre, seen in zip(candidates, embedded, screened, strict=True):
        # A sentence the rules left unread is a statement only if its meaning says so.
        if (c := judged(c, pre and pre[0], eng.core.strategy.write.statement_score)) is None:
            continue
        # The turn it was read from: purging that turn erases what was made from it.
        turn = turn_of(c, msgs, result.turns)
        if REPLY in c.flags:  # a bare value: the change of the statement before it
            c = readback_change(eng, sc, c) if c.asked else threadlinks.reply_change(
                eng, sc, c, said_before(msgs, c, result.turns, stated), eng.core.clock(),
                result.turns)
            if c is None:
                continue
            answered += [turn] if turn else []
        elif turn in answered:
            continue  # the extractor's own reading of a line read as a reply
        said = c.source_text or c.content
        # What the message's previous statement changed, the next may go on with ("Dropped
        # Spanish. It's Japanese on Duolingo now"); a correction ("no wait, scratch that —
        # a cappuccino"), with what was just said, whether it added a memory or changed one.
        goes_on = (changed if changed[0] == turn else (None, []))[1] \
            or (last if discourse.corrects(said) else [])
        lines: list[Line] = []
        if (discourse.replaces(said) or discourse.settles(said)) \
                and not names_nothing(getattr(c, "retraction", None)):
            # A replacement or a decision ("went with…", "定了"; not a bare "scratch that"):
            # what the conversation named before may be what it replaces (threadtopic.py).
            if stored is None:
                stored = threadlinks.stored_lines(eng, sc, result.turns)
            at = result.turns.index(turn) if turn in result.turns else len(msgs)
            lines = with_rest(thread_lines(msgs, result.turns, at, stored), turn, getattr(
                    msgs[at] if at < len(msgs) else None, "content", ""), said)
        elif discourse.changes_mind(said) and turn in result.turns \
                and (at := result.turns.index(turn)) and msgs[at - 1].role == "assistant":
            # answering the assistant ("要不要换个牌子？" / "以后就买这个了"), then the user before
            lines = [(result.turns[at - 1], msgs[at - 1].content),
                     *thread_lines(msgs, result.turns, at, [])]
        elif (label := getattr(c, "retraction", None)) is not None and turn in result.turns \
                and (takes_back_that(said) or names_nothing(label)):
            # "remove that", answering the assistant's "I have a note that you're lactose
            # intolerant": what the assistant just said it holds is what "that" is; else what
            # the rest of the message names ("Jordan and I broke up. Please don't bring them
            # up anymore"); else the user's line before, in this call or the last ("这条先别存").
            at = result.turns.index(turn)
            before = (result.turns[at - 1], msgs[at - 1].content, msgs[at - 1].role) if at else None
            lines = read_back(before) or with_rest([], turn, msgs[at].content, said)
            if names_nothing(label) and not (lines or goes_on or says_more(msgs[at].content, said)):
                goes_on = stated.get(result.turns[at - 1], []) if at \
                    else threadlinks.stated_before(eng, sc, result.turns)
        if changed[0] == turn and changed[1] and c.slot is None and discourse.explains(said):
            # The reason for the change just made ("…I dislike it now. Too competitive,
            # too long."): kept only if it changes a memory itself (the turn keeps it).
            c = replace(c, tentative=True, flags=[f for f in c.flags if f != "stands"])
        # A sentence that goes on about the change its message has just made, with no
        # marker of a change of its own, adds to that change (valueswap.extended).
        adds_on = changed[1][0] if changed[0] == turn and changed[1] \
            and not discourse.marks_change(said) else None
        if not goes_on and thread and discourse.marks_change(said):
            # A thread: a later message of the same exchange that announces a change goes
            # on with what an earlier message changed ("腾讯视频会员我不续了" / "换成爱奇艺"):
            # the last word on it wins before anything else is written.
            goes_on = thread[-1:]
        o = _gated_write(eng, sc, c, actor=actor, actor_role=actor_role, source_ref=ref,
                         policy=policy, metadata={"turn_id": turn} if turn else None,
                         continues=goes_on, adds_on=adds_on, embedded=pre, screened=seen,
                         thread=lines, guessed=guessed[1] if guessed[0] == turn else None,
                         slots=getattr(ext, "registry", None), carried_pii=carried)
        guessed = (turn, threadlinks.guessed_target(eng, sc, o))
        changed = (turn, [o.memory_id] if o.action == "updated" and o.memory_id else [])
        if o.action == "updated" and o.memory_id:
            thread = [*(i for i in thread if i != o.memory_id), o.memory_id]
        if o.action in ("added", "updated") and o.memory_id:
            last = [o.memory_id]
            stated.setdefault(turn, []).append(o.memory_id)
        result.outcomes.append(o)
    return result


def propose(eng: Engine, scope: Any, content: Any = None, *, slot: Any = None,
            value: Any = None, kind: Any = None, source: Any = "user_explicit",
            source_text: Any = None, source_ref: Any = None, confidence: Any = 1.0,
            tags: Any = None, metadata: Any = None, ttl: Any = None,
            actor: str | None = None, actor_role: str = "agent", reason: Any = None,
            expected_version: Any = None, topic: Any = None) -> Outcome:
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
    v.caller_value(slot, value)
    req = prepare(eng.core.clock, scope, content, slot=slot, value=value, kind=kind,
                  source=source, source_text=source_text, source_ref=source_ref,
                  confidence=confidence, tags=tags, metadata=metadata, ttl=ttl, topic=topic)
    why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
    if expected_version is not None:
        expected_version = v.version(expected_version, "expected_version")
    req["source"] = agentpolicy.proposed_source(eng.core.strategy.agents, req["kind"],
                                                req["source"])
    quote = req["source_text"]
    command = (command_reason(req["content"], record=False)
               or (command_reason(quote) if quote else None))
    cand = CandidateMemory(
        content=req["content"], kind=req["kind"], slot=req["slot"], value=req["value"],
        source=req["source"], confidence=req["confidence"], source_text=quote or req["content"],
        explicit=req["source"] == "user_explicit" and bool(quote) and command is None,
        subject="user", ttl=ttl, flags=["command_like"] if command else [],
        note=command, extractor="agent", topic=req["topic"])
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
                           stage_sources=frozenset(w.stage_sources),
                           thresholds=Thresholds(**w.matching.model_dump()))


def _gated_write(eng: Engine, sc: Scope, c: Any, *, actor: str | None, actor_role: str,
                 source_ref: str | None, policy: gate.GatePolicy,
                 tags: list[str] | None = None, metadata: dict[str, Any] | None = None,
                 reason: str | None = None, expected_version: int | None = None,
                 continues: list[str] | None = None, adds_on: str | None = None,
                 guessed: str | None = None,
                 embedded: tuple[dict[str, Any], Any] | None = None,
                 screened: gate.Screened | None = None,
                 thread: list[Line] | None = None, slots: SlotRegistry | None = None,
                 carried_pii: tuple[tuple[str, str], ...] = ()) -> Outcome:
    """`continues`: what earlier sentences of the message changed, which a later change
    goes on with ("Dropped Spanish. It's Japanese on Duolingo now"); `adds_on`, the memory
    it changed when this sentence marks no change of its own; `guessed`, the memory the
    message's previous statement was staged against as a guess. `embedded`,
    `screened`: what the caller's batch computed. `thread`: the rest of the message and
    the messages before it (threadtopic.py), whose named memory is offered."""
    refused, sc, stage = agentpolicy.gate_check(eng.core.strategy.agents, c.kind, c.source,
                                                sc)
    if refused is not None:  # e.g. a tool result "extracted" from chat: never written
        return Outcome("reject", [refused], c.content,
                       message=f"the {c.kind} policy does not take it through the gate")
    if stage:
        policy = replace(policy, stage_sources=policy.stage_sources | {c.source})
    now = eng.core.clock()
    ttl_ms = duration_ms(c.ttl) if getattr(c, "ttl", None) else None
    said_at = getattr(c, "at", None)
    # A shelf life runs from when it was said (replayed conversations), not from now.
    expires = min((said_at or now) + ttl_ms, MAX_MS) if ttl_ms else None
    # The caller's tags, metadata, reason and reference (an agent's proposal) and an extractor's
    # topic are text like the content: the same policy applies to them.
    tags, metadata, reason, source_ref = scrub_around((tags, metadata, reason, source_ref),
                                                      policy.pii, [c.content, c.source_text or ""],
                                                      carried_pii)
    hide = pii.redacted_kinds(policy.pii)
    extra = candidate_metadata(c, metadata)
    retraction = getattr(c, "retraction", None)
    flags = set(getattr(c, "flags", None) or ())
    soft = "plan_off" in flags  # a plan said to be off
    cand = gate.Candidate(content=c.content, slot=c.slot, value=c.value, kind=c.kind,
                          source=c.source, confidence=c.confidence, source_text=c.source_text,
                          actor=actor or eng.core.actor, actor_role=actor_role,
                          explicit=bool(c.explicit), scope_key=sc.key(), subject=c.subject,
                          expires_at=expires, observed_at=said_at,
                          topic=getattr(c, "topic", None), retraction=retraction,
                          soft_retraction=soft,
                          tentative=bool(getattr(c, "tentative", False)),
                          stands="stands" in flags, by_meaning="by_meaning" in flags,
                          intent=getattr(c, "intent", None),
                          revises=bool({"repair", "accepted"} & flags),
                          intent_target=getattr(c, "intent_target", None),
                          carried_pii=carried_pii)
    screened = screened if screened is not None else gate.screen(cand, policy)  # before the tx
    vectors, gist = embedded if embedded is not None else valueswap.embedded(
        eng, [screened.content], [_said(c, screened.source_text)])[0]
    # The memories it may concern, by meaning (the read core), looked up before the
    # transaction and read again inside it; the user's other sessions' memories count.
    user = Scope(sc.tenant, sc.user, sc.agent)
    in_words = "replaced_in_words" in (getattr(c, "flags", None) or [])
    def kept_topic(x: Any) -> str | None:  # the candidate's as it stands when stored
        return redact(x.topic, hide, carried_pii)[0] if getattr(x, "topic", None) else None
    topic = kept_topic(c) or (topic_of(screened.content) if c.slot is None or in_words else None)
    found = eng.reads.related(sc, screened.content, vectors, topic=topic, slot=c.slot,
                              gist_vector=gist, classify=True)
    if c.subject in (None, "user") and (retraction is None or soft):
        from .extract.readback import about_someone_else, speaks_of_self

        # What the user says of themselves changes nothing stored about someone else ("我
        # 不吃素了" and "我女儿喜欢吃素", "call me instead" and "My manager prefers email").
        if speaks_of_self(c.source_text or c.content):
            found = [r for r in found if not about_someone_else(r.memory)]
    said = c.source_text or c.content
    # "moved to Leeds last month. I'm learning Japanese now": a statement of its own, not
    # about the change just made (nor a new value of it: not of its topic), is not tied
    # to that change by the message or by recency.
    was = next((r for r in found if r.memory.id == adds_on), None) if adds_on else None
    alone = adds_on if adds_on and discourse.stands_alone(said) \
        and not (was is not None and was.topical) else None
    adds_on = None if alone else adds_on
    extended = valueswap.extended(eng, eng.reads.get(user, adds_on), screened.content) \
        if adds_on and c.slot is None and retraction is None else None
    if extended is not None and was is not None and was.score >= policy.thresholds.match:
        cand = replace(cand, extends=adds_on)  # plainly about the change just made
    # Named too little to match, but continuing or settling a change: what the same
    # message changed, else what the conversation changed last ("changed my mind again:
    # Inverness"). Offered as a match: only a statement of change takes it.
    offered = [i for i in continues or [] if i != alone]
    if guessed and not offered and discourse.changes_mind(said) and any(
            r.memory.id == guessed and r.topical for r in found):
        # "We moved! We're in Manchester now": a change staged as a guess ("we moved" and
        # the one home stored), and a next sentence of the same topic that says what holds
        # now: together they name the memory.
        offered = [guessed]
    if not offered and discourse.settles(said):
        offered = threadlinks.last_changed(eng, user, now)
    elif not offered and discourse.changes_mind(said) and found and found[0].dense >= \
            policy.thresholds.floor and \
            threadlinks.last_changed(eng, user, now) == [found[0].memory.id]:
        # A change of mind whose closest memory is the one the conversation changed last
        # (within three days): recency and meaning agree on what it goes on changing ("现在
        # 迷上泰餐了" … "其实越南菜才是我最近的心头好").
        offered = [found[0].memory.id]
    if not offered and discourse.changes_mind(said):
        # Going on with a change still waiting for review ("我换到语雀了", staged against
        # "我记笔记用印象笔记", then "语雀要收费了，又换成了飞书文档"): the line names the new
        # thing of that change, so it is about the memory that change was staged against.
        offered = threadlinks.continued(eng, user, now, said, found, policy.thresholds)
    if not offered and thread and not any(r.score >= policy.thresholds.match for r in found):
        # A change whose own words match nothing: what the thread before it named ("trello
        # is getting messy…" / "went with Todoist"). (A take-back naming nothing, "let's
        # ditch it", has no closest memory of its own.)
        bare = names_nothing(retraction)
        offered = threadlinks.named_in(eng, sc, thread, policy.thresholds, (
            (metadata or {}).get("turn_id"), None if bare or not found
            else found[0].memory.id), only=bare)
    offered = [i for i in offered if i != alone]
    if getattr(c, "intent_target", None):
        # What the extractor's own reading named (an LLM's: checked against what the
        # lookup offered it): read again inside the user's scope, like every match.
        offered.append(c.intent_target)
    # "称呼那条删掉吧": the memory holding the slot its label names (slotnames.py)
    held = slotnames.holders(eng, user, retraction, SLOTS if slots is None else slots,
                             c.source_text or "") \
        if retraction and not soft and c.slot is None else []
    offered += [m.id for m in held if m.id not in offered]
    derived = facts_from(eng.reads, user, [r.memory for r in found] + held) \
        if retraction is not None else {}
    swapped = valueswap.prepared(eng, screened.source_text or "", c.slot, found)
    with eng.core.acting_as(actor_role), eng.core.store.transaction() as tx:
        eng.writes.check_sources(tx, sc, extra)
        slot = c.slot
        current = tx.find_slot(sc, slot) if slot else None
        if slot and current is None:
            # A frozen value in a scope this one narrows holds here too: a session's chat
            # does not set the slot beside it (a blind audit: it then won the profile).
            current = next((m for w in sc.wider() if (m := tx.find_slot(w, slot))
                            and m.frozen and m.status == Status.ACTIVE), None)
        active = current if current is not None and current.status == Status.ACTIVE else None
        if expected_version is not None and (active is None
                                             or active.version != expected_version):
            # Checked before the gate, so a guarded write never turns into a review item
            # that was meant for another version.
            raise ConflictError(
                f"slot {slot or '(none)'} is at version "
                f"{active.version if active else '(no current value)'}, the write expected "
                f"{expected_version}; re-read and retry")
        fresh = [(m, r.score, r.dense) for r in found
                 if (m := tx.get(user, r.memory.id)) is not None and m.status == Status.ACTIVE]
        holder = active
        if slot and holder is None:
            from .extract.readback import sets_slot

            # No memory holds the slot, but one the statement matched says its value in
            # words of its own ("我希望你叫我小林", stored by hand): that is the slot's
            # current value (extract/readback.py), changed, restated or frozen as one.
            holder = next((m for m, score, _ in fresh
                           if m.slot is None and m.kind not in NOT_MATCHED
                           and score >= policy.thresholds.second
                           and sets_slot(m.source_text or m.content, slot)), None)
        gives_up = holder is not None and "negative_only" in (getattr(c, "flags", None) or []) \
            and gate.rejects_held(getattr(c, "replaces", None), holder.value)
        if slot and c.value is None and (holder is None or in_words or gives_up):
            # "I don't want SMS any more" with nothing to change: keep it as a fact, do not
            # set the slot to an empty value. A value given up with what holds now said in
            # words ("I quit keto, I'm doing Mediterranean now"), or the value held given up
            # alone ("no more push notifications" and "…notified by push"), changes the
            # memory that holds the slot, found by the slot, not by meaning: offered as
            # linked, so the change takes it (and a frozen one blocks it); the slot is
            # dropped there. The value held, named as given up, is that memory's change
            # by the statement's own words (no reading of its meaning decides it).
            if holder is not None:
                offered = [holder.id, *(i for i in offered if i != holder.id)]
            if gives_up:
                cand = replace(cand, intent="update", intent_target=holder.id)
            slot, holder, active = None, None, None
        kind = c.kind or ("preference" if slot else "fact")
        cand = replace(cand, slot=slot, kind=kind)
        dup = tx.find_duplicate(sc, content_hash(screened.content, slot, screened.value), kind)
        # The discourse links these ("…, then:", "final answer"): offered as about the
        # same thing, so a change said in so many words applies to them.
        floor = policy.thresholds.match
        for mid in offered:
            if (m := tx.get(user, mid)) is not None and m.status == Status.ACTIVE:
                known = [x for x in fresh if x[0].id == mid]
                fresh = [x for x in fresh if x[0].id != mid]
                fresh.insert(0, (m, max([floor, *(x[1] for x in known)]),
                                 max([floor, *(x[2] for x in known)])))
        state = gate.GateState(current=gate.MemoryView.of(holder) if holder and slot else None,
                               duplicate_id=dup.id if dup else None, now=now, scope_key=sc.key(),
                               matches=tuple((gate.MemoryView.of(m), sc_, dn)
                                             for m, sc_, dn in fresh),
                               linked=frozenset(offered),
                               topical={r.memory.id: r.exclusive for r in found if r.topical},
                               topic_class=next((r.topic for r in found if r.topic), ""))
        d = gate.decide(cand, state, policy)
        reasons = [r.value for r in d.reasons]
        why = "gate: " + ", ".join(reasons) if reasons else "gate: accepted"
        if reason:
            why = f"{reason} ({why})"
        why = with_turn(why, extra.get("turn_id"))
        target = (tx.get(user, d.target_id, for_update=True)
                  if d.target_id and (active is None or d.target_id != active.id) else None)
        for made in (swapped, extended):
            if d.action == gate.Action.UPDATE and made and d.target_id == made.target_id \
                    and target is not None and target.content == made.based_on:
                d = replace(d, content=made.content)  # value swapped, or the change extended
                vectors = made.vectors
                if made is extended:  # still the value it was changed to
                    slot, kind, d = target.slot, target.kind, replace(d, value=target.value)
                break
        if d.action in (gate.Action.ADD, gate.Action.UPDATE):
            req = prepare(eng.core.clock, sc, d.content, slot=slot, value=d.value, kind=kind,
                          source=c.source, source_text=d.source_text,
                          source_ref=source_ref, confidence=d.confidence, tags=tags,
                          metadata=extra or None, expires_at=expires,
                          topic=kept_topic(c))
            if d.action == gate.Action.UPDATE and target is not None and versioncap.capped(
                    eng.core, target):
                # Changed too often already (write.max_versions): staged against it.
                review = versioncap.review(target, versioncap.cap(eng.core), reasons)
                m = eng.writes.pending_in(tx, {**req, "metadata": {**extra, "review": review}},
                                          vectors, actor=actor, reason=why,
                                          trigger_text=screened.source_text,
                                          sources_checked=True)
                return Outcome("stage", review["reasons"], d.content, m.id, m.version,
                               review["message"])
            if d.action == gate.Action.UPDATE and target is not None:
                m = eng.writes.update_in(tx, target, req, vectors, actor=actor, reason=why,
                                         trigger_text=screened.source_text)
                threadlinks.overtake(eng, tx, user, m, now, actor)
                return Outcome("updated", reasons, d.content, m.id, m.version, d.message)
            r = eng.writes.remember_in(tx, req, vectors, actor=actor, reason=why,
                                       trigger_text=screened.source_text, trace_id=None,
                                       expected_version=expected_version,
                                       sources_checked=True)
            if r.action == "updated":  # the slot's memory: what was staged on it is past
                threadlinks.overtake(eng, tx, user, r.memory, now, actor)
            if r.action == "staged":  # the slot's memory is at the version cap
                review = r.memory.metadata.get("review") or {}
                return Outcome("stage", [*reasons, *review.get("reasons", [])], d.content,
                               r.memory.id, r.memory.version, review.get("message", ""))
            return Outcome(r.action, reasons, d.content, r.memory.id, r.memory.version,
                           d.message)
        if d.action == gate.Action.FORGET and target is not None:
            gone = eng.writes.forget_in(tx, target, actor=actor, reason=why,
                                        trigger_text=screened.source_text)
            # What was read from it goes with it (the graph's facts); the profile reads
            # the memory itself.
            eng.writes.forget_made_from(tx, user, target.id, derived.get(target.id, []),
                                        actor=actor, trigger_text=screened.source_text)
            return Outcome("forget", reasons, d.content, gone.id, gone.version, d.message)
        if d.action == gate.Action.STAGE:
            review = {"reasons": reasons, "links": list(d.links), "target_id": d.target_id,
                      "message": d.message, "extractor": getattr(c, "extractor", None)}
            # A plan said to be off is a retraction only of a memory that names it (soft):
            # staged for any reason, approving it forgets what it names, or adds nothing.
            retract = retraction is not None and (
                not soft or gate.Reason.AMBIGUOUS_TARGET.value in reasons
                or any(m.id == d.target_id and shares_words(retraction, m.content)
                       for m, _, _ in fresh))
            if retract:
                review["retract"] = True  # approving it forgets the target, adds nothing
            req = prepare(eng.core.clock, sc, d.content, slot=slot, value=d.value,
                          kind="note" if retract else kind,
                          source=c.source, source_text=d.source_text,
                          source_ref=source_ref, confidence=d.confidence, tags=tags,
                          metadata={**extra, "review": review}, expires_at=expires,
                          topic=kept_topic(c))
            m = eng.writes.pending_in(tx, req, vectors, actor=actor, reason=why,
                                      trigger_text=screened.source_text, sources_checked=True)
            return Outcome("stage", reasons, d.content, m.id, m.version, d.message)
        if d.action == gate.Action.BLOCK and d.target_id:
            blocked = tx.get(user, d.target_id)
            if blocked is not None:
                eng.writes.note(tx, blocked, Op.BLOCKED, now, actor=actor, reason=why,
                                trigger_text=screened.source_text)
            return Outcome("block", reasons, d.content, d.target_id, None, d.message)
        if d.action == gate.Action.NOOP:
            same = dup or active or (target if target is not None
                                     and target.status == Status.ACTIVE else None)
            if same is not None:
                kept = eng.writes.reinforce_in(tx, same, actor=actor,
                                               trigger_text=screened.source_text,
                                               reason=with_turn(reason or "restated",
                                                                extra.get("turn_id")))
                return Outcome("noop", reasons, d.content, kept.id, kept.version, d.message)
        return Outcome(d.action.value, reasons, d.content, d.target_id, None, d.message)


def _said(c: Any, source_text: str | None) -> str | None:
    """What a slot candidate was read from: its content is a rewrite ("用户叫林总") that
    may share few words with a memory the user said in their own ("我希望你叫我小林")."""
    return source_text if c.slot is not None and source_text else None


def _resolved(eng: Engine, sc: Scope, c: Any, resolve: Callable[..., Any],
              policy: gate.GatePolicy) -> Any:
    """`c` with the extractor's reading of what it does to the memories it matches
    (intent, intent_target; a forget makes it a retraction). No matches: unchanged."""
    if getattr(c, "intent", None) is not None:
        return c
    text = gate.screen(gate.Candidate(content=c.content, value=c.value,
                                      source_text=c.source_text), policy).content
    found = eng.reads.related(sc, text, eng.core.vectors([text])[0], slot=c.slot)
    if not found:
        return c
    action, target = resolve(c, [(r.memory.id, r.memory.content) for r in found])
    return replace(c, intent=action, intent_target=target,
                   retraction=(c.retraction if c.retraction is not None else c.content)
                   if action == "forget" else c.retraction)


__all__ = ["ObserveResult", "Outcome", "Revision", "gate_policy", "observe", "propose"]

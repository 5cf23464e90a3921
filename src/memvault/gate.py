"""The write gate: what a candidate memory may become, decided as a pure function.

`decide(candidate, state, policy) -> Decision`. No I/O and no clock: the caller looks up
the state (the slot's current memory, same-subject memories, a duplicate, the time),
calls `decide`, and commits what the decision says, inside the transaction that did the
lookup so the state cannot change in between. The same inputs always give the same
decision, which is what makes the table in tests/test_gate.py a specification.

Rules, in the order they run (the first three end the decision):

1. shape -> REJECT: empty, too long, unknown source/kind, confidence outside 0..1, an
   expiry already past, `admin_manual` claimed by a caller without an operator role.
   Then BLOCK `scope_mismatch` if the state was read for another scope.
2. sensitive data, before anything else about storage: per kind, `redact` (placeholders in
   content, value and source_text; continue), `stage`, or `allow`.
3. duplicate -> NOOP (the caller may reinforce): an identical active memory; or the slot
   already holds the same value and the candidate is not an explicit, newer user statement
   (`same_value`).
3b. the memories the semantic lookup matched (GateState.matches), when no slot value
   decides: understand/relate.py says whether the candidate restates one (NOOP
   `restates`), changes or contradicts one (its target: UPDATE under the conflict rules
   below, `topic_match`), takes one back (FORGET under the same rules, `retracted`;
   several as close: STAGE `ambiguous_target`; none: NOOP `no_target`), or is new. An
   `tentative` candidate (a sentence kept only if it changes something) that is new is a
   NOOP `not_a_statement`, unless its meaning reads as a statement of its own (`stands`)
   and nothing stored is close. An extractor's own reading (Candidate.intent, the LLM's) is
   taken instead, but its target must be one of the matches (else STAGE
   `unknown_target`).
4. the remaining checks all run and their reasons are collected:
   frozen target (slot or conflicting same-subject memory) -> BLOCK;
   instruction-like text -> stage; command-like text -> stage unless it is a complete
   update from the user themself (explicit, user source, slot and value);
   policy-untrusted source -> stage; confidence (inferred facts discounted) below the
   threshold -> stage; a different value for the slot or the same subject -> UPDATE only
   when explicit, from the user and not older, else stage with both sides linked.
5. BLOCK if anything frozen was hit (its reasons also list every other concern found, for
   the record of the attempt), else STAGE if any stage reason (its target: what approving
   it changes), else FORGET (a retraction), else UPDATE (the slot's current memory, or
   the matched one) or ADD. Informational reasons (pii_redacted, command_complete,
   restated, target_expired, supersedes, pii_allowed) never change the action.

Source legitimacy: user_explicit > admin_manual (operator role required) > document, tool,
import > system_inferred. Contradictions between different slots are not the gate's
business: both are kept and the context builder shows them as a conflict.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from typing import Any

from .gatetypes import (
    MESSAGES,
    SOURCE_RANK,
    STAGE_REASONS,
    Action,
    Candidate,
    Decision,
    GatePolicy,
    GateState,
    MemoryView,
    Reason,
)
from .model import Kind, Source
from .safety.instructions import InstructionFinding, scan
from .safety.pii import PiiFinding, find_pii, redact, value_in, values_found
from .understand.relate import (
    Match,
    Related,
    Relation,
    adds_to,
    frozen_in_question,
    relate,
)
from .understand.saidagain import says_again

__all__ = ["SOURCE_RANK", "STAGE_REASONS", "Action", "Candidate", "Decision", "GatePolicy",
           "GateState", "MemoryView", "Reason", "Screened", "decide", "rejects_held", "screen"]


# --- helpers -------------------------------------------------------------------------------

def _norm(text: str) -> str:
    # The same equivalence as vault.content_hash: NFKC, casefold, whitespace collapsed.
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return _norm(a) == _norm(b)
    return bool(a == b) and type(a) is type(b)


def rejects_held(rejected: Any, held: Any) -> bool:
    """Is the value a statement rejects without naming another ("no more push
    notifications", "别叫我小王了") the whole value held? One of several held ("email /
    SMS", then "no more emails") is not: what stays is for a person to confirm, not to
    be lost with the value given up."""
    if rejected is None or held is None:
        return False
    values = held if isinstance(held, list) else [held]
    return len(values) == 1 and _same_value(rejected, values[0])


def _claims_equal(content: str, value: Any, view: MemoryView) -> bool:
    """Do candidate and view say the same thing? By value when both have one."""
    if value is not None and view.value is not None:
        return _same_value(value, view.value)
    return _norm(content) == _norm(view.content)


def _identical(content: str, value: Any, kind: str | None, view: MemoryView) -> bool:
    if _norm(content) != _norm(view.content):
        return False
    if kind is not None and view.kind is not None and kind != view.kind:
        return False
    return (value is None and view.value is None) or _same_value(value, view.value)


def _strings(value: Any) -> list[str]:
    """Every string inside a JSON-like value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _strings(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _strings(v)]
    return []


def _redact_value(value: Any, kinds: frozenset[str],
                  known: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        return redact(value, kinds, known)[0]
    if isinstance(value, list | tuple):
        return [_redact_value(v, kinds, known) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v, kinds, known) for k, v in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class Screened:
    """A candidate's text after the sensitive-data policy, and what was found."""

    content: str
    value: Any
    source_text: str | None
    findings: tuple[PiiFinding, ...]   # in the original content (value/source_text: kinds
    reasons: tuple[Reason, ...]        # count in `reasons`, spans are not kept)


def screen(candidate: Candidate, policy: GatePolicy | None = None) -> Screened:
    """Apply the sensitive-data policy to content, value and source_text (source_text ends
    up in revisions as trigger text, so it is redacted too). Callers use the returned
    content to look up duplicates before calling `decide`. A value sensitive in the
    messages the candidate was read from (`carried_pii`) is sensitive here, though the
    label that made it so was left behind ("account no. 0012… at Chase" -> "0012… at
    Chase")."""
    policy = policy or GatePolicy()
    texts = [candidate.content, *_strings(candidate.value),
             *([candidate.source_text] if candidate.source_text is not None else [])]
    found = [(t, find_pii(t)) for t in texts]
    in_content = found[0][1]
    carried = [(k, v) for k, v in candidate.carried_pii if any(value_in(v, t) for t in texts)]
    kinds = {f.kind for _, fs in found for f in fs} | {k for k, _ in carried}
    actions = {policy.pii_action(k) for k in kinds}
    redact_kinds = frozenset(k for k in kinds if policy.pii_action(k) == "redact")
    reasons: list[Reason] = []
    for action, reason in (("redact", Reason.PII_REDACTED), ("stage", Reason.PII_STAGED),
                           ("allow", Reason.PII_ALLOWED)):
        if action in actions:
            reasons.append(reason)
    if not redact_kinds:
        return Screened(candidate.content, candidate.value, candidate.source_text,
                        tuple(in_content), tuple(reasons))
    # What was found in any of them is removed from all: the content an extractor made
    # from "account no. 0012…" may hold the number without its label.
    known = [*(kv for t, fs in found for kv in values_found(t, fs, redact_kinds)),
             *((k, v) for k, v in carried if k in redact_kinds)]
    source_text = (redact(candidate.source_text, redact_kinds, known)[0]
                   if candidate.source_text is not None else None)
    return Screened(redact(candidate.content, redact_kinds, known)[0],
                    _redact_value(candidate.value, redact_kinds, known), source_text,
                    tuple(in_content), tuple(reasons))


def _shape(c: Candidate, state: GateState, policy: GatePolicy) -> list[Reason]:
    out: list[Reason] = []
    if not isinstance(c.content, str) or not "".join(
            ch for ch in c.content if unicodedata.category(ch) != "Cf").strip():
        out.append(Reason.EMPTY)
    elif len(c.content) > policy.max_content_chars:
        out.append(Reason.TOO_LONG)
    if c.source not in SOURCE_RANK:
        out.append(Reason.BAD_SOURCE)
    if c.kind is not None and c.kind not in {k.value for k in Kind}:
        out.append(Reason.BAD_KIND)
    conf = c.confidence
    if (isinstance(conf, bool) or not isinstance(conf, int | float) or math.isnan(conf)
            or not 0.0 <= conf <= 1.0):
        out.append(Reason.BAD_CONFIDENCE)
    if c.expires_at is not None and state.now is not None and c.expires_at <= state.now:
        out.append(Reason.ALREADY_EXPIRED)
    if c.source == Source.ADMIN_MANUAL and c.actor_role not in policy.operator_roles:
        # A claim of operator provenance from someone who is not an operator is refused,
        # not queued: a reviewer could fix the content, never the identity.
        out.append(Reason.ADMIN_WITHOUT_OPERATOR)
    return out


def _expired(view: MemoryView, now: int | None) -> bool:
    return now is not None and view.expires_at is not None and view.expires_at <= now


def _message(action: Action, reasons: list[Reason]) -> str:
    if not reasons:
        return f"{action.value}: passed every check"
    return f"{action.value}: " + "; ".join(f"{MESSAGES[r]} ({r.value})" for r in reasons)


def _add(reasons: list[Reason], *new: Reason) -> None:
    for r in new:
        if r not in reasons:
            reasons.append(r)


def _relation(c: Candidate, cur: MemoryView | None, state: GateState,
              policy: GatePolicy) -> Related | None:
    """What the candidate does to the memories it matched, or None when the slot's
    current value decides (a slot with a value, and not a retraction)."""
    if c.intent == "add":
        return Related(Relation.NEW)
    if c.intent in ("update", "forget"):
        rel = Relation.UPDATE if c.intent == "update" else Relation.FORGET
        return Related(rel, c.intent_target)
    if cur is not None and c.retraction is None:
        return None
    if c.revises and c.retraction is None and state.matches:
        # A statement said again to put a slip right, or a change the user accepted: the
        # memory plainly close to it (of the user's, about them or someone of theirs),
        # unless it says that memory as is.
        view, _, dense = max(state.matches, key=lambda m: m[2])
        if dense >= policy.thresholds.close and view.slot is None \
                and not says_again(c.source_text or c.content, view.content):
            return Related(Relation.UPDATE, view.id)
    # About someone of the user's ("my sister is pescatarian now"): it changes nothing the
    # user holds of themselves, only what is stored about the same person.
    other = c.subject not in (None, "user")
    # A memory of another slot is not this statement's business; nor is the slot's own
    # (not active) value, which the slot rules handle.
    matches = [Match(view.id, view.content, score, dense, view.id in state.linked,
                     view.source_text or "", view.id in state.topical,
                     state.topical.get(view.id, False), view.frozen,
                     state.topic_class if view.id in state.topical else "")
               for view, score, dense in state.matches
               if not (c.slot is not None and view.slot is not None)
               and (not other or view.subject == c.subject)]
    if other and not matches:
        return None
    said = c.source_text or c.content
    rel = relate(said, matches, retraction=c.retraction, soft=c.soft_retraction,
                 thresholds=policy.thresholds)
    if rel.relation == Relation.NEW and c.extends and c.retraction is None \
            and any(m.id == c.extends for m in matches):
        return Related(Relation.UPDATE, c.extends)
    if rel.relation == Relation.NEW and c.retraction is None and (
            held := frozen_in_question(said, matches, policy.thresholds)) is not None:
        return Related(Relation.UPDATE, held.id)  # the frozen memory blocks it
    return rel


# --- the decision --------------------------------------------------------------------------

def decide(candidate: Candidate, state: GateState | None = None,
           policy: GatePolicy | None = None) -> Decision:
    """The gate. Pure: reads its arguments, returns a Decision, changes nothing."""
    c, state, policy = candidate, state or GateState(), policy or GatePolicy()

    def done(action: Action, reasons: list[Reason], *, content: str | None = None,
             value: Any = None, source_text: str | None = None, confidence: float = 0.0,
             target_id: str | None = None, links: list[str] | None = None,
             supersedes: list[str] | None = None, pii: tuple[PiiFinding, ...] = (),
             flags: tuple[tuple[str, InstructionFinding], ...] = ()) -> Decision:
        return Decision(action, tuple(reasons),
                        content if content is not None else (c.content or ""), value,
                        source_text, confidence, target_id, tuple(links or ()),
                        tuple(supersedes or ()), _message(action, reasons), pii, flags)

    # 1. shape: nothing else is meaningful for an invalid candidate.
    bad = _shape(c, state, policy)
    if bad:
        conf = c.confidence if Reason.BAD_CONFIDENCE not in bad else 0.0
        return done(Action.REJECT, bad, value=c.value, source_text=c.source_text,
                    confidence=float(conf))
    if state.scope_key and c.scope_key and state.scope_key != c.scope_key:
        return done(Action.BLOCK, [Reason.SCOPE_MISMATCH], value=c.value,
                    source_text=c.source_text, confidence=float(c.confidence))

    # 2. sensitive data first: every later rule sees the text as it would be stored.
    s = screen(c, policy)
    reasons: list[Reason] = list(s.reasons)
    confidence = float(c.confidence)
    if c.source == Source.SYSTEM_INFERRED:
        confidence *= policy.inferred_confidence_discount
    user_stated = c.explicit and c.source == Source.USER_EXPLICIT
    # The slot's current memory; a state read for another slot is ignored, not trusted.
    cur = state.current if (c.slot is not None and state.current is not None
                            and state.current.slot in (None, c.slot)) else None

    def older_than(view: MemoryView) -> bool:
        seen = view.said_at or view.recorded_at or view.updated_at
        return c.observed_at is not None and c.observed_at < seen

    def out(action: Action, rs: list[Reason], **kw: Any) -> Decision:
        return done(action, rs, content=s.content, value=s.value, source_text=s.source_text,
                    confidence=confidence, pii=s.findings, **kw)

    # A statement by its meaning alone (statementscore.py) is only ever added, about nothing
    # stored close: how it relates to a close memory no rule read, so it neither restates
    # (confirms), changes nor takes back one. Unless it says it is one more ("picking up
    # Portuguese as well" beside "I'm learning Spanish"): beside the close one, then.
    close = any(score >= policy.thresholds.match for _, score, _ in state.matches)
    if c.by_meaning and (state.duplicate_id is not None or (
            close and not adds_to(c.source_text or c.content))):
        return out(Action.NOOP, [*reasons, Reason.NOT_A_STATEMENT])

    # 3. duplicates: nothing new to store.
    if state.duplicate_id is not None:
        return out(Action.NOOP, [*reasons, Reason.DUPLICATE], target_id=state.duplicate_id)
    if cur is not None and _identical(s.content, s.value, c.kind, cur):
        return out(Action.NOOP, [*reasons, Reason.DUPLICATE], target_id=cur.id)
    restated = False
    if cur is not None and s.value is not None and cur.value is not None \
            and _same_value(s.value, cur.value):
        if not user_stated or older_than(cur):
            return out(Action.NOOP, [*reasons, Reason.SAME_VALUE], target_id=cur.id)
        restated = True
    elif cur is not None and s.value is not None and c.retraction is None \
            and says_again(s.content, cur.content, said=s.source_text):
        return out(Action.NOOP, [*reasons, Reason.RESTATES], target_id=cur.id)

    # 3b. the memory the candidate concerns by meaning, when no slot value decides it:
    # restated, changed, contradicted or taken back (understand/relate.py).
    if c.intent == "none":  # the extractor's own reading: nothing to keep
        return out(Action.NOOP, [*reasons, Reason.NOT_A_STATEMENT])
    rel = _relation(c, cur, state, policy)
    views = {view.id: view for view, _, _ in state.matches}
    if rel is not None:
        if rel.relation == Relation.NO_TARGET:
            return out(Action.NOOP, [*reasons, Reason.NO_TARGET])
        if rel.relation == Relation.SAME and rel.target_id in views:
            return out(Action.NOOP, [*reasons, Reason.RESTATES], target_id=rel.target_id)
        if (rel.relation == Relation.NEW and c.tentative and not (c.stands and not close)) or (
                c.by_meaning and rel.relation != Relation.NEW):
            return out(Action.NOOP, [*reasons, Reason.NOT_A_STATEMENT])

    # 4. everything else, reasons collected in rule order.
    frozen_id: str | None = None
    if cur is not None and cur.frozen:
        frozen_id = cur.id
    # source_text too: an extractor that turns "update: X" into the content "X" must not
    # launder the command.
    fields = [("content", s.content), ("source_text", s.source_text or ""),
              *(("value", t) for t in _strings(s.value))]
    flags = tuple((name, f) for name, text in fields for f in scan(text))
    if any(f.kind == "injection" for _, f in flags):
        _add(reasons, Reason.INJECTION_LIKE)
    if any(f.kind == "command" for _, f in flags):
        complete = c.slot is not None and s.value is not None
        if user_stated and complete:
            _add(reasons, Reason.COMMAND_COMPLETE)
        else:
            _add(reasons, Reason.COMMAND_LIKE)
            if not complete:
                _add(reasons, Reason.INCOMPLETE_UPDATE)
    if c.source in policy.stage_sources:
        _add(reasons, Reason.SOURCE_UNTRUSTED)
    if confidence < policy.stage_below_confidence:
        _add(reasons, Reason.INFERRED_LOW_CONFIDENCE if c.source == Source.SYSTEM_INFERRED
             else Reason.LOW_CONFIDENCE)

    links: list[str] = []
    supersedes: list[str] = []

    def conflict(view: MemoryView) -> bool:
        """Record a contradiction with `view`; True if the candidate may override it."""
        rs: list[Reason] = []
        if not user_stated:
            rs.append(Reason.CONFLICT_NOT_EXPLICIT)
        if older_than(view):
            rs.append(Reason.CONFLICT_OLDER)
        if SOURCE_RANK[c.source] < SOURCE_RANK.get(view.source, 0):
            rs.append(Reason.SOURCE_OUTRANKED)
        if rs:
            _add(reasons, *rs)
            links.append(view.id)
        return not rs

    if cur is not None and frozen_id is None:
        if _expired(cur, state.now):
            # An expired value has lost its authority: replacing it is not a contradiction.
            _add(reasons, Reason.TARGET_EXPIRED)
        elif restated:
            _add(reasons, Reason.RESTATED)
        elif s.value is None:
            # Changing a slot needs the object AND the value (the seed's "对象 + 期望值").
            _add(reasons, Reason.INCOMPLETE_UPDATE)
            links.append(cur.id)
        elif not _claims_equal(s.content, s.value, cur):
            if adds_to(s.source_text or s.content):
                # "also I'm lactose intolerant" beside "vegetarian": one more value, not a
                # replacement; the slot holds one, so a person decides how they combine.
                _add(reasons, Reason.ADDS_TO_VALUE)
                links.append(cur.id)
            else:
                conflict(cur)

    # The matched memory a change or a retraction is about, once the gate allows it.
    matched: MemoryView | None = None
    if rel is not None and rel.relation == Relation.AMBIGUOUS:
        _add(reasons, Reason.AMBIGUOUS_TARGET)
        links += [i for i in rel.links if i not in links]
    elif rel is not None and rel.relation in (Relation.UPDATE, Relation.FORGET):
        view = views.get(rel.target_id or "")
        if view is not None and rel.unsaid and not view.frozen:
            _add(reasons, Reason.INCOMPLETE_UPDATE)  # to what, a later line says
        elif view is not None and not rel.sure and not view.frozen:
            _add(reasons, Reason.RANKED_TARGET)  # a person confirms; approve applies it
        if view is None:
            _add(reasons, Reason.UNKNOWN_TARGET)  # an extractor named what was not found
        elif view.frozen:
            frozen_id = frozen_id or view.id
        elif conflict(view):
            matched = view
        elif view.id not in links:
            links.append(view.id)

    if c.subject is not None:
        for view in state.same_subject:
            if cur is not None and view.id == cur.id:
                continue
            if view.subject != c.subject or _expired(view, state.now):
                continue
            if c.slot is not None and view.slot is not None and view.slot != c.slot:
                continue  # different slots: not the gate's business
            if s.value is None or view.value is None or _same_value(s.value, view.value):
                continue  # no structured disagreement the gate can see
            if view.frozen:
                frozen_id = frozen_id or view.id
            elif conflict(view):
                supersedes.append(view.id)
    staged = any(r in STAGE_REASONS for r in reasons)
    if supersedes and staged:
        links += supersedes  # the reviewer sees what approving it would replace
        supersedes = []
    elif supersedes:
        _add(reasons, Reason.SUPERSEDES)

    # 5. the action.
    kw: dict[str, Any] = {"flags": flags}
    if frozen_id is not None:
        rs = [r for r in reasons if r not in s.reasons]
        return out(Action.BLOCK, [*s.reasons, Reason.FROZEN_TARGET, *rs],
                   target_id=frozen_id, **kw)
    if staged:
        # The target is what approving it changes: the slot's value, or the memory the
        # lookup matched (review_approve applies it there, never beside it). A change put
        # as a command ("update: 用户拒绝所有推送") aims at the closest memory even when it
        # is not close enough to change it unreviewed: a person decides.
        aim = cur.id if cur else (rel.target_id if rel is not None
                                  and rel.target_id in views else None)
        if aim is None and state.matches and Reason.COMMAND_LIKE in reasons \
                and c.retraction is None:
            best, score, _ = state.matches[0]
            if score >= policy.thresholds.second:
                aim = best.id
        if aim is not None and aim not in links:
            links.append(aim)
        return out(Action.STAGE, reasons, target_id=aim, links=links, **kw)
    if matched is not None and rel is not None and rel.relation == Relation.FORGET:
        return out(Action.FORGET, [*reasons, Reason.RETRACTED], target_id=matched.id, **kw)
    if cur is None and matched is not None:
        return out(Action.UPDATE, [*reasons, Reason.TOPIC_MATCH], target_id=matched.id,
                   supersedes=supersedes, **kw)
    if cur is not None:
        return out(Action.UPDATE, reasons, target_id=cur.id, supersedes=supersedes, **kw)
    return out(Action.ADD, reasons, supersedes=supersedes, **kw)

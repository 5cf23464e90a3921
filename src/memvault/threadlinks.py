"""Which memory a change of mind goes on changing, when its own words do not say it.

A conversation changes one thing over several lines: "我换到语雀了" … "语雀要收费了，又换成
了飞书文档"; "trello is getting messy…" … "went with Todoist"; "changed my mind again:
Inverness". The write path (writepath.py) asks here, before the gate decides, for the
memory such a line is tied to, and offers it as a linked match (understand/relate.py:
only a statement of change takes it):

- `last_changed`: the user's memory the conversation changed last (LAST_CHANGE_MS);
- `continued`: the memory a change still waiting for review was staged against, when
  the line names that change's new thing, or goes on from a change that named no new
  value; `overtake` rejects the staged changes of a memory once a later change of it is
  applied, so approving one cannot put back a value the user left;
- `stored_lines` and `named_in`: what the thread's earlier lines named (threadtopic.py);
- `reply_change`: a line that gives only a new value ("太早了，15 分钟吧") as the change
  it makes to the statement just before it (understand/ellipsis.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from .engine import Engine
from .extract.candidate import CandidateMemory
from .extract.readback import reading
from .model import Kind, Memory, Op, Scope, Status
from .reads.related import NOT_MATCHED
from .store import ListFilter
from .threadtopic import LINES, THREAD_MS, Line, named
from .understand.discourse import one_time
from .understand.ellipsis import swap, swap_near, swap_word
from .understand.matchwords import Thresholds, named_words
from .understand.repair import stored_swap

# How long "what the conversation changed last" stays the thing a settling line is about.
LAST_CHANGE_MS = 3 * 86_400_000


def _recent(eng: Engine, user: Scope, now: int) -> Iterator[Memory]:
    """The user's active statements (not turns), latest first, within LAST_CHANGE_MS."""
    for m in eng.reads.list(user, ListFilter(status=Status.ACTIVE.value, limit=200)):
        if m.updated_at < now - LAST_CHANGE_MS:
            return
        if m.kind not in NOT_MATCHED:
            yield m


def last_changed(eng: Engine, user: Scope, now: int) -> list[str]:
    """The user's statement changed most recently (within LAST_CHANGE_MS), if any."""
    return next(([m.id] for m in _recent(eng, user, now) if m.version > 1), [])


def last_stated(eng: Engine, user: Scope, now: int) -> Memory | None:
    """The user's statement stored or changed most recently (within LAST_CHANGE_MS)."""
    return next(_recent(eng, user, now), None)


def reply_change(eng: Engine, sc: Scope, c: CandidateMemory, before: list[str] | None,
                 now: int, skip: list[str]) -> CandidateMemory | None:
    """A bare-value reply (extract/replies.py) as the change of the statement before it:
    what the user's line before it in this call stored or changed (`before`; None when
    it is the call's first user line), else what the user's line just before this call
    (their latest turn in `sc`, not `skip`) stored or changed. That memory with the value
    swapped, as an update of it (a slot's memory only when the swapped words still set
    its slot); None when the line swaps nothing there."""
    user = Scope(sc.tenant, sc.user, sc.agent)
    if before is not None:
        target = eng.reads.get(user, before[-1]) if before else None
    else:
        # Only the line just before: "switched to Hoka Cliftons" three lines after "My
        # manager is Tom Baker" is not about the manager.
        target, before = last_stated(eng, user, now), stored_lines(eng, sc, skip)
        if target is not None and (not before or target.metadata.get("turn_id") != before[0][0]):
            target = None
    said = c.source_text or c.content
    if target is None or target.status != Status.ACTIVE:
        return stored_repair(eng, user, c)
    for text in dict.fromkeys(t for t in (target.content, target.source_text) if t):
        swapped = swap(said, text)
        if swapped is None and isinstance(target.value, str) and target.value:
            # a repair that gives one word for the value its slot holds ("sorry, leeds")
            swapped = swap_word(said, text, target.value)
        swapped = swapped or swap_near(said, text)  # a misspelling put right
        if swapped is not None and (update := swapped_update(c, target, swapped[0])):
            return update
    return stored_repair(eng, user, c)


def stored_repair(eng: Engine, user: Scope, c: CandidateMemory) -> CandidateMemory | None:
    """A repair of a slip in a statement said earlier, not just before ("misspelled her
    surname before, it's Shaw with a w, not Shah" a day after "My manager is Priya Shah"):
    the one active statement of the user's that the line's value puts right
    (understand/repair.stored_swap), as an update of it; None when none or several are."""
    said = c.source_text or c.content
    if one_time(said):
        return None
    hits = []
    for m in eng.reads.list(user, ListFilter(status=Status.ACTIVE.value, limit=200)):
        if m.kind in NOT_MATCHED:
            continue
        # as stored or as said: a slot's words may be read from either ("用户住在朝阳区")
        swapped = [g[0] for t in dict.fromkeys(x for x in (m.content, m.source_text) if x)
                   if (g := stored_swap(said, t)) is not None]
        if swapped:
            hits.append(next((u for t in swapped if (u := swapped_update(c, m, t))), None))
    return hits[0] if len(hits) == 1 else None


def swapped_update(c: CandidateMemory, target: Memory, content: str) -> CandidateMemory | None:
    """`c` as the update of `target` to `content` (its statement with a value swapped); a
    slot's memory only when the swapped words still set its slot, else None."""
    slot, value = None, None
    if target.slot is not None:
        read = [r for r in reading(content) if r.slot == target.slot and r.value is not None]
        if not read:
            return None
        content, slot, value = read[0].content, target.slot, read[0].value
    return replace(c, content=content, slot=slot, value=value, kind=target.kind,
                   intent="update", intent_target=target.id)


def continued(eng: Engine, user: Scope, now: int, said: str, found: list[Any],
              t: Thresholds) -> list[str]:
    """The memory a change goes on changing when a change staged against it (within
    LAST_CHANGE_MS) left it open: the line names that change's new thing ("我换到语雀了" …
    "语雀要收费了，又换成了飞书文档"), or that change named no new value and the line's
    closest memory is its target ("我已经不吃素了" … "现在开始吃鱼了"). [] when none, or
    when the line plainly matches another memory."""
    mine = named_words(said)
    target = None
    for p in eng.reads.list(user, ListFilter(status=Status.PENDING.value,
                                             since=now - LAST_CHANGE_MS, limit=50)):
        rec = p.metadata.get("review") or {}
        aim = rec.get("target_id")
        if not aim or rec.get("retract") or target is not None:
            continue
        goal = eng.reads.get(user, aim)
        if goal is None or goal.status != Status.ACTIVE:
            continue
        if "incomplete_update" in (rec.get("reasons") or []):
            if found and found[0].memory.id == aim and found[0].dense >= t.floor:
                target = aim
            continue
        # The words of the staged change that its target does not say: its new thing.
        new = named_words(p.source_text or p.content) - named_words(goal.content) \
            - named_words(goal.source_text or "")
        if mine & new:
            target = aim
    if target is None or any(r.memory.id != target and r.score >= t.match for r in found):
        return []
    return [target]


# Why a change was staged when what it leaves open is only which memory it changes, or
# to what: a later change of that memory answers it. A change staged for what it is (a
# command, an injection, a conflict, a secret) stays for a person.
_OPEN_QUESTIONS = frozenset({"ranked_target", "incomplete_update", "ambiguous_target"})


def guessed_target(eng: Engine, sc: Scope, outcome: Any) -> str | None:
    """The memory a statement's change was staged against only because its rank or topic
    class named it (`ranked_target`), else None."""
    if outcome.action != "stage" or "ranked_target" not in outcome.reasons \
            or not outcome.memory_id:
        return None
    staged = eng.reads.get(sc, outcome.memory_id)
    review = (staged.metadata.get("review") or {}) if staged is not None else {}
    target = review.get("target_id")
    return target if isinstance(target, str) and not review.get("retract") else None


def overtake(eng: Engine, tx: Any, user: Scope, into: Memory, now: int,
             actor: str | None) -> None:
    """Changes of `into` the conversation staged (within LAST_CHANGE_MS) only because it
    was unclear which memory they change or to what, and that a later change of it went
    past, are rejected with the reason: approving one would put back a value the user has
    moved on from. A staged retraction stays for a person."""
    for p in eng.reads.list(user, ListFilter(status=Status.PENDING.value,
                                             since=now - LAST_CHANGE_MS, limit=50)):
        rec = p.metadata.get("review") or {}
        if rec.get("target_id") != into.id or rec.get("retract") or not rec.get("extractor") \
                or not set(rec.get("reasons") or ()) <= _OPEN_QUESTIONS:
            continue
        p = tx.get(user, p.id, for_update=True)
        if p is None or p.status != Status.PENDING:
            continue
        done = replace(p, status=Status.REJECTED.value, version=p.version + 1,
                       updated_at=max(now, p.updated_at))
        eng.writes.write_version(tx, done, Op.REJECT, p.version, terms=None, vectors=None,
                                 actor=actor, trigger_text=None,
                                 reason=f"overtaken: {into.id} changed again to "
                                        f"version {into.version}")


def stored_lines(eng: Engine, sc: Scope, skip: list[str]) -> list[Line]:
    """The user's turns in `sc` stored before this call (not `skip`), latest first,
    within threadtopic.THREAD_MS."""
    turns = eng.reads.list(sc, ListFilter(kind=Kind.TURN.value,
                                          since=eng.core.clock() - THREAD_MS,
                                          limit=4 * LINES))
    return [(t.id, t.content) for t in turns if t.id not in skip
            and t.metadata.get("role") == "user"][:LINES]


def stated_before(eng: Engine, sc: Scope, skip: list[str]) -> list[str]:
    """The one statement the user's line just before this call (their latest turn in
    `sc`, not `skip`) stored, if it stored exactly one: what a take-back that names
    nothing opening the call ("那条不用记了") is about."""
    before = stored_lines(eng, sc, skip)[:1]
    if not before:
        return []
    ids = [m.id for m in _recent(eng, Scope(sc.tenant, sc.user, sc.agent), eng.core.clock())
           if m.metadata.get("turn_id") == before[0][0]]
    return ids if len(ids) == 1 else []


def named_in(eng: Engine, sc: Scope, lines: list[Line], t: Thresholds,
             own: tuple[str | None, str | None] = (None, None), only: bool = False,
             ) -> list[str]:
    """The memory the thread's latest line that names one names (threadtopic.named). A
    part of the statement's own message (turn `own[0]`) counts only for the memory the
    statement itself is closest to (`own[1]`): the rank and the name agree ("moved it all
    to Monzo. barclays can cry about it"), not a thing named in passing ("… Leeds is lovely
    this time of year"). `only`: the statement has no closest memory of its own (a
    take-back naming nothing), so a line counts only if it names one memory alone; in its
    own message, what a statement beside it names, not what that statement just stored
    ("why do you think I have a cat?? Miso is my neighbour's. please drop that")."""
    vectors = eng.core.vectors([text for _, text in lines])
    for (turn, line), vec in zip(lines, vectors, strict=True):
        found = eng.reads.related(sc, line, vec)
        if turn is not None and turn == own[0]:
            found = [r for r in found if r.memory.metadata.get("turn_id") != turn] if only \
                else [r for r in found if r.memory.id == own[1]]
        if (mid := named(turn, line, found, t, only=only)) is not None:
            return [mid]
    return []

"""What became of what a turn asked for.

A raw turn in the memory section is a record of what was said, not of what holds. When a
change that turn asked for was staged for review, rejected there or blocked on a frozen
memory, when a later statement has since replaced the slot or topic value read from it,
or when the user later took it back, the section says so beside the turn (inject.py
renders the note), so the model never takes an old or unapplied request for the user's
current wish. The link is the extracted memory's `metadata.turn_id`, or the `[turn …]`
tag of a blocked revision's reason (writepath.observe).
"""

from __future__ import annotations

from typing import Any

from .model import Scope, Status
from .store import ListFilter

PENDING, REJECTED, SUPERSEDED = "pending_review", "rejected_on_review", "superseded"
BLOCKED, RETRACTED = "blocked", "retracted"
# Notes that say a turn is not in effect, in the order the first that applies wins.
NOT_IN_EFFECT = (BLOCKED, PENDING, REJECTED, RETRACTED, SUPERSEDED)
# Of those, the notes of a turn whose statement never held, or no longer does, and was
# not replaced by a later one (a superseded turn held until it was).
UNAPPLIED = (BLOCKED, PENDING, REJECTED, RETRACTED)


def turn_id(state: Any) -> str | None:
    md = state.get("metadata") if isinstance(state, dict) else getattr(state, "metadata", None)
    t = md.get("turn_id") if isinstance(md, dict) else None
    return t if isinstance(t, str) else None


# How a revision's reason names the turn that triggered it; purge finds revisions by it
# (derived.quoting_revisions), also those that keep another version's state.
TURN_TAG = "[turn {}]"


def with_turn(reason: str, turn: Any) -> str:
    """`reason`, naming `turn` when it is a turn id."""
    return f"{reason} {TURN_TAG.format(turn)}" if isinstance(turn, str) else reason


def turn_notes(store: Any, scope: Scope, turn_ids: set[str]) -> dict[str, str]:
    """turn id -> BLOCKED, PENDING, REJECTED, RETRACTED or SUPERSEDED, for the turns in
    `turn_ids` that have one (the first that applies, in that order)."""
    if not turn_ids:
        return {}
    user = Scope(scope.tenant, scope.user)
    out: dict[str, str] = {}
    # A change refused on a frozen memory: its blocked revision names the turn.
    for m in store.list(user, ListFilter(frozen=True, limit=10_000)):
        for rev in store.revisions(m.scope, m.id):
            if rev.op == "blocked" and rev.reason:
                for t in turn_ids:
                    if TURN_TAG.format(t) in rev.reason:
                        out.setdefault(t, BLOCKED)
    for status, note in ((Status.PENDING.value, PENDING), (Status.REJECTED.value, REJECTED),
                         (Status.DELETED.value, RETRACTED)):
        for m in store.list(user, ListFilter(status=status, limit=10_000)):
            if m.kind != "turn" and (t := turn_id(m)) in turn_ids:
                out.setdefault(t, note)
    keyed = [*store.list(user, ListFilter(status=Status.ACTIVE.value, slotted=True,
                                          limit=10_000)),
             *store.list(user, ListFilter(status=Status.ACTIVE.value, topicked=True,
                                          slotted=False, limit=10_000))]
    for m in keyed:
        if m.version < 2:
            continue  # one version: nothing it held before
        current = turn_id(m)
        for rev in store.revisions(m.scope, m.id):
            t = turn_id(rev.state)
            if t in turn_ids and t != current:
                out.setdefault(t, SUPERSEDED)
    return out

"""What became of what a turn asked for.

A raw turn in the memory section is a record of what was said, not of what holds. When a
change that turn asked for was staged for review or rejected there, or when a later
statement has since replaced the slot value read from it, the section says so beside the
turn (inject.py renders the note), so the model never takes an old or unapproved request
for the user's current wish. The link is the extracted memory's `metadata.turn_id`
(writepath.observe).
"""

from __future__ import annotations

from typing import Any

from .model import Scope, Status
from .store import ListFilter

PENDING, REJECTED, SUPERSEDED = "pending_review", "rejected_on_review", "superseded"


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
    """turn id -> PENDING, REJECTED or SUPERSEDED, for the turns in `turn_ids` that have
    one (the first that applies, in that order)."""
    if not turn_ids:
        return {}
    user = Scope(scope.tenant, scope.user)
    out: dict[str, str] = {}
    for status, note in ((Status.PENDING.value, PENDING), (Status.REJECTED.value, REJECTED)):
        for m in store.list(user, ListFilter(status=status, limit=10_000)):
            if (t := turn_id(m)) in turn_ids:
                out.setdefault(t, note)
    for m in store.list(user, ListFilter(status=Status.ACTIVE.value, slotted=True,
                                         limit=10_000)):
        if m.version < 2:
            continue  # one version: nothing it held before
        current = turn_id(m)
        for rev in store.revisions(m.scope, m.id):
            t = turn_id(rev.state)
            if t in turn_ids and t != current:
                out.setdefault(t, SUPERSEDED)
    return out

"""Conflicts between memories of different slots that the slot vocabulary declares.

Two values of one slot are versions (the newer wins, or a cross-scope disagreement is
shown by inject.py). Two *different* slots can still pull against each other — "concise
answers" and "explain the background first" are both legitimate and both stay active —
so the context builder shows such a pair as a conflict instead of silently picking one.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from .extract.slots import SLOTS, SlotRegistry
from .inject import Conflict
from .model import Memory


def declared_conflicts(memories: Sequence[Memory],
                       registry: SlotRegistry | None = None) -> list[Conflict]:
    reg = registry if registry is not None else SLOTS
    slotted = [m for m in memories if m.slot is not None]
    out: list[Conflict] = []
    for a, b in combinations(slotted, 2):
        assert a.slot is not None and b.slot is not None
        if reg.clash((a.slot, a.value), (b.slot, b.value)):
            first, second = sorted((a.slot, b.slot))
            out.append(Conflict((a.id, b.id), topic=f"{first} / {second}"))
    return out

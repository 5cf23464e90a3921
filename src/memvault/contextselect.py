"""Which items the memory section (memvault.inject) shows, and grouped how: repeated and
older versions of one memory are dropped, a slot value superseded in its scope is refused,
conflicts (named by the caller, or one slot with different values in different scopes)
become one unit, and units keep the caller's relevance order."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from .contextitems import Conflict, ContextItem, Dropped, Unit


def _newness(it: ContextItem) -> tuple[int, int, int]:
    return (it.updated_at or 0, it.date or 0, it.version)


def _value_key(it: ContextItem) -> str:
    if it.value is None:
        return "content:" + it.content
    try:
        return "value:" + json.dumps(it.value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return "repr:" + repr(it.value)


def select_units(items: Sequence[ContextItem], conflicts: Iterable[Conflict]
                 ) -> tuple[list[Unit], list[Dropped]]:
    """Dedupe versions, refuse superseded slot values, group conflicts into units."""
    dropped: list[Dropped] = []
    pos: dict[str, int] = {}            # id -> position of the kept version
    kept: dict[str, ContextItem] = {}
    for i, it in enumerate(items):
        if not isinstance(it, ContextItem):
            raise TypeError(f"items[{i}]: expected ContextItem, got {type(it).__name__}")
        if not isinstance(it.id, str) or not it.id or not isinstance(it.content, str):
            raise TypeError(f"items[{i}]: id must be a non-empty str and content a str")
        prev = kept.get(it.id)
        if prev is None:
            kept[it.id], pos[it.id] = it, i
        elif prev.version == it.version:
            dropped.append(Dropped(it.id, it.version, "duplicate"))
        elif it.version > prev.version:
            dropped.append(Dropped(prev.id, prev.version, "superseded"))
            kept[it.id] = it           # the newer version takes the better rank
        else:
            dropped.append(Dropped(it.id, it.version, "superseded"))

    # Conflict groups: union of overlapping conflicts.
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    topics: list[tuple[str, str]] = []          # (a member id, topic); roots move on merges
    for c in conflicts:
        if not isinstance(c, Conflict):
            raise TypeError(f"conflicts: expected Conflict, got {type(c).__name__}")
        unknown = [i for i in c.ids if i not in kept]
        if unknown:
            raise ValueError(f"conflict names ids that are not among the items: {unknown}")
        for i in c.ids:
            parent.setdefault(i, i)
        root = find(c.ids[0])
        for i in c.ids[1:]:
            r = find(i)
            if r != root:
                parent[r] = root
        if c.topic:
            topics.append((c.ids[0], c.topic))

    def group(it: ContextItem) -> str | None:
        return find(it.id) if it.id in parent else None

    # Superseded slot values: same scope and slot, not in the same conflict group.
    buckets: dict[tuple[str, str], list[ContextItem]] = {}
    for it in kept.values():
        if it.slot:
            buckets.setdefault((it.scope, it.slot), []).append(it)
    for bucket in buckets.values():
        if len(bucket) < 2:
            continue
        groups = {group(it) for it in bucket}
        if len(groups) == 1 and None not in groups:
            continue
        newest = max(bucket, key=_newness)
        g = group(newest)
        for it in bucket:
            if it is not newest and (g is None or group(it) != g):
                dropped.append(Dropped(it.id, it.version, "superseded"))
                del kept[it.id]

    # Safety net: one slot, different scopes (e.g. two agents), different values, and the
    # caller named no conflict: that is a conflict all the same, never two quiet answers.
    by_slot: dict[str, list[ContextItem]] = {}
    for it in kept.values():
        if it.slot:
            by_slot.setdefault(it.slot, []).append(it)
    for slot, same in by_slot.items():
        if len({_value_key(it) for it in same}) < 2:
            continue
        for it in same:
            parent.setdefault(it.id, it.id)
        root = find(same[0].id)
        for it in same[1:]:
            r = find(it.id)
            if r != root:
                parent[r] = root
        topics.append((same[0].id, slot))

    # Units in rank order; a conflict group with <2 surviving members dissolves.
    members: dict[str, list[ContextItem]] = {}
    for it in kept.values():
        g = group(it)
        if g is not None:
            members.setdefault(g, []).append(it)
    units: list[Unit] = []
    seen: set[str] = set()
    for it in sorted(kept.values(), key=lambda x: pos[x.id]):
        g = group(it)
        if g is None or len(members[g]) < 2:
            units.append(Unit([it], pos[it.id]))
            continue
        if g in seen:
            continue
        seen.add(g)
        mem = sorted(members[g], key=lambda x: (_newness(x), -pos[x.id]), reverse=True)
        topic = next((tp for m, tp in topics if m in parent and find(m) == g), None)
        units.append(Unit(mem, pos[it.id], topic))
    return units, dropped

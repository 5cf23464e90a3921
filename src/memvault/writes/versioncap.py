"""The version cap (strategy `write.max_versions`, docs/write-path.md "Version cap").

A memory that has changed this many times is unusual enough that its next change is for a
person to decide: the write that would give it another version is staged for review
instead (reason `version_cap`, the memory as the review item's target, so approving it
applies the change as that memory's next version). Off by default (None).

It applies where a statement changes a memory: remember/remember_many on a slot, the gated
write (observe, propose) and import --review. Governance (edit, rollback, restore, forget,
expire, merge) and approving a review item are a person's decision already and are not
capped; nor are what the layers derive (turns, summaries, the graph).
"""

from __future__ import annotations

from typing import Any

from ..core import Core
from ..model import GRAPH_KINDS, Kind, Memory

REASON = "version_cap"
_DERIVED = frozenset({Kind.TURN.value, Kind.SUMMARY.value, *GRAPH_KINDS})


def cap(core: Core) -> int | None:
    return core.strategy.write.max_versions


def capped(core: Core, m: Memory) -> bool:
    """Would a new version of `m` pass the cap?"""
    limit = cap(core)
    return limit is not None and m.kind not in _DERIVED and m.version >= limit


def message(m: Memory, limit: int | None) -> str:
    return (f"memory {m.id} has {m.version} versions; the cap (write.max_versions) is "
            f"{limit}: its next change waits for review")


def review(m: Memory, limit: int | None, reasons: list[str] | None = None) -> dict[str, Any]:
    """The review record of a change staged by the cap; `reasons`: the gate's, if any."""
    return {"reasons": [*(reasons or []), REASON], "links": [m.id], "target_id": m.id,
            "message": message(m, limit)}

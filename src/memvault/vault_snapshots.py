"""The Vault's snapshot verbs (docs/snapshots.md), mixed into Vault: take, list, diff,
restore and drop named snapshots of a user or of a whole tenant. Thin: the reads are in
reads/snapshots.py, the writes in writes/snapshots.py."""

from __future__ import annotations

from typing import Any

from .engine import Engine
from .reads import access
from .reads import snapshots as snapreads
from .writes import snapshots as snapwrites


class SnapshotVerbs:
    engine: Engine

    def snapshot(self, tenant: str, name: str, *, user: str | None = None,
                 reason: str | None = None, actor: str | None = None) -> dict[str, Any]:
        """Name this moment of the tenant's memory (of one user's, if given): a point in
        revision time, not a copy. ConflictError if the name is taken in that scope."""
        return snapwrites.create(self.engine.writes, tenant, name, user=user,
                                 reason=reason, actor=actor)

    def snapshots(self, tenant: str, *, user: str | None = None) -> list[dict[str, Any]]:
        """The tenant's snapshots, oldest first (user given: that user's only)."""
        return snapreads.list_snapshots(self.engine.core, tenant, user=user)

    def snapshot_diff(self, tenant: str, name: str, to: str | None = None, *,
                      user: str | None = None) -> dict[str, Any]:
        """What changed from snapshot `name` to snapshot `to` (None: now): memories
        added, removed (forgotten or purged) and changed (versions and fields)."""
        out = snapreads.diff(self.engine.core, tenant, name, to, user=user)
        if user is not None:
            seen = [x["memory_id"] for k in ("added", "removed", "changed") for x in out[k]]
            access.record(self.engine.core, {"tenant": tenant, "user": user},
                          "snapshot_diff", seen)
        return out

    def restore_snapshot(self, tenant: str, name: str, *, user: str | None = None,
                         reason: str | None = None, actor: str | None = None
                         ) -> dict[str, Any]:
        """Bring the scope's memory back to snapshot `name` in one recorded operation;
        undo it by restoring the snapshot it names in "undo"."""
        return snapwrites.restore(self.engine.writes, tenant, name, user=user,
                                  reason=reason, actor=actor)

    def drop_snapshot(self, tenant: str, name: str, *,
                      user: str | None = None) -> dict[str, Any]:
        """Forget a snapshot (the memories stay as they are)."""
        return snapwrites.drop(self.engine.writes, tenant, name, user=user)

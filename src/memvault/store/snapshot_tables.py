"""Named snapshots in the store (migration 9/11), written once for both backends and
mixed into SQLStore: a snapshot row is a point in revision time (`through_seq`), and the
read that matters is every memory's last revision up to that point."""

from __future__ import annotations

from typing import Any

from ..errors import ConflictError
from ..model import Revision
from .codec import REVISION_FIELDS, revision_from_row
from .tablebase import TableAccess

SNAPSHOT_COLS = ("snapshot_id, tenant, user_id, name, kind, taken_at, through_seq, "
                 "created_by, reason")


def snapshot_dict(r: Any) -> dict[str, Any]:
    return {"snapshot_id": r["snapshot_id"], "tenant": r["tenant"],
            "user": r["user_id"] or None, "name": r["name"], "kind": r["kind"],
            "taken_at": int(r["taken_at"]), "through_seq": int(r["through_seq"]),
            "created_by": r["created_by"], "reason": r["reason"]}


class SnapshotTables(TableAccess):
    _IntegrityError: type[Exception]

    def add_snapshot(self, snap: dict[str, Any]) -> dict[str, Any]:
        """Insert `snap` (snapshot_id, tenant, user or None, name, kind, taken_at,
        created_by, reason) at the current end of revision time, read by the insert
        itself (inside an open transaction: before that transaction's own revisions)."""
        ph = self._ph
        names = ("snapshot_id", "tenant", "user", "name", "kind", "taken_at",
                 "created_by", "reason")
        params = {**{n: snap.get(n) for n in names}, "user": snap.get("user") or ""}
        try:
            with self.transaction() as tx:
                row = tx.conn.execute(
                    "INSERT INTO snapshots (snapshot_id, tenant, user_id, name, kind, "
                    "taken_at, through_seq, created_by, reason) SELECT "
                    f"{', '.join(ph(n) for n in names[:6])}, COALESCE(MAX(seq), 0), "
                    f"{ph('created_by')}, {ph('reason')} FROM revisions "
                    "RETURNING through_seq", params).fetchone()
        except self._IntegrityError:
            raise ConflictError(f"a snapshot named {snap['name']!r} already exists in this "
                                "scope; pick another name or drop that one") from None
        return {**{n: params[n] for n in names}, "user": snap.get("user") or None,
                "through_seq": int(row["through_seq"])}

    def get_snapshot(self, tenant: str, user: str | None, name: str) -> dict[str, Any] | None:
        ph = self._ph
        rows = self._q(f"SELECT {SNAPSHOT_COLS} FROM snapshots WHERE tenant = {ph('t')} AND "
                       f"user_id = {ph('u')} AND name = {ph('n')}",
                       {"t": tenant, "u": user or "", "n": name})
        return snapshot_dict(rows[0]) if rows else None

    def list_snapshots(self, tenant: str, user: str | None = None) -> list[dict[str, Any]]:
        """The tenant's snapshots (user None: all of them, the tenant's and its users'),
        oldest first."""
        ph = self._ph
        where, params = f"tenant = {ph('t')}", {"t": tenant}
        if user is not None:
            where += f" AND user_id = {ph('u')}"
            params["u"] = user
        rows = self._q(f"SELECT {SNAPSHOT_COLS} FROM snapshots WHERE {where} "
                       "ORDER BY taken_at, through_seq, name", params)
        return [snapshot_dict(r) for r in rows]

    def drop_snapshot(self, tenant: str, user: str | None, name: str) -> bool:
        ph = self._ph
        return self._execute(f"DELETE FROM snapshots WHERE tenant = {ph('t')} AND "
                             f"user_id = {ph('u')} AND name = {ph('n')}",
                             {"t": tenant, "u": user or "", "n": name}) == 1

    def revisions_through(self, tenant: str, user: str, through_seq: int | None
                          ) -> list[Revision]:
        """For every memory the user ever had, its last revision with seq <= through_seq
        (None: its last one), in seq order."""
        ph = self._ph
        upto = "" if through_seq is None else f" AND seq <= {ph('through')}"
        rows = self._q(
            f"SELECT {REVISION_FIELDS} FROM revisions r JOIN (SELECT memory_id, MAX(seq) "
            f"AS last FROM revisions WHERE tenant = {ph('t')} AND user_id = {ph('u')}{upto} "
            "GROUP BY memory_id) l ON l.last = r.seq ORDER BY r.seq",
            {"t": tenant, "u": user, **({} if through_seq is None else
                                         {"through": through_seq})})
        return [revision_from_row(r) for r in rows]

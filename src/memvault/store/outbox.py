"""The change-event outbox and the webhook tables (migration 8 on SQLite, 10 on
PostgreSQL; schema.py), written once for both backends.

Events are written by the transaction that writes their revision (`OutboxTx.emit`, from
sql_tx.py), so a committed change always has its event and a rolled-back one never does.
An event row holds its kind and its revision's op_id; the rest is read from the revision
(a join on op_id), so what a purge blanks in the revisions is blanked in the events.
Readers page by event id. An id must never become visible after a greater one, or a
reader's cursor would skip it: SQLite has one writer at a time, so the id is given at
insert; PostgreSQL's writers commit in any order, so a row is inserted without an id and
`publish_events` (one publisher at a time, under a transaction-scoped advisory lock)
numbers the committed ones in write order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from ..changes import CONTENTLESS, Event, kind_of, payload_of
from ..model import Revision
from .codec import REVISION_FIELDS, insert_sql, revision_from_row
from .tablebase import TableAccess

EVENT_COLUMNS = ("op_id", "tenant", "user_id", "kind", "memory_id")
_SELECT = (f"SELECT e.id AS event_id, e.kind AS event_kind, {REVISION_FIELDS} FROM events e "
           "JOIN revisions r ON r.op_id = e.op_id")
_HOOK_COLS = ("webhook_id, tenant, user_id, url, secret, kinds, queued_through, created_at, "
              "created_by, removed_at")
_DELIVERY_COLS = ("webhook_id, tenant, event_id, status, attempts, next_at, lease_until, "
                  "last_code, last_error, updated_at")


def imported_heads(revisions: list[Revision]) -> list[Revision]:
    """The last revision of each memory among `revisions` (an import's), in order."""
    last: dict[str, Revision] = {}
    for rev in revisions:
        last.pop(rev.memory_id, None)
        last[rev.memory_id] = rev
    return list(last.values())


def event_from_row(r: Any) -> Event:
    """An event from its row joined with its revision (_SELECT)."""
    rev = revision_from_row(r)
    kind = r["event_kind"]
    erased = rev.state is None and kind not in CONTENTLESS  # a purge blanked it
    return Event(id=int(r["event_id"]), scope=rev.scope, kind=kind, memory_id=rev.memory_id,
                 from_version=rev.from_version, to_version=rev.to_version, actor=rev.actor,
                 actor_role=rev.actor_role, reason=rev.reason, at=int(rev.at),
                 op_id=rev.op_id, payload=None if erased else payload_of(rev, kind))


def hook_dict(r: Any) -> dict[str, Any]:
    return {"webhook_id": r["webhook_id"], "tenant": r["tenant"], "user": r["user_id"] or None,
            "url": r["url"], "secret": r["secret"], "kinds": json.loads(r["kinds"]),
            "queued_through": int(r["queued_through"]), "created_at": r["created_at"],
            "created_by": r["created_by"], "removed_at": r["removed_at"]}


def delivery_dict(r: Any) -> dict[str, Any]:
    return {"webhook_id": r["webhook_id"], "event_id": int(r["event_id"]),
            "status": r["status"], "attempts": int(r["attempts"]), "next_at": r["next_at"],
            "last_code": r["last_code"], "last_error": r["last_error"],
            "updated_at": r["updated_at"]}


class OutboxTx:
    """The transaction's side (mixed into SQLTx)."""

    _ph: Callable[[str], str]
    # SQL for a new event's id: the next one (SQLite), or NULL until published.
    _NEW_EVENT_ID = "NULL"
    conn: Any
    # (tenant, user) of every revision written: the scopes a replica must have replayed
    # before it answers their reads (replica.py).
    touched: set[tuple[str, str]]

    def _insert_rows(self, query: str, rows: list[dict[str, Any]]) -> None:
        raise NotImplementedError

    def insert_rows(self, query: str, rows: list[dict[str, Any]]) -> None:
        """Run `query` once per row, in this transaction."""
        self._insert_rows(query, rows)

    def emit(self, revisions: Iterable[Revision], *, imported: bool = False) -> None:
        """The events of these revisions, in this transaction."""
        rows = [{"op_id": rev.op_id, "tenant": rev.scope.tenant, "user_id": rev.scope.user,
                 "kind": kind_of(rev, imported=imported), "memory_id": rev.memory_id}
                for rev in revisions]
        self.touched.update((r["tenant"], r["user_id"]) for r in rows)
        if rows:
            cols = ", ".join(("id", *EVENT_COLUMNS))
            vals = ", ".join((self._NEW_EVENT_ID, *(self._ph(c) for c in EVENT_COLUMNS)))
            self._insert_rows(f"INSERT INTO events ({cols}) VALUES ({vals})", rows)


class EventTables(TableAccess):
    """The store's side (mixed into SQLStore): reading events, publishing them
    (PostgreSQL), and the webhook tables."""

    any_of: Callable[[str, str], str]
    as_list: Callable[[list[str]], Any]

    def publish_events(self) -> int:
        """Number the committed events that have no id yet (PostgreSQL); how many."""
        return 0

    # --- events --------------------------------------------------------------------------
    def events(self, tenant: str, *, user: str | None = None, since: int = 0,
               limit: int = 100, kinds: list[str] | None = None) -> list[Event]:
        self.publish_events()
        ph = self._ph
        where = [f"e.tenant = {ph('tenant')}", f"e.id > {ph('since')}"]
        params: dict[str, Any] = {"tenant": tenant, "since": since, "limit": limit}
        if user is not None:
            where.append(f"e.user_id = {ph('user')}")
            params["user"] = user
        if kinds:
            where.append(self.any_of("e.kind", "kinds"))
            params["kinds"] = self.as_list(list(kinds))
        rows = self._q(f"{_SELECT} WHERE {' AND '.join(where)} ORDER BY e.id "
                       f"LIMIT {ph('limit')}", params)
        return [event_from_row(r) for r in rows]

    def get_event(self, tenant: str, event_id: int) -> Event | None:
        ph = self._ph
        rows = self._q(f"{_SELECT} WHERE e.tenant = {ph('tenant')} AND e.id = {ph('id')}",
                       {"tenant": tenant, "id": event_id})
        return event_from_row(rows[0]) if rows else None

    def last_event_id(self, tenant: str, user: str | None = None) -> int:
        self.publish_events()
        ph = self._ph
        query = f"SELECT MAX(id) AS top FROM events WHERE tenant = {ph('tenant')}"
        params: dict[str, Any] = {"tenant": tenant}
        if user is not None:
            query, params["user"] = query + f" AND user_id = {ph('user')}", user
        return int(self._q(query, params)[0]["top"] or 0)

    # --- webhooks ------------------------------------------------------------------------
    def add_webhook(self, hook: dict[str, Any]) -> None:
        """hook: webhook_id, tenant, user (or None), url, secret, kinds, queued_through,
        created_at, created_by."""
        cols = ("webhook_id", "tenant", "user_id", "url", "secret", "kinds", "queued_through",
                "created_at", "created_by")
        self._execute(insert_sql("webhooks", cols, self._ph),
                      {"webhook_id": hook["webhook_id"], "tenant": hook["tenant"],
                       "user_id": hook.get("user") or "", "url": hook["url"],
                       "secret": hook["secret"], "kinds": json.dumps(list(hook["kinds"])),
                       "queued_through": hook["queued_through"],
                       "created_at": hook["created_at"],
                       "created_by": hook.get("created_by") or ""})

    def webhooks(self, tenant: str | None, *, removed: bool = False) -> list[dict[str, Any]]:
        """A tenant's webhooks (every tenant's for None: the delivery worker), oldest
        first; removed ones too if `removed`."""
        ph = self._ph
        where = [] if removed else ["removed_at IS NULL"]
        params: dict[str, Any] = {}
        if tenant is not None:
            where.append(f"tenant = {ph('tenant')}")
            params["tenant"] = tenant
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = self._q(f"SELECT {_HOOK_COLS} FROM webhooks{clause} "
                       "ORDER BY created_at, webhook_id", params)
        return [hook_dict(r) for r in rows]

    def get_webhook(self, tenant: str, webhook_id: str) -> dict[str, Any] | None:
        ph = self._ph
        rows = self._q(f"SELECT {_HOOK_COLS} FROM webhooks WHERE tenant = {ph('tenant')} "
                       f"AND webhook_id = {ph('id')}", {"tenant": tenant, "id": webhook_id})
        return hook_dict(rows[0]) if rows else None

    def remove_webhook(self, tenant: str, webhook_id: str, at: int) -> bool:
        ph = self._ph
        return self._execute(f"UPDATE webhooks SET removed_at = {ph('at')} WHERE "
                             f"tenant = {ph('tenant')} AND webhook_id = {ph('id')} AND "
                             "removed_at IS NULL",
                             {"at": at, "tenant": tenant, "id": webhook_id}) == 1

    def queue_deliveries(self, hook: dict[str, Any], event_ids: list[int], through: int,
                         now: int) -> bool:
        """Queue deliveries of these events to `hook` and move its queued_through to
        `through`, in one transaction; False (nothing done) if another worker moved it
        first."""
        ph = self._ph
        with self.transaction() as tx:
            moved = tx.conn.execute(
                f"UPDATE webhooks SET queued_through = {ph('through')} WHERE "
                f"webhook_id = {ph('id')} AND queued_through = {ph('was')}",
                {"through": through, "id": hook["webhook_id"],
                 "was": hook["queued_through"]}).rowcount
            if moved != 1:
                return False
            cols = ("webhook_id", "tenant", "event_id", "status", "attempts", "next_at",
                    "updated_at")
            rows = [{"webhook_id": hook["webhook_id"], "tenant": hook["tenant"],
                     "event_id": e, "status": "pending", "attempts": 0, "next_at": now,
                     "updated_at": now} for e in event_ids]
            if rows:
                tx.insert_rows(insert_sql("webhook_deliveries", cols, ph), rows)
        return True

    def next_delivery(self, webhook_id: str) -> dict[str, Any] | None:
        """The webhook's oldest pending delivery (deliveries go out in event order)."""
        ph = self._ph
        rows = self._q(f"SELECT {_DELIVERY_COLS} FROM webhook_deliveries WHERE "
                       f"webhook_id = {ph('id')} AND status = 'pending' "
                       "ORDER BY event_id LIMIT 1", {"id": webhook_id})
        return delivery_dict(rows[0]) if rows else None

    def lease_delivery(self, webhook_id: str, event_id: int, now: int, until: int) -> bool:
        """Take a due pending delivery for sending until `until` (ms); False if it is not
        due, not pending, or another worker holds it."""
        ph = self._ph
        return self._execute(
            f"UPDATE webhook_deliveries SET lease_until = {ph('until')} WHERE "
            f"webhook_id = {ph('id')} AND event_id = {ph('event')} AND status = 'pending' "
            f"AND next_at <= {ph('now')} AND (lease_until IS NULL OR lease_until <= "
            f"{ph('now')})",
            {"until": until, "id": webhook_id, "event": event_id, "now": now}) == 1

    def record_attempt(self, delivery: dict[str, Any], attempt: dict[str, Any]) -> None:
        """One attempt's log row, and the delivery's new status (attempts, next_at,
        last_code, last_error), in one transaction. delivery: webhook_id, tenant,
        event_id, status, attempts, next_at; attempt: at, code, error, ms."""
        ph = self._ph
        with self.transaction() as tx:
            tx.conn.execute(insert_sql(
                "webhook_attempts", ("webhook_id", "tenant", "event_id", "attempt", "at",
                                     "code", "error", "ms"), ph),
                {"webhook_id": delivery["webhook_id"], "tenant": delivery["tenant"],
                 "event_id": delivery["event_id"], "attempt": delivery["attempts"],
                 "at": attempt["at"], "code": attempt["code"], "error": attempt["error"],
                 "ms": attempt["ms"]})
            tx.conn.execute(
                f"UPDATE webhook_deliveries SET status = {ph('status')}, attempts = "
                f"{ph('attempts')}, next_at = {ph('next_at')}, lease_until = NULL, "
                f"last_code = {ph('code')}, last_error = {ph('error')}, updated_at = "
                f"{ph('at')} WHERE webhook_id = {ph('webhook_id')} AND "
                f"event_id = {ph('event_id')}",
                {"status": delivery["status"], "attempts": delivery["attempts"],
                 "next_at": delivery["next_at"], "code": attempt["code"],
                 "error": attempt["error"], "at": attempt["at"],
                 "webhook_id": delivery["webhook_id"], "event_id": delivery["event_id"]})

    def deliveries(self, tenant: str, webhook_id: str, *, status: str | None = None,
                   limit: int = 100) -> list[dict[str, Any]]:
        """The webhook's deliveries, newest event first, each with its attempts."""
        ph = self._ph
        query = (f"SELECT {_DELIVERY_COLS} FROM webhook_deliveries WHERE "
                 f"tenant = {ph('tenant')} AND webhook_id = {ph('id')}")
        params: dict[str, Any] = {"tenant": tenant, "id": webhook_id, "limit": limit}
        if status is not None:
            query, params["status"] = query + f" AND status = {ph('status')}", status
        out = [delivery_dict(r) for r in self._q(
            query + f" ORDER BY event_id DESC LIMIT {ph('limit')}", params)]
        for d in out:
            d["log"] = [{"attempt": int(a["attempt"]), "at": a["at"], "code": a["code"],
                         "error": a["error"], "ms": int(a["ms"])} for a in self._q(
                f"SELECT attempt, at, code, error, ms FROM webhook_attempts WHERE "
                f"webhook_id = {ph('id')} AND event_id = {ph('event')} ORDER BY seq",
                {"id": webhook_id, "event": d["event_id"]})]
        return out

    def retry_delivery(self, tenant: str, webhook_id: str, event_id: int, now: int) -> bool:
        """A dead letter back to pending, due now, its attempts counted afresh."""
        ph = self._ph
        return self._execute(
            f"UPDATE webhook_deliveries SET status = 'pending', attempts = 0, "
            f"next_at = {ph('now')}, lease_until = NULL, updated_at = {ph('now')} WHERE "
            f"tenant = {ph('tenant')} AND webhook_id = {ph('id')} AND "
            f"event_id = {ph('event')} AND status = 'dead'",
            {"now": now, "tenant": tenant, "id": webhook_id, "event": event_id}) == 1

"""What both SQL stores do the same way, written once: scoped reads of memories and
revisions, the metadata read, the maintenance reads, the retrieval traces and the
server's tables (ServerTables). A backend keeps only what differs: SQL its engine alone
speaks, its index specifics and its connection handling. It supplies the hooks declared
at the top of SQLStore, and those of ServerTables (`_ph`, `_q`, `_execute_many`)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from ..errors import ConflictError
from ..model import Memory, Revision, Scope
from . import wordtable
from .base import FaultHook, ListFilter, WordEmbedding
from .codec import (
    MEMORY_SELECT,
    REVISION_SELECT,
    group_revisions,
    insert_sql,
    list_where,
    memory_from_row,
    revision_from_row,
    scope_where,
)
from .online_eval_tables import OnlineEvalTables
from .outbox import EventTables
from .server_tables import ServerTables
from .snapshot_tables import SnapshotTables
from .sql_tx import ERASURE_DONE, ERASURE_OPS, ERASURE_PENDING
from .strategy_tables import StrategyTables
from .team_tables import TeamTables
from .tracepack import decode, pack, to_json
from .turnorder import last_turns_sql

# How often (trace clock, ms) a trace write also drops every scope's traces past their age,
# not only its own scope's: a user who no longer recalls keeps none past retention.
_SWEEP_EVERY_MS = 3_600_000

log = logging.getLogger("memvault")

_TRACE_COLUMNS = ("trace_id", "tenant", "user_id", "kind", "at", "strategy_hash",
                  "memory_ids", "payload")


class SQLStore(ServerTables, EventTables, SnapshotTables, StrategyTables,
               OnlineEvalTables, TeamTables):
    fault_hook: FaultHook | None
    # --- what a backend supplies ------------------------------------------------------
    _ROW_KEY: str  # the memories table's integer row key (rowid, mrow)
    _IntegrityError: type[Exception]  # the driver's error for a violated constraint
    # Delete all but the newest `keep` traces of a scope (parameters tenant, user, keep).
    _TRIM_TRACES: str
    _traces_swept_at: int | None = None  # when this store last dropped old traces of all
    any_of: wordtable.AnyOf  # a list parameter in the word table's queries
    as_list: wordtable.ListParam
    words: WordEmbedding | None = None  # set by the core: word vectors are written

    def transaction(self) -> AbstractContextManager[Any]:
        """See Store.transaction; the Tx has the connection as `conn`."""
        raise NotImplementedError

    def _tags_where(self, tags: list[str]) -> tuple[list[str], dict[str, Any]]:
        """Clauses (and their parameters) for "m.tags, a JSON array as text, holds every
        one of these tags"."""
        raise NotImplementedError

    def _id_list(self, ids: list[str]) -> Any:
        """A list of ids as the traces.memory_ids column holds it."""
        raise NotImplementedError

    def _json_int(self, key: str) -> str:
        """SQL for metadata's `key` (on alias m) when it holds a whole number, else NULL."""
        raise NotImplementedError

    def _ids_of(self, column: Any) -> list[str]:
        """The traces.memory_ids column read back as a list."""
        raise NotImplementedError

    def _trace_payload(self, packed: dict[str, Any]) -> Any:
        """A packed trace (tracepack.py) as the payload column holds it: packed JSON text;
        SQLite compresses it."""
        return to_json(packed)

    def _hold_erasures(self, tx: Any, scope: Scope) -> None:
        """Make the scope's erasures that have not committed yet wait for this transaction
        (none is in flight then) until it ends. Nothing here: a backend whose write
        transactions are serialised (SQLite's BEGIN IMMEDIATE) has none in flight."""

    def _trace_tx(self) -> AbstractContextManager[Any]:
        """The transaction a trace (or an access-log row) is written in: one that need not
        reach the disk before it returns (an observation, not user data). It is readable
        at once, and on disk after the next durable commit or a clean close."""
        raise NotImplementedError

    # --- plumbing -----------------------------------------------------------------------
    def _execute(self, query: str, params: dict[str, Any]) -> int:
        with self.transaction() as tx:
            return int(tx.conn.execute(query, params).rowcount)

    def _observe_many(self, query: str, rows: Iterable[dict[str, Any]]) -> None:
        # The access log, like a trace: readable at once, durable at the next durable
        # commit or a clean close; inside an open transaction, that one's.
        with self._trace_tx() as tx:
            for row in rows:
                tx.conn.execute(query, row)

    def reading(self, scope: Scope) -> AbstractContextManager[None]:
        """See Store.reading: no replica here (PostgreSQL's read_db has one)."""
        return nullcontext()

    def replica_stats(self) -> dict[str, int]:
        return {}

    # --- meta ---------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        rows = self._q(f"SELECT value FROM meta WHERE key = {self._ph('key')}", {"key": key})
        return rows[0]["value"] if rows else None

    # --- erasure (purge) ---------------------------------------------------------------
    def compact(self) -> bool:
        """See Store.compact: the backend's own way of making erased bytes unrecoverable."""
        raise NotImplementedError

    def erasure_status(self, scope: Scope, memory_id: str) -> str | None:
        ph = self._ph
        rows = self._q(f"SELECT MAX(seq) AS seq FROM revisions WHERE memory_id = {ph('id')} "
                       f"AND tenant = {ph('tenant')} AND user_id = {ph('user')} "
                       "AND op = 'purge'",
                       {"id": memory_id, "tenant": scope.tenant, "user": scope.user})
        if not rows or rows[0]["seq"] is None:
            return None
        seq = int(rows[0]["seq"])
        if seq > self._meta_int(ERASURE_DONE):
            self.compact()  # a reader may have let go since: finish it now if it can be
        return "done" if seq <= self._meta_int(ERASURE_DONE) else "pending"

    def _meta_int(self, key: str) -> int:
        return int(self.get_meta(key) or 0)

    def _erasure_pending(self) -> bool:
        return self._meta_int(ERASURE_PENDING) > self._meta_int(ERASURE_DONE)

    def _last_revision(self) -> int:
        """Read before making erased bytes unrecoverable: what the erasure then covers."""
        return int(self._q("SELECT COALESCE(MAX(seq), 0) AS seq FROM revisions")[0]["seq"])

    def _mark_erased(self, through: int) -> None:
        """Every erasure up to revision `through` is verified gone from the files."""
        if through > self._meta_int(ERASURE_DONE):
            self.set_meta(ERASURE_DONE, str(through))

    # --- reads ---------------------------------------------------------------------------
    def get(self, scope: Scope, memory_id: str) -> Memory | None:
        where, params = scope_where(scope, self._ph)
        rows = self._q(f"{MEMORY_SELECT} WHERE m.id = {self._ph('id')} AND {where}",
                       {"id": memory_id, **params})
        return memory_from_row(rows[0]) if rows else None

    def list(self, scope: Scope, flt: ListFilter) -> list[Memory]:
        where, params = scope_where(scope, self._ph)
        filters, fparams = list_where(flt, self._ph)
        tags, tparams = self._tags_where(flt.tags) if flt.tags else ([], {})
        p: dict[str, Any] = {**params, **fparams, **tparams,
                             "limit": flt.limit, "offset": flt.offset}
        rows = self._q(f"{MEMORY_SELECT} WHERE {' AND '.join([where, *filters, *tags])} "
                       f"ORDER BY m.updated_at DESC, m.id "
                       f"LIMIT {self._ph('limit')} OFFSET {self._ph('offset')}", p)
        return [memory_from_row(r) for r in rows]

    def last_turns(self, scope: Scope, limit: int, *, now: int | None = None,
                   exact: bool = False) -> list[Memory]:
        sql, params = last_turns_sql(scope, limit=limit, now=now, exact=exact, ph=self._ph,
                                     json_int=self._json_int)
        return [memory_from_row(r) for r in reversed(self._q(sql, params))]

    def revisions(self, scope: Scope, memory_id: str) -> list[Revision]:
        where, params = scope_where(scope, self._ph, alias="r")
        rows = self._q(f"{REVISION_SELECT} WHERE r.memory_id = {self._ph('mid')} AND {where} "
                       "ORDER BY r.seq", {"mid": memory_id, **params})
        return [revision_from_row(r) for r in rows]

    def scope_revisions(self, scope: Scope) -> Iterator[tuple[str, list[Revision]]]:
        where, params = scope_where(scope, self._ph, alias="r")
        rows = self._q(f"{REVISION_SELECT} WHERE {where} ORDER BY r.seq", params)
        yield from group_revisions(revision_from_row(r) for r in rows)

    # --- maintenance -------------------------------------------------------------------
    def scopes(self) -> list[Scope]:
        rows = self._q("SELECT DISTINCT tenant, user_id FROM revisions ORDER BY tenant, user_id")
        return [Scope(r["tenant"], r["user_id"]) for r in rows]

    def expired_ids(self, scope: Scope, now: int) -> list[str]:
        where, params = scope_where(scope, self._ph)
        rows = self._q(f"SELECT m.id FROM memories m WHERE {where} AND m.status = 'active' "
                       f"AND m.expires_at IS NOT NULL AND m.expires_at <= {self._ph('now')} "
                       "ORDER BY m.id", {"now": now, **params})
        return [r["id"] for r in rows]

    def _pages(self, columns: str, batch: int) -> Iterator[list[Any]]:
        """Every memory row's `columns` (and its row key `k`), `batch` rows a query, in
        row-key order (keyset paging: each query starts after the last key seen)."""
        k, last = self._ROW_KEY, 0
        while True:
            rows = self._q(f"SELECT {k} AS k, {columns} FROM memories WHERE {k} > "
                           f"{self._ph('last')} ORDER BY {k} LIMIT {self._ph('batch')}",
                           {"last": last, "batch": batch})
            if not rows:
                return
            last = int(rows[-1]["k"])
            yield rows

    def iter_all_for_reindex(self, batch: int) -> Iterator[list[tuple[int, str]]]:
        for rows in self._pages("content", batch):
            yield [(int(r["k"]), str(r["content"])) for r in rows]

    def iter_contents(self, batch: int) -> Iterator[list[tuple[str, str]]]:
        for rows in self._pages("tenant, content", batch):
            yield [(str(r["tenant"]), str(r["content"])) for r in rows]

    # --- word vectors (wordtable.py) -----------------------------------------------------
    def word_vectors(self, tenant: str, model: str, words: list[str]) -> dict[str, bytes]:
        if not words:
            return {}
        keys = {wordtable.word_key(w): w for w in words}
        rows = self._q(wordtable.select_sql(self._ph, self.any_of),
                       {"tenant": tenant, "model": model, "keys": self.as_list(list(keys))})
        return {keys[r["word_key"]]: bytes(r["vec"]) for r in rows}

    def last_erasure(self) -> int:
        # The last erasure's revision (sql_tx._note_erasure), written in its transaction.
        return self._meta_int(ERASURE_PENDING)

    def count(self) -> int:
        return int(self._q("SELECT count(*) AS n FROM memories")[0]["n"])

    # --- traces ------------------------------------------------------------------------
    def erasure_mark(self, scope: Scope) -> int:
        """See Store.erasure_mark: the last revision committed. On SQLite revisions commit
        in seq order (one writer at a time): an erasure committed after this read has a
        greater seq. (PostgreSQL makes sure of it its own way.)"""
        return self._last_revision()

    def _erased_since(self, tx: Any, scope: Scope, mark: int) -> set[str]:
        """The scope's memories purged or redacted by a revision committed after `mark`
        (by the primary key: the revisions after it, few)."""
        ph = self._ph
        ops = ", ".join(f"'{op}'" for op in ERASURE_OPS)
        rows = tx.conn.execute(f"SELECT memory_id FROM revisions WHERE seq > {ph('mark')} "
                               f"AND tenant = {ph('tenant')} AND user_id = {ph('user')} "
                               f"AND op IN ({ops})",
                               {"mark": mark, "tenant": scope.tenant, "user": scope.user}
                               ).fetchall()
        return {r["memory_id"] for r in rows}

    def write_trace(self, scope: Scope, trace: dict[str, Any], *, keep_after: int,
                    max_per_scope: int, erased_after: int | None = None) -> None:
        owner = {"tenant": scope.tenant, "user": scope.user}
        row = {"trace_id": trace["trace_id"], "tenant": scope.tenant, "user_id": scope.user,
               "kind": trace["kind"], "at": trace["at"], "strategy_hash": trace["strategy_hash"],
               "memory_ids": self._id_list(trace["memory_ids"]),
               "payload": self._trace_payload(pack(trace))}
        with self._trace_tx() as tx:
            if erased_after is not None:
                # A purge or redaction that committed after the retrieval began its read
                # found no trace of this one to delete, and the trace may hold what it
                # erased (a context build's text): dropped, as a trace written before
                # would have been. Checked in the write's transaction, with no erasure
                # of the scope in flight (_hold_erasures): none commits unseen meanwhile.
                self._hold_erasures(tx, scope)
                if self._erased_since(tx, scope, erased_after) & set(trace["memory_ids"]):
                    log.info("trace %s dropped: a memory it names was erased meanwhile",
                             trace["trace_id"])
                    return
            try:
                tx.conn.execute(insert_sql("traces", _TRACE_COLUMNS, self._ph), row)
            except self._IntegrityError:
                raise ConflictError(f"trace id {trace['trace_id']} is already in use; "
                                    "leave it out to get a new one") from None
            # Retention: by age, and a cap per scope (oldest go first).
            tx.conn.execute(f"DELETE FROM traces WHERE tenant = {self._ph('tenant')} AND "
                            f"user_id = {self._ph('user')} AND at < {self._ph('before')}",
                            {**owner, "before": keep_after})
            tx.conn.execute(self._TRIM_TRACES, {**owner, "keep": max_per_scope})
            last = self._traces_swept_at
            if last is None or not 0 <= trace["at"] - last < _SWEEP_EVERY_MS:
                tx.conn.execute(f"DELETE FROM traces WHERE at < {self._ph('before')}",
                                {"before": keep_after})
                self._traces_swept_at = trace["at"]

    def write_trace_later(self, scope: Scope, trace: dict[str, Any], *, keep_after: int,
                          max_per_scope: int, erased_after: int | None = None) -> None:
        self.write_trace(scope, trace, keep_after=keep_after, max_per_scope=max_per_scope,
                         erased_after=erased_after)

    def flush_traces(self) -> None:
        """Write the traces queued by write_trace_later (a backend that queues them)."""

    def get_trace(self, scope: Scope, trace_id: str, *,
                  not_before: int | None = None) -> dict[str, Any] | None:
        self.flush_traces()
        rows = self._q(f"SELECT payload, memory_ids FROM traces WHERE "
                       f"trace_id = {self._ph('trace_id')} "
                       f"AND tenant = {self._ph('tenant')} AND user_id = {self._ph('user')} "
                       f"AND at >= {self._ph('before')}",
                       {"trace_id": trace_id, "tenant": scope.tenant, "user": scope.user,
                        "before": _oldest(not_before)})
        return self._trace_of(rows[0]) if rows else None

    def list_traces(self, scope: Scope, limit: int, *,
                    not_before: int | None = None) -> list[dict[str, Any]]:
        self.flush_traces()
        rows = self._q(f"SELECT payload, memory_ids FROM traces WHERE "
                       f"tenant = {self._ph('tenant')} AND user_id = {self._ph('user')} "
                       f"AND at >= {self._ph('before')} ORDER BY at DESC, trace_id DESC "
                       f"LIMIT {self._ph('limit')}",
                       {"tenant": scope.tenant, "user": scope.user, "limit": limit,
                        "before": _oldest(not_before)})
        return [self._trace_of(r) for r in rows]

    def _trace_of(self, row: Any) -> dict[str, Any]:
        return decode(row["payload"], self._ids_of(row["memory_ids"]))


def _oldest(not_before: int | None) -> int:
    # No bound: every trace (`at` is epoch ms, never negative; a BIGINT on PostgreSQL).
    return -(2**62) if not_before is None else not_before

"""The server store: PostgreSQL (12+) with pgvector (0.8+ for filtered HNSW scans).

Same tables, columns and rules as the SQLite store (sqlite.py); what differs, and why:

Transactions. A pool of connections (psycopg_pool); a Tx is one PostgreSQL transaction on
one pooled connection, READ COMMITTED. SQLite serialises every writer with BEGIN
IMMEDIATE; here writers run concurrently, so the places that read-then-write take locks:
`find_slot` and `find_duplicate` take a transaction-scoped advisory lock on their key
(exact scope + slot, or exact scope + content hash + kind) before reading, so two
processes writing the same slot or the same statement serialise even when no row exists
yet to lock, and `get(for_update=True)` / `find_slot` lock the row (FOR UPDATE). A unique
violation that still happens becomes ConflictError, as in SQLite. PostgreSQL aborts the
transaction on any error, so a Tx that raised cannot be used further (Vault never does).

Full text: postgres_text.py. Vectors: postgres_vectors.py. Schema: postgres_schema.py.

Scope at the index level: every query carries `tenant = ... AND user_id = ...` (and agent
and session when given) in its WHERE clause, served by btree indexes that lead with
(tenant, user_id); nothing is read from another scope and filtered in Python.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from ..bm25 import TextCandidates
from ..errors import ConflictError, StoreError
from ..model import Memory, Revision, Scope
from ..validtime import ValidWindow
from . import postgres_vectors as pgvec
from .base import FaultHook
from .codec import (
    MEMORY_COLUMNS,
    MEMORY_SELECT,
    REVISION_COLUMNS,
    REVISION_FIELDS,
    insert_sql,
    live_sql,
    memory_from_row,
    memory_params,
    pyformat_ph,
    revision_from_row,
    revision_params,
    scope_where,
)
from .leadership import Lease
from .outbox import imported_heads
from .postgres_locks import (
    erasure_lock_name,
    session_lease,
    snapshot_held,
    xact_lock,
    xact_lock_shared,
)
from .postgres_schema import MIGRATIONS, migrate
from .postgres_text import text_candidates
from .replica import ReadRouter, bump_marks
from .sql_store import SQLStore
from .sql_tx import SQLTx, vanished
from .tracepack import compress

__all__ = ["MIGRATIONS", "PostgresStore"]

# Number the committed unnumbered events after the greatest id (outbox.py).
_PUBLISH = ("WITH todo AS (SELECT seq, row_number() OVER (ORDER BY seq) AS n FROM events "
            "WHERE id IS NULL ORDER BY seq LIMIT 10000), "
            "top AS (SELECT COALESCE(MAX(id), 0) AS t FROM events) "
            "UPDATE events SET id = top.t + todo.n FROM todo, top WHERE events.seq = todo.seq")


def _json_int(key: str) -> str:
    """metadata's `key` when it holds a whole number (that fits a bigint), else NULL."""
    return (f"CASE WHEN jsonb_typeof(m.metadata::jsonb -> '{key}') = 'number' AND "
            f"(m.metadata::jsonb ->> '{key}') ~ '^-?[0-9]{{1,18}}$' "
            f"THEN (m.metadata::jsonb ->> '{key}')::bigint END")


def _any_of(column: str, name: str) -> str:
    return f"{column} = ANY(%({name})s)"


class PostgresStore(SQLStore):
    _ph = staticmethod(pyformat_ph)
    _ROW_KEY = "mrow"
    _IntegrityError = psycopg.IntegrityError
    _TRIM_TRACES = ("DELETE FROM traces WHERE tenant = %(tenant)s AND user_id = %(user)s AND "
                    "trace_id IN (SELECT trace_id FROM traces WHERE tenant = %(tenant)s AND "
                    "user_id = %(user)s ORDER BY at DESC, trace_id DESC OFFSET %(keep)s)")
    _id_list = staticmethod(list)  # traces.memory_ids is a text[]
    any_of = staticmethod(_any_of)
    as_list = staticmethod(list)
    _ids_of = staticmethod(list)
    _json_int = staticmethod(_json_int)
    _trace_payload = staticmethod(compress)  # packed JSON, zlib: bytea (migration 7)

    def __init__(self, dsn: str, *, min_size: int = 1, max_size: int = 8,
                 exact_scan_limit: int = 10_000, timeout: float = 30.0,
                 read_db: str | None = None) -> None:
        self.dsn = dsn
        self.fault_hook: FaultHook | None = None
        # Scopes with at most this many vectors (per model) are ranked exactly, not by HNSW.
        self.exact_scan_limit = exact_scan_limit
        self._models: dict[str, tuple[str, int]] = {}  # committed model -> (table, dim)
        self._models_lock = threading.Lock()
        self._closed = False
        self._pending = False  # an erasure not yet verified pruned (compact)
        self._erasing = threading.Lock()
        self._defer_hnsw = False  # inside bulk_load(): HNSW indexes are built at the end
        self._local = threading.local()  # this thread's open transaction, for nesting
        try:
            # Migrate before the pool exists: its connections register the vector type,
            # which must already be installed.
            with psycopg.connect(dsn, row_factory=dict_row, connect_timeout=int(timeout)) as c:
                enc = c.execute("SHOW server_encoding").fetchone()
                if enc is None or enc["server_encoding"] != "UTF8":
                    # Content is Unicode, and lexemes hash the UTF-8 bytes on both sides.
                    raise StoreError("the PostgreSQL database must use UTF8 encoding")
                migrate(c)
                self._iterative_scan = pgvec.has_iterative_scan(c)
            self._pool: ConnectionPool[psycopg.Connection[dict[str, Any]]] = ConnectionPool(
                dsn, min_size=min_size, max_size=max_size, open=False, timeout=timeout,
                kwargs={"row_factory": dict_row}, configure=self._configure,
                name="memvault")
            # Where reads go: this pool, or read_db's (a replica) inside reading().
            self._reads = ReadRouter(self._pool, read_db, max_size=max_size,
                                     in_tx=lambda: getattr(self._local, "tx", None) is not None,
                                     configure=self._configure)
            try:
                self._pool.open(wait=True, timeout=timeout)
                # An erasure left pending (by a close or a crash while a snapshot held it).
                self._pending = self._erasure_pending()
                if self._pending:
                    self.compact()
            except BaseException:
                self._pool.close()
                self._reads.close()
                raise
        except psycopg.Error as e:
            raise StoreError(f"cannot open PostgreSQL store: {e}") from None

    # --- plumbing ---------------------------------------------------------------------
    @staticmethod
    def _configure(conn: psycopg.Connection[Any]) -> None:
        register_vector(conn)
        conn.commit()  # the pool wants connections back idle

    def schema_version(self, timeout: float | None = None) -> int:
        return int(self._q("SELECT coalesce(max(version), 0) AS v FROM schema_migrations",
                           timeout=timeout)[0]["v"])

    def reading(self, scope: Scope) -> AbstractContextManager[None]:
        """See Store.reading: the replica (read_db) when it has this scope's writes."""
        return self._reads.reading(scope)

    def replica_stats(self) -> dict[str, int]:
        return self._reads.snapshot()

    def try_lead(self, name: str) -> Lease | None:
        return session_lease(self.dsn, name)

    def close(self) -> None:
        if not self._closed:
            try:
                if self._pending:  # else it stays recorded for the next open
                    self._finish_erasure(only_if_free=True)
            except (StoreError, psycopg.Error):
                pass
            finally:
                self._closed = True
                self._pool.close()
                self._reads.close()

    @contextmanager
    def _trace_tx(self) -> Iterator[_PgTx]:
        # An asynchronous commit: readable at once, flushed by the WAL writer within
        # wal_writer_delay and at a clean shutdown; a server crash may lose it, never
        # corrupt anything. Inside an open transaction: that one's, as it is.
        nested = getattr(self._local, "tx", None) is not None
        with self.transaction() as tx:
            if not nested:
                tx.conn.execute("SET LOCAL synchronous_commit = off")
            yield tx

    @contextmanager
    def transaction(self) -> Iterator[_PgTx]:
        outer: _PgTx | None = getattr(self._local, "tx", None)
        if outer is not None:
            # A transaction opened inside this thread's open one: a savepoint on the same
            # connection, so an outer caller (the server's job runner) commits a verb's
            # writes together with its own bookkeeping, or none of them.
            said = {t: dict(w) for t, w in outer.said.items()}
            try:
                with outer.conn.transaction():
                    yield outer
            except BaseException:
                outer.said = said  # the savepoint's content is gone: so are its words
                raise
            return
        try:
            with self._pool.connection() as conn, conn.transaction():
                tx = _PgTx(self, conn)
                self._local.tx = tx
                try:
                    yield tx
                    tx.store_words()  # in the transaction: a purge that follows sees them
                    if self._reads.marking:  # last: the marks' row locks are held briefly
                        bump_marks(conn, tx.touched)
                finally:
                    self._local.tx = None
        except psycopg.OperationalError as e:
            raise StoreError(f"PostgreSQL: {e}") from e
        # Only now are tables created by this transaction visible to everyone.
        with self._models_lock:
            self._models.update(tx.new_models)
        if self._pending and self._erasing.acquire(blocking=False):
            # A snapshot held back an erasure: try again if it is gone. The write is
            # committed: a failure here leaves the erasure pending, no more.
            try:
                self._finish_erasure(only_if_free=True)
            except (StoreError, psycopg.Error):
                pass
            finally:
                self._erasing.release()

    def _q(self, query: Any, params: Any = None, *,
           timeout: float | None = None) -> list[dict[str, Any]]:
        """One statement on a pooled connection; `timeout` bounds the wait for one (the
        pool's own, 30 s, when None)."""
        try:
            return self._reads.run(lambda conn: conn.execute(query, params).fetchall(),
                                   timeout=timeout)
        except (psycopg.OperationalError, PoolTimeout) as e:
            raise StoreError(f"PostgreSQL: {e}") from e

    def _execute_many(self, query: str, rows: Iterable[dict[str, Any]]) -> None:
        with self.transaction() as tx, tx.conn.cursor() as cur:
            cur.executemany(query, list(rows))

    def erasure_mark(self, scope: Scope) -> int:
        # Revisions commit out of seq order here: an erasure may hold a seq below the last
        # committed one and commit later. So the mark waits for the scope's erasures in
        # flight (each holds its lock from before it takes a seq, _PgTx._erasing); one
        # begun after it takes a greater seq.
        with self.transaction() as tx:
            self._hold_erasures(tx, scope)
            row = tx.conn.execute("SELECT COALESCE(MAX(seq), 0) AS seq FROM revisions"
                                  ).fetchone()
        return int(row["seq"]) if row else 0

    def publish_events(self) -> int:
        """See outbox.py: number the committed events without an id, in write order, one
        publisher at a time; an id is visible only with every smaller one."""
        if not self._q("SELECT EXISTS (SELECT 1 FROM events WHERE id IS NULL) AS todo"
                       )[0]["todo"]:
            return 0
        with self.transaction() as tx:
            xact_lock(tx.conn, "memvault.events.publish")
            return int(tx.conn.execute(_PUBLISH).rowcount)

    def _hold_erasures(self, tx: Any, scope: Scope) -> None:
        xact_lock_shared(tx.conn, erasure_lock_name(scope.tenant, scope.user))

    def _tags_where(self, tags: list[str]) -> tuple[list[str], dict[str, Any]]:
        # tags is a JSON array as text (same bytes as SQLite); jsonb @> = has all tags.
        return ["m.tags::jsonb @> %(tags)s::jsonb"], {"tags": json.dumps(list(tags))}

    def _model(self, conn: psycopg.Connection[Any], model: str) -> tuple[str, int] | None:
        """(table, dim) of a model's vector table, or None if the model was never stored."""
        with self._models_lock:
            hit = self._models.get(model)
        if hit is not None:
            return hit
        row = conn.execute("SELECT tbl, dim FROM vector_models WHERE model = %s",
                           (model,)).fetchone()
        return None if row is None else (row["tbl"], int(row["dim"]))

    # --- meta ---------------------------------------------------------------------------
    def set_meta(self, key: str, value: str) -> None:
        with self._pool.connection() as conn:  # a write: the primary, even in reading()
            conn.execute("INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) "
                         "DO UPDATE SET value = excluded.value", (key, value))

    # --- reads ---------------------------------------------------------------------------
    def fetch(self, scope: Scope, ids: list[str]) -> list[Memory]:
        if not ids:
            return []
        where, params = scope_where(scope, pyformat_ph)
        rows = self._q(f"{MEMORY_SELECT} WHERE m.id = ANY(%(ids)s) AND {where}",
                       {"ids": list(ids), **params})
        return [memory_from_row(r) for r in rows]

    def revisions_as_of(self, scope: Scope, at: int) -> list[Revision]:
        where, params = scope_where(scope, pyformat_ph, alias="r")
        rows = self._q(
            f"SELECT * FROM (SELECT DISTINCT ON (r.memory_id) r.seq, {REVISION_FIELDS} "
            f"FROM revisions r WHERE {where} AND r.at <= %(at)s "
            "ORDER BY r.memory_id, r.seq DESC) last ORDER BY last.seq", {"at": at, **params})
        return [revision_from_row(r) for r in rows]

    def text_candidates(self, scope: Scope, terms: list[str], now: int, limit: int, *,
                        valid: ValidWindow | None = None) -> TextCandidates:
        where, params = scope_where(scope, pyformat_ph)
        live, vparams = live_sql(pyformat_ph, valid)
        return text_candidates(self._q, f"{where} AND {live}",
                               {"now": now, **params, **vparams}, terms, limit)

    def vector_candidates(self, scope: Scope, model: str, query: np.ndarray, now: int,
                          limit: int, *,
                          valid: ValidWindow | None = None) -> list[tuple[str, float]]:
        q = np.asarray(query, dtype=np.float32)
        if q.ndim != 1:
            raise StoreError(f"a query vector must be one row, got shape {q.shape}")
        return self.vector_candidates_each(scope, model, q[None, :], now, limit,
                                           valid=valid)[0]

    def vector_candidates_each(self, scope: Scope, model: str, queries: np.ndarray,
                               now: int, limit: int, *, valid: ValidWindow | None = None
                               ) -> list[list[tuple[str, float]]]:
        # One connection, one model lookup and one scope count for all the queries.
        qs = np.asarray(queries, dtype=np.float32)
        where, params = scope_where(scope, pyformat_ph)
        live, vparams = live_sql(pyformat_ph, valid)
        p: dict[str, Any] = {"now": now, "limit": max(0, limit), **params, **vparams}
        def nearest(conn: psycopg.Connection[dict[str, Any]]) -> list[list[tuple[str, float]]]:
            info = self._model(conn, model)
            if info is None:
                return [[] for _ in range(len(qs))]
            tbl, dim = info
            if qs.ndim != 2 or qs.shape[1] != dim:
                raise StoreError(f"vectors of {model} have dimension {dim}, the query has "
                                 f"{qs.shape[-1]}; run `memvault reindex`")
            if not len(qs):
                return []
            return pgvec.nearest_each(conn, tbl, dim, f"{where} AND {live}", p, qs, limit,
                                      exact_scan_limit=self.exact_scan_limit,
                                      iterative_scan=self._iterative_scan)
        try:
            return self._reads.run(nearest)
        except (psycopg.OperationalError, PoolTimeout) as e:
            raise StoreError(f"PostgreSQL: {e}") from e

    # --- maintenance -------------------------------------------------------------------
    def replace_vectors(self, rows: list[tuple[int, dict[str, np.ndarray]]],
                        drop_models: list[str], embedding_model: str) -> None:
        with self.transaction() as tx:
            mrows = [mrow for mrow, _ in rows]
            tx.conn.execute("UPDATE memories SET embedding_model = %s WHERE mrow = ANY(%s)",
                            (embedding_model, mrows))
            for model in drop_models:
                info = self._model(tx.conn, model)
                if info is not None:
                    pgvec.delete_rows(tx.conn, info[0], mrows)
            for mrow, vectors in rows:
                tx.put_vectors(mrow, vectors)

    @contextmanager
    def bulk_load(self, maintenance_work_mem: str | None = None) -> Iterator[None]:
        """Load many rows without maintaining HNSW row by row: pgvector builds an index
        over loaded data several times faster than it inserts into one. Drops the HNSW
        indexes, yields, then (re)builds them. Exact (small-scope) search is unaffected
        meanwhile; a large-scope search scans exactly until the index is back."""
        models = self._q("SELECT tbl, dim FROM vector_models ORDER BY tbl")
        with self.transaction() as tx:
            for r in models:
                pgvec.drop_hnsw(tx.conn, r["tbl"])
        self._defer_hnsw = True
        try:
            yield
        finally:
            self._defer_hnsw = False
            # The build is fastest when the whole graph fits in maintenance_work_mem
            # (about 2.5 KB per 512-d vector); MEMVAULT_PG_MAINTENANCE_WORK_MEM overrides.
            self.build_vector_indexes(maintenance_work_mem or os.environ.get(
                "MEMVAULT_PG_MAINTENANCE_WORK_MEM", "1GB"))

    def build_vector_indexes(self, maintenance_work_mem: str = "1GB") -> None:
        """Create any missing HNSW index (after bulk_load, or to repair)."""
        models = self._q("SELECT tbl, dim FROM vector_models ORDER BY tbl")
        with self._pool.connection() as conn:
            conn.autocommit = True
            try:
                pgvec.build_hnsw(conn, models, maintenance_work_mem)
            finally:
                conn.autocommit = False

    def drop_vector_models(self, models: list[str]) -> None:
        with self.transaction() as tx:
            for model in models:
                info = self._model(tx.conn, model)
                if info is None:
                    continue
                tx.conn.execute(sql.SQL("DROP TABLE {}").format(sql.Identifier(info[0])))
                tx.conn.execute("DELETE FROM vector_models WHERE model = %s", (model,))
            tx.conn.execute("DELETE FROM word_vectors WHERE model = ANY(%s)", (list(models),))
        with self._models_lock:
            for model in models:
                self._models.pop(model, None)

    def compact(self) -> bool:
        """What erasure means on PostgreSQL. When a purge commits, no query can see the
        content any more, but the old row versions (the memory row, its TOAST chunks, every
        revision from before the blanking, the vectors) stay in the table files as dead
        tuples until VACUUM prunes them, and autovacuum waits for 20% of a table to be dead.
        So this prunes them now: VACUUM without index cleanup, SKIP_LOCKED (never wait on an
        autovacuum already at it), no tail truncation (which needs an exclusive lock).
        Measured on 10,000 memories with 512-d vectors: ~5 ms after a vacuumed state, while
        index cleanup would rebuild HNSW neighbour lists, ~0.2 s per 10,000 vectors on every
        purge, so that is left to autovacuum.

        VACUUM cannot prune a row version some snapshot may still see: another session's
        open transaction that began before the purge committed, a prepared transaction, a
        replication slot. Such a holder, or a table skipped for its lock, makes the result
        False (pending), and the store retries. True means: pruned, with no snapshot left
        that could read them. Limits: pruning compacts the page, which overwrites the dead
        bytes only if live tuples move over them; the HNSW index keeps the vector until its
        next index vacuum; the WAL, replicas and backups keep everything until recycled.
        The GIN index holds only term hashes (postgres_text.py)."""
        with self._erasing:
            return self._finish_erasure(only_if_free=False)

    def _finish_erasure(self, *, only_if_free: bool) -> bool:
        """`only_if_free`: skip the VACUUM while a snapshot holds the erased rows anyway."""
        through = self._last_revision()
        tables = ["memories", "revisions", "traces", "word_vectors", "online_evals"] + [
            r["tbl"] for r in self._q("SELECT tbl FROM vector_models ORDER BY tbl")]
        stmt = sql.SQL("VACUUM (INDEX_CLEANUP OFF, TRUNCATE OFF, SKIP_LOCKED) {}").format(
            sql.SQL(", ").join(sql.Identifier(t) for t in tables))
        skipped: list[str] = []

        def on_notice(d: psycopg.errors.Diagnostic) -> None:
            if d.sqlstate == "55P03":  # lock_not_available: SKIP_LOCKED skipped a table
                skipped.append(d.message_primary or "")

        try:
            with self._pool.connection() as conn:
                conn.autocommit = True  # VACUUM cannot run inside a transaction
                conn.add_notice_handler(on_notice)
                try:
                    held = snapshot_held(conn)
                    if not (held and only_if_free):
                        conn.execute(stmt)
                finally:
                    conn.remove_notice_handler(on_notice)
                    conn.autocommit = False
        except psycopg.OperationalError as e:
            raise StoreError(f"PostgreSQL: {e}") from e
        self._pending = held or bool(skipped)
        if not self._pending:
            self._mark_erased(through)
        return not self._pending


class _PgTx(SQLTx):
    store: PostgresStore
    _ph = staticmethod(pyformat_ph)
    _IntegrityError = psycopg.IntegrityError
    _ROW_LOCK = " FOR UPDATE OF m"
    _TURN_SEQ = _json_int("turn_seq")
    # The marker is transaction-local (set_config(..., true) = SET LOCAL) and names this one
    # memory; it is cleared before anything else runs in the transaction.
    _MARK_PURGE = "SELECT set_config('memvault.purging', %(mid)s, true)"
    _UNMARK_PURGE = "SELECT set_config('memvault.purging', '', true)"
    _DROP_TRACES_OF = ("DELETE FROM traces WHERE tenant = %(tenant)s AND user_id = %(user)s "
                       "AND memory_ids @> ARRAY[%(mid)s]::text[]")
    any_of = staticmethod(_any_of)
    as_list = staticmethod(list)

    def _insert_rows(self, query: str, rows: list[dict[str, Any]]) -> None:
        with self.conn.cursor() as cur:
            cur.executemany(query, rows)

    def __init__(self, store: PostgresStore, conn: psycopg.Connection[dict[str, Any]]) -> None:
        super().__init__(store, conn)
        self.new_models: dict[str, tuple[str, int]] = {}

    def _erasing(self, scope: Scope) -> None:
        xact_lock(self.conn, erasure_lock_name(scope.tenant, scope.user))

    def _serialise(self, key: str) -> None:
        # READ COMMITTED takes a fresh snapshot per statement: whoever waited here reads
        # what the holder committed.
        xact_lock(self.conn, key)

    def _vec_table(self, model: str, dim: int) -> str:
        """The model's vector table, created (with its indexes) the first time it is seen."""
        info = self.new_models.get(model) or self.store._model(self.conn, model)
        if info is None:
            # Serialise creators of the same model; the loser re-reads the registry after
            # the winner commits. Only the new table is locked, so no writer of other
            # tables can deadlock with this.
            xact_lock(self.conn, "vector_model\x1f" + model)
            info = self.store._model(self.conn, model)
            if info is None:
                info = (pgvec.table_name(model), dim)
                pgvec.create_table(self.conn, info[0], dim, hnsw=not self.store._defer_hnsw)
                self.conn.execute("INSERT INTO vector_models (model, dim, tbl) "
                                  "VALUES (%s, %s, %s)", (model, dim, info[0]))
            self.new_models[model] = info
        if info[1] != dim:
            raise StoreError(f"vectors of {model} have dimension {info[1]}, this one has {dim}; "
                             "run `memvault reindex` with a model of a new name")
        return info[0]

    def put_vectors(self, mrow: int, vectors: dict[str, np.ndarray]) -> None:
        for model, vec in vectors.items():
            v = np.asarray(vec, dtype=np.float32).reshape(-1)
            pgvec.upsert(self.conn, self._vec_table(model, int(v.shape[0])), mrow, v)

    def _insert_row(self, params: dict[str, Any], terms: str) -> int:
        row = self.conn.execute(insert_sql("memories", (*MEMORY_COLUMNS, "terms"), pyformat_ph)
                                + " RETURNING mrow", {**params, "terms": terms}).fetchone()
        assert row is not None
        return int(row["mrow"])

    def _update_row(self, params: dict[str, Any], terms: str | None) -> int:
        sets = [f"{c} = %({c})s" for c in MEMORY_COLUMNS if c != "id"]
        if terms is not None:
            sets.append("terms = %(terms)s")
            params = {**params, "terms": terms}
        row = self.conn.execute(
            f"UPDATE memories SET {', '.join(sets)} WHERE id = %(id)s "
            "AND tenant = %(tenant)s AND user_id = %(user_id)s RETURNING mrow",
            params).fetchone()
        if row is None:
            raise vanished(params["id"])
        return int(row["mrow"])

    def _put_terms(self, mrow: int, scope: Scope, terms: str) -> None:
        pass  # the terms went in with the row (tsv is a generated column of it)

    def insert_many(self, items: list[tuple[Memory, str, str, dict[str, np.ndarray]]]) -> None:
        """Bulk insert (import): pipelined INSERTs for the rows, binary COPY for vectors."""
        if not items:
            return
        params = [{**memory_params(memory, content_hash), "terms": terms}
                  for memory, content_hash, terms, _ in items]
        try:
            with self.conn.cursor() as cur:
                cur.executemany(insert_sql("memories", (*MEMORY_COLUMNS, "terms"),
                                           pyformat_ph), params)
        except psycopg.IntegrityError as e:
            raise ConflictError(f"cannot store memories: {e}") from None
        self._fault("after_memory_row")
        self._fault("after_text_index")
        ids = [m.id for m, *_ in items]
        mrows = {r["id"]: (int(r["mrow"]), r["tenant"], r["user_id"]) for r in self.conn.execute(
            "SELECT id, mrow, tenant, user_id FROM memories WHERE id = ANY(%s)", (ids,))}
        by_model: dict[str, list[tuple[int, str, str, np.ndarray]]] = {}
        for memory, _, _, vectors in items:
            mrow, tenant, user_id = mrows[memory.id]
            for model, vec in vectors.items():
                by_model.setdefault(model, []).append(
                    (mrow, tenant, user_id, np.asarray(vec, dtype=np.float32).reshape(-1)))
        for model, rows in by_model.items():
            pgvec.copy_rows(self.conn, self._vec_table(model, int(rows[0][3].shape[0])), rows)
        for memory, *_ in items:
            self.say(memory.scope.tenant, [memory.content])
        self._fault("after_vectors")

    def append_revisions(self, revisions: list[Revision]) -> None:
        if not revisions:
            return
        try:
            with self.conn.cursor() as cur:
                cur.executemany(insert_sql("revisions", REVISION_COLUMNS, pyformat_ph),
                                [revision_params(r) for r in revisions])
        except psycopg.IntegrityError as e:
            raise ConflictError(f"cannot record revisions: {e}") from None
        self.emit(imported_heads(revisions), imported=True)
        self._fault("after_revision")

    def _delete_memory(self, scope: Scope, memory_id: str) -> None:
        where, params = scope_where(scope, pyformat_ph)
        row = self.conn.execute(f"SELECT m.mrow FROM memories m WHERE m.id = %(id)s "
                                f"AND {where} FOR UPDATE", {"id": memory_id, **params}).fetchone()
        if row is None:
            raise vanished(memory_id)
        mrow = int(row["mrow"])
        for r in self.conn.execute("SELECT tbl FROM vector_models").fetchall():
            pgvec.delete_rows(self.conn, r["tbl"], [mrow])
        # The terms and tsv are columns of the row: they go with it.
        self.conn.execute("DELETE FROM memories WHERE mrow = %s", (mrow,))

    def _for_each(self, query: str, params: dict[str, Any], column: str,
                  values: list[str]) -> None:
        self.conn.execute(f"{query} AND {column} = ANY(%(each)s)",
                          {**params, "each": list(values)})

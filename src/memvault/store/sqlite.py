"""The embedded store: one SQLite file in WAL mode.

Why sqlean.py and not the stdlib sqlite3: it bundles a current SQLite (3.50) whose FTS5
has `secure-delete`, so a purge removes terms from the full-text index in place instead of
leaving them in old segments; the stdlib build here is 3.40.

Scope at the index level: the full-text rows carry a scope term (a hash of tenant and
user) that every MATCH must contain, and vector reads go through the (tenant, user_id)
index of the memory table. No query reads another scope's rows and filters them later.

Connections: one writer, behind a lock (every transaction, so at most one write at a time
in this process, as SQLite allows), and read-only connections from a pool for the reads of
threads that hold no transaction (sqlite_readers.py): in WAL mode they read the last commit
beside the writer instead of queueing behind it.
"""

from __future__ import annotations

import hashlib
import json
import os
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import numpy as np
import sqlean as sqlite3

from ..bm25 import TextCandidates
from ..errors import StoreError
from ..model import Memory, Revision, Scope
from ..validtime import ValidWindow
from ..vecsearch import nearest_each
from .base import FaultHook
from .codec import (
    MEMORY_COLUMNS,
    MEMORY_SELECT,
    REVISION_FIELDS,
    insert_sql,
    live_sql,
    memory_from_row,
    revision_from_row,
    scope_where,
    sqlite_ph,
)
from .leadership import Lease, LocalLease, file_lease
from .sql_store import SQLStore
from .sql_tx import ERASURE_DONE, SQLTx, vanished
from .sqlite_readers import ReaderPool, WriterLock
from .sqlite_schema import MIGRATIONS, migrate
from .tracepack import compress, names, pack_ids, unpack_ids
from .tracequeue import TraceBusy, TraceQueue

__all__ = ["MIGRATIONS", "SQLiteStore", "scope_term"]

_BUSY_MS = 30_000  # how long a statement waits for another process's lock
_CHECKPOINT_WAIT_MS = 200  # how long purge's checkpoint waits for readers to finish
_TRACE_TRY_MS = 20  # how long one try of the trace thread waits for another's lock
_SQLITE_BUSY = 5
# Open stores, for the fork handler below (weakly: a store dropped unclosed just goes).
_OPEN: weakref.WeakSet[SQLiteStore] = weakref.WeakSet()
# Connections a forked child inherited: never used, and never closed (closing a copy of
# the parent's connection could undo the parent's locks or checkpoint under it).
_INHERITED: list[Any] = []


def scope_term(scope: Scope) -> str:
    """The full-text term that pins a row to its tenant and user."""
    digest = hashlib.blake2b(f"{scope.tenant}\x1f{scope.user}".encode(), digest_size=12)
    return "s" + digest.hexdigest()


_INSERT_MEMORY = insert_sql("memories", (*MEMORY_COLUMNS, "n_terms"), sqlite_ph)


def _any_of(column: str, name: str) -> str:
    # A list as one JSON parameter: one statement, however many values.
    return f"{column} IN (SELECT value FROM json_each(:{name}))"


def _fts_quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _json_int(key: str) -> str:
    """metadata's `key` when it holds a whole number, else NULL."""
    return (f"CASE WHEN json_type(m.metadata, '$.{key}') = 'integer' "
            f"THEN json_extract(m.metadata, '$.{key}') END")


class _ClosedConnection:
    """Stands in for the connection once the store is closed: any use is a StoreError
    that says so, not the driver's ProgrammingError."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def __getattr__(self, name: str) -> Any:
        raise StoreError(f"{self._path}: the store is closed")


class SQLiteStore(SQLStore):
    _ph = staticmethod(sqlite_ph)
    _ROW_KEY = "rowid"
    _IntegrityError = sqlite3.IntegrityError
    _TRIM_TRACES = ("DELETE FROM traces WHERE tenant = :tenant AND user_id = :user AND "
                    "trace_id NOT IN (SELECT trace_id FROM traces WHERE tenant = :tenant "
                    "AND user_id = :user ORDER BY at DESC, trace_id DESC LIMIT :keep)")
    # traces.memory_ids: a compressed JSON array, a BLOB (plain JSON text before; a
    # column of any type takes either, no migration); purge tests it with trace_names().
    _id_list = staticmethod(pack_ids)
    _ids_of = staticmethod(unpack_ids)
    _json_int = staticmethod(_json_int)
    _trace_payload = staticmethod(compress)  # packed JSON, zlib: a BLOB in `payload`
    any_of = staticmethod(_any_of)
    as_list = staticmethod(json.dumps)

    def __init__(self, path: str | os.PathLike[str], *, synchronous: str = "FULL") -> None:
        # A private in-memory database exists only in its one connection: no readers.
        self._in_memory = str(path) == ":memory:"
        # Made absolute once, here: reader connections open the file again later, and a
        # relative path would then name a file in whatever the current directory is by then.
        self.path = Path(path) if self._in_memory else Path(path).absolute()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fault_hook: FaultHook | None = None
        self._lock = WriterLock()
        self._readers = ReaderPool(self._open_reader, str(self.path))
        self._closed = False
        self._pending = False  # an erasure not yet verified gone from the files (compact)
        self._synchronous = synchronous.upper()
        try:
            self._db = self._open_writer()
            self._traces = TraceQueue(self._lock, self._write_queued,
                                      try_write=self._try_queued)
            with self._lock:
                migrate(self._db)
                # An erasure left pending (by a close or a crash while a reader held it).
                self._pending = self._erasure_pending()
                if self._pending:
                    self.compact()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: cannot open as a memvault store ({e})") from None
        _OPEN.add(self)

    # --- plumbing ---------------------------------------------------------------------
    def schema_version(self, timeout: float | None = None) -> int:
        return int(self._q("SELECT MAX(version) FROM schema_migrations")[0][0] or 0)

    def reader_count(self) -> int:
        """Read-only connections open and idle (the pool's; for tests and diagnostics)."""
        return self._readers.open_count()

    def _open_writer(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                             timeout=_BUSY_MS / 1000)
        db.row_factory = sqlite3.Row
        # Only takes effect on a new file; 8 KiB pages hold a 512-d vector row whole.
        db.execute("PRAGMA page_size = 8192")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute(f"PRAGMA synchronous = {self._synchronous}")
        db.execute("PRAGMA secure_delete = ON")
        db.execute("PRAGMA foreign_keys = ON")
        # Purge's test of a trace's memory_ids column (_SQLiteTx._DROP_TRACES_OF).
        db.create_function("trace_names", 2, names, deterministic=True)
        return db

    def before_fork(self) -> None:
        """Hold the store's lock across a fork: no thread is then inside the writer
        connection (a thread stopped there by the fork would leave SQLite's own state in
        the child locked for good). It waits for a write in progress; the trace thread
        lets go within milliseconds even while another process holds the database."""
        self._lock.__enter__()

    def after_fork_in_parent(self) -> None:
        self._lock.__exit__(None, None, None)

    def after_fork_in_child(self) -> None:
        """In a forked child: the forking thread's hold on the lock is the parent's; a
        reader of another thread may have been mid-read. The child starts afresh: a new
        lock, a new writer connection, an empty reader pool, and none of the parent's
        queued traces (the parent writes those)."""
        self._lock = WriterLock()
        self._traces.after_fork_in_child(self._lock)
        _INHERITED.extend(self._readers.after_fork_in_child())
        if self._closed or self._in_memory:
            return  # a private in-memory database exists only in the connection it has
        _INHERITED.append(self._db)
        self._db = self._open_writer()

    def _open_reader(self) -> sqlite3.Connection:
        conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                               timeout=_BUSY_MS / 1000)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA query_only = ON")
        return conn

    def try_lead(self, name: str) -> Lease | None:
        return LocalLease() if self._in_memory else file_lease(self.path, name)

    def close(self) -> None:
        if not self._closed:
            self._traces.close()
        with self._lock:
            if self._closed:
                return
            if self._pending:
                with suppress(sqlite3.Error):  # else it stays recorded for the next open
                    self.compact()
            self._closed = True
            _OPEN.discard(self)
            self._readers.close()  # a reader in use is closed when its read is done
            self._db.close()
            self._db = _ClosedConnection(self.path)  # type: ignore[assignment]

    @contextmanager
    def _trace_tx(self) -> Iterator[_SQLiteTx]:
        # A commit that is not fsynced (WAL, synchronous=NORMAL): readable at once, on disk
        # with the next FULL commit's fsync of the WAL or at a clean close; a power cut
        # may lose it, never corrupt the file. Inside an open transaction: that one's.
        with self._lock:
            relax = not self._db.in_transaction and self._synchronous in ("FULL", "EXTRA")
            if relax:
                self._db.execute("PRAGMA synchronous = NORMAL")
            try:
                with self.transaction() as tx:
                    yield tx
            finally:
                if relax and not self._closed:
                    self._db.execute(f"PRAGMA synchronous = {self._synchronous}")

    def write_trace_later(self, scope: Scope, trace: dict[str, Any], *, keep_after: int,
                          max_per_scope: int, erased_after: int | None = None) -> None:
        self._traces.put(scope, trace, keep_after=keep_after, max_per_scope=max_per_scope,
                         erased_after=erased_after)

    def _write_queued(self, scope: Scope, trace: dict[str, Any], **kw: Any) -> None:
        # An erasure committed since the recall's read began (by any process) of a memory
        # the trace names drops it, in write_trace's own transaction (SQLStore).
        self.write_trace(scope, trace, **kw)  # through the attribute (tests wrap it)

    def _try_queued(self, scope: Scope, trace: dict[str, Any], **kw: Any) -> None:
        # The store's thread: a short try, so that it never sits inside the database (the
        # store's lock held) while another process writes (tracequeue.py).
        with self._lock:
            self._db.execute(f"PRAGMA busy_timeout = {_TRACE_TRY_MS}")
            try:
                self.write_trace(scope, trace, **kw)
            except sqlite3.OperationalError as e:
                if getattr(e, "sqlite_errorcode", None) == _SQLITE_BUSY \
                        or "database is locked" in str(e):
                    raise TraceBusy from None
                raise
            finally:
                if not self._closed:
                    self._db.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")

    def flush_traces(self) -> None:
        self._traces.flush()

    @contextmanager
    def transaction(self) -> Iterator[_SQLiteTx]:
        with self._lock:
            if self._db.in_transaction:
                # This thread already holds the (re-entrant) lock and an open transaction:
                # nest as a savepoint, so an outer caller (the server's job runner) commits
                # a verb's writes together with its own bookkeeping, or none of them.
                self._db.execute("SAVEPOINT nested")
                try:
                    nested = _SQLiteTx(self, self._db)
                    yield nested
                    nested.store_words()
                except BaseException:
                    self._db.execute("ROLLBACK TO nested")
                    self._db.execute("RELEASE nested")
                    raise
                self._db.execute("RELEASE nested")
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                tx = _SQLiteTx(self, self._db)
                yield tx
                tx.store_words()  # in the transaction: a purge that follows sees them
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")
            if self._pending:
                # A reader held back an erasure: try again, without waiting for it. The
                # write is committed: a failure here leaves the erasure pending, no more.
                with suppress(sqlite3.Error):
                    self._finish_erasure(wait_ms=0)

    def _q(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        if self._in_memory or self._lock.held():
            # This thread's own transaction (or maintenance): the writer's connection is
            # the one that sees its uncommitted writes.
            with self._lock:
                return self._db.execute(sql, params).fetchall()
        # Otherwise the last commit, from a reader, without waiting for the writer. The
        # statement runs to its end here: no read transaction stays open after it.
        with self._readers.connection() as conn:
            return conn.execute(sql, params).fetchall()

    def _execute_many(self, query: str, rows: Iterable[dict[str, Any]]) -> None:
        with self.transaction() as tx:
            tx.conn.executemany(query, rows)

    def _tags_where(self, tags: list[str]) -> tuple[list[str], dict[str, Any]]:
        return ([f"EXISTS (SELECT 1 FROM json_each(m.tags) WHERE value = :tag{i})"
                 for i in range(len(tags))], {f"tag{i}": tag for i, tag in enumerate(tags)})

    # --- meta ---------------------------------------------------------------------------
    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) "
                             "DO UPDATE SET value = excluded.value", (key, value))

    # --- reads ---------------------------------------------------------------------------
    def fetch(self, scope: Scope, ids: list[str]) -> list[Memory]:
        if not ids:
            return []
        where, params = scope_where(scope, sqlite_ph)
        marks = ", ".join(f":id{i}" for i in range(len(ids)))
        params.update({f"id{i}": v for i, v in enumerate(ids)})
        return [memory_from_row(r) for r in
                self._q(f"{MEMORY_SELECT} WHERE m.id IN ({marks}) AND {where}", params)]

    def revisions_as_of(self, scope: Scope, at: int) -> list[Revision]:
        where, params = scope_where(scope, sqlite_ph, alias="r")
        sql = (f"SELECT {REVISION_FIELDS} FROM revisions r "
               f"JOIN (SELECT memory_id, MAX(seq) AS seq FROM revisions r WHERE {where} "
               "AND r.at <= :at GROUP BY memory_id) last ON last.seq = r.seq ORDER BY r.seq")
        return [revision_from_row(r) for r in self._q(sql, {"at": at, **params})]

    def text_candidates(self, scope: Scope, terms: list[str], now: int, limit: int, *,
                        valid: ValidWindow | None = None) -> TextCandidates:
        tc = TextCandidates()
        if not terms:
            return tc
        where, params = scope_where(scope, sqlite_ph)
        live, vparams = live_sql(sqlite_ph, valid)
        params.update(vparams, now=now)
        row = self._q(f"SELECT COUNT(*), AVG(m.n_terms) FROM memories m WHERE {where} "
                      f"AND {live}", params)[0]
        tc.n_docs, tc.avg_len = int(row[0]), float(row[1] or 0.0)
        if tc.n_docs == 0:
            return tc
        pin = f"scope : {_fts_quote(scope_term(scope))}"
        # CROSS JOIN pins the join order: the full-text index drives, then the scope and
        # liveness checks per hit. With a plain JOIN the planner walks the scope's rows and
        # re-runs the MATCH for each (measured ~7 ms per term at 100 memories per user).
        join = ("FROM memories_fts f CROSS JOIN memories m ON m.rowid = f.rowid "
                f"WHERE memories_fts MATCH :match AND {where} AND {live}")
        for t in terms:
            tc.df[t] = int(self._q(f"SELECT COUNT(*) {join}",
                                   {**params, "match": f"{pin} AND body : {_fts_quote(t)}"})[0][0])
        match = f"{pin} AND body : (" + " OR ".join(_fts_quote(t) for t in terms) + ")"
        # FTS5's own bm25 (table-wide statistics) only picks the candidates; the score
        # that counts is computed per scope in bm25.py.
        rows = self._q(f"SELECT m.id, f.body {join} ORDER BY bm25(memories_fts, 0.0, 1.0) "
                       "LIMIT :limit", {**params, "match": match, "limit": limit})
        tc.docs = [(r[0], r[1].split()) for r in rows]
        return tc

    def vector_candidates(self, scope: Scope, model: str, query: np.ndarray, now: int,
                          limit: int, *,
                          valid: ValidWindow | None = None) -> list[tuple[str, float]]:
        q = np.asarray(query, dtype=np.float32)
        return self.vector_candidates_each(scope, model, q[None, :], now, limit,
                                           valid=valid)[0]

    def vector_candidates_each(self, scope: Scope, model: str, queries: np.ndarray,
                               now: int, limit: int, *, valid: ValidWindow | None = None
                               ) -> list[list[tuple[str, float]]]:
        # Exact search: one read of the scope's vectors, one product for all queries.
        where, params = scope_where(scope, sqlite_ph)
        live, vparams = live_sql(sqlite_ph, valid)
        sql = (f"SELECT m.id, v.vec FROM memories m JOIN vectors v ON v.mrow = m.rowid "
               f"AND v.model = :model WHERE {where} AND {live}")
        qs = np.asarray(queries, dtype=np.float32)
        rows = self._q(sql, {"model": model, "now": now, **params, **vparams})
        if not rows or limit <= 0:
            return [[] for _ in range(len(qs))]
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        matrix = matrix.reshape(len(rows), -1)
        if matrix.shape[1] != qs.shape[1]:
            raise StoreError(f"vectors of {model} have dimension {matrix.shape[1]}, "
                             f"the query has {qs.shape[1]}; run `memvault reindex`")
        return nearest_each([r[0] for r in rows], matrix, qs, limit)

    # --- maintenance -------------------------------------------------------------------
    def replace_vectors(self, rows: list[tuple[int, dict[str, np.ndarray]]],
                        drop_models: list[str], embedding_model: str) -> None:
        with self.transaction() as tx:
            for mrow, vectors in rows:
                tx.conn.execute("UPDATE memories SET embedding_model = ? WHERE rowid = ?",
                                (embedding_model, mrow))
                for model in drop_models:
                    tx.conn.execute("DELETE FROM vectors WHERE mrow = ? AND model = ?",
                                    (mrow, model))
                tx.put_vectors(mrow, vectors)

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        # Nothing to defer: SQLite's indexes are B-trees kept in step row by row.
        yield

    def drop_vector_models(self, models: list[str]) -> None:
        with self.transaction() as tx:
            for model in models:
                tx.conn.execute("DELETE FROM vectors WHERE model = ?", (model,))
                tx.conn.execute("DELETE FROM word_vectors WHERE model = ?", (model,))

    def compact(self) -> bool:
        """Erased content is overwritten in place (secure_delete, FTS5 secure-delete), but
        in WAL mode the overwriting pages sit in the WAL while the db file keeps the old
        ones, and the WAL keeps older frames with the content too. A TRUNCATE checkpoint
        copies every frame into the db file and empties the WAL; its result is checked,
        since another connection's read snapshot makes it give up (busy) with the bytes
        still in both files. It waits for readers only briefly: every writer of this
        process waits on the store lock meanwhile (reads go on, from the reader pool)."""
        with self._lock:
            return self._finish_erasure(wait_ms=_CHECKPOINT_WAIT_MS)

    def _finish_erasure(self, *, wait_ms: int) -> bool:
        # No reader opened before the erasure keeps its cached pages (idle ones close now,
        # those in use when their read is done). Their reads in flight hold the checkpoint
        # back for wait_ms at most; new reads start after the backfill and do not.
        self._readers.retire()
        through = self._last_revision()
        self._pending = not self._checkpoint(wait_ms)
        if not self._pending and through > self._meta_int(ERASURE_DONE):
            self._mark_erased(through)
            self._checkpoint(0)  # that write went to the WAL: empty it again if it can be
        return not self._pending

    def _checkpoint(self, wait_ms: int) -> bool:
        """A TRUNCATE checkpoint; True when it completed (the WAL is empty)."""
        if self._db.in_transaction:  # inside a caller's transaction: its commit retries
            return False
        self._db.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
        try:
            busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        finally:
            self._db.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")
        return int(busy) == 0


class _SQLiteTx(SQLTx):
    # BEGIN IMMEDIATE already holds the write lock: reads here are serialised, so nothing
    # to lock (SQLTx._serialise, _ROW_LOCK).
    _ph = staticmethod(sqlite_ph)
    _IntegrityError = sqlite3.IntegrityError
    _TURN_SEQ = _json_int("turn_seq")
    # The mark the revisions_no_update trigger looks for, in meta.
    _MARK_PURGE = "INSERT INTO meta (key, value) VALUES ('purging', :mid)"
    _UNMARK_PURGE = "DELETE FROM meta WHERE key = 'purging'"
    _DROP_TRACES_OF = ("DELETE FROM traces WHERE tenant = :tenant AND user_id = :user AND "
                       "trace_names(memory_ids, :mid)")
    # One writer at a time: event ids given at insert commit in order (outbox.py).
    _NEW_EVENT_ID = "(SELECT COALESCE(MAX(id), 0) + 1 FROM events)"
    any_of = staticmethod(_any_of)
    as_list = staticmethod(json.dumps)

    def _insert_rows(self, query: str, rows: list[dict[str, Any]]) -> None:
        self.conn.executemany(query, rows)

    def _rowid(self, memory_id: str) -> int:
        row = self.conn.execute("SELECT rowid FROM memories WHERE id = ?",
                                (memory_id,)).fetchone()
        if row is None:
            raise vanished(memory_id)
        return int(row[0])

    def put_vectors(self, mrow: int, vectors: dict[str, np.ndarray]) -> None:
        for model, vec in vectors.items():
            self.conn.execute("INSERT OR REPLACE INTO vectors (mrow, model, vec) "
                              "VALUES (?, ?, ?)",
                              (mrow, model, np.asarray(vec, dtype=np.float32).tobytes()))

    def _put_terms(self, mrow: int, scope: Scope, terms: str) -> None:
        self.conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (mrow,))
        self.conn.execute("INSERT INTO memories_fts (rowid, scope, body) VALUES (?, ?, ?)",
                          (mrow, scope_term(scope), terms))
        self.conn.execute("UPDATE memories SET n_terms = ? WHERE rowid = ?",
                          (len(terms.split()), mrow))

    def _new_terms(self, mrow: int, scope: Scope, terms: str) -> None:
        # Its n_terms went in with the row, and OR REPLACE drops whatever a reused rowid
        # might have left in the index: one statement instead of three (a bulk import
        # writes three per memory besides).
        self.conn.execute("INSERT OR REPLACE INTO memories_fts (rowid, scope, body) "
                          "VALUES (?, ?, ?)", (mrow, scope_term(scope), terms))

    def _insert_row(self, params: dict[str, Any], terms: str) -> int:
        cur = self.conn.execute(_INSERT_MEMORY, {**params, "n_terms": len(terms.split())})
        return int(cur.lastrowid)

    def _update_row(self, params: dict[str, Any], terms: str | None) -> int:
        sets = ", ".join(f"{c} = :{c}" for c in MEMORY_COLUMNS if c != "id")
        self.conn.execute(f"UPDATE memories SET {sets} WHERE id = :id", params)
        return self._rowid(params["id"])

    def _delete_memory(self, scope: Scope, memory_id: str) -> None:
        mrow = self._rowid(memory_id)
        self.conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (mrow,))
        self.conn.execute("DELETE FROM vectors WHERE mrow = ?", (mrow,))
        self.conn.execute("DELETE FROM memories WHERE rowid = ?", (mrow,))

    def _for_each(self, query: str, params: dict[str, Any], column: str,
                  values: list[str]) -> None:
        self.conn.executemany(f"{query} AND {column} = :each",
                              [{**params, "each": v} for v in values])


_FORKING: list[SQLiteStore] = []  # the stores whose locks the forking thread holds


def _before_fork() -> None:
    for store in list(_OPEN):
        store.before_fork()
        _FORKING.append(store)


def _after_fork_in_parent() -> None:
    while _FORKING:
        _FORKING.pop().after_fork_in_parent()


def _after_fork_in_child() -> None:
    _FORKING.clear()
    for store in list(_OPEN):
        store.after_fork_in_child()


os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                    after_in_child=_after_fork_in_child)

"""The embedded store: one SQLite file in WAL mode.

Why sqlean.py and not the stdlib sqlite3: it bundles a current SQLite (3.50) whose FTS5
has `secure-delete`, so a purge removes terms from the full-text index in place instead of
leaving them in old segments; the stdlib build here is 3.40.

Scope at the index level: the full-text rows carry a scope term (a hash of tenant and
user) that every MATCH must contain, and vector reads go through the (tenant, user_id)
index of the memory table. No query reads another scope's rows and filters them later.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import sqlean as sqlite3

from ..bm25 import TextCandidates
from ..errors import ConflictError, StoreError
from ..model import Memory, Revision, Scope
from ..vecsearch import nearest_each
from .base import FaultHook, ListFilter
from .codec import (
    MEMORY_COLUMNS,
    REVISION_COLUMNS,
    group_revisions,
    list_where,
    live_where,
    memory_from_row,
    memory_params,
    revision_from_row,
    revision_params,
    scope_where,
    sqlite_ph,
)
from .server_tables import ServerTables
from .sqlite_schema import MIGRATIONS, migrate

__all__ = ["MIGRATIONS", "SQLiteStore", "scope_term"]

_LIVE = live_where(sqlite_ph)


def scope_term(scope: Scope) -> str:
    """The full-text term that pins a row to its tenant and user."""
    digest = hashlib.blake2b(f"{scope.tenant}\x1f{scope.user}".encode(), digest_size=12)
    return "s" + digest.hexdigest()


def _scope_sql(scope: Scope, alias: str = "m") -> tuple[str, dict[str, str]]:
    return scope_where(scope, sqlite_ph, alias=alias)


def _exact_scope_sql(scope: Scope, alias: str = "m") -> tuple[str, dict[str, str]]:
    return scope_where(scope, sqlite_ph, alias=alias, exact=True)


def _fts_quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


_MEM_SELECT = "SELECT " + ", ".join(f"m.{c}" for c in MEMORY_COLUMNS) + " FROM memories m"
_REV_SELECT = "SELECT " + ", ".join(REVISION_COLUMNS) + " FROM revisions"


class SQLiteStore(ServerTables):
    def __init__(self, path: str | os.PathLike[str], *, synchronous: str = "FULL") -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fault_hook: FaultHook | None = None
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None,
                                       check_same_thread=False, timeout=30.0)
            self._db.row_factory = sqlite3.Row
            # Only takes effect on a new file; 8 KiB pages hold a 512-d vector row whole.
            self._db.execute("PRAGMA page_size = 8192")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute(f"PRAGMA synchronous = {synchronous}")
            self._db.execute("PRAGMA secure_delete = ON")
            self._db.execute("PRAGMA foreign_keys = ON")
            with self._lock:
                migrate(self._db)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: cannot open as a memvault store ({e})") from None

    # --- plumbing ---------------------------------------------------------------------
    def schema_version(self, timeout: float | None = None) -> int:
        row = self._db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[_SQLiteTx]:
        with self._lock:
            if self._db.in_transaction:
                # This thread already holds the (re-entrant) lock and an open transaction:
                # nest as a savepoint, so an outer caller (the server's job runner) commits
                # a verb's writes together with its own bookkeeping, or none of them.
                self._db.execute("SAVEPOINT nested")
                try:
                    yield _SQLiteTx(self)
                except BaseException:
                    self._db.execute("ROLLBACK TO nested")
                    self._db.execute("RELEASE nested")
                    raise
                self._db.execute("RELEASE nested")
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield _SQLiteTx(self)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")

    def _fault(self, point: str) -> None:
        if self.fault_hook is not None:
            self.fault_hook(point)

    def _q(self, sql: str, params: Any = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    _ph = staticmethod(sqlite_ph)

    def _execute(self, query: str, params: dict[str, Any]) -> int:
        with self.transaction() as tx:
            return int(tx.db.execute(query, params).rowcount)

    def _execute_many(self, query: str, rows: Iterable[dict[str, Any]]) -> None:
        with self.transaction() as tx:
            tx.db.executemany(query, rows)

    # --- meta ---------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        rows = self._q("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) "
                             "DO UPDATE SET value = excluded.value", (key, value))

    # --- reads ---------------------------------------------------------------------------
    def get(self, scope: Scope, memory_id: str) -> Memory | None:
        where, params = _scope_sql(scope)
        rows = self._q(f"{_MEM_SELECT} WHERE m.id = :id AND {where}", {"id": memory_id, **params})
        return memory_from_row(rows[0]) if rows else None

    def fetch(self, scope: Scope, ids: list[str]) -> list[Memory]:
        if not ids:
            return []
        where, params = _scope_sql(scope)
        marks = ", ".join(f":id{i}" for i in range(len(ids)))
        params.update({f"id{i}": v for i, v in enumerate(ids)})
        return [memory_from_row(r) for r in
                self._q(f"{_MEM_SELECT} WHERE m.id IN ({marks}) AND {where}", params)]

    def list(self, scope: Scope, flt: ListFilter) -> list[Memory]:
        where, params = _scope_sql(scope)
        filters, fparams = list_where(flt, sqlite_ph)
        clauses = [where, *filters]
        params.update(fparams)
        for i, tag in enumerate(flt.tags):
            clauses.append(f"EXISTS (SELECT 1 FROM json_each(m.tags) WHERE value = :tag{i})")
            params[f"tag{i}"] = tag
        params.update({"limit": flt.limit, "offset": flt.offset})
        sql = (f"{_MEM_SELECT} WHERE {' AND '.join(clauses)} "
               "ORDER BY m.updated_at DESC, m.id LIMIT :limit OFFSET :offset")
        return [memory_from_row(r) for r in self._q(sql, params)]

    def revisions(self, scope: Scope, memory_id: str) -> list[Revision]:
        where, params = _scope_sql(scope, alias="revisions")
        rows = self._q(f"{_REV_SELECT} WHERE memory_id = :mid AND {where} ORDER BY seq",
                       {"mid": memory_id, **params})
        return [revision_from_row(r) for r in rows]

    def revisions_as_of(self, scope: Scope, at: int) -> list[Revision]:
        where, params = _scope_sql(scope, alias="r")
        sql = (f"SELECT {', '.join('r.' + c for c in REVISION_COLUMNS)} FROM revisions r "
               f"JOIN (SELECT memory_id, MAX(seq) AS seq FROM revisions r WHERE {where} "
               "AND r.at <= :at GROUP BY memory_id) last ON last.seq = r.seq ORDER BY r.seq")
        return [revision_from_row(r) for r in self._q(sql, {"at": at, **params})]

    def scope_revisions(self, scope: Scope) -> Iterator[tuple[str, list[Revision]]]:
        where, params = _scope_sql(scope, alias="revisions")
        rows = self._q(f"{_REV_SELECT} WHERE {where} ORDER BY seq", params)
        yield from group_revisions(revision_from_row(r) for r in rows)

    def text_candidates(self, scope: Scope, terms: list[str], now: int,
                        limit: int) -> TextCandidates:
        tc = TextCandidates()
        if not terms:
            return tc
        where, params = _scope_sql(scope)
        params["now"] = now
        row = self._q(f"SELECT COUNT(*), AVG(m.n_terms) FROM memories m WHERE {where} "
                      f"AND {_LIVE}", params)[0]
        tc.n_docs, tc.avg_len = int(row[0]), float(row[1] or 0.0)
        if tc.n_docs == 0:
            return tc
        pin = f"scope : {_fts_quote(scope_term(scope))}"
        # CROSS JOIN pins the join order: the full-text index drives, then the scope and
        # liveness checks per hit. With a plain JOIN the planner walks the scope's rows and
        # re-runs the MATCH for each (measured ~7 ms per term at 100 memories per user).
        join = ("FROM memories_fts f CROSS JOIN memories m ON m.rowid = f.rowid "
                f"WHERE memories_fts MATCH :match AND {where} AND {_LIVE}")
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
                          limit: int) -> list[tuple[str, float]]:
        q = np.asarray(query, dtype=np.float32)
        return self.vector_candidates_each(scope, model, q[None, :], now, limit)[0]

    def vector_candidates_each(self, scope: Scope, model: str, queries: np.ndarray,
                               now: int, limit: int) -> list[list[tuple[str, float]]]:
        # Exact search: one read of the scope's vectors, one product for all queries.
        where, params = _scope_sql(scope)
        sql = (f"SELECT m.id, v.vec FROM memories m JOIN vectors v ON v.mrow = m.rowid "
               f"AND v.model = :model WHERE {where} AND {_LIVE}")
        qs = np.asarray(queries, dtype=np.float32)
        rows = self._q(sql, {"model": model, "now": now, **params})
        if not rows or limit <= 0:
            return [[] for _ in range(len(qs))]
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        matrix = matrix.reshape(len(rows), -1)
        if matrix.shape[1] != qs.shape[1]:
            raise StoreError(f"vectors of {model} have dimension {matrix.shape[1]}, "
                             f"the query has {qs.shape[1]}; run `memvault reindex`")
        return nearest_each([r[0] for r in rows], matrix, qs, limit)

    # --- traces ------------------------------------------------------------------------
    def write_trace(self, scope: Scope, trace: dict[str, Any], *, keep_after: int,
                    max_per_scope: int) -> None:
        with self.transaction() as tx:
            try:
                tx.db.execute(
                    "INSERT INTO traces (trace_id, tenant, user_id, kind, at, strategy_hash, "
                    "memory_ids, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (trace["trace_id"], scope.tenant, scope.user, trace["kind"], trace["at"],
                     trace["strategy_hash"], json.dumps(trace["memory_ids"]),
                     json.dumps(trace, ensure_ascii=False, sort_keys=True)))
            except sqlite3.IntegrityError:
                raise ConflictError(f"trace id {trace['trace_id']} is already in use; "
                                    "leave it out to get a new one") from None
            # Retention: by age, and a cap per scope (oldest go first).
            tx.db.execute("DELETE FROM traces WHERE tenant = ? AND user_id = ? AND at < ?",
                          (scope.tenant, scope.user, keep_after))
            tx.db.execute(
                "DELETE FROM traces WHERE tenant = ? AND user_id = ? AND trace_id NOT IN "
                "(SELECT trace_id FROM traces WHERE tenant = ? AND user_id = ? "
                "ORDER BY at DESC, trace_id DESC LIMIT ?)",
                (scope.tenant, scope.user, scope.tenant, scope.user, max_per_scope))

    def get_trace(self, scope: Scope, trace_id: str) -> dict[str, Any] | None:
        rows = self._q("SELECT payload FROM traces WHERE trace_id = ? AND tenant = ? "
                       "AND user_id = ?", (trace_id, scope.tenant, scope.user))
        return json.loads(rows[0][0]) if rows else None

    def list_traces(self, scope: Scope, limit: int) -> list[dict[str, Any]]:
        rows = self._q("SELECT payload FROM traces WHERE tenant = ? AND user_id = ? "
                       "ORDER BY at DESC, trace_id DESC LIMIT ?",
                       (scope.tenant, scope.user, limit))
        return [json.loads(r[0]) for r in rows]

    def scopes(self) -> list[Scope]:
        rows = self._q("SELECT DISTINCT tenant, user_id FROM revisions ORDER BY tenant, user_id")
        return [Scope(r[0], r[1]) for r in rows]

    def expired_ids(self, scope: Scope, now: int) -> list[str]:
        where, params = _scope_sql(scope)
        rows = self._q(f"SELECT m.id FROM memories m WHERE {where} AND m.status = 'active' "
                       "AND m.expires_at IS NOT NULL AND m.expires_at <= :now ORDER BY m.id",
                       {"now": now, **params})
        return [r[0] for r in rows]

    def iter_all_for_reindex(self, batch: int) -> Iterator[list[tuple[int, str]]]:
        last = 0
        while True:
            rows = self._q("SELECT rowid, content FROM memories WHERE rowid > ? "
                           "ORDER BY rowid LIMIT ?", (last, batch))
            if not rows:
                return
            last = rows[-1][0]
            yield [(int(r[0]), str(r[1])) for r in rows]

    def replace_vectors(self, rows: list[tuple[int, dict[str, np.ndarray]]],
                        drop_models: list[str], embedding_model: str) -> None:
        with self.transaction() as tx:
            for mrow, vectors in rows:
                tx.db.execute("UPDATE memories SET embedding_model = ? WHERE rowid = ?",
                              (embedding_model, mrow))
                for model in drop_models:
                    tx.db.execute("DELETE FROM vectors WHERE mrow = ? AND model = ?",
                                  (mrow, model))
                tx.put_vectors(mrow, vectors)

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        # Nothing to defer: SQLite's indexes are B-trees kept in step row by row.
        yield

    def drop_vector_models(self, models: list[str]) -> None:
        with self.transaction() as tx:
            for model in models:
                tx.db.execute("DELETE FROM vectors WHERE model = ?", (model,))

    def count(self) -> int:
        return int(self._q("SELECT COUNT(*) FROM memories")[0][0])

    def compact(self) -> None:
        with self._lock:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


class _SQLiteTx:
    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self.db = store._db

    def _one(self, sql: str, params: Any) -> Memory | None:
        row = self.db.execute(sql, params).fetchone()
        return memory_from_row(row) if row else None

    def get(self, scope: Scope, memory_id: str, *, for_update: bool = False) -> Memory | None:
        # BEGIN IMMEDIATE already holds the write lock: reads here are serialised.
        where, params = _scope_sql(scope)
        return self._one(f"{_MEM_SELECT} WHERE m.id = :id AND {where}",
                         {"id": memory_id, **params})

    def find_slot(self, scope: Scope, slot: str) -> Memory | None:
        where, params = _exact_scope_sql(scope)
        return self._one(
            f"{_MEM_SELECT} WHERE {where} AND m.slot = :slot "
            "AND m.status IN ('active', 'pending', 'expired') "
            "ORDER BY m.status = 'active' DESC, m.updated_at DESC LIMIT 1",
            {"slot": slot, **params})

    def find_duplicate(self, scope: Scope, content_hash: str, kind: str) -> Memory | None:
        where, params = _exact_scope_sql(scope)
        return self._one(
            f"{_MEM_SELECT} WHERE {where} "
            "AND m.content_hash = :h AND m.kind = :kind AND m.status = 'active' LIMIT 1",
            {"h": content_hash, "kind": kind, **params})

    def _rowid(self, memory_id: str) -> int:
        row = self.db.execute("SELECT rowid FROM memories WHERE id = ?", (memory_id,)).fetchone()
        if row is None:
            raise StoreError(f"memory {memory_id} vanished inside a transaction")
        return int(row[0])

    def put_vectors(self, mrow: int, vectors: dict[str, np.ndarray]) -> None:
        for model, vec in vectors.items():
            self.db.execute("INSERT OR REPLACE INTO vectors (mrow, model, vec) VALUES (?, ?, ?)",
                            (mrow, model, np.asarray(vec, dtype=np.float32).tobytes()))

    def _put_terms(self, mrow: int, scope: Scope, terms: str) -> None:
        self.db.execute("DELETE FROM memories_fts WHERE rowid = ?", (mrow,))
        self.db.execute("INSERT INTO memories_fts (rowid, scope, body) VALUES (?, ?, ?)",
                        (mrow, scope_term(scope), terms))
        self.db.execute("UPDATE memories SET n_terms = ? WHERE rowid = ?",
                        (len(terms.split()), mrow))

    def insert(self, memory: Memory, content_hash: str, terms: str,
               vectors: dict[str, np.ndarray]) -> None:
        p = memory_params(memory, content_hash)
        try:
            cur = self.db.execute(
                f"INSERT INTO memories ({', '.join(MEMORY_COLUMNS)}) VALUES "
                f"({', '.join(':' + c for c in MEMORY_COLUMNS)})", p)
        except sqlite3.IntegrityError as e:
            raise ConflictError(f"cannot store memory {memory.id}: {e}") from None
        mrow = int(cur.lastrowid)
        self.store._fault("after_memory_row")
        self._put_terms(mrow, memory.scope, terms)
        self.store._fault("after_text_index")
        self.put_vectors(mrow, vectors)
        self.store._fault("after_vectors")

    def update(self, memory: Memory, content_hash: str, terms: str | None,
               vectors: dict[str, np.ndarray] | None) -> None:
        p = memory_params(memory, content_hash)
        sets = ", ".join(f"{c} = :{c}" for c in MEMORY_COLUMNS if c != "id")
        try:
            self.db.execute(f"UPDATE memories SET {sets} WHERE id = :id", p)
        except sqlite3.IntegrityError as e:
            raise ConflictError(f"cannot update memory {memory.id}: {e}") from None
        self.store._fault("after_memory_row")
        mrow = self._rowid(memory.id)
        if terms is not None:
            self._put_terms(mrow, memory.scope, terms)
        self.store._fault("after_text_index")
        if vectors is not None:
            self.put_vectors(mrow, vectors)
        self.store._fault("after_vectors")

    def insert_many(self, items: list[tuple[Memory, str, str, dict[str, np.ndarray]]]) -> None:
        # In-process SQLite has no round trips to save: the row-at-a-time path is the bulk
        # path, inside the caller's single transaction.
        for memory, content_hash, terms, vectors in items:
            self.insert(memory, content_hash, terms, vectors)

    def append_revisions(self, revisions: list[Revision]) -> None:
        for rev in revisions:
            self.append_revision(rev)

    def append_revision(self, revision: Revision) -> None:
        p = revision_params(revision)
        try:
            self.db.execute(f"INSERT INTO revisions ({', '.join(REVISION_COLUMNS)}) VALUES "
                            f"({', '.join(':' + c for c in REVISION_COLUMNS)})", p)
        except sqlite3.IntegrityError as e:  # op_id taken: e.g. the same export imported twice
            raise ConflictError(f"cannot record revision {revision.op_id}: {e}") from None
        self.store._fault("after_revision")

    def erase(self, scope: Scope, memory_id: str, tombstone: Revision) -> None:
        mrow = self._rowid(memory_id)
        self.db.execute("DELETE FROM memories_fts WHERE rowid = ?", (mrow,))
        self.db.execute("DELETE FROM vectors WHERE mrow = ?", (mrow,))
        self.db.execute("DELETE FROM memories WHERE rowid = ?", (mrow,))
        self.db.execute("INSERT INTO meta (key, value) VALUES ('purging', ?)", (memory_id,))
        # Scoped: a memory id is only unique within its owner's rows.
        self.db.execute("UPDATE revisions SET state = NULL, reason = NULL, trigger_text = NULL "
                        "WHERE memory_id = ? AND tenant = ? AND user_id = ?",
                        (memory_id, scope.tenant, scope.user))
        self.db.execute("DELETE FROM meta WHERE key = 'purging'")
        self._drop_traces_of(scope, memory_id)
        self.append_revision(tombstone)

    def redact(self, scope: Scope, memory_id: str, blank: list[str], unquote: list[str],
               note: Revision) -> None:
        self.db.execute("INSERT INTO meta (key, value) VALUES ('purging', ?)", (memory_id,))
        key = (memory_id, scope.tenant, scope.user)
        self.db.executemany("UPDATE revisions SET state = NULL, reason = NULL, "
                            "trigger_text = NULL WHERE memory_id = ? AND tenant = ? "
                            "AND user_id = ? AND op_id = ?", [(*key, o) for o in blank])
        self.db.executemany("UPDATE revisions SET reason = NULL, trigger_text = NULL "
                            "WHERE memory_id = ? AND tenant = ? AND user_id = ? AND op_id = ?",
                            [(*key, o) for o in unquote])
        self.db.execute("DELETE FROM meta WHERE key = 'purging'")
        self._drop_traces_of(scope, memory_id)
        self.append_revision(note)

    def id_in_use(self, memory_id: str) -> bool:
        return bool(self.db.execute(
            "SELECT EXISTS (SELECT 1 FROM memories WHERE id = ?) "
            "OR EXISTS (SELECT 1 FROM revisions WHERE memory_id = ?)",
            (memory_id, memory_id)).fetchone()[0])

    def purged(self, scope: Scope, memory_id: str) -> bool:
        return bool(self.db.execute(
            "SELECT EXISTS (SELECT 1 FROM revisions WHERE memory_id = ? AND tenant = ? "
            "AND user_id = ? AND op = 'purge')",
            (memory_id, scope.tenant, scope.user)).fetchone()[0])

    def drop_traces(self, scope: Scope, trace_ids: list[str]) -> None:
        self.db.executemany("DELETE FROM traces WHERE tenant = ? AND user_id = ? "
                            "AND trace_id = ?", [(scope.tenant, scope.user, t)
                                                 for t in trace_ids])

    def _drop_traces_of(self, scope: Scope, memory_id: str) -> None:
        """Traces that saw this memory may hold its erased text (the injected block)."""
        self.db.execute("DELETE FROM traces WHERE tenant = ? AND user_id = ? AND EXISTS "
                        "(SELECT 1 FROM json_each(traces.memory_ids) WHERE value = ?)",
                        (scope.tenant, scope.user, memory_id))


"""A store written by an older memvault opens under the current one: each backend's
migrations run on the old schema and keep what it held. Built for real: the old schema
is made by the same migration scripts, one version short, and filled by hand."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
import sqlean as sqlite3  # the store's own SQLite (FTS5 secure-delete)
from _util import is_pg

from memvault import Scope, Vault
from memvault.errors import ConflictError
from memvault.store import postgres, sqlite

ALICE = Scope("acme", "alice")


def _old_store(target: str, upto: int) -> None:
    """The schema as it was at migration `upto`, with one recall trace of alice's."""
    # Written an hour ago: within retention (a trace past it is dropped on the next write).
    trace = {"trace_id": "req-1", "kind": "recall", "at": int(time.time() * 1000) - 3_600_000,
             "strategy_hash": "old", "memory_ids": [], "query": "tea", "scope":
             {"tenant": ALICE.tenant, "user": ALICE.user}}
    row = ("req-1", ALICE.tenant, ALICE.user, "recall", trace["at"], "old")
    if is_pg(target):
        with psycopg.connect(target, autocommit=True) as c:
            c.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                      "name TEXT NOT NULL, applied_at BIGINT NOT NULL)")
            for version, name, script in postgres.MIGRATIONS:
                if version <= upto:
                    c.execute(script)
                    c.execute("INSERT INTO schema_migrations VALUES (%s, %s, 0)",
                              (version, name))
            c.execute("INSERT INTO traces VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                      (*row, [], json.dumps(trace)))
        return
    c = sqlite3.connect(target, isolation_level=None)
    try:
        c.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                  "name TEXT NOT NULL, applied_at INTEGER NOT NULL)")
        for version, name, script in sqlite.MIGRATIONS:
            if version <= upto:
                c.executescript(script)
                c.execute("INSERT INTO schema_migrations VALUES (?, ?, 0)", (version, name))
        c.execute("INSERT INTO traces VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                  (*row, "[]", json.dumps(trace)))
    finally:
        c.close()


def _trace_migration(target: str) -> int:
    migrations: list[tuple[int, str, Any]] = (postgres.MIGRATIONS if is_pg(target)
                                             else sqlite.MIGRATIONS)
    return next(v for v, name, _ in migrations if name.startswith("trace ids are unique"))


def test_traces_survive_the_move_to_ids_per_user(new_db: Callable[[], str],
                                                  make_vault: Callable[..., Vault]) -> None:
    target = new_db()
    _old_store(target, _trace_migration(target) - 1)
    vault = make_vault(target)
    assert vault.store.schema_version() >= _trace_migration(target)
    assert vault.trace(ALICE, "req-1")["query"] == "tea"  # the old trace, kept
    # Under the new key: the same id is the caller's own per user, refused only there.
    bob = Scope("other", "bob")
    vault.remember(bob, "Bob drinks black coffee")
    assert vault.recall(bob, "coffee", trace_id="req-1").trace_id == "req-1"
    assert vault.trace(bob, "req-1")["query"] == "coffee"
    assert vault.trace(ALICE, "req-1")["query"] == "tea"
    with pytest.raises(ConflictError, match="already in use"):
        vault.recall(ALICE, "tea", trace_id="req-1")


def test_packed_traces_stored_as_text_read_back_after_compression(
        new_db: Callable[[], str], make_vault: Callable[..., Vault]) -> None:
    # PostgreSQL kept a packed trace as JSON text until its payload became compressed
    # bytea; the rows written before read back whole after the migration, and purge still
    # finds them by memory id once the GIN index on memory_ids is gone.
    from memvault.store import tracepack

    target = new_db()
    if not is_pg(target):
        pytest.skip("SQLite stored packed traces compressed from the start")
    upto = next(v for v, name, _ in postgres.MIGRATIONS if name.startswith("traces are stored"))
    _old_store(target, upto - 1)
    at = int(time.time() * 1000) - 60_000
    trace = {"trace_id": "req-2", "kind": "recall", "at": at, "strategy_hash": "old",
             "query": "tea", "memory_ids": ["m_a", "m_b"],
             "candidates": [{"id": mid, "version": 1, "slot": None, "topic": None,
                             "kind": "fact", "outcome": "injected", "rank": i + 1,
                             "score": 0.5 - i / 10, "parts": {"total": 0.5 - i / 10}}
                            for i, mid in enumerate(["m_a", "m_b"])]}
    with psycopg.connect(target, autocommit=True) as c:
        c.execute("INSERT INTO traces VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                  ("req-2", ALICE.tenant, ALICE.user, "recall", at, "old", ["m_a", "m_b"],
                   tracepack.to_json(tracepack.pack(trace))))
    vault = make_vault(target)
    assert vault.store.schema_version() >= upto
    got = vault.trace(ALICE, "req-2")
    assert [(c["id"], c["rank"], c["score"]) for c in got["candidates"]] == \
        [("m_a", 1, 0.5), ("m_b", 2, 0.4)]
    with psycopg.connect(target) as c:
        kinds = {r[0] for r in c.execute("SELECT pg_typeof(payload)::text FROM traces")}
        indexes = {r[0] for r in c.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'traces'")}
    assert kinds == {"bytea"} and "traces_memory_ids" not in indexes
    # A new recall's trace is compressed: its payload starts with zlib's header.
    vault.remember(ALICE, "Alice drinks green tea")
    tid = vault.recall(ALICE, "tea").trace_id
    with psycopg.connect(target) as c:
        head = c.execute("SELECT substring(payload from 1 for 1) FROM traces "
                         "WHERE trace_id = %s", (tid,)).fetchone()[0]
    assert bytes(head) == b"\x78"
    assert vault.trace(ALICE, tid)["query"] == "tea"


def test_a_store_from_before_word_vectors_gets_the_table(new_db: Callable[[], str],
                                                         make_vault: Callable[..., Vault]
                                                         ) -> None:
    target = new_db()
    migrations: list[tuple[int, str, Any]] = (postgres.MIGRATIONS if is_pg(target)
                                             else sqlite.MIGRATIONS)
    upto = next(v for v, name, _ in migrations if name.startswith("word vectors"))
    _old_store(target, upto - 1)
    vault = make_vault(target)
    assert vault.store.schema_version() >= upto
    assert vault.store.word_vectors(ALICE.tenant, "use-m3", ["tea"]) == {}
    vault.remember(ALICE, "Alice drinks green tea")
    stored = vault.store.word_vectors(ALICE.tenant, "use-m3", ["alice", "drinks", "tea"])
    assert sorted(stored) == ["alice", "drinks", "tea"]
    assert {len(v) for v in stored.values()} == {2 * 512}  # float16, use-m3's 512 dims

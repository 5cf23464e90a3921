"""PostgresStore on a real PostgreSQL (a private server, or MEMVAULT_PG_DSN), one fresh
database per test. Assertions about what is stored read the tables through a separate
connection instead of trusting the store to report its own state."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pgserver
import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from memvault import bm25
from memvault.embed import load_embedder
from memvault.errors import ConflictError, StoreError
from memvault.model import Memory, Revision, Scope
from memvault.store.base import ListFilter
from memvault.store.postgres import MIGRATIONS, PostgresStore
from memvault.store.postgres_text import lexeme as _lexeme
from memvault.wordmatch import unit_vectors

pg_server_dsn = pgserver.pg_server_dsn
pg_dsn = pgserver.pg_dsn

ME = Scope("acme", "alice")
NOW = 1_000_000


@pytest.fixture
def store(pg_dsn: str) -> Iterator[PostgresStore]:
    s = PostgresStore(pg_dsn)
    yield s
    s.close()


def raw(dsn: str, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def mem(mid: str, scope: Scope = ME, content: str = "x", **kw: Any) -> Memory:
    kw.setdefault("updated_at", 1)
    return Memory(id=mid, scope=scope, kind=kw.pop("kind", "fact"), content=content,
                  recorded_at=1, created_at=1, **kw)


def rev(m: Memory, op: str = "create", n: int = 1, at: int = 1, **kw: Any) -> Revision:
    return Revision(op_id=f"op_{m.id}_{n}", memory_id=m.id, scope=m.scope, op=op,
                    from_version=n - 1 or None, to_version=n, state=m.to_dict(),
                    actor="tester", actor_role="admin", reason=kw.get("reason", f"why {n}"),
                    trigger_text=kw.get("trigger_text", f"said {n}"), trace_id=None, at=at)


def tombstone(m: Memory, n: int, reason: str | None = None) -> Revision:
    """A purge revision as Vault.purge writes it: no state, no trigger text."""
    return Revision(op_id=f"op_{m.id}_purge", memory_id=m.id, scope=m.scope, op="purge",
                    from_version=n - 1, to_version=n, state=None, actor="dpo",
                    actor_role="admin", reason=reason, trigger_text=None, trace_id=None, at=n)


def put(store: PostgresStore, m: Memory, terms: str | None = None,
        vectors: dict[str, np.ndarray] | None = None) -> None:
    with store.transaction() as tx:
        tx.insert(m, "h_" + m.id, m.content if terms is None else terms, vectors or {})
        tx.append_revision(rev(m))


def unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def vec_table(dsn: str, model: str) -> str:
    return raw(dsn, "SELECT tbl FROM vector_models WHERE model = %s", (model,))[0][0]


def prefer_index_order(dsn: str) -> None:
    """Make new connections to this database avoid sorts, so ORDER BY distance goes
    through the HNSW index even on tables too small for the planner to bother."""
    raw(dsn, sql.SQL("ALTER DATABASE {} SET enable_sort = off").format(
        sql.Identifier(conninfo_to_dict(dsn)["dbname"])))


def on_disk(dsn: str, relation: str, needle: bytes) -> bool:
    """Whether the bytes are anywhere in the relation's main file, as flushed to disk."""
    raw(dsn, "CHECKPOINT")
    return bool(raw(dsn, "SELECT position(%s IN pg_read_binary_file(pg_relation_filepath(%s)))"
                         " > 0", (needle, relation))[0][0])


# --- schema -----------------------------------------------------------------------------

def test_migrations_idempotent_and_safe_to_run_concurrently(pg_dsn: str) -> None:
    opened: list[PostgresStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            opened.append(PostgresStore(pg_dsn, max_size=1))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(opened) == 4
    tables = raw(pg_dsn, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                         "ORDER BY 1")
    for s in opened:
        s.close()

    again = PostgresStore(pg_dsn)  # opening an up-to-date store changes nothing
    try:
        assert again.schema_version() == MIGRATIONS[-1][0]
        assert raw(pg_dsn, "SELECT version, name FROM schema_migrations ORDER BY 1") == [
            (v, name) for v, name, _ in MIGRATIONS]
        assert raw(pg_dsn, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                           "ORDER BY 1") == tables
        assert {"memories", "revisions", "meta", "vector_models",
                "schema_migrations"} <= {t for (t,) in tables}
    finally:
        again.close()


def test_not_a_server_fails_with_store_error() -> None:
    with pytest.raises(StoreError):
        PostgresStore("postgresql://nobody@/nowhere?host=/nonexistent", timeout=2)


_RAW_INSERT = ("INSERT INTO memories (id, tenant, user_id, agent, session, kind, content, "
               "content_hash, source, confidence, status, version, recorded_at, created_at, "
               "updated_at) VALUES (%s, %s, %s, %s, %s, 'fact', 'c', 'h', 'user_explicit', 1, "
               "'active', 1, 1, 1, 1)")


@pytest.mark.parametrize("tenant,user,agent,session,error", [
    ("", "u", "", "", psycopg.errors.CheckViolation),
    ("t", "", "", "", psycopg.errors.CheckViolation),
    (None, "u", "", "", psycopg.errors.NotNullViolation),
    ("t", None, "", "", psycopg.errors.NotNullViolation),
    ("t", "u", None, "", psycopg.errors.NotNullViolation),
    ("t", "u", "", None, psycopg.errors.NotNullViolation),
])
def test_scope_columns_not_null_and_checked(store: PostgresStore, pg_dsn: str, tenant: Any,
                                            user: Any, agent: Any, session: Any,
                                            error: type[Exception]) -> None:
    with pytest.raises(error):
        raw(pg_dsn, _RAW_INSERT, ("m_raw", tenant, user, agent, session))
    assert raw(pg_dsn, "SELECT count(*) FROM memories") == [(0,)]


def test_empty_scope_through_the_store_is_a_conflict(store: PostgresStore) -> None:
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.insert(mem("m_1", Scope("", "alice")), "h", "x", {})
    bad = mem("m_2", Scope("acme", ""))
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.append_revision(rev(bad))
    assert store.count() == 0


def test_one_active_row_per_slot_and_exact_scope(store: PostgresStore, pg_dsn: str) -> None:
    put(store, mem("m_1", slot="report.format", content="CSV"))
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.insert(mem("m_2", slot="report.format", content="XLSX"), "h2", "xlsx", {})
    assert raw(pg_dsn, "SELECT id FROM memories") == [("m_1",)]  # the whole tx rolled back

    # Another exact scope, or a row that is not active, may hold the same slot.
    put(store, mem("m_3", Scope("acme", "alice", agent="bot"), slot="report.format"))
    put(store, mem("m_4", slot="report.format", status="pending"))
    put(store, mem("m_5", Scope("acme", "bob"), slot="report.format"))
    m4 = store.get(ME, "m_4")
    assert m4 is not None
    m4.status = "active"
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.update(m4, "h_m_4", None, None)
    assert store.get(ME, "m_4").status == "pending"  # type: ignore[union-attr]


# --- revisions ----------------------------------------------------------------------------

def _refused(dsn: str, *statements: str) -> None:
    with psycopg.connect(dsn) as conn:
        for s in statements[:-1]:
            conn.execute(s)
        with pytest.raises(psycopg.errors.IntegrityConstraintViolation, match="append-only"):
            conn.execute(statements[-1])
        conn.rollback()


def test_revisions_are_append_only(store: PostgresStore, pg_dsn: str) -> None:
    put(store, mem("m_1"))
    put(store, mem("m_2"))
    before = raw(pg_dsn, "SELECT * FROM revisions ORDER BY seq")
    _refused(pg_dsn, "UPDATE revisions SET reason = 'rewritten'")
    _refused(pg_dsn, "UPDATE revisions SET state = NULL")  # blanking needs the purge marker
    _refused(pg_dsn, "DELETE FROM revisions WHERE memory_id = 'm_1'")
    _refused(pg_dsn, "TRUNCATE revisions")
    # The purge marker names one memory, and allows only blanking three columns of it.
    marker = "SELECT set_config('memvault.purging', 'm_1', true)"
    _refused(pg_dsn, marker, "UPDATE revisions SET state = NULL WHERE memory_id = 'm_2'")
    _refused(pg_dsn, marker, "UPDATE revisions SET reason = 'other' WHERE memory_id = 'm_1'")
    _refused(pg_dsn, marker, "UPDATE revisions SET state = NULL, actor = 'x' "
                             "WHERE memory_id = 'm_1'")
    _refused(pg_dsn, marker, "DELETE FROM revisions WHERE memory_id = 'm_1'")
    _refused(pg_dsn, marker, "UPDATE revisions SET state = NULL, trigger_text = 'x' "
                             "WHERE memory_id = 'm_1'")
    # Each content column may be blanked on its own (a revision a purged turn triggered
    # keeps its state and loses its quote); rolled back here, so `before` still holds.
    with psycopg.connect(pg_dsn) as conn:
        conn.execute(marker)
        conn.execute("UPDATE revisions SET reason = NULL, trigger_text = NULL "
                     "WHERE memory_id = 'm_1'")
        assert conn.execute("SELECT count(*) FROM revisions WHERE memory_id = 'm_1' "
                            "AND state IS NOT NULL AND trigger_text IS NULL").fetchone()[0] >= 1
        conn.rollback()
    # ...and it is transaction-local: set in one transaction, gone in the next.
    with psycopg.connect(pg_dsn) as conn:
        conn.execute(marker)
        conn.commit()
        with pytest.raises(psycopg.errors.IntegrityConstraintViolation):
            conn.execute("UPDATE revisions SET state = NULL WHERE memory_id = 'm_1'")
        conn.rollback()
    assert raw(pg_dsn, "SELECT * FROM revisions ORDER BY seq") == before


def test_purge_blanks_history_and_removes_row_terms_and_vectors(
        store: PostgresStore, pg_dsn: str) -> None:
    secret = mem("m_1", content="my pin is zebrafish", source_text="pin zebrafish")
    keep = mem("m_2", content="the zebrafish tank")
    vecs = {"mod-a": unit(1, 0, 0), "mod-b": unit(0, 1, 0, 0)}
    put(store, secret, "pin zebrafish", vecs)
    put(store, keep, "zebrafish tank", vecs)
    with store.transaction() as tx:
        secret.version = 2
        tx.update(secret, "h_m_1b", "pin zebrafish again", {"mod-a": unit(1, 1, 0)})
        tx.append_revision(rev(secret, "update", 2, at=2))

    with pytest.raises(StoreError), store.transaction() as tx:  # another scope: refused
        tx.erase(Scope("acme", "bob"), "m_1", tombstone(secret, 3))
    assert store.get(ME, "m_1") is not None

    with store.transaction() as tx:
        tx.erase(ME, "m_1", tombstone(secret, 3, "erasure request"))
        assert tx.conn.execute("SELECT current_setting('memvault.purging', true) AS v"
                               ).fetchone() == {"v": ""}

    assert raw(pg_dsn, "SELECT id FROM memories") == [("m_2",)]
    assert raw(pg_dsn, "SELECT count(*) FROM memories WHERE terms LIKE '%pin%'") == [(0,)]
    for model in vecs:
        assert raw(pg_dsn, f"SELECT m.id FROM {vec_table(pg_dsn, model)} v "
                           "JOIN memories m USING (mrow)") == [("m_2",)]
        assert raw(pg_dsn, f"SELECT count(*) FROM {vec_table(pg_dsn, model)}") == [(1,)]
    rows = raw(pg_dsn, "SELECT op, state, reason, trigger_text, actor FROM revisions "
                       "WHERE memory_id = 'm_1' ORDER BY seq")
    assert rows == [("create", None, None, None, "tester"), ("update", None, None, None, "tester"),
                    ("purge", None, "erasure request", None, "dpo")]
    # The other memory's history is untouched.
    other = store.revisions(ME, "m_2")
    assert other[0].state is not None and other[0].state["content"] == "the zebrafish tank"
    assert other[0].reason == "why 1" and other[0].trigger_text == "said 1"
    tc = store.text_candidates(ME, ["pin", "zebrafish"], NOW, 10)
    assert [d for d, _ in tc.docs] == ["m_2"] and tc.df == {"pin": 0, "zebrafish": 1}
    assert [i for i, _ in store.vector_candidates(ME, "mod-a", unit(1, 1, 0), NOW, 10)] == [
        "m_2"]
    store.compact()


def test_compact_prunes_the_purged_bytes_from_the_table_files(
        store: PostgresStore, pg_dsn: str) -> None:
    """Reads the files through pg_read_binary_file (needs a superuser, as the private
    test server gives). Before compact the dead row versions still hold the text; after,
    the heap files do not; the full-text index never held it (lexemes are hashes)."""
    needle = b"qwxzsecretqwxz"
    secret = mem("m_sec", content="my password is qwxzsecretqwxz",
                 source_text="qwxzsecretqwxz")
    put(store, secret, "password qwxzsecretqwxz")
    for i in range(40):  # later rows in the same pages, moved over the dead bytes by pruning
        put(store, mem(f"m_{i:02d}", content=f"filler {i} " * 20), f"filler f{i}")
    assert on_disk(pg_dsn, "memories", needle) and on_disk(pg_dsn, "revisions", needle)
    assert not on_disk(pg_dsn, "memories_tsv", needle)

    with store.transaction() as tx:
        tx.erase(ME, "m_sec", tombstone(secret, 2))
    assert on_disk(pg_dsn, "memories", needle)  # dead tuple, until VACUUM
    store.compact()
    for rel in ("memories", "revisions", "memories_tsv"):
        assert not on_disk(pg_dsn, rel, needle), rel


class _Words:
    """The word embedding a Vault's core gives its store (base.WordEmbedding), on the real
    use-m3."""

    def __init__(self) -> None:
        self.emb = load_embedder("use-m3")

    def word_model(self) -> str:
        return self.emb.name

    def embed_words(self, words: list[str]) -> np.ndarray:
        return unit_vectors(self.emb, words)


def test_compact_prunes_the_purged_word_vectors_from_their_files(
        store: PostgresStore, pg_dsn: str) -> None:
    """The purged memory's word vector leaves the table file with compact; its key, in the
    table and its index, is a hash: the word is in neither, before or after."""
    store.words = _Words()
    secret = mem("m_sec", content="my password is qwxzsecretqwxz")
    put(store, secret, "password qwxzsecretqwxz")
    for i in range(40):
        put(store, mem(f"m_{i:02d}", content=f"filler{chr(97 + i % 26)} words"), f"f{i}")
    vec = store.word_vectors(ME.tenant, "use-m3", ["qwxzsecretqwxz"])["qwxzsecretqwxz"]
    assert on_disk(pg_dsn, "word_vectors", vec)
    for rel in ("word_vectors", "word_vectors_pkey"):
        assert not on_disk(pg_dsn, rel, b"qwxzsecretqwxz"), rel
    with store.transaction() as tx:
        tx.erase(ME, "m_sec", tombstone(secret, 2))
    assert store.word_vectors(ME.tenant, "use-m3", ["qwxzsecretqwxz", "password"]) == {}
    assert store.word_vectors(ME.tenant, "use-m3", ["words"]) != {}
    store.compact()
    assert not on_disk(pg_dsn, "word_vectors", vec)


def test_full_text_index_holds_term_hashes_not_terms(store: PostgresStore,
                                                     pg_dsn: str) -> None:
    put(store, mem("m_1"), "zebrafish tank zebrafish")
    assert raw(pg_dsn, "SELECT tsv::text, n_terms FROM memories") == [
        (f"'{min(_lexeme('tank'), _lexeme('zebrafish'))}' "
         f"'{max(_lexeme('tank'), _lexeme('zebrafish'))}'", 3)]


# --- full text ----------------------------------------------------------------------------

def _text_fixture(store: PostgresStore) -> None:
    live = [("d1", "apple banana apple", 10, ME), ("d2", "banana cherry", 20, ME),
            ("d3", "cherry date egg fig", 30, ME),
            ("d4", "apple", 40, Scope("acme", "alice", agent="bot")),
            ("d5", "apple cherry", 5, ME)]
    for mid, terms, at, scope in live:
        put(store, mem(mid, scope, updated_at=at), terms)
    # Not live now, or another scope: never counted, never returned.
    put(store, mem("x1", status="deleted", updated_at=99), "apple apple")
    put(store, mem("x2", expires_at=NOW, updated_at=99), "apple")
    put(store, mem("x3", valid_from=NOW + 1, updated_at=99), "banana cherry")
    put(store, mem("x4", valid_to=NOW, updated_at=99), "cherry")
    put(store, mem("x5", Scope("acme", "bob"), updated_at=99), "apple banana cherry")
    put(store, mem("x6", Scope("other", "alice"), updated_at=99), "apple")


def test_text_candidates_statistics_by_hand(store: PostgresStore) -> None:
    _text_fixture(store)
    tc = store.text_candidates(ME, ["apple", "cherry", "zebra"], NOW, 10)
    # Live in acme/alice: d1 (3 terms), d2 (2), d3 (4), d4 (1), d5 (2).
    assert tc.n_docs == 5
    assert tc.avg_len == pytest.approx((3 + 2 + 4 + 1 + 2) / 5)
    assert tc.df == {"apple": 3, "cherry": 3, "zebra": 0}  # apple: d1 d4 d5; cherry: d2 d3 d5
    # d5 matches two distinct query terms; the rest one each, newest first.
    assert [d for d, _ in tc.docs] == ["d5", "d4", "d3", "d2", "d1"]
    assert dict(tc.docs)["d1"] == ["apple", "banana", "apple"]
    assert bm25.score(tc, ["apple", "cherry", "zebra"])[0][0] == "d5"

    # The limit cuts the candidates, never the statistics.
    small = store.text_candidates(ME, ["apple", "cherry", "zebra"], NOW, 2)
    assert [d for d, _ in small.docs] == ["d5", "d4"]
    assert (small.n_docs, small.df) == (tc.n_docs, tc.df)

    # agent narrows the scope, statistics included.
    bot = store.text_candidates(Scope("acme", "alice", agent="bot"), ["apple", "cherry"],
                                NOW, 10)
    assert (bot.n_docs, bot.avg_len, bot.df) == (1, 1.0, {"apple": 1, "cherry": 0})
    assert bot.docs == [("d4", ["apple"])]

    # Later, x3 is valid and x4 / x2 still are not.
    later = store.text_candidates(ME, ["banana"], NOW + 1, 10)
    assert (later.n_docs, later.df) == (6, {"banana": 3})

    # No query terms: the statistics, no candidates.
    none = store.text_candidates(ME, [], NOW, 10)
    assert (none.n_docs, none.docs) == (5, [])


def test_text_candidates_odd_and_long_terms(store: PostgresStore) -> None:
    # Quotes and tsquery operators in terms; terms beyond a tsvector lexeme's 2046 bytes.
    long_a, long_b = "a" * 3000, "a" * 2999 + "b"
    put(store, mem("q1"), "o'neil back\\slash a:b x&y|z !(w) " + long_a)
    put(store, mem("q2"), "a b " + long_b)
    for term in ("o'neil", "back\\slash", "a:b", "x&y|z", "!(w)", long_a):
        tc = store.text_candidates(ME, [term], NOW, 10)
        assert [d for d, _ in tc.docs] == ["q1"], term[:20]
        assert tc.df == {term: 1}
    assert [d for d, _ in store.text_candidates(ME, [long_b], NOW, 10).docs] == ["q2"]
    assert [d for d, _ in store.text_candidates(ME, ["a"], NOW, 10).docs] == ["q2"]
    assert store.text_candidates(ME, ["'a' | 'b'"], NOW, 10).docs == []
    tc = store.text_candidates(ME, [long_a], NOW, 10)
    assert tc.docs[0][1][-1] == long_a and tc.avg_len == pytest.approx((6 + 3) / 2)


# --- vectors ------------------------------------------------------------------------------

def _vector_fixture(store: PostgresStore) -> np.ndarray:
    q = unit(1, 0, 0, 0)
    near = {"v1": unit(1, 0.1, 0, 0), "v2": unit(1, 1, 0, 0), "v3": unit(0, 1, 0, 0),
            "v4": unit(-1, 0.2, 0, 0)}
    for mid, v in near.items():
        put(store, mem(mid), vectors={"m4": v})
    put(store, mem("v5", Scope("acme", "alice", agent="bot")), vectors={"m4": unit(1, 0.5, 0, 0)})
    # The query vector itself, but not live or not in the scope.
    put(store, mem("x1", status="superseded"), vectors={"m4": q})
    put(store, mem("x2", expires_at=NOW), vectors={"m4": q})
    put(store, mem("x3", Scope("acme", "bob")), vectors={"m4": q})
    put(store, mem("x4", Scope("evil", "alice")), vectors={"m4": q})
    return q


@pytest.mark.parametrize("exact_scan_limit", [10_000, 0], ids=["exact", "hnsw"])
def test_vector_candidates_scope_live_best_first(pg_dsn: str, exact_scan_limit: int) -> None:
    if exact_scan_limit == 0:
        prefer_index_order(pg_dsn)
    store = PostgresStore(pg_dsn, exact_scan_limit=exact_scan_limit)
    try:
        q = _vector_fixture(store)
        got = store.vector_candidates(ME, "m4", q, NOW, 10)
        assert [i for i, _ in got] == ["v1", "v5", "v2", "v3", "v4"]
        expect = {"v1": unit(1, 0.1, 0, 0) @ q, "v5": unit(1, 0.5, 0, 0) @ q,
                  "v2": unit(1, 1, 0, 0) @ q, "v3": 0.0, "v4": unit(-1, 0.2, 0, 0) @ q}
        for mid, sim in got:
            assert sim == pytest.approx(float(expect[mid]), abs=1e-6)
        assert [i for i, _ in store.vector_candidates(ME, "m4", q, NOW, 2)] == ["v1", "v5"]
        bot = Scope("acme", "alice", agent="bot")
        assert [i for i, _ in store.vector_candidates(bot, "m4", q, NOW, 10)] == ["v5"]
        assert store.vector_candidates(ME, "never-stored", q, NOW, 10) == []
        # Several queries in one call rank as each would alone, in the order given.
        q2 = unit(-1, 0.3, 0, 0)
        each = store.vector_candidates_each(ME, "m4", np.stack([q, q2, q]), NOW, 3)
        assert [[i for i, _ in rows] for rows in each] == [
            ["v1", "v5", "v2"], [i for i, _ in store.vector_candidates(ME, "m4", q2, NOW, 3)],
            ["v1", "v5", "v2"]]
        assert each[1][0][0] == "v4"
        assert store.vector_candidates_each(ME, "m4", np.zeros((0, 4), np.float32), NOW, 3) == []
        with pytest.raises(StoreError, match="dimension"):
            store.vector_candidates(ME, "m4", unit(1, 0, 0), NOW, 10)
        with pytest.raises(StoreError, match="dimension"), store.transaction() as tx:
            tx.insert(mem("bad"), "h", "x", {"m4": unit(1, 0, 0)})
        assert store.get(ME, "bad") is None
    finally:
        store.close()


def test_hnsw_path_is_not_starved_by_other_scopes(pg_dsn: str) -> None:
    """The ANN path with a crowd of better matches in another scope still returns every
    live row of this one (iterative index scan, filters applied in the scan)."""
    prefer_index_order(pg_dsn)
    store = PostgresStore(pg_dsn, exact_scan_limit=0)
    try:
        rng = np.random.default_rng(7)
        q = unit(1, 0, 0, 0, 0, 0, 0, 0)
        crowd = q + rng.normal(0, 0.05, (600, 8)).astype(np.float32)
        with store.transaction() as tx:
            for i, v in enumerate(crowd):
                m = mem(f"c{i:04d}", Scope("acme", "crowd"))
                tx.insert(m, f"h{i}", "x", {"m8": unit(*v)})
        mine = {f"a{i}": unit(*rng.normal(0, 1, 8)) for i in range(5)}
        for mid, v in mine.items():
            put(store, mem(mid), vectors={"m8": v})
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute("ANALYZE")
        got = store.vector_candidates(ME, "m8", q, NOW, 10)
        expect = sorted(mine, key=lambda k: -float(mine[k] @ q))
        assert [i for i, _ in got] == expect
        # Proof that this went through HNSW: a plain index scan stops after ef_search
        # (40) neighbours, all from the crowd, and finds nothing of this scope.
        store._iterative_scan = False
        assert store.vector_candidates(ME, "m8", q, NOW, 10) == []
    finally:
        store.close()


# --- transactions and locking ----------------------------------------------------------------

@pytest.mark.parametrize("point", ["after_memory_row", "after_text_index", "after_vectors",
                                   "after_revision"])
def test_fault_rolls_back_everything(store: PostgresStore, pg_dsn: str, point: str) -> None:
    def hook(p: str) -> None:
        if p == point:
            raise RuntimeError(f"crash at {p}")

    store.fault_hook = hook
    with pytest.raises(RuntimeError):
        put(store, mem("m_1"), "alpha", {"fresh-model": unit(1, 2, 3)})
    store.fault_hook = None
    assert raw(pg_dsn, "SELECT (SELECT count(*) FROM memories), (SELECT count(*) FROM "
                       "revisions), (SELECT count(*) FROM vector_models)") == [(0, 0, 0)]
    # The model's table went with the rollback; the next write creates it again.
    put(store, mem("m_1"), "alpha", {"fresh-model": unit(1, 2, 3)})
    assert [i for i, _ in store.vector_candidates(ME, "fresh-model", unit(1, 2, 3), NOW, 5)] == [
        "m_1"]


def test_find_slot_serialises_writers_of_one_slot(store: PostgresStore) -> None:
    """Two writers of a slot that does not exist yet: the second waits for the first and
    then sees its row, instead of inserting a second active value."""
    first_has_lock = threading.Event()
    release_first = threading.Event()
    seen_by_second: list[Memory | None] = []

    def first() -> None:
        with store.transaction() as tx:
            assert tx.find_slot(ME, "report.format") is None
            tx.insert(mem("m_1", slot="report.format"), "h1", "csv", {})
            first_has_lock.set()
            release_first.wait(10)

    def second() -> None:
        first_has_lock.wait(10)
        with store.transaction() as tx:
            seen_by_second.append(tx.find_slot(ME, "report.format"))

    t1, t2 = threading.Thread(target=first), threading.Thread(target=second)
    t1.start()
    t2.start()
    first_has_lock.wait(10)
    time.sleep(0.5)
    assert seen_by_second == []  # blocked on the first writer's lock
    release_first.set()
    t1.join(10)
    t2.join(10)
    assert [m.id if m else None for m in seen_by_second] == ["m_1"]


def test_get_for_update_locks_the_row(store: PostgresStore) -> None:
    put(store, mem("m_1"))
    holding = threading.Event()
    release = threading.Event()
    versions: list[int] = []

    def first() -> None:
        with store.transaction() as tx:
            m = tx.get(ME, "m_1", for_update=True)
            assert m is not None
            m.version = 2
            tx.update(m, "h", None, None)
            holding.set()
            release.wait(10)

    def second() -> None:
        holding.wait(10)
        with store.transaction() as tx:
            m = tx.get(ME, "m_1", for_update=True)
            versions.append(m.version if m else -1)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    holding.wait(10)
    time.sleep(0.3)
    assert versions == []
    release.set()
    for t in threads:
        t.join(10)
    assert versions == [2]  # read after the first committed, not the stale version 1


# --- the rest of the interface ------------------------------------------------------------------

def test_reads_and_maintenance(store: PostgresStore) -> None:
    assert store.get_meta("embedders") is None
    store.set_meta("embedders", "[1]")
    store.set_meta("embedders", "[2]")
    assert store.get_meta("embedders") == "[2]"

    put(store, mem("m_1", kind="fact", tags=["a", "b"], updated_at=10), "one")
    put(store, mem("m_2", kind="preference", tags=["b"], updated_at=20, expires_at=50), "two")
    put(store, mem("m_3", Scope("acme", "alice", session="s1"), updated_at=30), "three",
        {"old": unit(1, 0)})
    put(store, mem("m_4", Scope("zeta", "zed"), updated_at=40), "four", {"old": unit(0, 1)})
    with store.transaction() as tx:
        m1 = mem("m_1", kind="fact", tags=["a", "b"], updated_at=60, version=2)
        tx.update(m1, "h", "one again", None)
        tx.append_revision(rev(m1, "update", 2, at=60))

    assert store.count() == 4
    assert store.scopes() == [Scope("acme", "alice"), Scope("zeta", "zed")]
    assert [m.id for m in store.fetch(ME, ["m_1", "m_4", "nope"])] == ["m_1"]
    assert store.get(Scope("acme", "bob"), "m_1") is None
    ids = lambda ms: [m.id for m in ms]  # noqa: E731
    assert ids(store.list(ME, ListFilter())) == ["m_1", "m_3", "m_2"]
    assert ids(store.list(ME, ListFilter(tags=["a", "b"]))) == ["m_1"]
    assert ids(store.list(ME, ListFilter(tags=["b"]))) == ["m_1", "m_2"]
    assert ids(store.list(ME, ListFilter(kind="preference"))) == ["m_2"]
    assert ids(store.list(ME, ListFilter(since=20, until=60))) == ["m_3", "m_2"]
    assert ids(store.list(ME, ListFilter(limit=1, offset=1))) == ["m_3"]
    assert ids(store.list(Scope("acme", "alice", session="s1"), ListFilter())) == ["m_3"]
    assert store.expired_ids(ME, 49) == [] and store.expired_ids(ME, 50) == ["m_2"]
    assert [(r.memory_id, r.to_version) for r in store.revisions_as_of(ME, 59)] == [
        ("m_1", 1), ("m_2", 1), ("m_3", 1)]
    assert [(r.memory_id, r.to_version) for r in store.revisions_as_of(ME, 60)] == [
        ("m_2", 1), ("m_3", 1), ("m_1", 2)]
    assert [(mid, len(revs)) for mid, revs in store.scope_revisions(ME)] == [
        ("m_1", 2), ("m_2", 1), ("m_3", 1)]

    batches = list(store.iter_all_for_reindex(3))
    assert [len(b) for b in batches] == [3, 1]
    assert [text for b in batches for _, text in b] == ["x"] * 4
    keys = [k for b in batches for k, _ in b]
    store.replace_vectors([(k, {"new": unit(1, 0, 0)}) for k in keys], drop_models=["old"],
                          embedding_model="new")
    assert store.vector_candidates(Scope("zeta", "zed"), "old", unit(0, 1), NOW, 5) == []
    assert [i for i, _ in store.vector_candidates(ME, "new", unit(1, 0, 0), NOW, 5)] != []
    assert {m.embedding_model for m in store.list(ME, ListFilter())} == {"new"}


def test_concurrent_writers_through_vault_serialise(pg_dsn: str) -> None:
    """Two stores (two pools, as two processes would have), eight threads: writes of one
    slot become versions of one row, and one statement remembered at once is stored once."""
    from memvault import Vault

    vaults = [Vault(PostgresStore(pg_dsn), embedder="use-m3") for _ in range(2)]
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            v = vaults[i % 2]
            v.remember(ME, f"Export reports as format {i}", slot="report.format", value=i)
            v.remember(ME, "The user has a cat named Miso")
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        assert errors == []
        rows = raw(pg_dsn, "SELECT slot, status, version FROM memories ORDER BY slot")
        assert rows == [("report.format", "active", 8), (None, "active", 1)]
        slot_id = vaults[0].list(ME, slot="report.format")[0].id
        assert [r.to_version for r in vaults[1].history(ME, slot_id)] == list(range(1, 9))
    finally:
        for v in vaults:
            v.close()

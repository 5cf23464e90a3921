"""The PostgreSQL schema: its migrations, in order, and how a database is brought up to
date (once, however many processes open it at the same time)."""

from __future__ import annotations

from typing import Any

import psycopg

from .postgres_locks import xact_lock
from .schema import render

# The shared parts' column types here (see schema.py).
TYPES = {
    "key": 'TEXT COLLATE "C"', "time": "BIGINT", "real": "DOUBLE PRECISION",
    "serial": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", "id_list": "TEXT[]",
    "bytes": "BYTEA",
    "revisions_tenant": 'TEXT COLLATE "C" NOT NULL CHECK (tenant <> \'\')',
    "revisions_user": 'TEXT COLLATE "C" NOT NULL CHECK (user_id <> \'\')',
}

# (version, name, script); markers in braces are the shared parts of schema.py.
_SCRIPTS: list[tuple[int, str, str]] = [
    (1, "core tables", r"""
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- Index terms -> lexemes, without any text-search parsing: the first 64 bits of each
-- term's SHA-256, so the GIN index never holds a term itself (GIN keeps entry keys even
-- after the last row using them is gone). Keep in step with _lexeme().
CREATE FUNCTION memvault_lexeme(term TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT left(encode(sha256(convert_to(term, 'UTF8')), 'hex'), 16)
$$;
CREATE FUNCTION memvault_lexemes(terms TEXT) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(memvault_lexeme(t)), '{}')
    FROM unnest(string_to_array(terms, ' ')) AS t WHERE t <> ''
$$;

CREATE TABLE memories (
    mrow BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
{memory_columns}
    -- Full text: the terms verbatim, their count (BM25 length) and the lexeme set.
    terms TEXT NOT NULL DEFAULT '',
    n_terms INTEGER GENERATED ALWAYS AS (cardinality(memvault_lexemes(terms))) STORED,
    tsv TSVECTOR GENERATED ALWAYS AS (array_to_tsvector(memvault_lexemes(terms))) STORED
);
{memory_indexes}
CREATE INDEX memories_tsv ON memories USING gin (tsv);

{revisions}

-- History is append-only. The one exception, purge, sets the transaction-local setting
-- memvault.purging to the memory id and may then only blank state, reason and
-- trigger_text of that memory's rows; every other column must stay as it was.
CREATE FUNCTION memvault_revisions_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    blanked revisions;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF current_setting('memvault.purging', true) = OLD.memory_id THEN
            blanked := OLD;
            blanked.state := NULL;
            blanked.reason := NULL;
            blanked.trigger_text := NULL;
            IF NEW IS NOT DISTINCT FROM blanked THEN
                RETURN NEW;
            END IF;
        END IF;
    END IF;
    RAISE EXCEPTION 'revisions are append-only'
        USING ERRCODE = 'integrity_constraint_violation';
END
$$;
CREATE TRIGGER revisions_no_update BEFORE UPDATE ON revisions
    FOR EACH ROW EXECUTE FUNCTION memvault_revisions_guard();
CREATE TRIGGER revisions_no_delete BEFORE DELETE ON revisions
    FOR EACH ROW EXECUTE FUNCTION memvault_revisions_guard();
CREATE TRIGGER revisions_no_truncate BEFORE TRUNCATE ON revisions
    FOR EACH STATEMENT EXECUTE FUNCTION memvault_revisions_guard();

-- One vector table per embedding model, created on first use (PostgresStore._vec_table).
CREATE TABLE vector_models (
    model TEXT PRIMARY KEY,
    dim INTEGER NOT NULL CHECK (dim > 0),
    tbl TEXT NOT NULL UNIQUE
);
"""),
    (2, "retrieval traces", r"""
CREATE TABLE traces (
    trace_id TEXT COLLATE "C" PRIMARY KEY,
{trace_columns}
);
CREATE INDEX traces_scope ON traces (tenant, user_id, at);
CREATE INDEX traces_memory_ids ON traces USING gin (memory_ids);
"""),
    (3, "server: api keys, job queue, access log", r"""
{server_tables}
"""),
    (4, "purge may blank content columns one by one", r"""
-- A memory that stays but had revisions read from, or triggered by, a purged turn: a
-- revision that kept another version's state loses only its reason and trigger text.
-- Each of the three content columns may be blanked or left; nothing else may change.
CREATE OR REPLACE FUNCTION memvault_revisions_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    kept revisions;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF current_setting('memvault.purging', true) = OLD.memory_id THEN
            kept := NEW;
            kept.state := coalesce(NEW.state, OLD.state);
            kept.reason := coalesce(NEW.reason, OLD.reason);
            kept.trigger_text := coalesce(NEW.trigger_text, OLD.trigger_text);
            IF kept IS NOT DISTINCT FROM OLD THEN
                RETURN NEW;
            END IF;
        END IF;
    END IF;
    RAISE EXCEPTION 'revisions are append-only'
        USING ERRCODE = 'integrity_constraint_violation';
END
$$;
"""),
    (5, "trace ids are unique per user, not per store", r"""
-- A caller-chosen trace id (a request id, say) must not collide with, reveal, or block
-- another tenant's trace of the same id.
ALTER TABLE traces DROP CONSTRAINT traces_pkey;
ALTER TABLE traces ADD PRIMARY KEY (tenant, user_id, trace_id);
"""),
    (6, "memories have a topic", """
{memory_topic}
"""),
    (7, "traces are stored compressed, without an index on their memory ids", r"""
-- A trace's packed JSON, zlib-compressed as on SQLite (tracepack.compress): TOAST only
-- compresses a value past ~2 KB, and less well. Rows written before keep their JSON text,
-- as bytes (tracepack.decode reads both).
ALTER TABLE traces ALTER COLUMN payload TYPE bytea USING convert_to(payload, 'UTF8');
-- Purge finds a user's traces of a memory through the (tenant, user_id, at) index and
-- filters them by memory_ids: a scan of at most the retention cap per user. The GIN index
-- cost more on disk than the trace itself (~50 ids per trace).
DROP INDEX IF EXISTS traces_memory_ids;
"""),
    (8, "word vectors per tenant and model", """
{word_vectors}
"""),
    (9, "an index of turns by scope", """
{turn_index}
"""),
    (10, "change events and webhooks", """
{events}
"""),
    (11, "named snapshots", """
{snapshots}
"""),
    (12, "teams: shared scopes under a tenant", """
{teams}
"""),
    (13, "strategy versions", """
{strategies}
"""),
    (14, "online evaluation samples and judgements", """
{online_eval}
"""),
    # Read replicas (replica.py): per scope, a counter bumped by each write transaction
    # of a store given read_db; a replica showing it has replayed the scope's writes.
    (15, "read-your-writes marks for read replicas", """
CREATE TABLE replica_marks (
    tenant TEXT COLLATE "C" NOT NULL,
    user_id TEXT COLLATE "C" NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (tenant, user_id)
);
"""),
]

MIGRATIONS: list[tuple[int, str, str]] = [(version, name, render(script, TYPES))
                                          for version, name, script in _SCRIPTS]


def migrate(conn: psycopg.Connection[dict[str, Any]]) -> None:
    """Apply the migrations the database has not had yet, in one transaction."""
    # The advisory lock makes concurrent first opens wait for one another; being
    # transaction-scoped, it is released on commit and also if this process dies.
    with conn.transaction():
        xact_lock(conn, "memvault.migrate")
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations ("
                     "version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                     "applied_at BIGINT NOT NULL)")
        done = {r["version"] for r in conn.execute("SELECT version FROM schema_migrations")}
        for version, name, script in MIGRATIONS:
            if version in done:
                continue
            conn.execute(script)  # static DDL, several statements, no parameters
            conn.execute("INSERT INTO schema_migrations VALUES (%s, %s, "
                         "(extract(epoch FROM clock_timestamp()) * 1000)::bigint)",
                         (version, name))

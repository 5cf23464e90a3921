"""The SQLite schema: its migrations, in order, and how a file is brought up to date."""

from __future__ import annotations

import sqlean as sqlite3

from ..errors import StoreError
from .schema import render

# The shared parts' column types here (see schema.py).
TYPES = {
    "key": "TEXT", "time": "INTEGER", "real": "REAL",
    "serial": "INTEGER PRIMARY KEY AUTOINCREMENT", "id_list": "TEXT", "bytes": "BLOB",
    "revisions_tenant": "TEXT NOT NULL", "revisions_user": "TEXT NOT NULL",
}

# (version, name, script); markers in braces are the shared parts of schema.py.
_SCRIPTS: list[tuple[int, str, str]] = [
    (1, "core tables", """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE memories (
{memory_columns}
    n_terms INTEGER NOT NULL DEFAULT 0
);
{memory_indexes}

{revisions}

-- History is append-only. The one exception, purge, marks itself in `meta` inside its
-- own transaction and may then only blank the content-bearing columns.
CREATE TRIGGER revisions_no_delete BEFORE DELETE ON revisions
BEGIN SELECT RAISE(ABORT, 'revisions are append-only'); END;
CREATE TRIGGER revisions_no_update BEFORE UPDATE ON revisions
WHEN NOT EXISTS (SELECT 1 FROM meta WHERE key = 'purging' AND value = OLD.memory_id)
  OR NEW.op_id IS NOT OLD.op_id OR NEW.op IS NOT OLD.op OR NEW.at IS NOT OLD.at
  OR NEW.actor IS NOT OLD.actor OR NEW.to_version IS NOT OLD.to_version
BEGIN SELECT RAISE(ABORT, 'revisions are append-only'); END;

-- A rowid table, not WITHOUT ROWID: a 2 KiB vector in a clustered index spills to an
-- overflow page per row (measured 4.7 KB/row and 5x slower scope reads).
CREATE TABLE vectors (
    mrow INTEGER NOT NULL,
    model TEXT NOT NULL,
    vec BLOB NOT NULL
);
CREATE UNIQUE INDEX vectors_key ON vectors (mrow, model);

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    scope, body, tokenize = "unicode61 remove_diacritics 0"
);
INSERT INTO memories_fts (memories_fts, rank) VALUES ('secure-delete', 1);
"""),
    (2, "retrieval traces", """
CREATE TABLE traces (
    trace_id TEXT PRIMARY KEY,
{trace_columns}
);
CREATE INDEX traces_scope ON traces (tenant, user_id, at);
"""),
    (3, "server: api keys, job queue, access log", """
{server_tables}
"""),
    (4, "trace ids are unique per user, not per store", """
-- A caller-chosen trace id (a request id, say) must not collide with, reveal, or block
-- another tenant's trace of the same id.
CREATE TABLE traces_by_scope (
    trace_id TEXT NOT NULL,
{trace_columns},
    PRIMARY KEY (tenant, user_id, trace_id)
);
INSERT INTO traces_by_scope SELECT trace_id, tenant, user_id, kind, at, strategy_hash,
    memory_ids, payload FROM traces;
DROP TABLE traces;
ALTER TABLE traces_by_scope RENAME TO traces;
CREATE INDEX traces_scope ON traces (tenant, user_id, at);
"""),
    (5, "memories have a topic", """
{memory_topic}
"""),
    (6, "word vectors per tenant and model", """
{word_vectors}
"""),
    (7, "an index of turns by scope", """
{turn_index}
"""),
    (8, "change events and webhooks", """
{events}
"""),
    (9, "named snapshots", """
{snapshots}
"""),
    (10, "teams: shared scopes under a tenant", """
{teams}
"""),
    (11, "strategy versions", """
{strategies}
"""),
    (12, "online evaluation samples and judgements", """
{online_eval}
"""),
]

MIGRATIONS: list[tuple[int, str, str]] = [(version, name, render(script, TYPES))
                                          for version, name, script in _SCRIPTS]


def migrate(db: sqlite3.Connection) -> None:
    """Apply the migrations `db` has not had yet, in one transaction."""
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("CREATE TABLE IF NOT EXISTS schema_migrations ("
                   "version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                   "applied_at INTEGER NOT NULL)")
        done = {r[0] for r in db.execute("SELECT version FROM schema_migrations")}
        for version, name, script in MIGRATIONS:
            if version in done:
                continue
            for statement in split_sql(script):
                db.execute(statement)
            db.execute("INSERT INTO schema_migrations VALUES (?, ?, "
                       "CAST(unixepoch('subsec') * 1000 AS INTEGER))", (version, name))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def split_sql(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies (BEGIN ... END;) whole."""
    statements: list[str] = []
    buf: list[str] = []
    for line in script.splitlines():
        if line.strip().startswith("--") or not line.strip():
            continue
        buf.append(line)
        joined = "\n".join(buf)
        if sqlite3.complete_statement(joined):
            statements.append(joined)
            buf = []
    if buf and "\n".join(buf).strip():
        raise StoreError("migration has an incomplete statement")
    return statements

"""The tables both backends create, written once: their columns, constraints and indexes.

A backend's migration scripts name these parts by marker (`{memory_columns}`, ...) and
`render` puts them in, written in the backend's own column types:

    key       text compared byte for byte (ids, scope, hashes, statuses)
    time      epoch milliseconds (64-bit)
    real      a double
    serial    a generated integer row key
    id_list   a list of ids (traces.memory_ids)
    bytes     a byte string (a float16 vector)
    revisions_tenant, revisions_user   those columns of the revisions table (PostgreSQL
              also checks them non-empty; SQLite's first schema did not)

What only one backend has (SQLite's full-text table, PostgreSQL's lexeme columns, vector
tables, the append-only guards) stays in its own migrations.
"""

from __future__ import annotations

_MEMORY_COLUMNS = """\
    id {key} NOT NULL UNIQUE,
    tenant {key} NOT NULL CHECK (tenant <> ''),
    user_id {key} NOT NULL CHECK (user_id <> ''),
    agent {key} NOT NULL DEFAULT '',
    session {key} NOT NULL DEFAULT '',
    kind TEXT NOT NULL,
    content TEXT NOT NULL,
    content_hash {key} NOT NULL,
    slot {key},
    value TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    metadata TEXT NOT NULL DEFAULT '{{}}',
    source TEXT NOT NULL,
    source_text TEXT,
    source_ref TEXT,
    confidence {real} NOT NULL,
    status {key} NOT NULL,
    frozen INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL,
    valid_from {time},
    valid_to {time},
    recorded_at {time} NOT NULL,
    expires_at {time},
    embedding_model TEXT,
    created_at {time} NOT NULL,
    updated_at {time} NOT NULL,"""

_MEMORY_INDEXES = """\
CREATE INDEX memories_scope ON memories (tenant, user_id, status, updated_at);
CREATE INDEX memories_hash ON memories (tenant, user_id, content_hash);
CREATE INDEX memories_slot ON memories (tenant, user_id, slot) WHERE slot IS NOT NULL;
CREATE UNIQUE INDEX memories_one_active_slot
    ON memories (tenant, user_id, agent, session, slot)
    WHERE slot IS NOT NULL AND status = 'active';
CREATE INDEX memories_expiry ON memories (tenant, user_id, expires_at)
    WHERE expires_at IS NOT NULL AND status = 'active';"""

# Migration 5 (SQLite) / 6 (PostgreSQL): what a memory without a slot is about.
_MEMORY_TOPIC = """\
ALTER TABLE memories ADD COLUMN topic TEXT;
CREATE INDEX memories_topic ON memories (tenant, user_id, topic) WHERE topic IS NOT NULL;"""

# Migration 6 (SQLite) / 8 (PostgreSQL): each word of a stored memory's content as a float16
# unit vector (wordmatch.py), per tenant and embedding model, written with the memory and
# read by recall's coverage part instead of embedding the word again. A purge deletes the
# words of what it erases (sql_tx.py). The key holds a hash of the word, never the word
# (wordtable.word_key): an index keeps a deleted entry's bytes until it is vacuumed, and
# PostgreSQL's purge vacuum skips index cleanup (postgres.py compact).
_WORD_VECTORS = """\
CREATE TABLE word_vectors (
    tenant {key} NOT NULL,
    model TEXT NOT NULL,
    word_key {key} NOT NULL,
    vec {bytes} NOT NULL,
    PRIMARY KEY (tenant, model, word_key)
);"""

# Migration 7 (SQLite) / 9 (PostgreSQL): a scope's turns without the user's other memories.
# A session's last turns (recent, summaries, a new turn's neighbours: turnorder.py) and its
# highest turn number (sql_tx.py) are read on every turn written and every context built;
# without it they read every row of the user. Partial: only turns are indexed.
_TURN_INDEX = """\
CREATE INDEX memories_turns ON memories (tenant, user_id, agent, session, status)
    WHERE kind = 'turn';"""

# Migration 8 (SQLite) / 10 (PostgreSQL): change events (changes.py, outbox.py). One row
# per revision, written in its transaction; the rest of an event (versions, actor, reason,
# time, the state) is read from its revision by op_id, so a purge that blanks the
# revisions blanks their events too, and no state is stored twice. `seq` orders the
# writes; `id` is the event id readers page by: on SQLite given at insert (one writer at a
# time: ids commit in order), on PostgreSQL given after commit by one publisher at a time
# (outbox.publish), so an id is never seen before a smaller one. Webhooks: subscriptions
# (their `queued_through` is the last event id queued for them), one delivery per
# (webhook, event), and a log row per attempt; none holds content (a delivery's body is
# the event, read when it is sent).
_EVENTS = """\
CREATE TABLE events (
    seq {serial},
    id {time} UNIQUE,
    op_id {key} NOT NULL,
    tenant {key} NOT NULL,
    user_id {key} NOT NULL,
    kind {key} NOT NULL,
    memory_id {key} NOT NULL
);
CREATE INDEX events_tenant ON events (tenant, id);
CREATE INDEX events_user ON events (tenant, user_id, id);
CREATE INDEX events_unpublished ON events (seq) WHERE id IS NULL;
CREATE TABLE webhooks (
    webhook_id {key} PRIMARY KEY,
    tenant {key} NOT NULL CHECK (tenant <> ''),
    user_id {key} NOT NULL DEFAULT '',
    url TEXT NOT NULL,
    secret TEXT NOT NULL,
    kinds TEXT NOT NULL DEFAULT '[]',
    queued_through {time} NOT NULL DEFAULT 0,
    created_at {time} NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    removed_at {time}
);
CREATE INDEX webhooks_tenant ON webhooks (tenant, created_at);
CREATE TABLE webhook_deliveries (
    seq {serial},
    webhook_id {key} NOT NULL,
    tenant {key} NOT NULL,
    event_id {time} NOT NULL,
    status {key} NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at {time} NOT NULL,
    lease_until {time},
    last_code INTEGER,
    last_error TEXT,
    updated_at {time} NOT NULL,
    UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (webhook_id, status, event_id);
CREATE TABLE webhook_attempts (
    seq {serial},
    webhook_id {key} NOT NULL,
    tenant {key} NOT NULL,
    event_id {time} NOT NULL,
    attempt INTEGER NOT NULL,
    at {time} NOT NULL,
    code INTEGER,
    error TEXT,
    ms INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_event ON webhook_attempts (webhook_id, event_id, seq);"""

# Migration 9 (SQLite) / 11 (PostgreSQL): named snapshots (reads/snapshots.py). A snapshot
# is a point in revision time, not a copy: `through_seq` is the highest revision seq when
# it was taken; a memory's state at the snapshot is its last revision up to there.
# user_id '' is a snapshot of the whole tenant. Names are unique per (tenant, user_id).
_SNAPSHOTS = """\
CREATE TABLE snapshots (
    snapshot_id {key} PRIMARY KEY,
    tenant {key} NOT NULL CHECK (tenant <> ''),
    user_id {key} NOT NULL DEFAULT '',
    name {key} NOT NULL,
    kind {key} NOT NULL,
    taken_at {time} NOT NULL,
    through_seq {time} NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    reason TEXT,
    UNIQUE (tenant, user_id, name)
);
CREATE INDEX snapshots_tenant ON snapshots (tenant, taken_at);"""

# Every strategy the store has served with (strategy versions, docs/retrieval.md): a
# trace's strategy_hash resolves here to the full strategy.
_STRATEGIES = """\
CREATE TABLE strategies (
    hash {key} PRIMARY KEY,
    name TEXT NOT NULL,
    content TEXT NOT NULL,
    first_used_at {time} NOT NULL,
    last_used_at {time} NOT NULL
);"""

# Migration 12 (SQLite) / 14 (PostgreSQL): online evaluation (onlineeval.py). A sampled
# context build, by its trace id (unique per tenant and user, as traces are), with what
# the judge needs: the question and the injected memories' text as injected, and then the
# answer the application reports. status: awaiting_answer -> pending -> judging ->
# judged | failed. One row per (sample, memory) in online_eval_items carries the verdict
# (used, wrong: NULL until judged) and is how purge finds the samples naming a memory.
_ONLINE_EVAL = """\
CREATE TABLE online_evals (
    eval_id {key} PRIMARY KEY,
    tenant {key} NOT NULL CHECK (tenant <> ''),
    user_id {key} NOT NULL,
    trace_id {key} NOT NULL,
    strategy_hash TEXT NOT NULL,
    sampled_at {time} NOT NULL,
    question TEXT NOT NULL,
    memories TEXT NOT NULL,
    memory_count INTEGER NOT NULL,
    answer TEXT,
    answered_at {time},
    status {key} NOT NULL,
    claimed_at {time},
    judge TEXT,
    judged_at {time},
    attempts INTEGER NOT NULL DEFAULT 0,
    used_count INTEGER,
    wrong_count INTEGER,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    latency_ms INTEGER,
    error TEXT,
    UNIQUE (tenant, user_id, trace_id)
);
CREATE INDEX online_evals_queue ON online_evals (status, answered_at);
CREATE INDEX online_evals_tenant ON online_evals (tenant, judged_at);
CREATE TABLE online_eval_items (
    eval_id {key} NOT NULL,
    tenant {key} NOT NULL,
    user_id {key} NOT NULL,
    memory_id {key} NOT NULL,
    position INTEGER NOT NULL,
    used INTEGER,
    wrong INTEGER,
    PRIMARY KEY (eval_id, memory_id)
);
CREATE INDEX online_eval_items_memory ON online_eval_items (tenant, user_id, memory_id);"""


# Migration 10 (SQLite) / 12 (PostgreSQL): shared scopes under a tenant (teams.py,
# docs/teams.md). A team's memories live under the reserved user id "team:<name>"; these
# tables say who belongs to which team, in which role, and which keys are bound to a team.
_TEAMS = """\
CREATE TABLE teams (
    tenant {key} NOT NULL CHECK (tenant <> ''),
    name {key} NOT NULL,
    created_at {time} NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tenant, name)
);
CREATE TABLE team_members (
    tenant {key} NOT NULL,
    team {key} NOT NULL,
    user_id {key} NOT NULL,
    role {key} NOT NULL,
    added_at {time} NOT NULL,
    added_by TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (tenant, team, user_id)
);
CREATE INDEX team_members_user ON team_members (tenant, user_id);
CREATE TABLE team_keys (
    key_id {key} PRIMARY KEY,
    tenant {key} NOT NULL,
    team {key} NOT NULL
);"""
_REVISIONS = """\
CREATE TABLE revisions (
    seq {serial},
    op_id {key} NOT NULL UNIQUE,
    memory_id {key} NOT NULL,
    tenant {revisions_tenant},
    user_id {revisions_user},
    agent {key} NOT NULL,
    session {key} NOT NULL,
    op TEXT NOT NULL,
    from_version INTEGER,
    to_version INTEGER NOT NULL,
    state TEXT,
    actor TEXT NOT NULL,
    actor_role TEXT NOT NULL,
    reason TEXT,
    trigger_text TEXT,
    trace_id TEXT,
    at {time} NOT NULL
);
CREATE INDEX revisions_memory ON revisions (memory_id, seq);
CREATE INDEX revisions_scope ON revisions (tenant, user_id, at);"""

# After trace_id, whose key changed (migration "trace ids are unique per user").
_TRACE_COLUMNS = """\
    tenant {key} NOT NULL,
    user_id {key} NOT NULL,
    kind TEXT NOT NULL,
    at {time} NOT NULL,
    strategy_hash TEXT NOT NULL,
    memory_ids {id_list} NOT NULL,
    payload TEXT NOT NULL"""

# Migration 3, the same on both backends.
_SERVER_TABLES = """\
CREATE TABLE api_keys (
    key_id {key} PRIMARY KEY,
    tenant {key} NOT NULL CHECK (tenant <> ''),
    role TEXT NOT NULL,
    user_id {key} NOT NULL DEFAULT '',
    name TEXT NOT NULL DEFAULT '',
    secret_hash TEXT NOT NULL,
    created_at {time} NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    expires_at {time},
    revoked_at {time}
);
CREATE INDEX api_keys_tenant ON api_keys (tenant, created_at);
CREATE TABLE jobs (
    seq {serial},
    job_id {key} NOT NULL UNIQUE,
    tenant {key} NOT NULL CHECK (tenant <> ''),
    user_id {key} NOT NULL CHECK (user_id <> ''),
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    status {key} NOT NULL,
    result TEXT,
    error TEXT,
    key_id TEXT NOT NULL DEFAULT '',
    created_at {time} NOT NULL,
    finished_at {time}
);
CREATE INDEX jobs_queue ON jobs (status, seq);
CREATE INDEX jobs_scope ON jobs (tenant, user_id, seq);
CREATE TABLE access_log (
    seq {serial},
    at {time} NOT NULL,
    tenant {key} NOT NULL,
    user_id {key} NOT NULL,
    key_id TEXT NOT NULL,
    role TEXT NOT NULL,
    action TEXT NOT NULL,
    memory_ids TEXT NOT NULL,
    trace_id TEXT
);
CREATE INDEX access_log_scope ON access_log (tenant, user_id, seq);
CREATE INDEX access_log_tenant ON access_log (tenant, seq);"""

_PARTS = {
    "memory_columns": _MEMORY_COLUMNS,
    "memory_topic": _MEMORY_TOPIC,
    "memory_indexes": _MEMORY_INDEXES,
    "revisions": _REVISIONS,
    "trace_columns": _TRACE_COLUMNS,
    "server_tables": _SERVER_TABLES,
    "word_vectors": _WORD_VECTORS,
    "turn_index": _TURN_INDEX,
    "events": _EVENTS,
    "snapshots": _SNAPSHOTS,
    "strategies": _STRATEGIES,
    "online_eval": _ONLINE_EVAL,

    "teams": _TEAMS,
}


def render(script: str, types: dict[str, str]) -> str:
    """`script` with each marker of a shared part replaced by that part in these types.
    Only the markers are touched: the rest of the script needs no escaping."""
    for name, part in _PARTS.items():
        script = script.replace("{" + name + "}", part.format(**types))
    return script

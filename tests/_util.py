"""Helpers that look at a store through a SEPARATE connection — sqlean for a SQLite file,
psycopg for a PostgreSQL database — so the assertions do not trust the code under test to
report its own state.

A "target" is a Vault, a SQLite path, or a postgresql:// URI. Where the backends lay out
the same thing differently, the helpers hide it:

    full-text index  SQLite: rows of the FTS5 table memories_fts
                     PostgreSQL: memories.terms / memories.tsv (lexeme = sha256(term)[:16])
    vectors          SQLite: rows of the table vectors (mrow, model, vec)
                     PostgreSQL: one table per model, listed in vector_models
"""

from __future__ import annotations

import hashlib
import io
import json
import secrets
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest
import sqlean as sqlite3
from psycopg import sql as pgsql
from psycopg.conninfo import conninfo_to_dict

from memvault import Scope, Vault

BACKENDS = ("sqlite", "postgres")


T = TypeVar("T")


def until(cond: Callable[[], T], seconds: float, every: float = 0.1) -> T:
    """Poll `cond` every `every` seconds until it returns something true, for at most
    `seconds`: that value, else (timed out) what one last call returns."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if got := cond():
            return got
        time.sleep(every)
    return cond()


def backends(*names: str) -> pytest.MarkDecorator:
    """Run a test on these backends only: @backends("sqlite") for what is inherently about
    SQLite files. The test id still names the backend."""
    return pytest.mark.backends(*names)


# --- targets ------------------------------------------------------------------------------

def pg_uri(conninfo: str) -> str:
    """A libpq "key=value" conninfo (as pgserver.create_database returns) as a
    postgresql:// URI, which is what memvault's open_store recognises."""
    if conninfo.startswith(("postgresql://", "postgres://")):
        return conninfo
    params = {k: str(v) for k, v in conninfo_to_dict(conninfo).items()}
    dbname = params.pop("dbname", "")
    return ("postgresql:///" + urllib.parse.quote(dbname, safe="") + "?"
            + urllib.parse.urlencode(params))


def target_of(target: Vault | str | Path) -> str:
    if isinstance(target, Vault):
        store = target.store
        if hasattr(store, "dsn"):
            return str(store.dsn)
        return str(store.path)  # type: ignore[attr-defined]
    return str(target)


def is_pg(target: Vault | str | Path) -> bool:
    return target_of(target).startswith(("postgresql://", "postgres://"))


@contextmanager
def fresh_target(backend: str, directory: Path) -> Iterator[str]:
    """A fresh, empty store target outside the function-scoped fixtures (module fixtures,
    hypothesis examples); a PostgreSQL database is dropped on exit."""
    if backend == "sqlite":
        yield str(directory / f"store-{secrets.token_hex(4)}.db")
        return
    import pgserver

    with pgserver.fresh_database() as dsn:
        yield pg_uri(dsn)


class _Conn:
    """One inspection connection; SQL is written with `?` placeholders for both."""

    def __init__(self, target: Vault | str | Path) -> None:
        if isinstance(target, Vault):
            # A recall's trace may still be queued (store/tracequeue.py): inspect the
            # store as it is once its traces are written.
            target.store.flush_traces()
        self.target = target_of(target)
        self.pg = is_pg(self.target)

    def __enter__(self) -> _Conn:
        if self.pg:
            self._c: Any = psycopg.connect(self.target, autocommit=True)
        else:
            # Autocommit: a statement a test runs to damage a store on purpose must stick.
            self._c = sqlite3.connect(self.target, isolation_level=None)
        return self

    def __exit__(self, *exc: object) -> None:
        self._c.close()

    def q(self, sql: str | pgsql.Composable, params: Any = ()) -> list[tuple[Any, ...]]:
        if self.pg:
            if isinstance(sql, str):
                sql = sql.replace("%", "%%").replace("?", "%s")
            cur = self._c.execute(sql, params or None)
            return [tuple(r) for r in cur.fetchall()] if cur.description else []
        return [tuple(r) for r in self._c.execute(sql, params).fetchall()]

    def one(self, sql: str | pgsql.Composable, params: Any = ()) -> Any:
        return self.q(sql, params)[0][0]

    def vector_tables(self) -> list[tuple[str, str]]:
        """PostgreSQL: (model, table) of every vector table, by model."""
        return [(r[0], r[1]) for r in self.q("SELECT model, tbl FROM vector_models ORDER BY 1")]


def query(target: Vault | str | Path, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
    """Raw SQL on the store (plain SQL both backends accept; `?` placeholders)."""
    with _Conn(target) as c:
        return c.q(sql, params)


def scalar(target: Vault | str | Path, sql: str, params: Any = ()) -> Any:
    return query(target, sql, params)[0][0]


# --- what a write touches -----------------------------------------------------------------

def pg_lexeme(term: str) -> str:
    """The tsvector lexeme PostgresStore stores for an index term (computed here, not
    taken from the code under test)."""
    return hashlib.sha256(term.encode("utf-8")).hexdigest()[:16]


def _counts(c: _Conn) -> dict[str, int]:
    out = {"memories": c.one("SELECT COUNT(*) FROM memories"),
           "revisions": c.one("SELECT COUNT(*) FROM revisions")}
    if c.pg:
        out["text"] = c.one("SELECT COUNT(*) FROM memories WHERE length(tsv) > 0")
        out["vectors"] = sum(c.one(pgsql.SQL("SELECT COUNT(*) FROM {}").format(
            pgsql.Identifier(tbl))) for _, tbl in c.vector_tables())
    else:
        out["text"] = c.one("SELECT COUNT(*) FROM memories_fts")
        out["vectors"] = c.one("SELECT COUNT(*) FROM vectors")
    return {k: int(v) for k, v in out.items()}


def counts(target: Vault | str | Path) -> dict[str, int]:
    """Rows of everything a write touches: memories, revisions, full-text index entries
    ("text") and vectors (all models)."""
    with _Conn(target) as c:
        return _counts(c)


def vector_counts(target: Vault | str | Path) -> dict[str, tuple[int, int]]:
    """model -> (vectors stored, their dimension) for every model that has vectors.
    (PostgreSQL keeps the emptied table of a dropped model; it has none, so is left out.)"""
    with _Conn(target) as c:
        if c.pg:
            out = {}
            for model, tbl in c.vector_tables():
                n, lo, hi = c.q(pgsql.SQL("SELECT COUNT(*), MIN(vector_dims(vec)), "
                                          "MAX(vector_dims(vec)) FROM {}").format(
                    pgsql.Identifier(tbl)))[0]
                if n:
                    assert lo == hi, (model, lo, hi)
                    out[model] = (int(n), int(lo))
            return out
        rows = c.q("SELECT model, COUNT(*), MIN(length(vec)), MAX(length(vec)) FROM vectors "
                   "GROUP BY model ORDER BY model")
        for model, _, lo, hi in rows:
            assert lo == hi, (model, lo, hi)
        return {model: (int(n), int(lo) // 4) for model, n, lo, _ in rows}


def text_hits(target: Vault | str | Path, term: str) -> int:
    """How many memories the full-text index finds for one index term (any scope)."""
    with _Conn(target) as c:
        if c.pg:
            return int(c.one("SELECT COUNT(*) FROM memories WHERE tsv @@ ?::tsquery",
                             (f"'{pg_lexeme(term)}'",)))
        return int(c.one("SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH ?",
                         ('body : "' + term.replace('"', '""') + '"',)))


def _digest(v: Any) -> str:
    raw = v if isinstance(v, bytes) else str(v).encode()
    return hashlib.sha256(raw).hexdigest()


def dump(target: Vault | str | Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table a write touches (vectors as digests; retrieval traces
    too), in a stable order, and (PostgreSQL) the list of tables, so a vector table created
    by a write that was rolled back would show. Two equal dumps mean the store did not
    change."""
    with _Conn(target) as c:
        out: dict[str, list[tuple[Any, ...]]] = {
            "meta": c.q("SELECT key, value FROM meta ORDER BY key"),
            "revisions": c.q("SELECT * FROM revisions ORDER BY seq"),
        }
        tables = ({r[0] for r in c.q("SELECT tablename FROM pg_tables "
                                     "WHERE schemaname = 'public'")} if c.pg else
                  {r[0] for r in c.q("SELECT name FROM sqlite_master WHERE type = 'table'")})
        if "traces" in tables:  # retrieval traces: a refused call must not leave one either
            out["traces"] = c.q("SELECT * FROM traces ORDER BY trace_id")
        if "word_vectors" in tables:
            out["word_vectors"] = [(r[0], r[1], r[2], _digest(r[3])) for r in c.q(
                "SELECT tenant, model, word_key, vec FROM word_vectors ORDER BY 1, 2, 3")]
        if c.pg:
            out["tables"] = c.q("SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                                "ORDER BY 1")
            out["memories"] = c.q("SELECT * FROM memories ORDER BY mrow")
            out["vector_models"] = c.q("SELECT * FROM vector_models ORDER BY model")
            out["vectors"] = [
                (model, r[0], r[1], r[2], _digest(r[3]))
                for model, tbl in c.vector_tables()
                for r in c.q(pgsql.SQL("SELECT mrow, tenant, user_id, vec::text FROM {} "
                                       "ORDER BY mrow").format(pgsql.Identifier(tbl)))]
        else:
            out["memories"] = c.q("SELECT rowid, * FROM memories ORDER BY rowid")
            out["memories_fts"] = c.q("SELECT rowid, scope, body FROM memories_fts "
                                      "ORDER BY rowid")
            out["vectors"] = [(r[0], r[1], _digest(r[2])) for r in
                              c.q("SELECT mrow, model, vec FROM vectors ORDER BY 1, 2")]
        return out


def all_text(target: Vault | str | Path) -> dict[str, str]:
    """table -> the text of all its rows, for every table of the store (SQLite: FTS5's
    shadow tables included; PostgreSQL: every table of the schema, generated columns and
    vector tables included). To search for erased content."""
    with _Conn(target) as c:
        if c.pg:
            tables = [r[0] for r in c.q("SELECT tablename FROM pg_tables "
                                        "WHERE schemaname = 'public' ORDER BY 1")]
            return {t: "\n".join(r[0] for r in c.q(pgsql.SQL(
                "SELECT t::text FROM {} t").format(pgsql.Identifier(t)))) for t in tables}
        tables = [r[0] for r in c.q("SELECT name FROM sqlite_master WHERE type = 'table' "
                                    "ORDER BY 1")]
        out = {}
        for t in tables:
            parts = []
            for row in c.q(f'SELECT * FROM "{t}"'):
                for col in row:
                    parts.append(col.decode("utf-8", "replace") if isinstance(col, bytes)
                                 else str(col))
            out[t] = "\n".join(parts)
        return out


def check_consistent(target: Vault | str | Path) -> dict[str, int]:
    """The store holds no half-written memory: every memory row has at least one revision
    and its last revision's state is the row; every memory has exactly one full-text entry
    and one vector of each model that has vectors, and no index entry or vector belongs to
    no memory. Returns
    counts()."""
    with _Conn(target) as c:
        rows = c.q(
            "SELECT m.id, m.version, m.content, m.status, m.slot, m.value, m.tags, m.frozen, "
            "(SELECT COUNT(*) FROM revisions r WHERE r.memory_id = m.id), "
            "(SELECT r.to_version FROM revisions r WHERE r.memory_id = m.id "
            " ORDER BY r.seq DESC LIMIT 1), "
            "(SELECT r.state FROM revisions r WHERE r.memory_id = m.id "
            " ORDER BY r.seq DESC LIMIT 1) FROM memories m")
        for mid, version, content, status, slot, value, tags, frozen, n, last_v, state in rows:
            assert n >= 1, f"{mid}: a memory row without any revision"
            assert last_v == version, (mid, version, last_v)
            s = json.loads(state)
            assert (s["id"], s["version"], s["content"], s["status"], s["slot"],
                    s["value"], s["tags"], bool(s["frozen"])) == (
                mid, version, content, status, slot,
                None if value is None else json.loads(value), json.loads(tags),
                bool(frozen)), mid
        n_mem = len(rows)
        if c.pg:
            assert c.one("SELECT COUNT(*) FROM memories WHERE length(tsv) = 0 "
                         "AND terms <> ''") == 0
            for model, tbl in c.vector_tables():
                t = pgsql.Identifier(tbl)
                n_vec = c.one(pgsql.SQL("SELECT COUNT(*) FROM {}").format(t))
                joined = c.one(pgsql.SQL("SELECT COUNT(*) FROM {} v JOIN memories m "
                                         "ON m.mrow = v.mrow AND m.tenant = v.tenant "
                                         "AND m.user_id = v.user_id").format(t))
                # A model dropped by reindex keeps its (emptied) table: nothing to check.
                assert n_vec == 0 or n_vec == joined == n_mem, (model, n_vec, joined, n_mem)
        else:
            assert c.one("SELECT COUNT(*) FROM memories_fts f LEFT JOIN memories m "
                         "ON m.rowid = f.rowid WHERE m.rowid IS NULL") == 0
            assert c.one("SELECT COUNT(*) FROM memories_fts") == n_mem
            for model, n_vec in c.q("SELECT model, COUNT(*) FROM vectors GROUP BY model"):
                assert n_vec == n_mem, (model, n_vec, n_mem)
            assert c.one("SELECT COUNT(*) FROM vectors v LEFT JOIN memories m "
                         "ON m.rowid = v.mrow WHERE m.rowid IS NULL") == 0
        return _counts(c)


# --- shared data -------------------------------------------------------------------------

HISTORY_SCOPE = Scope("acme", "alice")


def build_history(vault: Vault, clock: ManualClock) -> dict[str, str]:
    """A scope whose export exercises every field and verb: slot versions and a rollback,
    a frozen preference with valid_from, a forgotten memory with a TTL, a purged one
    (history only), an agent/session-scoped one, nested metadata, emoji; plus another
    user's memory that must not travel with acme/alice's export. Returns ids by role."""
    me = HISTORY_SCOPE
    ids: dict[str, str] = {}

    def step() -> None:
        clock.advance(1000)

    ids["slot"] = vault.remember(me, "用户希望报表导出为 CSV", slot="report.format", value="CSV",
                                 tags=["报表", "export"], metadata={"来源": "聊天", "n": 1},
                                 source_text="我要 CSV", source_ref="conv:1/msg:3",
                                 confidence=0.9, actor="alice", reason="asked").id
    step()
    vault.remember(me, "用户希望报表导出为 XLSX", slot="report.format", value={"fmt": "XLSX"},
                   actor="bot", reason="changed", trigger_text="以后用 XLSX")
    step()
    vault.rollback(me, ids["slot"], 1, actor="admin", reason="wrong")
    step()
    ids["frozen"] = vault.remember(me, "Notify me by email", slot="notify.channel",
                                   value="email", kind="preference",
                                   valid_from="2025-01-01T00:00:00Z").id
    step()
    vault.freeze(me, ids["frozen"], actor="compliance", reason="contract")
    step()
    ids["forgotten"] = vault.remember(me, "The user is allergic to peanuts",
                                      tags=["health"], ttl="30d").id
    step()
    vault.forget(me, ids["forgotten"], reason="user asked")
    step()
    ids["purged"] = vault.remember(me, "Secret code zebracorn42 紫色独角兽").id
    step()
    vault.purge(me, ids["purged"], actor="dpo", reason="erasure")
    step()
    ids["agent"] = vault.remember(Scope("acme", "alice", agent="reporter", session="s1"),
                                  "Weekly report goes out on Mondays", kind="fact").id
    step()
    ids["plain"] = vault.remember(me, "Has a cat named Miso 🐱", tags=["pets"],
                                  metadata={"nested": {"list": [1, 2.5, None, True]}}).id
    step()
    vault.edit(me, ids["plain"], content="Has a cat named Miso and a dog named Bao",
               reason="more pets")
    # Another user's memory must not travel with alice's export.
    vault.remember(Scope("acme", "bob"), "Bob prefers tea")
    return ids


def export_text(vault: Vault, scope: Scope) -> str:
    buf = io.StringIO()
    vault.export_jsonl(scope, buf)
    return buf.getvalue()


class ManualClock:
    """A clock the test moves by hand (epoch ms). Vault(clock=...) reads it for every
    timestamp it records, so as-of and expiry tests need no sleeping."""

    def __init__(self, start: int = 1_767_225_600_000) -> None:  # 2026-01-01T00:00:00Z
        self.now = start

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> int:
        self.now += ms
        return self.now


# --- a real HTTP peer on loopback ---------------------------------------------------------

class EventStream(list[Any]):
    """A payload LoopbackJSONServer sends as server-sent events (`text/event-stream`): one
    `data:` line of JSON per item, then `data: [DONE]` unless `done` is False (a stream
    cut short)."""

    def __init__(self, events: list[Any], *, done: bool = True) -> None:
        super().__init__(events)
        self.done = done


class LoopbackJSONServer:
    """A JSON-over-HTTP server on 127.0.0.1 for protocol tests of clients (embeddings,
    chat completions). Every POST is recorded as {path, body, auth}; `respond(request)`
    returns (status, payload) — a payload that is a str is sent as it is (for malformed
    bodies), an EventStream as server-sent events (streamed chat completions), anything
    else as JSON. `url` ends in /v1."""

    def __init__(self, respond: Callable[[dict[str, Any]], tuple[int, Any]]) -> None:
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                request = {"path": self.path, "body": body,
                           "auth": self.headers.get("Authorization")}
                server.requests.append(request)
                code, payload = respond(request)
                if isinstance(payload, EventStream):
                    self.send_response(code)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()  # no length: HTTP/1.0, the body ends with the connection
                    for event in payload:
                        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                    if payload.done:
                        self.wfile.write(b"data: [DONE]\n\n")
                    return
                raw = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def statements(vault: Vault, scope: Scope, limit: int = 50) -> dict[str, Any]:
    """The scope's memories other than raw turns, by id."""
    return {m.id: m for m in vault.list(scope, limit=limit) if m.kind != "turn"}


def changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The ids of `before` whose memory has a newer version in `after`."""
    return [i for i in before if after[i].version > before[i].version]

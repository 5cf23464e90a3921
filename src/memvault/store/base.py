"""The Store interface: what a backend must do, and nothing above it.

A backend stores memories, revisions, full-text terms and vectors, and returns scoped
candidates. Fusion, slot collapse, filters, the gate and every rule live in the core
(vault.py, recall.py) once, for all backends.

Every read and write takes a Scope. tenant and user are matched exactly; agent and
session, when non-empty in the scope, narrow the match. Writes use the memory's own
exact scope.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..bm25 import TextCandidates
from ..changes import Event
from ..model import Memory, Revision, Scope
from ..validtime import ValidWindow
from .leadership import Lease


@dataclass(slots=True)
class ListFilter:
    kind: str | None = None
    status: str | None = None
    slot: str | None = None
    tags: list[str] = field(default_factory=list)
    since: int | None = None  # updated_at >= since
    until: int | None = None  # updated_at < until
    source: str | None = None
    frozen: bool | None = None
    expires_before: int | None = None  # expires_at < expires_before (no TTL: excluded)
    q: str | None = None  # case-insensitive substring of content
    slotted: bool | None = None  # True: holds a slot; False: holds none
    topic: str | None = None
    topicked: bool | None = None  # True: has a topic; False: has none
    valid: ValidWindow | None = None  # valid at some point of this window (validtime.py)
    limit: int = 100
    offset: int = 0


# Named points inside a write where tests inject a crash to prove atomicity.
FaultHook = Callable[[str], None]


class WordEmbedding(Protocol):
    """How a store embeds the words of what it writes (the core gives it one): the table
    of word vectors (wordmatch.py) is filled in the transaction that writes the memory."""

    def word_model(self) -> str | None:
        """The embedding model of word vectors (None: no table is kept)."""
        ...

    def embed_words(self, words: list[str]) -> np.ndarray:
        """float16 unit vectors of `words`, one row each (wordmatch.unit_vectors)."""
        ...


class Tx(Protocol):
    """One transaction. Everything done through it commits together or not at all."""

    def get(self, scope: Scope, memory_id: str, *, for_update: bool = False) -> Memory | None: ...

    def find_slot(self, scope: Scope, slot: str) -> Memory | None:
        """The row holding `slot` in exactly this scope: the active one, else the newest
        demoted (pending/expired) one; None if none."""
        ...

    def find_duplicate(self, scope: Scope, content_hash: str, kind: str) -> Memory | None: ...

    def next_turn_seq(self, scope: Scope) -> int:
        """A new turn's sequence number in exactly `scope` (metadata.turn_seq): one more
        than any turn there has; writers of the scope wait for each other."""
        ...

    def top_turn_seq(self, scope: Scope, known: int | None = None) -> int:
        """The highest turn number in exactly `scope` (0: none), this transaction's
        included; `known`: taken as the stored one, not read (an import's later batch)."""
        ...

    def claim_turn_seq(self, scope: Scope, seq: int) -> None:
        """Record that a turn of `scope` is stored with number `seq` (an import): later
        numbers come after it."""
        ...

    def insert(self, memory: Memory, content_hash: str, terms: str,
               vectors: dict[str, np.ndarray]) -> None: ...

    def update(self, memory: Memory, content_hash: str, terms: str | None,
               vectors: dict[str, np.ndarray] | None) -> None:
        """Replace the row; terms/vectors None means the indexed text did not change."""
        ...

    def insert_many(self, items: list[tuple[Memory, str, str, dict[str, np.ndarray]]]
                    ) -> None:
        """Bulk insert of (memory, content hash, terms, vectors) — the import path."""
        ...

    def say(self, tenant: str, texts: list[str]) -> None:
        """Content of the tenant that this transaction writes: before it commits, the
        vectors of its words (wordmatch.content_words, the first MAX_MEMORY_WORDS) that
        the tenant's table lacks are embedded in one batch and stored (Store.words).
        insert, insert_many and update with vectors call it; reindex too."""
        ...

    def append_revisions(self, revisions: list[Revision]) -> None: ...

    def append_revision(self, revision: Revision) -> None: ...

    def erase(self, scope: Scope, memory_id: str, tombstone: Revision) -> None:
        """Purge: delete the row, its terms and vectors, and the tenant's word vectors of
        every word of its content and its versions' (every model); strip content from
        every revision (state, reason, trigger_text) and append the tombstone revision."""
        ...

    def id_in_use(self, memory_id: str) -> bool:
        """Whether any scope has a memory or a revision with this id (the import check)."""
        ...

    def ids_in_use(self, memory_ids: list[str]) -> set[str]:
        """Those of `memory_ids` that any scope has a memory or a revision of (id_in_use
        for a whole import chunk in one read)."""
        ...

    def active_slots(self, scopes: list[Scope], slots: list[str]) -> list[Memory]:
        """The active memories of the users of `scopes` (any agent and session) holding
        one of `slots` (the import check, read without locking each slot)."""
        ...

    def ops_in_use(self, op_ids: list[str]) -> set[str]:
        """Those of `op_ids` some revision of any scope already has (the import check:
        an imported revision keeps its op id, which is unique in the store)."""
        ...

    def purged(self, scope: Scope, memory_id: str) -> bool:
        """Whether the scope's user had a memory with this id that was purged."""
        ...

    def drop_traces(self, scope: Scope, trace_ids: list[str]) -> None:
        """Delete these traces of the scope's user."""
        ...

    def redact(self, scope: Scope, memory_id: str, blank: list[str], unquote: list[str],
               note: Revision) -> None:
        """Purge of a turn a memory that stays drew on: strip state, reason and
        trigger_text from the revisions `blank` (their state was read from it), reason and
        trigger_text from `unquote` (it triggered them; their state is another version's),
        drop the traces that saw the memory, and append `note`. The tenant's word
        vectors of the words of the blanked states go too."""
        ...


class Store(Protocol):
    fault_hook: FaultHook | None
    words: WordEmbedding | None  # None: no word vectors are written (Tx.say)

    def close(self) -> None: ...

    def schema_version(self, timeout: float | None = None) -> int:
        """The highest migration applied (migrations run when the store opens). `timeout`:
        at most this many seconds waiting for a connection (a readiness probe must not hang
        while a server reconnects to a database that is gone)."""
        ...

    def reading(self, scope: Scope) -> AbstractContextManager[None]:
        """The reads of one read verb on `scope` (recall, context, list): with a read
        replica (PostgreSQL's read_db), they may run there, where the scope's own writes
        have been replayed (store/replica.py); without one, nothing changes."""
        ...

    def replica_stats(self) -> dict[str, int]:
        """Counts of reads on the read replica, and sent to the primary (empty: none)."""
        ...

    def transaction(self) -> AbstractContextManager[Tx]:
        """One transaction. Opened inside another one on the same thread, it is a savepoint
        of the outer one: it rolls back alone on error, but commits only with the outer."""
        ...

    # --- metadata ------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    # --- reads (all scoped) ----------------------------------------------------------
    def get(self, scope: Scope, memory_id: str) -> Memory | None: ...

    def fetch(self, scope: Scope, ids: list[str]) -> list[Memory]: ...

    def list(self, scope: Scope, flt: ListFilter) -> list[Memory]: ...

    def last_turns(self, scope: Scope, limit: int, *, now: int | None = None,
                   exact: bool = False) -> list[Memory]:
        """The last `limit` active turns of the scope (unexpired at `now` unless None;
        exactly that scope if `exact`), oldest first, in turn order (store/turnorder.py:
        the sequence number within one exact scope, time across several)."""
        ...

    def revisions(self, scope: Scope, memory_id: str) -> list[Revision]: ...

    def revisions_as_of(self, scope: Scope, at: int) -> list[Revision]:
        """For every memory of the scope, its latest revision recorded at or before `at`."""
        ...

    def scope_revisions(self, scope: Scope) -> Iterator[tuple[str, list[Revision]]]:
        """(memory_id, its revisions in order) for every memory ever in the scope,
        ordered by first revision."""
        ...

    def text_candidates(self, scope: Scope, terms: list[str], now: int, limit: int, *,
                        valid: ValidWindow | None = None) -> TextCandidates:
        """Live memories of the scope containing any of `terms` (at most `limit`, best
        matches first by the backend's own cheap ranking), each with its index terms, and
        the scope's statistics for BM25 (live document count, average length in terms,
        document frequency of each query term). Scoring happens in bm25.py. `valid`: a
        valid-time window replaces "valid at now" (codec.live_sql)."""
        ...

    def vector_candidates(self, scope: Scope, model: str, query: np.ndarray, now: int,
                          limit: int, *,
                          valid: ValidWindow | None = None) -> list[tuple[str, float]]:
        """(memory id, cosine similarity) of live memories, best first."""
        ...

    def vector_candidates_each(self, scope: Scope, model: str, queries: np.ndarray,
                               now: int, limit: int, *, valid: ValidWindow | None = None
                               ) -> list[list[tuple[str, float]]]:
        """vector_candidates for each row of `queries` (one list per row), in one pass
        where the backend can (the lines of a multi-line query)."""
        ...

    def word_vectors(self, tenant: str, model: str, words: list[str]) -> dict[str, bytes]:
        """The stored float16 vectors (bytes) of those of `words` the tenant has, in one
        query (wordmatch.StoredWords)."""
        ...

    def last_erasure(self) -> int:
        """A number that changes with every purge or redaction committed, by any process
        (a recall forgets the words it cached when it changes)."""
        ...

    # --- traces ------------------------------------------------------------------------
    def erasure_mark(self, scope: Scope) -> int:
        """Taken before a retrieval reads: what write_trace's `erased_after` compares with.
        An erasure of the scope's memories that commits after this call is one write_trace
        sees as after the mark."""
        ...

    def write_trace(self, scope: Scope, trace: dict[str, Any], *, keep_after: int,
                    max_per_scope: int, erased_after: int | None = None) -> None:
        """Store a trace (a JSON-able dict with trace_id, kind, at, strategy_hash,
        memory_ids) and drop the scope's traces older than keep_after or beyond the cap.
        Purging a memory deletes every trace that lists it; with `erased_after` (an
        erasure_mark taken before the retrieval read), a trace naming a memory purged or
        redacted since that mark is not stored at all."""
        ...

    def write_trace_later(self, scope: Scope, trace: dict[str, Any], *, keep_after: int,
                          max_per_scope: int, erased_after: int | None = None) -> None:
        """write_trace, perhaps after returning (SQLite: store/tracequeue.py); a read of
        the traces, a purge and close() see it written."""
        ...

    def flush_traces(self) -> None:
        """Write every trace write_trace_later has queued, now, in this thread."""
        ...

    def get_trace(self, scope: Scope, trace_id: str, *,
                  not_before: int | None = None) -> dict[str, Any] | None:
        """The trace, unless it is older than `not_before` (retention by age, on a read)."""
        ...

    def list_traces(self, scope: Scope, limit: int, *,
                    not_before: int | None = None) -> list[dict[str, Any]]:
        """The newest `limit` traces of the user, none older than `not_before`."""
        ...

    # --- server (migration 3): API keys, the job queue, the access log ------------------
    # A key is found by its id before any scope is known (authentication), and the job
    # worker reads the queue across tenants; every other query names the tenant.
    def add_api_key(self, key: dict[str, Any]) -> None:
        """key: key_id, tenant, role, user (or None), name, secret_hash (never the secret),
        created_at, created_by, expires_at."""
        ...

    def get_api_key(self, key_id: str) -> dict[str, Any] | None: ...

    def list_api_keys(self, tenant: str | None) -> list[dict[str, Any]]:
        """A tenant's keys, or every tenant's when None (local administration only)."""
        ...

    def revoke_api_key(self, tenant: str, key_id: str, at: int) -> bool:
        """True if the key existed in the tenant and was not revoked yet."""
        ...

    def count_api_keys(self) -> int: ...

    def enqueue_job(self, job: dict[str, Any]) -> None:
        """job: job_id, tenant, user, kind, payload (JSON-able), key_id, created_at."""
        ...

    def get_job(self, tenant: str, job_id: str,
                user: str | None = None) -> dict[str, Any] | None: ...

    def queued_jobs(self, limit: int) -> list[dict[str, Any]]:
        """Queued jobs of every tenant, oldest first (the worker's read)."""
        ...

    def claim_job(self, tenant: str, job_id: str) -> bool:
        """Mark a queued job running; False if it is not queued (done by someone else).
        Meant to run inside the transaction that applies the job."""
        ...

    def finish_job(self, tenant: str, job_id: str, *, status: str, result: Any,
                   error: dict[str, Any] | None, at: int) -> bool:
        """done/failed, with the result or error; the payload (content) is dropped."""
        ...

    def queue_depth(self) -> int: ...

    def try_lead(self, name: str) -> Lease | None:
        """The lease `name` (leadership.py) if no other holder has it, by any process on
        this store: the timer sweep of several servers runs in one at a time."""
        ...

    def log_access(self, rows: list[dict[str, Any]]) -> None:
        """rows: at, tenant, user, key_id, role, action, memory_ids, trace_id."""
        ...

    def access_log(self, tenant: str, *, user: str | None = None, limit: int = 100,
                   offset: int = 0) -> list[dict[str, Any]]:
        """Newest first."""
        ...

    # --- change events and webhooks (migration 8/10; outbox.py) ------------------------
    # Every revision's event is written in its transaction (Tx.append_revision).
    def events(self, tenant: str, *, user: str | None = None, since: int = 0,
               limit: int = 100, kinds: list[str] | None = None) -> list[Event]:
        """The tenant's (a user's) events with id > since, oldest first."""
        ...

    def get_event(self, tenant: str, event_id: int) -> Event | None: ...

    def last_event_id(self, tenant: str, user: str | None = None) -> int: ...

    def publish_events(self) -> int:
        """Give ids to committed events that lack one (PostgreSQL); how many."""
        ...

    def add_webhook(self, hook: dict[str, Any]) -> None: ...

    def webhooks(self, tenant: str | None, *, removed: bool = False
                 ) -> list[dict[str, Any]]: ...

    def get_webhook(self, tenant: str, webhook_id: str) -> dict[str, Any] | None: ...

    def remove_webhook(self, tenant: str, webhook_id: str, at: int) -> bool: ...

    def queue_deliveries(self, hook: dict[str, Any], event_ids: list[int], through: int,
                         now: int) -> bool: ...

    def next_delivery(self, webhook_id: str) -> dict[str, Any] | None: ...

    def lease_delivery(self, webhook_id: str, event_id: int, now: int, until: int
                       ) -> bool: ...

    def record_attempt(self, delivery: dict[str, Any], attempt: dict[str, Any]) -> None: ...

    def deliveries(self, tenant: str, webhook_id: str, *, status: str | None = None,
                   limit: int = 100) -> list[dict[str, Any]]: ...

    def retry_delivery(self, tenant: str, webhook_id: str, event_id: int, now: int
                       ) -> bool: ...

    # --- named snapshots (migration 9/11; snapshot_tables.py) ---------------------------
    def add_snapshot(self, snap: dict[str, Any]) -> dict[str, Any]:
        """Record a snapshot at the current end of revision time; ConflictError when the
        name is taken in its scope (tenant, user or None)."""
        ...

    def get_snapshot(self, tenant: str, user: str | None, name: str
                     ) -> dict[str, Any] | None: ...

    def list_snapshots(self, tenant: str, user: str | None = None
                       ) -> list[dict[str, Any]]: ...

    def drop_snapshot(self, tenant: str, user: str | None, name: str) -> bool: ...

    def revisions_through(self, tenant: str, user: str, through_seq: int | None
                          ) -> list[Revision]:
        """Every memory's last revision of the user up to a snapshot's point (None: now)."""
        ...

    # --- strategy versions (strategy_tables.py) ------------------------------------------
    def note_strategy(self, hash_: str, name: str, content: str, at: int) -> None:
        """Keep a strategy served with (its canonical JSON), widening its first and last
        use to include `at`."""
        ...

    def get_strategy(self, hash_: str) -> dict[str, Any] | None: ...

    def list_strategies(self) -> list[dict[str, Any]]: ...

    # --- online evaluation (migration 12/14; online_eval_tables.py) ----------------------
    def add_eval_sample(self, row: dict[str, Any]) -> bool:
        """A sampled context build and its item rows; False if its trace is sampled."""
        ...

    def get_eval_sample(self, tenant: str, user: str, trace_id: str
                        ) -> dict[str, Any] | None: ...

    def answer_eval_sample(self, eval_id: str, answer: str, at: int) -> bool: ...

    def claim_eval_samples(self, now: int, stale_before: int, limit: int
                           ) -> list[dict[str, Any]]: ...

    def finish_eval_judged(self, eval_id: str, verdicts: list[tuple[str, bool, bool]], *,
                           judge: str, at: int, prompt_tokens: int, completion_tokens: int,
                           latency_ms: int) -> bool: ...

    def release_eval_sample(self, eval_id: str) -> bool: ...

    def finish_eval_failed(self, eval_id: str, *, judge: str, at: int, error: str
                           ) -> bool: ...

    def eval_items(self, eval_id: str) -> list[dict[str, Any]]: ...

    def eval_figures(self, tenant: str | None, since: int) -> list[dict[str, Any]]: ...

    def drop_eval_samples(self, *, unanswered_before: int, before: int) -> int: ...

    # --- teams (migration 10/12; team_tables.py, memvault.teams) -------------------------
    def add_team(self, team: dict[str, Any]) -> None: ...

    def get_team(self, tenant: str, name: str) -> dict[str, Any] | None: ...

    def list_teams(self, tenant: str) -> list[dict[str, Any]]: ...

    def drop_team(self, tenant: str, name: str, *, at: int) -> bool: ...

    def set_member(self, member: dict[str, Any]) -> None: ...

    def remove_member(self, tenant: str, team: str, user: str) -> bool: ...

    def team_members(self, tenant: str, team: str) -> list[dict[str, Any]]: ...

    def memberships(self, tenant: str, user: str) -> list[dict[str, Any]]: ...

    def bind_key_team(self, key_id: str, tenant: str, team: str) -> None: ...

    def key_team(self, key_id: str) -> str | None: ...

    # --- maintenance (scope enumeration is the only unscoped read) ----------------------
    def scopes(self) -> list[Scope]: ...

    def users(self, tenant: str) -> list[str]:
        """The user ids with any revision in this tenant, sorted (an admin's user picker)."""
        ...

    def expired_ids(self, scope: Scope, now: int) -> list[str]: ...

    def iter_all_for_reindex(self, batch: int) -> Iterator[list[tuple[int, str]]]:
        """Batches of (row key, content) for every stored memory (reindex)."""
        ...

    def iter_contents(self, batch: int) -> Iterator[list[tuple[str, str]]]:
        """Batches of (tenant, content) for every stored memory (the word backfill)."""
        ...

    def replace_vectors(self, rows: list[tuple[int, dict[str, np.ndarray]]],
                        drop_models: list[str], embedding_model: str) -> None: ...

    def count(self) -> int: ...

    def bulk_load(self) -> AbstractContextManager[None]:
        """A context for loading many rows: the backend may defer index maintenance
        (PostgreSQL builds HNSW after the load). Reads stay correct meanwhile."""
        ...

    def drop_vector_models(self, models: list[str]) -> None:
        """Delete every vector of these models, word vectors too (after a reindex to other
        models)."""
        ...

    def compact(self) -> bool:
        """Make erased bytes unrecoverable from the files (after purge). True when verified
        for every erasure so far; False when something still holds them (another
        connection's read snapshot): the erasure stays pending, recorded in the store, and
        the store finishes it at its next write, status call, close or open."""
        ...

    def erasure_status(self, scope: Scope, memory_id: str) -> str | None:
        """"done" or "pending" (see compact; a pending one is retried first) for a memory
        purged in this scope's user; None if it was never purged."""
        ...


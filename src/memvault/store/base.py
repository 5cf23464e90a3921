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
from ..model import Memory, Revision, Scope


@dataclass(slots=True)
class ListFilter:
    kind: str | None = None
    status: str | None = None
    slot: str | None = None
    tags: list[str] = field(default_factory=list)
    since: int | None = None  # updated_at >= since
    until: int | None = None  # updated_at < until
    limit: int = 100
    offset: int = 0


# Named points inside a write where tests inject a crash to prove atomicity.
FaultHook = Callable[[str], None]


class Tx(Protocol):
    """One transaction. Everything done through it commits together or not at all."""

    def get(self, scope: Scope, memory_id: str, *, for_update: bool = False) -> Memory | None: ...

    def find_slot(self, scope: Scope, slot: str) -> Memory | None:
        """The row holding `slot` in exactly this scope: the active one, else the newest
        demoted (pending/expired) one; None if none."""
        ...

    def find_duplicate(self, scope: Scope, content_hash: str, kind: str) -> Memory | None: ...

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

    def append_revisions(self, revisions: list[Revision]) -> None: ...

    def append_revision(self, revision: Revision) -> None: ...

    def erase(self, scope: Scope, memory_id: str, tombstone: Revision) -> None:
        """Purge: delete the row, its terms and vectors; strip content from every revision
        (state, reason, trigger_text) and append the tombstone revision."""
        ...


class Store(Protocol):
    fault_hook: FaultHook | None

    def close(self) -> None: ...

    def schema_version(self) -> int:
        """The highest migration applied (migrations run when the store opens)."""
        ...

    def transaction(self) -> AbstractContextManager[Tx]: ...

    # --- metadata ------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    # --- reads (all scoped) ----------------------------------------------------------
    def get(self, scope: Scope, memory_id: str) -> Memory | None: ...

    def fetch(self, scope: Scope, ids: list[str]) -> list[Memory]: ...

    def list(self, scope: Scope, flt: ListFilter) -> list[Memory]: ...

    def revisions(self, scope: Scope, memory_id: str) -> list[Revision]: ...

    def revisions_as_of(self, scope: Scope, at: int) -> list[Revision]:
        """For every memory of the scope, its latest revision recorded at or before `at`."""
        ...

    def scope_revisions(self, scope: Scope) -> Iterator[tuple[str, list[Revision]]]:
        """(memory_id, its revisions in order) for every memory ever in the scope,
        ordered by first revision."""
        ...

    def text_candidates(self, scope: Scope, terms: list[str], now: int,
                        limit: int) -> TextCandidates:
        """Live memories of the scope containing any of `terms` (at most `limit`, best
        matches first by the backend's own cheap ranking), each with its index terms, and
        the scope's statistics for BM25 (live document count, average length in terms,
        document frequency of each query term). Scoring happens in bm25.py."""
        ...

    def vector_candidates(self, scope: Scope, model: str, query: np.ndarray, now: int,
                          limit: int) -> list[tuple[str, float]]:
        """(memory id, cosine similarity) of live memories, best first."""
        ...

    # --- traces ------------------------------------------------------------------------
    def write_trace(self, scope: Scope, trace: dict[str, Any], *, keep_after: int,
                    max_per_scope: int) -> None:
        """Store a trace (a JSON-able dict with trace_id, kind, at, strategy_hash,
        memory_ids) and drop the scope's traces older than keep_after or beyond the cap.
        Purging a memory deletes every trace that lists it."""
        ...

    def get_trace(self, scope: Scope, trace_id: str) -> dict[str, Any] | None: ...

    def list_traces(self, scope: Scope, limit: int) -> list[dict[str, Any]]: ...

    # --- maintenance (scope enumeration is the only unscoped read) ----------------------
    def scopes(self) -> list[Scope]: ...

    def expired_ids(self, scope: Scope, now: int) -> list[str]: ...

    def iter_all_for_reindex(self, batch: int) -> Iterator[list[tuple[int, str]]]:
        """Batches of (row key, content) for every stored memory (reindex)."""
        ...

    def replace_vectors(self, rows: list[tuple[int, dict[str, np.ndarray]]],
                        drop_models: list[str], embedding_model: str) -> None: ...

    def count(self) -> int: ...

    def bulk_load(self) -> AbstractContextManager[None]:
        """A context for loading many rows: the backend may defer index maintenance
        (PostgreSQL builds HNSW after the load). Reads stay correct meanwhile."""
        ...

    def drop_vector_models(self, models: list[str]) -> None:
        """Delete every vector of these models (after a reindex to other models)."""
        ...

    def compact(self) -> None:
        """Make erased bytes unrecoverable from the files (after purge)."""
        ...


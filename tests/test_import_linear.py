"""An import does the same work per memory however large the store already is and however
many memories the import has brought so far (issue 21: a bulk load of 1M memories ran at
200/s and slowed as it went, because every memory copied the set of ids imported before
it). Work is counted, never timed:

- SQL statements run (the connection's trace callback),
- SQLite virtual-machine instructions (its progress handler, called once per instruction:
  a scan of the scope or of the revisions grows it, an index lookup does not),
- Python lines run in memvault's own code (sys.settrace; a Python loop over what was
  imported or what is stored grows it),
- what each of those lines allocates at its peak (tracemalloc; copying a growing
  collection, as `set(skip)` did, grows it even though it is one line of C).

Memories of a few users (so every scope grows), turns with their turn_seq, summaries
covering turns the same import brings, and facts read from memories already in the
store (check_sources reads those from the store).
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from _util import backends

import memvault
from memvault import Scope, Vault
from memvault.model import Memory, Revision
from memvault.vault import EXPORT_FORMAT, EXPORT_FORMAT_VERSION, new_id

USERS = [Scope("acme", f"u{i}", "", "s1") for i in range(3)]
BATCH = 30
T0 = 1_767_225_600_000
SRC = str(Path(memvault.__file__).parent)


def export_lines(n: int, start: int, earlier: list[str]) -> tuple[list[str], list[str]]:
    """An export of `n` memories (numbered from `start`): a turn, a summary of the two
    turns before it, a fact read from a memory of an earlier import, in turn. Returns the
    lines and the ids of the turns."""
    lines = [json.dumps({"format": EXPORT_FORMAT, "format_version": EXPORT_FORMAT_VERSION,
                         "scope": {"tenant": "*", "user": "*", "agent": "",
                                   "session": ""}})]
    turns: list[str] = []
    for i in range(start, start + n):
        sc = USERS[i % len(USERS)]
        at = T0 + i * 1000
        meta: dict[str, Any]
        kind = ("turn", "summary", "fact")[i % 3]
        if kind == "turn":
            meta, content = {"turn_seq": i + 1, "role": "user"}, f"turn {i}: I walked the dog"
        elif kind == "summary":
            meta, content = {"covers": turns[-2:]}, f"summary {i}: walks with the dog"
        else:
            meta = {"source_memory": earlier[i % len(earlier)]} if earlier else {}
            content = f"fact {i}: the user has a dog called Bao number {i}"
        m = Memory(id=new_id("m"), scope=Scope(sc.tenant, sc.user), kind=kind,
                   content=content, metadata=meta, recorded_at=at, created_at=at,
                   updated_at=at, embedding_model="use-m3")
        if kind == "turn":
            m.scope = sc
            turns.append(m.id)
        rev = Revision(op_id=new_id("op"), memory_id=m.id, scope=m.scope, op="create",
                       from_version=None, to_version=1, state=m.to_dict(), actor="test",
                       actor_role="service", reason=None, trigger_text=None, trace_id=None,
                       at=at)
        lines.append(json.dumps({"id": m.id, "memory": m.to_dict(),
                                 "revisions": [rev.to_dict()]}))
    return lines, turns


class Counter:
    """Counts the work between two calls of `mark` (an import's progress callback)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.statements = self.vm = self.lines = 0
        self.surge: dict[tuple[str, int], int] = {}
        self.at: tuple[str, int] | None = None
        self.per_batch: list[tuple[int, int, int, int, dict[tuple[str, int], int]]] = []

    def _statement(self, _sql: str) -> None:
        self.statements += 1

    def _vm(self) -> int:
        self.vm += 1
        return 0

    def _trace(self, frame: FrameType, event: str, _arg: Any) -> Any:
        if not frame.f_code.co_filename.startswith(SRC):
            return None  # not memvault's code (json, the embedder, the standard library)
        if event in ("line", "return"):
            # What the line that just ran allocated at its peak, above where it started:
            # a copy of something that grows (set(skip) did) grows it, even in C.
            cur, peak = tracemalloc.get_traced_memory()
            if self.at is not None:
                self.surge[self.at] = max(self.surge.get(self.at, 0), peak - self.base)
            tracemalloc.reset_peak()
            self.base = cur
            self.at = (frame.f_code.co_filename, frame.f_lineno) if event == "line" else None
        if event == "line":
            self.lines += 1
        return self._trace

    def mark(self, n: int) -> None:
        self.per_batch.append((n, self.statements, self.vm, self.lines, self.surge))
        self.statements = self.vm = self.lines = 0
        self.surge = {}

    def run(self, fn: Callable[[], Any]) -> list[tuple[float, float, float,
                                                        dict[tuple[str, int], int]]]:
        """Per batch of fn's import: statements, VM instructions and lines per memory,
        and each line's largest allocation surge (bytes)."""
        self.per_batch = []
        self.statements = self.vm = self.lines = 0
        self.surge, self.at, self.base = {}, None, 0
        self.db.set_trace_callback(self._statement)
        self.db.set_progress_handler(self._vm, 1)
        tracemalloc.start()
        sys.settrace(self._trace)
        try:
            fn()
        finally:
            sys.settrace(None)
            tracemalloc.stop()
            self.db.set_progress_handler(None, 1)
            self.db.set_trace_callback(None)
        return [(s / n, vm / n, ln / n, surge) for n, s, vm, ln, surge in self.per_batch]


def import_counted(vault: Vault, counter: Counter, lines: list[str]) -> list[Any]:
    return counter.run(lambda: vault.import_jsonl(lines, batch=BATCH, atomic=False,
                                                  progress=counter.mark))


def mean(rows: list[Any], col: int) -> float:
    return sum(r[col] for r in rows) / len(rows)


def test_import_work_per_memory_does_not_grow(tmp_path: Path) -> None:
    vault = Vault(tmp_path / "v.db", embedder="use-m3")
    try:
        counter = Counter(vault.store._db)  # the store's one connection
        # An import into a small store, then a long one (the position in an import),
        # then the first one's size again into a store 8 times as large.
        lines, seed = export_lines(BATCH, 0, [])
        vault.import_jsonl(lines)  # what the first facts are read from
        lines, _ = export_lines(4 * BATCH, BATCH, seed)
        small = import_counted(vault, counter, lines)
        lines, turns = export_lines(32 * BATCH, 5 * BATCH, seed)
        long = import_counted(vault, counter, lines)
        lines, _ = export_lines(4 * BATCH, 37 * BATCH, seed + turns)
        large = import_counted(vault, counter, lines)
        assert vault.store.count() == 41 * BATCH
    finally:
        vault.close()

    # Per memory: the same wherever the memory falls in an import and however much the
    # store holds (the first batch of an import pays one-off reads: left out). The slack
    # is FTS5's merges of its segments, which come in steps as the index grows; for Python
    # lines, the branches that depend on elapsed time (a batch that took longer on a busy
    # machine; seen at 1.051 under CI's parallel workers), while a quadratic step grows the
    # count many times over along 32 batches.
    first, last = long[1:5], long[-4:]
    for col, name, slack in ((0, "statements", 1.1), (1, "VM instructions", 1.15),
                             (2, "Python lines", 1.1)):
        ratio_pos = mean(last, col) / mean(first, col)
        ratio_size = mean(large[1:], col) / mean(small[1:], col)
        assert ratio_pos <= slack, f"{name} per memory grew along an import: " \
            f"{mean(first, col):.1f} -> {mean(last, col):.1f}"
        assert ratio_size <= slack, f"{name} per memory grew with the store: " \
            f"{mean(small[1:], col):.1f} -> {mean(large[1:], col):.1f}"
    # Allocations: no line of memvault allocates more at the end of an import than at its
    # start (beyond noise: a batch's texts differ in length). A copy of something that
    # grows surges in every late batch, so the late figure is the least of the last four:
    # a one-off (a cache of jieba's or the re module's resizing inside a call, 9.5 KB once
    # in CI after other tests had run in the process) is not growth.
    for loc in set().union(*(r[3] for r in long)):
        early = max(r[3].get(loc, 0) for r in first)
        late = min(r[3].get(loc, 0) for r in last)
        assert late <= 1.25 * early + 8_192, f"{loc[0]}:{loc[1]} allocated " \
            f"{early:,} bytes at the start of an import, {late:,} at its end"


@backends("postgres")
def test_a_small_bulk_import_into_a_larger_store_keeps_the_hnsw_index(
        make_vault: Callable[..., Vault], db: str) -> None:
    """atomic=False loads in bulk mode, where PostgreSQL drops its HNSW index and rebuilds
    it over the whole store: only once the import has brought as many memories as the
    store held, so a few memories loaded into a large store do not rebuild all of it."""
    import psycopg

    def index_oid() -> int | None:
        with psycopg.connect(db) as c:
            row = c.execute("SELECT oid FROM pg_class WHERE relname LIKE '%%_hnsw'"
                            ).fetchone()
        return int(row[0]) if row else None

    vault = make_vault(db)
    lines, seed = export_lines(3 * BATCH, 0, [])
    vault.import_jsonl(lines, batch=BATCH, atomic=False)  # into the empty store: bulk
    built = index_oid()
    assert built is not None
    lines, _ = export_lines(BATCH, 3 * BATCH, seed)
    vault.import_jsonl(lines, batch=BATCH, atomic=False)
    assert index_oid() == built  # the same index: not dropped and rebuilt
    lines, _ = export_lines(8 * BATCH, 4 * BATCH, seed)
    vault.import_jsonl(lines, batch=BATCH, atomic=False)  # more than the store held
    assert index_oid() not in (None, built)  # rebuilt after the load
    assert vault.store.count() == 12 * BATCH

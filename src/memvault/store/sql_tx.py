"""What a transaction does the same way on both SQL backends, written once: the reads
that lock, the order of a write's steps and its failure injection points, revisions, and
purge. A backend's Tx supplies the hooks declared at the top of SQLTx: how a row is
written, where its terms and vectors go, and how its engine marks a purge."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import ConflictError, StoreError
from ..model import Memory, Revision, Scope
from . import wordtable
from .base import Store
from .codec import (
    MEMORY_SELECT,
    REVISION_COLUMNS,
    insert_sql,
    memory_from_row,
    memory_params,
    revision_params,
    scope_where,
)
from .outbox import OutboxTx, imported_heads

# What a purge blanks in a revision: the content it drew on, and what quoted the turn.
CONTENT_COLUMNS = ("state", "reason", "trigger_text")
QUOTE_COLUMNS = ("reason", "trigger_text")
# meta keys: the last revision of an erasure, and the last one whose erased bytes the store
# has verified gone from its files (SQLStore.compact). Pending while the first is greater.
ERASURE_PENDING = "erasure.pending_through"
ERASURE_DONE = "erasure.done_through"
# The revision ops that erase content (a purge's tombstone, a redaction's note).
ERASURE_OPS = ("purge", "redact")


def vanished(memory_id: str) -> StoreError:
    return StoreError(f"memory {memory_id} vanished inside a transaction")


class SQLTx(OutboxTx):
    """One transaction on the connection `conn` of `store`."""

    # --- what a backend supplies ------------------------------------------------------
    _ph: Callable[[str], str]  # a named placeholder in the driver's style
    _IntegrityError: type[Exception]  # the driver's error for a violated constraint
    _ROW_LOCK = ""  # appended to a read that must lock the row it finds
    # A turn's metadata.turn_seq when it is a whole number, else NULL (per dialect).
    _TURN_SEQ = ""
    # Purge: put on and take off the mark that lets the append-only guard allow blanking
    # content columns of one memory's revisions (parameter mid; the mark is this
    # transaction's alone), and delete the scope's traces that saw the memory (parameters
    # tenant, user, mid).
    _MARK_PURGE: str
    _UNMARK_PURGE: str
    _DROP_TRACES_OF: str
    any_of: wordtable.AnyOf  # a list parameter in the word table's queries
    as_list: wordtable.ListParam

    def __init__(self, store: Store, conn: Any) -> None:
        self.store = store
        self.conn = conn
        self._turn_seqs: dict[str, int] = {}  # exact scope -> the last turn_seq given
        # tenant -> the words of the content written so far (say), stored at commit
        self.said: dict[str, dict[str, None]] = {}
        self.touched = set()

    def _insert_rows(self, query: str, rows: list[dict[str, Any]]) -> None:
        """Run `query` once per row."""
        raise NotImplementedError

    def _serialise(self, key: str) -> None:
        """Make other writers of `key` (a slot, a statement) wait for this transaction,
        even where no row exists yet to lock. Nothing here: a backend whose transactions
        already serialise every writer (SQLite's BEGIN IMMEDIATE) needs no more."""

    def _erasing(self, scope: Scope) -> None:
        """Before an erasure of the scope takes its revision seq: wait for the scope's
        erasure marks and trace writes in flight, and hold them back until commit
        (SQLStore.erasure_mark). Nothing here where writers are serialised (SQLite)."""

    def _insert_row(self, params: dict[str, Any], terms: str) -> int:
        """Insert the memory row (memory_params); its row key."""
        raise NotImplementedError

    def _update_row(self, params: dict[str, Any], terms: str | None) -> int:
        """Replace the memory row (terms None: unchanged); its row key, or raise
        vanished()."""
        raise NotImplementedError

    def _put_terms(self, mrow: int, scope: Scope, terms: str) -> None:
        """Index the row's terms for full text (where they are not a column of it)."""
        raise NotImplementedError

    def _new_terms(self, mrow: int, scope: Scope, terms: str) -> None:
        """Index the terms of a row just inserted (_put_terms, minus what only a
        replaced row needs)."""
        self._put_terms(mrow, scope, terms)

    def put_vectors(self, mrow: int, vectors: dict[str, np.ndarray]) -> None:
        raise NotImplementedError

    def _delete_memory(self, scope: Scope, memory_id: str) -> None:
        """Delete the memory row, its terms and its vectors."""
        raise NotImplementedError

    def _for_each(self, query: str, params: dict[str, Any], column: str,
                  values: list[str]) -> None:
        """Run `query` (a WHERE without its last condition) for the rows whose `column`
        is one of `values`."""
        raise NotImplementedError

    # --- the shared part ----------------------------------------------------------------
    def _fault(self, point: str) -> None:
        """A failure injection point of a write (Store.fault_hook; tests crash here)."""
        if self.store.fault_hook is not None:
            self.store.fault_hook(point)

    def _one(self, query: str, params: Any) -> Memory | None:
        row = self.conn.execute(query, params).fetchone()
        return memory_from_row(row) if row else None

    def get(self, scope: Scope, memory_id: str, *, for_update: bool = False) -> Memory | None:
        where, params = scope_where(scope, self._ph)
        lock = self._ROW_LOCK if for_update else ""
        return self._one(f"{MEMORY_SELECT} WHERE m.id = {self._ph('id')} AND {where}{lock}",
                         {"id": memory_id, **params})

    def find_slot(self, scope: Scope, slot: str) -> Memory | None:
        # Serialised on the (exact scope, slot) key before reading, so that a concurrent
        # writer of the same slot waits here and then reads what this transaction
        # committed even if no row existed yet.
        self._serialise("slot\x1f" + scope.key() + "\x1f" + slot)
        where, params = scope_where(scope, self._ph, exact=True)
        return self._one(
            f"{MEMORY_SELECT} WHERE {where} AND m.slot = {self._ph('slot')} "
            "AND m.status IN ('active', 'pending', 'expired') "
            f"ORDER BY m.status = 'active' DESC, m.updated_at DESC LIMIT 1{self._ROW_LOCK}",
            {"slot": slot, **params})

    def next_turn_seq(self, scope: Scope) -> int:
        """The sequence number of a new turn of exactly `scope`: one more than any turn of
        that scope has (whatever its status), or than this transaction gave last."""
        key = self._load_turn_seq(scope)
        self._turn_seqs[key] += 1
        return self._turn_seqs[key]

    def top_turn_seq(self, scope: Scope, known: int | None = None) -> int:
        """The highest turn number of exactly `scope`, counting those this transaction
        gave or claimed (0: none). `known`: the caller knows it already (a bulk import's
        earlier batch): the scope is still serialised, but not read again."""
        if known is not None and scope.key() not in self._turn_seqs:
            self._serialise("turn_seq\x1f" + scope.key())
            self._turn_seqs[scope.key()] = known
        return self._turn_seqs[self._load_turn_seq(scope)]

    def claim_turn_seq(self, scope: Scope, seq: int) -> None:
        """A turn is stored with number `seq` (an import keeping its numbers): later
        numbers of this transaction come after it."""
        key = self._load_turn_seq(scope)
        self._turn_seqs[key] = max(self._turn_seqs[key], seq)

    def _load_turn_seq(self, scope: Scope) -> str:
        key = scope.key()
        if key not in self._turn_seqs:
            # Writers of one scope take turns here: two cannot read the same maximum.
            self._serialise("turn_seq\x1f" + key)
            where, params = scope_where(scope, self._ph, exact=True)
            # The maximum in SQL (the database reads the JSON, not a Python loop over
            # every turn of the session); only whole numbers count. No index narrows it
            # below the user's rows (a (tenant, user_id) prefix; an index on the number
            # would need a migration): read once per scope and transaction.
            row = self.conn.execute(
                f"SELECT MAX({self._TURN_SEQ}) AS top FROM memories m WHERE {where} "
                "AND m.kind = 'turn'", params).fetchone()
            self._turn_seqs[key] = max(int(row["top"] or 0), 0)
        return key

    def find_duplicate(self, scope: Scope, content_hash: str, kind: str) -> Memory | None:
        # Same reason as find_slot: two identical remembers must not both insert.
        self._serialise("dup\x1f" + scope.key() + "\x1f" + content_hash + "\x1f" + kind)
        where, params = scope_where(scope, self._ph, exact=True)
        return self._one(
            f"{MEMORY_SELECT} WHERE {where} AND m.content_hash = {self._ph('h')} "
            f"AND m.kind = {self._ph('kind')} AND m.status = 'active' LIMIT 1",
            {"h": content_hash, "kind": kind, **params})

    def insert(self, memory: Memory, content_hash: str, terms: str,
               vectors: dict[str, np.ndarray]) -> None:
        try:
            mrow = self._insert_row(memory_params(memory, content_hash), terms)
        except self._IntegrityError as e:
            raise ConflictError(f"cannot store memory {memory.id}: {e}") from None
        self._fault("after_memory_row")
        self._new_terms(mrow, memory.scope, terms)
        self._fault("after_text_index")
        self.put_vectors(mrow, vectors)
        self.say(memory.scope.tenant, [memory.content])
        self._fault("after_vectors")

    def update(self, memory: Memory, content_hash: str, terms: str | None,
               vectors: dict[str, np.ndarray] | None) -> None:
        try:
            mrow = self._update_row(memory_params(memory, content_hash), terms)
        except self._IntegrityError as e:
            raise ConflictError(f"cannot update memory {memory.id}: {e}") from None
        self._fault("after_memory_row")
        if terms is not None:
            self._put_terms(mrow, memory.scope, terms)
        self._fault("after_text_index")
        if vectors is not None:  # the content changed (or was re-keyed)
            self.put_vectors(mrow, vectors)
            self.say(memory.scope.tenant, [memory.content])
        self._fault("after_vectors")

    def insert_many(self, items: list[tuple[Memory, str, str, dict[str, np.ndarray]]]) -> None:
        # Row at a time, inside the caller's single transaction: the bulk path where there
        # are no round trips to save (in-process SQLite).
        for memory, content_hash, terms, vectors in items:
            self.insert(memory, content_hash, terms, vectors)

    # --- word vectors (wordtable.py) -----------------------------------------------------
    def say(self, tenant: str, texts: list[str]) -> None:
        self.said.setdefault(tenant, {}).update(wordtable.said_words(texts))

    def store_words(self) -> None:
        """Before the commit: the vectors of the words said (say) that their tenant lacks,
        embedded in one batch per tenant. An embedder that fails leaves them out (a recall
        embeds them) rather than fail the write."""
        said, self.said = self.said, {}
        words = self.store.words
        model = words.word_model() if words is not None and said else None
        if words is None or model is None:
            return
        ph = self._ph
        for tenant, said_here in sorted(said.items()):
            lack = wordtable.missing(self.conn, ph, self.any_of, self.as_list, tenant, model,
                                     list(said_here))
            if not lack:
                continue
            try:
                vecs = words.embed_words(lack)
            except Exception:
                wordtable.log.warning("word vectors not stored: %s failed", model,
                                      exc_info=True)
                continue
            rows = sorted(({"tenant": tenant, "model": model, "key": wordtable.word_key(w),
                            "vec": v.tobytes()} for w, v in zip(lack, vecs, strict=True)),
                          key=lambda r: r["key"])
            self._insert_rows(wordtable.insert_sql(ph), rows)

    def _drop_words(self, tenant: str, texts: list[str | None]) -> None:
        """Delete the tenant's vectors of every word of `texts` (erased content), and
        forget them if this transaction said them."""
        gone = wordtable.erased_words(texts)
        if not gone:
            return
        pending = self.said.get(tenant, {})
        for w in gone:
            pending.pop(w, None)
        self.conn.execute(wordtable.delete_sql(self._ph, self.any_of),
                          {"tenant": tenant,
                           "keys": self.as_list([wordtable.word_key(w) for w in gone])})

    def _erased_contents(self, scope: Scope, memory_id: str,
                         op_ids: list[str] | None) -> list[str | None]:
        """The content of the memory's revision states (those of `op_ids`; all for None)
        about to be blanked, and of its row when all."""
        ph = self._ph
        query = (f"SELECT state FROM revisions WHERE memory_id = {ph('mid')} AND "
                 f"tenant = {ph('tenant')} AND user_id = {ph('user')}")
        params: dict[str, Any] = {"mid": memory_id, "tenant": scope.tenant,
                                  "user": scope.user}
        texts: list[str | None] = []
        if op_ids is None:
            row = self.get(scope, memory_id)
            texts.append(row.content if row else None)
        else:
            query += f" AND {self.any_of('op_id', 'ops')}"
            params["ops"] = self.as_list(op_ids)
        return texts + wordtable.state_contents(self.conn.execute(query, params).fetchall())

    def append_revisions(self, revisions: list[Revision]) -> None:
        """An import's history: its revisions as they were, and one `import` event per
        memory brought (its last revision), not one per past change."""
        for rev in revisions:
            self._insert_revision(rev)
        self.emit(imported_heads(revisions), imported=True)
        self._fault("after_revision")

    def append_revision(self, revision: Revision) -> None:
        """The one way a change is recorded: its revision and its event (outbox.py)."""
        self._insert_revision(revision)
        self.emit([revision])
        self._fault("after_revision")

    def _insert_revision(self, revision: Revision) -> None:
        try:
            self.conn.execute(insert_sql("revisions", REVISION_COLUMNS, self._ph),
                              revision_params(revision))
        except self._IntegrityError as e:  # op_id taken: e.g. the same export imported twice
            raise ConflictError(f"cannot record revision {revision.op_id}: {e}") from None

    def erase(self, scope: Scope, memory_id: str, tombstone: Revision) -> None:
        self._drop_words(scope.tenant, self._erased_contents(scope, memory_id, None))
        self._delete_memory(scope, memory_id)
        self._purge_history(scope, memory_id, (CONTENT_COLUMNS, None))
        self.append_revision(tombstone)
        self._note_erasure()

    def redact(self, scope: Scope, memory_id: str, blank: list[str], unquote: list[str],
               note: Revision) -> None:
        if blank:
            self._drop_words(scope.tenant, self._erased_contents(scope, memory_id, blank))
        self._purge_history(scope, memory_id, (CONTENT_COLUMNS, blank),
                            (QUOTE_COLUMNS, unquote))
        self.append_revision(note)
        self._note_erasure()

    def _note_erasure(self) -> None:
        """Record, in the erasing transaction, that the files may still hold erased bytes
        up to this revision: durable, so a crash or a close before the store has made them
        unrecoverable (SQLStore.compact) leaves the erasure pending, not forgotten."""
        self.conn.execute(
            f"INSERT INTO meta (key, value) SELECT {self._ph('key')}, "
            "CAST(MAX(seq) AS TEXT) FROM revisions WHERE true "  # WHERE: SQLite's parser
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            {"key": ERASURE_PENDING})

    def _purge_history(self, scope: Scope, memory_id: str,
                       *blanks: tuple[tuple[str, ...], list[str] | None]) -> None:
        """Set columns NULL in the memory's revisions (each: those of the op ids, or all
        for None), then drop the traces that saw it: they may hold its erased text (the
        injected block). Scoped: a memory id is only unique within its owner's rows."""
        ph = self._ph
        owner = {"mid": memory_id, "tenant": scope.tenant, "user": scope.user}
        self._erasing(scope)
        self.conn.execute(self._MARK_PURGE, {"mid": memory_id})
        for columns, op_ids in blanks:
            query = (f"UPDATE revisions SET {', '.join(c + ' = NULL' for c in columns)} "
                     f"WHERE memory_id = {ph('mid')} AND tenant = {ph('tenant')} "
                     f"AND user_id = {ph('user')}")
            if op_ids is None:
                self.conn.execute(query, owner)
            else:
                self._for_each(query, owner, "op_id", op_ids)
        # Only if all went well is the mark taken off: an error aborts the transaction.
        self.conn.execute(self._UNMARK_PURGE)
        self.store.flush_traces()  # a recall's queued trace may name it (tracequeue.py)
        self.conn.execute(self._DROP_TRACES_OF, owner)
        # So may an online-evaluation sample (its question, the injected text, the answer).
        named = (f"SELECT eval_id FROM online_eval_items WHERE tenant = {ph('tenant')} AND "
                 f"user_id = {ph('user')} AND memory_id = {ph('mid')}")
        self.conn.execute(f"DELETE FROM online_evals WHERE eval_id IN ({named})", owner)
        self.conn.execute(f"DELETE FROM online_eval_items WHERE eval_id IN ({named})", owner)

    def id_in_use(self, memory_id: str) -> bool:
        mid = self._ph("id")
        row = self.conn.execute(
            f"SELECT EXISTS (SELECT 1 FROM memories WHERE id = {mid}) "
            f"OR EXISTS (SELECT 1 FROM revisions WHERE memory_id = {mid}) AS used",
            {"id": memory_id}).fetchone()
        return bool(row and row["used"])

    def ids_in_use(self, memory_ids: list[str]) -> set[str]:
        if not memory_ids:
            return set()
        ids = {"ids": self.as_list(sorted(set(memory_ids)))}
        rows = self.conn.execute(
            f"SELECT id AS mid FROM memories WHERE {self.any_of('id', 'ids')} UNION "
            f"SELECT memory_id AS mid FROM revisions WHERE {self.any_of('memory_id', 'ids')}",
            ids).fetchall()
        return {str(r["mid"]) for r in rows}

    def active_slots(self, scopes: list[Scope], slots: list[str]) -> list[Memory]:
        # One read for a whole import chunk, and no lock per slot: an import of many
        # slotted memories would otherwise take as many advisory locks (PostgreSQL's
        # lock table is finite). A writer racing the import still meets the unique index.
        if not scopes or not slots:
            return []
        rows = self.conn.execute(
            f"{MEMORY_SELECT} WHERE m.status = 'active' AND {self.any_of('m.slot', 'slots')} "
            f"AND {self.any_of('m.tenant', 'tenants')} AND {self.any_of('m.user_id', 'users')}",
            {"slots": self.as_list(sorted(set(slots))),
             "tenants": self.as_list(sorted({s.tenant for s in scopes})),
             "users": self.as_list(sorted({s.user for s in scopes}))}).fetchall()
        return [memory_from_row(r) for r in rows]

    def ops_in_use(self, op_ids: list[str]) -> set[str]:
        if not op_ids:
            return set()
        rows = self.conn.execute(
            f"SELECT op_id FROM revisions WHERE {self.any_of('op_id', 'ops')}",
            {"ops": self.as_list(sorted(set(op_ids)))}).fetchall()
        return {str(r["op_id"]) for r in rows}

    def purged(self, scope: Scope, memory_id: str) -> bool:
        # By the memory id alone (revisions_memory), the owner compared here: with the
        # owner in the WHERE, SQLite walked the owner's revisions by revisions_scope, a
        # read that grew with the user's history on every write made from another memory
        # (tests/test_import_linear.py counts it).
        rows = self.conn.execute(
            f"SELECT tenant, user_id FROM revisions WHERE memory_id = {self._ph('id')} "
            "AND op = 'purge'", {"id": memory_id}).fetchall()
        return any(r["tenant"] == scope.tenant and r["user_id"] == scope.user for r in rows)

    def drop_traces(self, scope: Scope, trace_ids: list[str]) -> None:
        # A purge's: its erasure lock before it deletes (row-locks) a trace, so that a trace
        # write holding the lock shared never waits on a row the purge holds (a deadlock).
        self._erasing(scope)
        self.store.flush_traces()
        self._for_each(f"DELETE FROM traces WHERE tenant = {self._ph('tenant')} AND "
                       f"user_id = {self._ph('user')}",
                       {"tenant": scope.tenant, "user": scope.user}, "trace_id", trace_ids)

"""The Vault: every verb of memvault, over any Store.

Each mutating verb runs one transaction that writes the memory row, its index entries
and a revision (who, why, what triggered it, the full state after). Reads are always
scoped; a memory of another scope is indistinguishable from one that does not exist.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import IO, Any

import numpy as np
import platformdirs

from . import bm25, turnctx, wordmatch
from . import validate as v
from .clashes import declared_conflicts
from .config import Strategy, Weights, load_strategy
from .derived import Quoted, derived_from, quoting_revisions, sources_of, traces_quoting
from .embed import Embedder, embed_queries, load_embedders, model_record, votes_on
from .errors import (
    ConflictError,
    FrozenError,
    ModelMismatchError,
    NotFoundError,
    ScopeError,
    ValidationError,
    VersionError,
)
from .inject import render
from .layers.assemble import assemble, recall_only
from .layers.graph import GRAPH_KINDS
from .model import (
    STATE_FIELDS,
    Hit,
    Hits,
    Kind,
    Memory,
    Op,
    RememberResult,
    Revision,
    Scope,
    Source,
    Status,
)
from .querylines import query_lines
from .recall import (
    Reranker,
    RetrievalOutcome,
    add_coverage,
    best_of,
    collapse_slots,
    fuse,
    memory_date,
    rank,
    snapshot_candidates,
)
from .store import ListFilter, Store, open_store
from .textindex import memory_index_text, query_terms
from .timeexpr import named_range
from .timeutil import MAX_MS, TimeLike, duration_ms, now_ms, to_ms
from .traces import build_trace
from .turnnotes import turn_notes


@dataclass(slots=True)
class ContextResult:
    """A rendered memory section: paste `text` into the prompt; `trace_id` explains it."""

    text: str
    tokens: int
    hits: list[Hit]
    dropped: list[dict[str, Any]]
    conflicts: list[list[str]]
    trace_id: str | None

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "tokens": self.tokens, "trace_id": self.trace_id,
                "included": [h.to_dict() for h in self.hits], "dropped": self.dropped,
                "conflicts": self.conflicts}


EXPORT_FORMAT = "memvault-export"
EXPORT_FORMAT_VERSION = 1
MAX_SOURCE_REF_CHARS = 512


def default_db_path() -> Path:
    """The per-user data directory, e.g. ~/.local/share/memvault/memvault.db."""
    env = os.environ.get("MEMVAULT_DB")
    if env:
        return Path(env)
    return Path(platformdirs.user_data_dir("memvault", appauthor=False)) / "memvault.db"


_id_lock = threading.Lock()
_id_last = [0, 0]  # (ms, sequence within that ms) of this process's last id


# What one remember_many item may hold: remember's per-memory arguments and its scope.
_ITEM_KEYS = frozenset({"scope", "content", "slot", "value", "kind", "source", "source_text",
                        "source_ref", "confidence", "tags", "metadata", "ttl", "expires_at",
                        "valid_from", "valid_to"})


def new_id(prefix: str) -> str:
    # Time-ordered, so ids sort by creation: within one millisecond a 16-bit sequence
    # keeps this process's ids in order (turn context relies on it, turnctx.py); 48
    # random bits keep concurrent writers apart.
    with _id_lock:
        ms = max(now_ms(), _id_last[0])
        seq = _id_last[1] + 1 if ms == _id_last[0] else 0
        if seq > 0xFFFF:
            ms, seq = ms + 1, 0
        _id_last[:] = [ms, seq]
    return f"{prefix}_{ms:012x}{seq:04x}{secrets.token_hex(6)}"


def content_hash(content: str, slot: str | None, value: Any) -> str:
    norm = " ".join(unicodedata.normalize("NFKC", content).casefold().split())
    payload = "\x1f".join((norm, slot or "", json.dumps(value, sort_keys=True,
                                                         ensure_ascii=False)))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class Vault:
    """Open a store (SQLite path or PostgreSQL DSN) with an embedder spec.

    `actor` and `actor_role` are the default principal recorded in revisions; every
    mutating verb also takes `actor=` to override it per call.
    """

    def __init__(self, db: str | os.PathLike[str] | Store | None = None, *,
                 embedder: str | list[str] | None = None, actor: str = "local",
                 actor_role: str = "admin", on_expire: str = "demote",
                 strategy: Strategy | str | os.PathLike[str] | None = None,
                 reranker: Reranker | None = None,
                 clock: Callable[[], int] | None = None, check_models: bool = True) -> None:
        if on_expire not in ("demote", "expire"):
            raise ValidationError("on_expire: expected 'demote' or 'expire'")
        actor = v.actor(actor)
        actor_role = v.actor(actor_role, "actor_role")
        if reranker is not None and not callable(reranker):
            raise ValidationError("reranker: expected a callable (query, hits) -> hits")
        if embedder is not None and not isinstance(embedder, str | list | tuple):
            raise ValidationError("embedder: expected a spec such as 'use-m3' or a list")
        if strategy is not None and not isinstance(strategy, Strategy | str | os.PathLike):
            raise ValidationError("strategy: expected a Strategy or the path of a YAML file")
        # Embedders and strategy first: a bad spec must fail before a store file is created.
        self.embedders: list[Embedder] = load_embedders(embedder)
        self.strategy = (strategy if isinstance(strategy, Strategy)
                         else load_strategy(strategy))
        if isinstance(db, str | os.PathLike) or db is None:
            self.store: Store = open_store(db if db is not None else default_db_path())
        else:
            self.store = db
        self.actor = actor
        self.actor_role = actor_role
        self.on_expire = on_expire
        self.reranker = reranker
        self.clock = clock or now_ms
        self._model_record = model_record(self.embedders)
        if check_models:
            self._check_models()

    # --- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def weights(self) -> Weights:
        return self.strategy.retrieval.weights

    @property
    def embedding_model(self) -> str:
        return "+".join(e.name for e in self.embedders)

    def _check_models(self) -> None:
        stored = self.store.get_meta("embedders")
        if stored is None:
            self.store.set_meta("embedders", json.dumps(self._model_record))
            return
        if json.loads(stored) != self._model_record:
            old = "+".join(f"{m['name']} ({m['dim']}-d)" for m in json.loads(stored))
            new = "+".join(f"{m['name']} ({m['dim']}-d)" for m in self._model_record)
            raise ModelMismatchError(
                f"this store was indexed with {old}, but the configured embedder is {new}. "
                f"Vectors of different models cannot be compared. Run `memvault --embedder "
                f"{self.embedding_model} reindex` on this store (Python: "
                "Vault(..., check_models=False).reindex()) to re-embed every memory with "
                "the new model, or configure the old one.")

    def _vectors(self, texts: list[str]) -> list[dict[str, np.ndarray]]:
        out: list[dict[str, np.ndarray]] = [{} for _ in texts]
        for emb in self.embedders:
            matrix = emb.embed_documents(texts)
            for i, row in enumerate(matrix):
                out[i][emb.name] = row
        return out

    def _actor(self, actor: str | None) -> str:
        if actor is None:
            return self.actor
        return v.actor(actor)

    def _revision(self, m: Memory, op: Op, from_version: int | None, *, actor: str | None,
                  reason: str | None, trigger_text: str | None,
                  trace_id: str | None) -> Revision:
        return Revision(
            op_id=new_id("op"), memory_id=m.id, scope=m.scope, op=op.value,
            from_version=from_version, to_version=m.version, state=m.to_dict(),
            actor=self._actor(actor), actor_role=self.actor_role,
            reason=v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False),
            trigger_text=v.text(trigger_text, "trigger_text", max_chars=v.MAX_SOURCE_TEXT_CHARS,
                                required=False),
            trace_id=v.text(trace_id, "trace_id", max_chars=v.MAX_ID_CHARS, required=False),
            at=m.updated_at)

    # --- write ------------------------------------------------------------------------------
    def remember(self, scope: Scope | dict[str, str], content: str | None = None, *,
                 slot: str | None = None, value: Any = None, kind: str | None = None,
                 source: str = Source.USER_EXPLICIT.value, source_text: str | None = None,
                 source_ref: str | None = None, confidence: float = 1.0,
                 tags: Iterable[str] | None = None, metadata: dict[str, Any] | None = None,
                 ttl: int | float | str | None = None, expires_at: TimeLike = None,
                 valid_from: TimeLike = None, valid_to: TimeLike = None,
                 actor: str | None = None, reason: str | None = None,
                 trigger_text: str | None = None, trace_id: str | None = None,
                 expected_version: int | None = None) -> RememberResult:
        """Store a statement, or a new value of a slot. Returns added, updated or noop."""
        v.caller_metadata(metadata)
        req = self._prepare(scope, content, slot=slot, value=value, kind=kind, source=source,
                            source_text=source_text, source_ref=source_ref,
                            confidence=confidence, tags=tags, metadata=metadata, ttl=ttl,
                            expires_at=expires_at, valid_from=valid_from, valid_to=valid_to)
        if expected_version is not None:
            expected_version = v.version(expected_version, "expected_version")
        linker = self._turn_linker([req])
        if linker is None:
            vectors, terms = self._vectors([req["content"]])[0], None
        else:
            vecs, keys = linker.keys(range(1), [req])
            vectors, terms = vecs[0], keys[0]
        with self.store.transaction() as tx:
            self._rekey_stored_turns(tx, linker)
            return self._apply_remember(tx, req, vectors, actor=actor, reason=reason,
                                        trigger_text=trigger_text, trace_id=trace_id,
                                        expected_version=expected_version, terms=terms)

    def remember_many(self, items: list[dict[str, Any]], *, actor: str | None = None,
                      reason: str | None = None, batch: int = 256,
                      progress: Callable[[int], None] | None = None) -> list[RememberResult]:
        """Bulk remember: each item is the keyword arguments of `remember` (with `scope`).
        Embeds a batch at a time and commits each batch as one transaction."""
        batch = v.batch_size(batch)
        v.callback(progress, "progress")
        if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
            raise ValidationError("remember_many: expected a list of items (objects)")
        results: list[RememberResult] = []
        every = []
        for n, item in enumerate(items, start=1):
            if not isinstance(item, Mapping):
                raise ValidationError(f"remember_many: item {n} is not an object")
            item = dict(item)
            for key in ("actor", "reason", "expected_version", "trigger_text", "trace_id"):
                if key in item:
                    raise ValidationError(f"remember_many: {key} is per batch, not per item")
            if unknown := sorted(set(item) - _ITEM_KEYS):
                raise ValidationError(f"remember_many: item {n} has unknown fields "
                                      f"{', '.join(map(str, unknown))}")
            v.caller_metadata(item.get("metadata"))
            every.append(self._prepare(item.pop("scope", None), item.pop("content", None),
                                       **item))
        # Turns are keyed with their neighbours (turnctx.py), across batch boundaries.
        linker = self._turn_linker(every)
        for start in range(0, len(every), batch):
            prepared = every[start:start + batch]
            if linker is None:
                vectors = self._vectors([p["content"] for p in prepared])
                terms: list[str | None] = [None] * len(prepared)
            else:
                vectors, terms = linker.keys(range(start, start + len(prepared)), every)
            with self.store.transaction() as tx:
                if start == 0:
                    self._rekey_stored_turns(tx, linker)
                for req, vec, key in zip(prepared, vectors, terms, strict=True):
                    results.append(self._apply_remember(tx, req, vec, actor=actor, reason=reason,
                                                        trigger_text=None, trace_id=None,
                                                        expected_version=None, terms=key))
            if progress:
                progress(len(prepared))
        return results

    def _turn_linker(self, prepared: list[dict[str, Any]]) -> turnctx.Linker | None:
        tc = self.strategy.retrieval.turn_context
        if not turnctx.enabled(tc) or not any(p["kind"] == turnctx.TURN_KIND for p in prepared):
            return None
        return turnctx.Linker(tc, prepared, self.store, self._vectors, self.embedding_model)

    def _rekey_stored_turns(self, tx: Any, linker: turnctx.Linker | None) -> None:
        """New turns change the index keys of the stored turns just before them."""
        if linker is None:
            return
        for m, terms, vectors in linker.stored_updates():
            self._rekey(tx, m, terms, vectors)

    def _rekey(self, tx: Any, m: Memory, terms: str, vectors: dict[str, np.ndarray]) -> None:
        """A new index key for a memory; its row, version and revisions stay as they are."""
        cur = tx.get(m.scope, m.id)
        if cur is None or cur.content != m.content:
            return  # changed since it was read: its own write re-keyed it
        tx.update(cur, content_hash(cur.content, cur.slot, cur.value), terms, vectors)

    def relink_turns(self, scope: Scope | dict[str, str]) -> int:
        """Rebuild the index keys of every live turn inside this scope, per exact scope
        (after a reindex, or after turn_context changed). Returns how many."""
        sc = v.scope(scope)
        keys = []
        for turns in turnctx.stored_sequences(self.store, sc):
            keys += turnctx.relink(self.strategy.retrieval.turn_context, turns, self._vectors)
        for start in range(0, len(keys), 256):
            with self.store.transaction() as tx:
                for m, terms, vectors in keys[start:start + 256]:
                    self._rekey(tx, m, terms, vectors)
        return len(keys)

    def _prepare(self, scope: Any, content: Any, *, slot: Any = None, value: Any = None,
                 kind: Any = None, source: Any = Source.USER_EXPLICIT.value,
                 source_text: Any = None, source_ref: Any = None, confidence: Any = 1.0,
                 tags: Any = None, metadata: Any = None, ttl: Any = None,
                 expires_at: Any = None, valid_from: Any = None,
                 valid_to: Any = None) -> dict[str, Any]:
        sc = v.scope(scope)
        slot_ = v.slot(slot)
        value_ = None if value is None else v.json_value(value, "value")
        v.slot_value(slot_, value_)
        if content is None:
            if slot_ is None or value_ is None:
                raise ValidationError("content: required (or give slot and value)")
            content = f"{slot_}: {_value_text(value_)}"
        content_ = v.text(content, "content", max_chars=v.MAX_CONTENT_CHARS)
        if ttl is not None and expires_at is not None:
            raise ValidationError("give ttl or expires_at, not both")
        now = self.clock()
        ttl_ms = duration_ms(ttl)
        exp = now + ttl_ms if ttl_ms is not None else to_ms(expires_at, field="expires_at")
        if exp is not None and exp > MAX_MS:
            raise ValidationError("ttl: the memory would expire after the year 9999")
        vf, vt = to_ms(valid_from, field="valid_from"), to_ms(valid_to, field="valid_to")
        if vf is not None and vt is not None and vt <= vf:
            raise ValidationError("valid_to must be after valid_from")
        return {
            "scope": sc, "content": content_, "slot": slot_, "value": value_,
            "kind": v.kind(kind) if kind is not None else (
                Kind.PREFERENCE.value if slot_ else Kind.FACT.value),
            "source": v.source(source),
            "source_text": v.text(source_text, "source_text", max_chars=v.MAX_SOURCE_TEXT_CHARS,
                                  required=False),
            "source_ref": v.text(source_ref, "source_ref", max_chars=MAX_SOURCE_REF_CHARS,
                                 required=False),
            "confidence": v.confidence(confidence),
            "tags": None if tags is None else v.tags(tags),
            "metadata": None if metadata is None else v.metadata(metadata),
            "expires_at": exp, "valid_from": vf, "valid_to": vt,
        }

    def _commit_remember(self, req: dict[str, Any], vectors: dict[str, np.ndarray],
                         **kw: Any) -> RememberResult:
        with self.store.transaction() as tx:
            return self._apply_remember(tx, req, vectors, **kw)

    def _apply_remember(self, tx: Any, req: dict[str, Any], vectors: dict[str, np.ndarray], *,
                        actor: str | None, reason: str | None, trigger_text: str | None,
                        trace_id: str | None, expected_version: int | None,
                        terms: str | None = None,
                        sources_checked: bool = False) -> RememberResult:
        sc: Scope = req["scope"]
        if not sources_checked:  # the gated path checks them first, for every outcome
            self._check_sources(tx, sc, req["metadata"])
        now = self.clock()
        h = content_hash(req["content"], req["slot"], req["value"])
        trigger = trigger_text if trigger_text is not None else (
            req["source_text"] or req["content"])
        current = tx.find_slot(sc, req["slot"]) if req["slot"] else None
        if current is not None and current.status == Status.PENDING and "review" in (
                current.metadata or {}):
            # A staged candidate waits for its reviewer; only a demoted (expired) value is
            # brought back by writing the slot again.
            current = None
        if current is None and expected_version is not None:
            raise ConflictError(f"expected version {expected_version}, but slot "
                                f"{req['slot'] or '(none)'} has no current value")
        if current is not None:
            if expected_version is not None and current.version != expected_version:
                raise ConflictError(
                    f"memory {current.id} is at version {current.version}, the write expected "
                    f"{expected_version}; re-read and retry")
            if current.frozen:
                raise FrozenError(f"memory {current.id} (slot {current.slot}) is frozen; "
                                  "unfreeze it before changing it")
            same = (content_hash(current.content, current.slot, current.value) == h
                    and current.kind == req["kind"])
            if same and current.status == Status.ACTIVE:
                return RememberResult("noop", self._reinforce(tx, current, actor=actor,
                                                              trigger_text=trigger,
                                                              reason=reason),
                                      current.version)
            new = replace(
                current, kind=req["kind"], content=req["content"], value=req["value"],
                tags=req["tags"] if req["tags"] is not None else current.tags,
                metadata=req["metadata"] if req["metadata"] is not None else current.metadata,
                source=req["source"], source_text=req["source_text"],
                source_ref=req["source_ref"], confidence=req["confidence"],
                status=Status.ACTIVE.value, version=current.version + 1,
                valid_from=req["valid_from"], valid_to=req["valid_to"], recorded_at=now,
                expires_at=req["expires_at"], embedding_model=self.embedding_model,
                updated_at=now)
            changed_text = new.content != current.content
            reindex = changed_text or new.valid_from != current.valid_from
            tx.update(new, h, memory_index_text(new.content, new.valid_from) if reindex else None,
                      vectors if changed_text else None)
            tx.append_revision(self._revision(new, Op.UPDATE, current.version, actor=actor,
                                              reason=reason, trigger_text=trigger,
                                              trace_id=trace_id))
            return RememberResult("updated", new, current.version)
        dup = tx.find_duplicate(sc, h, req["kind"])
        if dup is not None:
            return RememberResult("noop", self._reinforce(tx, dup, actor=actor,
                                                          trigger_text=trigger, reason=reason),
                                  dup.version)
        mem = self._new_memory(req, Status.ACTIVE, now)
        tx.insert(mem, h, terms or self._terms(mem), vectors)
        tx.append_revision(self._revision(mem, Op.CREATE, None, actor=actor, reason=reason,
                                          trigger_text=trigger, trace_id=trace_id))
        return RememberResult("added", mem, None)

    @staticmethod
    def _check_sources(tx: Any, scope: Scope, metadata: Any, had: Any = None,
                       skip: Iterable[str] = ()) -> None:
        """Refuse a memory made from one that was purged (derived.sources_of: a summary
        of its turn, a fact read from it). The row lock orders the write against a purge
        of the source: a write that waits for the purge sees it here; one that went first
        is erased by the purge (Vault.purge). `had`: the metadata before an edit, whose
        sources were checked when they were written; `skip`: ids an import brings along
        (their tombstones travel with them)."""
        user = Scope(scope.tenant, scope.user)
        for sid in sorted(sources_of(metadata) - sources_of(had) - set(skip)):
            if tx.get(user, sid, for_update=True) is None and tx.purged(user, sid):
                raise ConflictError(f"memory {sid}, which this one is made from, was purged; "
                                    "nothing was stored")

    def _reinforce(self, tx: Any, m: Memory, *, actor: str | None,
                   trigger_text: str | None, reason: str | None = None) -> Memory:
        """A duplicate confirms what is stored: count it and note when, on the same row and
        the same version, with a `reinforce` revision. A frozen memory is left as it is."""
        if m.frozen:
            return m
        now = self.clock()
        meta = dict(m.metadata)
        count = meta.get("confirmations")
        meta["confirmations"] = (count if isinstance(count, int) else 1) + 1
        meta["last_confirmed_at"] = now
        new = replace(m, metadata=meta, updated_at=max(now, m.updated_at))
        tx.update(new, content_hash(new.content, new.slot, new.value), None, None)
        tx.append_revision(self._revision(new, Op.REINFORCE, m.version, actor=actor,
                                          reason=reason or "restated",
                                          trigger_text=trigger_text,
                                          trace_id=None))
        return new

    def _new_memory(self, req: dict[str, Any], status: Status, now: int) -> Memory:
        """Version 1 of a memory from a prepared request (see _prepare)."""
        return Memory(
            id=new_id("m"), scope=req["scope"], kind=req["kind"], content=req["content"],
            slot=req["slot"], value=req["value"], tags=req["tags"] or [],
            metadata=req["metadata"] or {}, source=req["source"],
            source_text=req["source_text"], source_ref=req["source_ref"],
            confidence=req["confidence"], status=status.value, frozen=False, version=1,
            valid_from=req["valid_from"], valid_to=req["valid_to"], recorded_at=now,
            expires_at=req["expires_at"], embedding_model=self.embedding_model,
            created_at=now, updated_at=now)

    def _terms(self, m: Memory) -> str:
        return memory_index_text(m.content, m.valid_from)

    def _insert_pending(self, tx: Any, req: dict[str, Any], vectors: dict[str, np.ndarray], *,
                        actor: str | None, reason: str | None,
                        trigger_text: str | None, sources_checked: bool = False) -> Memory:
        """A staged candidate: stored (so nothing is lost) but pending, never served."""
        if not sources_checked:
            self._check_sources(tx, req["scope"], req["metadata"])
        mem = self._new_memory(req, Status.PENDING, self.clock())
        tx.insert(mem, content_hash(mem.content, mem.slot, mem.value), self._terms(mem),
                  vectors)
        tx.append_revision(self._revision(mem, Op.CREATE, None, actor=actor, reason=reason,
                                          trigger_text=trigger_text, trace_id=None))
        return mem

    # --- the gated write path (writepath.py) -------------------------------------------
    def observe(self, scope: Scope | dict[str, str], messages: list[Any], *,
                source_ref: str | None = None, extractor: Any = None,
                actor: str | None = None, actor_role: str = "user") -> Any:
        """Keep the raw turns, extract candidate memories, and pass each through the gate:
        added, updated, noop, staged for review, blocked (frozen) or rejected."""
        from .writepath import observe

        result = observe(self, scope, messages, source_ref=source_ref, extractor=extractor,
                         actor=actor, actor_role=actor_role)
        if self.strategy.layers.on_observe:
            from .lifecycle import after_observe

            after_observe(self, scope, result)
        return result

    def propose(self, scope: Scope | dict[str, str], content: str | None = None, *,
                slot: str | None = None, value: Any = None, kind: str | None = None,
                source: str = Source.USER_EXPLICIT.value, source_text: str | None = None,
                source_ref: str | None = None, confidence: float = 1.0,
                tags: Iterable[str] | None = None, metadata: dict[str, Any] | None = None,
                ttl: int | float | str | None = None, actor: str | None = None,
                actor_role: str = "agent", reason: str | None = None,
                expected_version: int | None = None) -> Any:
        """A statement from a writer that cannot vouch for it (an agent, a model): through
        the gate like an observed candidate (writepath.propose). Returns the Outcome."""
        from .writepath import propose

        return propose(self, scope, content, slot=slot, value=value, kind=kind,
                       source=source, source_text=source_text, source_ref=source_ref,
                       confidence=confidence, tags=tags, metadata=metadata, ttl=ttl,
                       actor=actor, actor_role=actor_role, reason=reason,
                       expected_version=expected_version)

    def review_list(self, scope: Scope | dict[str, str], *, limit: int = 100) -> list[Memory]:
        from .writepath import review_list

        return review_list(self, scope, limit=limit)

    def review_show(self, scope: Scope | dict[str, str], memory_id: str) -> dict[str, Any]:
        from .writepath import review_show

        return review_show(self, scope, memory_id)

    def review_approve(self, scope: Scope | dict[str, str], memory_id: str, *,
                       actor: str | None = None, reason: str | None = None) -> Memory:
        from .writepath import review_approve

        return review_approve(self, scope, memory_id, actor=actor, reason=reason)

    def review_reject(self, scope: Scope | dict[str, str], memory_id: str, *,
                      actor: str | None = None, reason: str | None = None) -> Memory:
        from .writepath import review_reject

        return review_reject(self, scope, memory_id, actor=actor, reason=reason)

    def _mutate(self, scope: Any, memory_id: Any, op: Op, change: Callable[[Memory], Memory],
                *, actor: str | None, reason: str | None, trigger_text: str | None = None,
                trace_id: str | None = None, expected_version: int | None = None,
                allow_frozen: bool = False) -> Memory:
        sc = v.scope(scope)
        mid = v.memory_id(memory_id)
        with self.store.transaction() as tx:
            cur = tx.get(sc, mid, for_update=True)
            if cur is None:
                raise NotFoundError(f"no memory {mid} in scope {sc}")
            if expected_version is not None and cur.version != expected_version:
                raise ConflictError(f"memory {mid} is at version {cur.version}, the write "
                                    f"expected {expected_version}; re-read and retry")
            if cur.frozen and not allow_frozen:
                raise FrozenError(f"memory {mid} is frozen; unfreeze it before changing it")
            new = change(cur)
            if new.metadata != cur.metadata:
                self._check_sources(tx, new.scope, new.metadata, cur.metadata)
            if new.slot is not None and new.status == Status.ACTIVE and (
                    cur.status != Status.ACTIVE or cur.slot != new.slot):
                holder = tx.find_slot(new.scope, new.slot)
                if holder is not None and holder.id != mid and holder.status == Status.ACTIVE:
                    raise ConflictError(
                        f"slot {new.slot} already has an active memory, {holder.id}; change "
                        f"or forget that one before bringing {mid} back")
            now = self.clock()
            new = replace(new, updated_at=max(now, cur.updated_at))
            changed_text = new.content != cur.content
            reindex = changed_text or new.valid_from != cur.valid_from
            vectors = self._vectors([new.content])[0] if changed_text else None
            tx.update(new, content_hash(new.content, new.slot, new.value),
                      memory_index_text(new.content, new.valid_from) if reindex else None,
                      vectors)
            tx.append_revision(self._revision(new, op, cur.version, actor=actor, reason=reason,
                                              trigger_text=trigger_text, trace_id=trace_id))
        if new.kind == turnctx.TURN_KIND and (reindex or new.status != cur.status):
            self._rekey_around(new)
        return new

    def _rekey_around(self, m: Memory) -> None:
        """A turn whose text changed, that left the live sequence (forget, expiry) or that
        came back (rollback): its neighbours' keys are rebuilt, and its own if it is live,
        so its old words stay findable through no other key. (purge does this inside its
        erasing transaction.)"""
        tc = self.strategy.retrieval.turn_context
        if not turnctx.enabled(tc):
            return
        live = m.status == Status.ACTIVE.value
        turns = turnctx.stored_turns(self.store, m.scope)
        if not live:  # put it back in its place, to find whose keys held it
            turns = sorted([*turns, m], key=lambda t: (t.created_at, t.id))
        rows = turnctx.neighbourhood(tc, turns, m.id, self._vectors, leaving=not live)
        if rows:
            with self.store.transaction() as tx:
                for turn, terms, vectors in rows:
                    self._rekey(tx, turn, terms, vectors)

    def edit(self, scope: Scope | dict[str, str], memory_id: str, *,
             content: str | None = None, value: Any = None, kind: str | None = None,
             tags: Iterable[str] | None = None, metadata: dict[str, Any] | None = None,
             confidence: float | None = None, expires_at: TimeLike = None,
             actor: str | None = None, reason: str | None = None,
             expected_version: int | None = None) -> Memory:
        """Change fields of a memory by hand: a new version, with the reason recorded."""
        updates: dict[str, Any] = {}
        if content is not None:
            updates["content"] = v.text(content, "content", max_chars=v.MAX_CONTENT_CHARS)
        if value is not None:
            updates["value"] = v.json_value(value, "value")
        if kind is not None:
            updates["kind"] = v.kind(kind)
        if tags is not None:
            updates["tags"] = v.tags(tags)
        if metadata is not None:
            updates["metadata"] = v.metadata(metadata)
        if confidence is not None:
            updates["confidence"] = v.confidence(confidence)
        if expires_at is not None:
            updates["expires_at"] = to_ms(expires_at, field="expires_at")
        if not updates:
            raise ValidationError("edit: nothing to change")
        if expected_version is not None:
            expected_version = v.version(expected_version, "expected_version")

        def change(m: Memory) -> Memory:
            if m.status == Status.DELETED:
                raise ConflictError(f"memory {m.id} is forgotten; roll it back before editing it")
            new = dict(updates)
            v.slot_value(m.slot, new.get("value"))
            if "metadata" in new and "turn_id" in m.metadata and "turn_id" not in new["metadata"]:
                # The version still quotes that turn (source_text): purge must find it.
                new["metadata"] = {**new["metadata"], "turn_id": m.metadata["turn_id"]}
            if "metadata" in new:
                # The gate's review record stays as the gate wrote it (an edit of a staged
                # candidate may send it back unchanged, or leave it out).
                rec = m.metadata.get("review")
                if new["metadata"].get("review", rec) != rec:
                    raise ValidationError("metadata.review is written by the gate, not by "
                                          "callers")
                if rec is not None:
                    new["metadata"] = {**new["metadata"], "review": rec}
            return replace(m, **new, version=m.version + 1, source=Source.ADMIN_MANUAL.value,
                           recorded_at=self.clock())
        return self._mutate(scope, memory_id, Op.UPDATE, change, actor=actor, reason=reason,
                            expected_version=expected_version)

    def forget(self, scope: Scope | dict[str, str], memory_id: str, *,
               actor: str | None = None, reason: str | None = None) -> Memory:
        """Soft delete: the memory stops being served; history keeps it; rollback undoes it."""
        def change(m: Memory) -> Memory:
            if m.status == Status.DELETED:
                raise ConflictError(f"memory {m.id} is already forgotten")
            return replace(m, status=Status.DELETED.value, version=m.version + 1)
        return self._mutate(scope, memory_id, Op.DELETE, change, actor=actor, reason=reason)

    def _turn_rekeys_without(self, scope: Any, memory_id: Any) -> list[Any]:
        """Neighbour keys to rebuild when purge erases a turn (computed before, applied in
        the erasing transaction): its words must not stay findable through them."""
        tc = self.strategy.retrieval.turn_context
        m = self.store.get(v.scope(scope), v.memory_id(memory_id))
        if m is None or m.kind != turnctx.TURN_KIND or not turnctx.enabled(tc):
            return []
        return turnctx.neighbourhood(tc, turnctx.stored_turns(self.store, m.scope), m.id,
                                     self._vectors, leaving=True)

    def freeze(self, scope: Scope | dict[str, str], memory_id: str, *,
               actor: str | None = None, reason: str | None = None) -> Memory:
        """Lock a memory: no verb but unfreeze may change it."""
        def change(m: Memory) -> Memory:
            if m.frozen:
                raise FrozenError(f"memory {m.id} is already frozen")
            return replace(m, frozen=True)
        return self._mutate(scope, memory_id, Op.FREEZE, change, actor=actor, reason=reason,
                            allow_frozen=True)

    def unfreeze(self, scope: Scope | dict[str, str], memory_id: str, *,
                 actor: str | None = None, reason: str | None = None) -> Memory:
        def change(m: Memory) -> Memory:
            if not m.frozen:
                raise ConflictError(f"memory {m.id} is not frozen")
            return replace(m, frozen=False)
        return self._mutate(scope, memory_id, Op.UNFREEZE, change, actor=actor, reason=reason,
                            allow_frozen=True)

    def expire(self, scope: Scope | dict[str, str], memory_id: str, *,
               actor: str | None = None, reason: str | None = None) -> Memory:
        """Stop serving a memory whose shelf life is over. By default it is demoted to a
        candidate (status pending) to be confirmed again, not deleted."""
        target = Status.PENDING.value if self.on_expire == "demote" else Status.EXPIRED.value

        def change(m: Memory) -> Memory:
            if m.status != Status.ACTIVE:
                raise ConflictError(f"memory {m.id} is {m.status}, not active")
            now = self.clock()
            exp = now if m.expires_at is None else min(m.expires_at, now)
            return replace(m, status=target, expires_at=exp, version=m.version + 1)
        return self._mutate(scope, memory_id, Op.EXPIRE, change, actor=actor,
                            reason=reason or "expired")

    def sweep(self, scope: Scope | dict[str, str] | None = None, *,
              actor: str = "system:sweep") -> int:
        """The lifecycle job (one scope, or all): expire every active memory whose
        expires_at has passed, run summary triggers, graph ingest and per-user caps
        (lifecycle.py). Returns how many expired; `maintain` returns the full report.
        Frozen memories are left alone: freezing means no automatic path changes them."""
        return self.maintain(scope, actor=actor).expired

    def maintain(self, scope: Scope | dict[str, str] | None = None, *,
                 steps: tuple[str, ...] | list[str] | None = None,
                 actor: str = "system:sweep") -> Any:
        """The lifecycle job with its report (SweepReport: expired, summaries, relations,
        evicted, errors); `steps` picks some of expire, summarize, graph, caps."""
        from .lifecycle import STEPS, run

        return run(self, scope, steps=STEPS if steps is None else steps, actor=actor)

    def rollback(self, scope: Scope | dict[str, str], memory_id: str, to_version: int, *,
                 actor: str | None = None, reason: str | None = None) -> Memory:
        """Restore the state of version `to_version` as a new version. Undoable like any
        other change: roll back to the version before the rollback."""
        target = v.version(to_version, "to_version")
        sc = v.scope(scope)
        states = self._states(sc, v.memory_id(memory_id))

        def change(m: Memory) -> Memory:
            if target >= m.version:
                raise VersionError(f"memory {m.id} is at version {m.version}; roll back to an "
                                   f"earlier version (1..{m.version - 1})")
            state = states.get(target)
            if state is None:
                raise VersionError(f"memory {m.id} has no version {target}" + (
                    " left: its content was erased with a purged source"
                    if 1 <= target < m.version else ""))
            return replace(m, **{f: state[f] for f in STATE_FIELDS}, version=m.version + 1,
                           recorded_at=self.clock())
        return self._mutate(sc, memory_id, Op.ROLLBACK, change, actor=actor, reason=reason,
                            trigger_text=f"rollback to version {target}")

    def purge(self, scope: Scope | dict[str, str], memory_id: str, *,
              actor: str | None = None, reason: str | None = None) -> Revision:
        """Erase: the content leaves the row, every revision, the full-text index and the
        vectors. A tombstone revision records that it happened, when and by whom."""
        sc = v.scope(scope)
        mid = v.memory_id(memory_id)
        why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
        rekeys = self._turn_rekeys_without(sc, mid)
        source = self.store.get(sc, mid)
        derived, quoted, asked = self._made_from(sc, mid, source)
        with self.store.transaction() as tx:
            # Every row this purge changes, locked in id order first: a writer locks the
            # sources of what it makes in that order too (_check_sources), so the two wait
            # for each other instead of deadlocking.
            user = Scope(sc.tenant, sc.user)
            for lid in sorted({mid, *(m.id for m, _, _ in rekeys), *(d.id for d in derived)}):
                tx.get(user, lid, for_update=True)
            cur = tx.get(sc, mid, for_update=True)
            if cur is None:
                raise NotFoundError(f"no memory {mid} in scope {sc}")
            if cur.frozen:
                raise FrozenError(f"memory {mid} is frozen; unfreeze it before purging it")
            copies = [c for d in derived if (c := tx.get(d.scope, d.id, for_update=True))]
            if frozen := [c.id for c in copies if c.frozen]:
                raise FrozenError(f"memory {mid} is quoted by frozen derived memories "
                                  f"{', '.join(frozen)}; unfreeze them before purging it")
            for m, terms, vectors in rekeys:  # in the erasing transaction
                self._rekey(tx, m, terms, vectors)
            now = self.clock()
            tomb = self._purge_note(cur, Op.PURGE, why, actor, now)
            tx.erase(cur.scope, mid, tomb)
            self._erase_made_from(tx, sc, mid, copies, quoted, asked, actor, now)
        redacted = set(quoted)
        if source is not None:
            # A write that read the memory before this purge locked it (a summary, a graph
            # fact, an extracted memory, a trace) committed in between; one written after
            # is refused (_check_sources). Erase the former now.
            late, quoted, asked = self._made_from(sc, mid, source,
                                                  erased=[c.id for c in copies])
            redacted.update(quoted)
            if late or quoted or asked:
                with self.store.transaction() as tx:
                    copies = [c for d in late if (c := tx.get(d.scope, d.id, for_update=True))]
                    self._erase_made_from(tx, sc, mid, copies, quoted, asked, actor, self.clock())
        wordmatch.forget(sc.tenant, [m for m in (source, cur, *derived, *copies) if m],
                         also=redacted)
        self.store.compact()
        return tomb

    def _made_from(self, sc: Scope, mid: str, source: Memory | None, *,
                   erased: list[str] | None = None
                   ) -> tuple[list[Memory], dict[str, Quoted], list[str]]:
        """What a purge of `source` takes with it (derived.py): the memories made from it,
        the older revisions of memories that stay that quote it, the traces that asked
        with its text. `erased`: the source and these copies of it are already erased."""
        if source is None:
            return derived_from(self.store, sc, mid), {}, []
        quoted = quoting_revisions(self.store, source)
        # What was read from the versions that go (a graph fact) goes as well; a memory
        # erased whole needs no redaction.
        derived = derived_from(self.store, sc, mid,
                               {q: x.versions for q, x in quoted.items() if x.versions},
                               kind=source.kind, erased=erased or ())
        whole = {d.id for d in derived}
        quoted = {q: x for q, x in quoted.items() if q not in whole}
        return derived, quoted, traces_quoting(self.store, source)

    def _purge_note(self, m: Memory, op: Op, note: str | None, actor: str | None,
                    now: int) -> Revision:
        # A purge tombstone ends the memory (a new version, no state); a redact note keeps
        # the memory's version and state.
        purged = op == Op.PURGE
        return Revision(op_id=new_id("op"), memory_id=m.id, scope=m.scope, op=op.value,
                        from_version=m.version,
                        to_version=m.version + 1 if purged else m.version,
                        state=None if purged else m.to_dict(), actor=self._actor(actor),
                        actor_role=self.actor_role, reason=note, trigger_text=None,
                        trace_id=None, at=max(now, m.updated_at))

    def _erase_made_from(self, tx: Any, sc: Scope, mid: str, copies: list[Memory],
                         quoted: dict[str, Quoted], asked: list[str], actor: str | None,
                         now: int) -> None:
        """The rest of a purge of `mid`, in its transaction (see _made_from)."""
        if asked:
            tx.drop_traces(sc, asked)
        # What was made from it carries its words (a graph fact quotes its source, a
        # summary its turns): erased with it, each with its own tombstone.
        for c in copies:
            tx.erase(c.scope, c.id, self._purge_note(
                c, Op.PURGE, f"derived from purged memory {mid}", actor, now))
        # A memory that stays (its current value came from elsewhere) loses the content
        # of its older revisions that came from the purged turn.
        for qid, q in quoted.items():
            if (m := tx.get(q.scope, qid, for_update=True)) is None:
                continue
            tx.redact(m.scope, m.id, q.blank, q.unquote, self._purge_note(
                m, Op.REDACT, f"{len(q.blank) + len(q.unquote)} earlier revision(s) "
                f"erased: derived from purged memory {mid}", actor, now))

    # --- read -------------------------------------------------------------------------------
    def _states(self, scope: Scope, memory_id: str) -> dict[int, dict[str, Any]]:
        """version -> state of that version (the last revision that produced it)."""
        out: dict[int, dict[str, Any]] = {}
        for rev in self.store.revisions(scope, memory_id):
            if rev.state is not None:
                out[rev.to_version] = rev.state
        return out

    def get(self, scope: Scope | dict[str, str], memory_id: str, *,
            as_of: TimeLike = None) -> Memory:
        sc, mid = v.scope(scope), v.memory_id(memory_id)
        if as_of is not None:
            at = to_ms(as_of, field="as_of")
            revs = [r for r in self.store.revisions(sc, mid) if r.at <= at]  # type: ignore[operator]
            if not revs or revs[-1].state is None:
                raise NotFoundError(f"no memory {mid} in scope {sc} as of {as_of}")
            return Memory.from_dict(revs[-1].state)
        m = self.store.get(sc, mid)
        if m is None:
            raise NotFoundError(f"no memory {mid} in scope {sc}")
        return m

    def list(self, scope: Scope | dict[str, str], *, kind: str | None = None,
             status: str | None = None, slot: str | None = None,
             tags: Iterable[str] | None = None, since: TimeLike = None,
             until: TimeLike = None, as_of: TimeLike = None, limit: int = 100,
             offset: int = 0, source: str | None = None, frozen: bool | None = None,
             expiring_before: TimeLike = None, q: str | None = None,
             slotted: bool | None = None) -> list[Memory]:
        """Newest first. source, frozen, expiring_before (has a TTL ending before then),
        q (case-insensitive substring of the content) and slotted (holds a slot, or
        not) narrow further."""
        sc = v.scope(scope)
        if frozen is not None and not isinstance(frozen, bool):
            raise ValidationError("frozen: expected true or false")
        if slotted is not None and not isinstance(slotted, bool):
            raise ValidationError("slotted: expected true or false")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_000:
            raise ValidationError("limit: expected a whole number in 1..10000")
        if isinstance(offset, bool) or not isinstance(offset, int) or not \
                0 <= offset <= 1_000_000_000:  # beyond, SQLite's integers overflow
            raise ValidationError("offset: expected a whole number in 0..1000000000")
        lo, hi = _time_range(since, until)
        flt = ListFilter(kind=v.kind(kind) if kind is not None else None,
                         status=v.status(status) if status is not None else None,
                         slot=v.slot(slot),
                         tags=v.tags(tags), since=lo, until=hi, limit=limit, offset=offset,
                         source=v.source(source) if source is not None else None,
                         frozen=frozen,
                         expires_before=to_ms(expiring_before, field="expiring_before"),
                         q=v.text(q, "q", max_chars=v.MAX_CONTENT_CHARS, required=False) or None,
                         slotted=slotted)
        if as_of is None:
            return self.store.list(sc, flt)
        at = to_ms(as_of, field="as_of")
        assert at is not None
        out = []
        for rev in self.store.revisions_as_of(sc, at):
            if rev.state is None:
                continue
            m = Memory.from_dict(rev.state)
            if ((flt.kind and m.kind != flt.kind) or (flt.status and m.status != flt.status)
                    or (flt.slot and m.slot != flt.slot)
                    or any(t not in m.tags for t in flt.tags)
                    or (flt.since is not None and m.updated_at < flt.since)
                    or (flt.until is not None and m.updated_at >= flt.until)
                    or (flt.source and m.source != flt.source)
                    or (flt.frozen is not None and m.frozen != flt.frozen)
                    or (flt.expires_before is not None and (
                        m.expires_at is None or m.expires_at >= flt.expires_before))
                    or (flt.q and flt.q.casefold() not in m.content.casefold())
                    or (flt.slotted is not None and (m.slot is not None) != flt.slotted)):
                continue
            out.append(m)
        out.sort(key=lambda m: (-m.updated_at, m.id))
        return out[offset:offset + limit]

    def recall(self, scope: Scope | dict[str, str], query: str, *, top_k: int | None = None,
               kind: str | None = None, tags: Iterable[str] | None = None,
               since: TimeLike = None, until: TimeLike = None, as_of: TimeLike = None,
               min_score: float | None = None, trace_id: str | None = None) -> Hits:
        """Ranked live memories of the scope for `query`, each with its score parts.

        Filters: kind, tags (all must be present), since/until on the memory's date
        (valid_from, else created_at); a time range named in the query ("last May")
        narrows the same way unless the strategy turns it off. The result's `trace_id`
        names the trace recorded for it."""
        outcome = self._retrieve(scope, query, top_k=top_k, kind=kind, tags=tags, since=since,
                                 until=until, as_of=as_of, min_score=min_score)
        hits = Hits(outcome.hits)
        hits.trace_id = self._record_trace("recall", outcome, trace_id=trace_id)
        return hits

    def _retrieve(self, scope: Any, query: Any, *, top_k: int | None, kind: Any, tags: Any,
                  since: TimeLike, until: TimeLike, as_of: TimeLike,
                  min_score: float | None) -> RetrievalOutcome:
        r = self.strategy.retrieval
        sc = v.scope(scope)
        q = v.text(query, "query", max_chars=v.MAX_CONTENT_CHARS)
        assert q is not None
        k = r.top_k if top_k is None else top_k
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000:
            raise ValidationError("top_k: expected a whole number in 1..1000")
        threshold = r.min_score if min_score is None else min_score
        if isinstance(threshold, bool) or not isinstance(threshold, int | float) \
                or not math.isfinite(threshold):
            raise ValidationError("min_score: expected a finite number")
        kind_ = v.kind(kind) if kind is not None else None
        tags_ = v.tags(tags)
        lo, hi = _time_range(since, until)
        now = self.clock() if as_of is None else to_ms(as_of, field="as_of")
        assert now is not None
        found = named_range(q, now) if r.query_time_filter else None
        named = found[:2] if found is not None and found[2] else None
        soft = found[:2] if found is not None and not found[2] else None
        if named is not None:
            lo = named[0] if lo is None else max(lo, named[0])
            hi = named[1] if hi is None else min(hi, named[1])
        terms = query_terms(q)
        out = RetrievalOutcome(scope=sc, query=q, now=now, as_of=as_of is not None,
                               time_range=(lo, hi) if (lo is not None or hi is not None)
                               else None)
        if as_of is not None:
            snapshot = [Memory.from_dict(rv.state) for rv in self.store.revisions_as_of(sc, now)
                        if rv.state is not None]
            pool = {m.id: m for m in snapshot if m.is_live(now)}
            parts = snapshot_candidates(list(pool.values()), terms, q, self.embedders, r)
        else:
            # Filters shrink the pool after candidate generation; widen it so top_k survives.
            n = r.candidates * (4 if (kind_ or tags_ or out.time_range) else 1)
            text = bm25.score(self.store.text_candidates(sc, terms, now, n), terms,
                              context_weight=r.turn_context.text_weight)
            lines = query_lines(q, r.query_lines) if r.weights.lines > 0 else []
            dense: dict[str, list[tuple[str, float]]] = {}
            line_votes: dict[str, list[tuple[str, float]]] = {}
            for e in (e for e in self.embedders if votes_on(e, q)):
                if not lines:
                    dense[e.name] = self.store.vector_candidates(sc, e.name, e.embed_query(q),
                                                                 now, n)
                    continue
                # The whole query and its lines: one embedding batch, one store pass.
                found = self.store.vector_candidates_each(
                    sc, e.name, embed_queries(e, [q, *lines]), now, n)
                dense[e.name], line_votes[e.name] = found[0], best_of(found[1:])
            parts = fuse(text, dense, r.weights, line_votes or None)
            pool = {m.id: m for m in self.store.fetch(sc, list(parts))}
        add_coverage(parts, pool, q, self.embedders, r, sc.tenant)
        ranked = rank(pool, parts, r, now, q)
        if soft is not None:
            for h in ranked:
                if soft[0] <= memory_date(h.memory) < soft[1]:
                    h.parts.time_match = 1.0
                    h.parts.total += r.weights.time
                    h.score = h.parts.total
            ranked.sort(key=lambda h: (-h.score, -h.memory.updated_at, h.memory.id))

        def in_range(m: Memory) -> bool:
            d = memory_date(m)
            return (lo is None or d >= lo) and (hi is None or d < hi)

        if named is not None and since is None and until is None \
                and not any(in_range(h.memory) for h in ranked):
            # A range read from the query narrows only if some memory is dated inside it:
            # "today" in a chat about last year's trip must not empty the result.
            out.time_range = None
            out.time_range_ignored = True
        kept: list[Hit] = []
        for h in ranked:
            m = h.memory
            reason = None
            if not m.is_live(now):
                reason = "not_live"  # changed between candidate generation and fetch
            elif kind_ is not None and m.kind != kind_:
                reason = "kind_filter"
            elif kind_ is None and m.kind in GRAPH_KINDS:
                reason = "graph_kind"  # entities/relations: graph verbs, or kind= asks
            elif any(t not in m.tags for t in tags_):
                reason = "tag_filter"
            elif out.time_range is not None and not in_range(m):
                reason = "time_range"
            elif h.parts.bm25 <= 0 and r.min_similarity > 0 and max(
                    [*h.parts.dense.values(), *h.parts.lines.values()],
                    default=0.0) < r.min_similarity:
                reason = "no_match"  # no query word, and not similar enough either
            if reason:
                out.filtered.append((h, reason))
            else:
                kept.append(h)
        kept, superseded = collapse_slots(kept)
        out.filtered.extend((h, "slot_superseded") for h in superseded)
        final = []
        for h in kept:
            if h.score < threshold:
                out.filtered.append((h, "below_threshold"))
            else:
                final.append(h)
        if self.reranker is not None:
            final = list(self.reranker(q, final))
            out.reranked = True
        out.filtered.extend((h, "top_k") for h in final[k:])
        out.hits = final[:k]
        return out

    def context(self, scope: Scope | dict[str, str], query: str, *,
                budget: int | None = None, lang: str | None = None,
                kind: str | None = None, tags: Iterable[str] | None = None,
                as_of: TimeLike = None, trace_id: str | None = None,
                session: str | None = None) -> ContextResult:
        """The prompt section for `query`: recalled memories rendered as reference data
        (not instructions) inside unforgeable markers, within `budget` tokens. The layers
        the query needs (docs/layers.md): `session` names the current conversation for the
        short-term layer when `scope` is user-wide."""
        cfg = self.strategy.context
        budget_ = cfg.budget_tokens if budget is None else budget
        if isinstance(budget_, bool) or not isinstance(budget_, int) or not \
                1 <= budget_ <= 200_000:
            raise ValidationError("budget: expected a whole number of tokens in 1..200000")
        lang_ = cfg.lang if lang is None else lang
        if lang_ not in ("en", "zh"):
            raise ValidationError("lang: expected 'en' or 'zh'")
        outcome = self._retrieve(scope, query, top_k=cfg.max_items, kind=kind, tags=tags,
                                 since=None, until=None, as_of=as_of, min_score=None)
        # Layers (docs/layers.md) unless a filter asks for recall only.
        shown = (recall_only(outcome, "kind, tags or as_of given: recall only")
                 if kind or tags or as_of is not None
                 else assemble(self, outcome.scope, outcome.query, outcome,
                               session=v.text(session, "session", max_chars=v.MAX_ID_CHARS,
                                              required=False)))
        # A turn whose request is not in effect says so (turnnotes.py); before packing, so
        # the note is counted against the budget.
        notes = turn_notes(self.store, outcome.scope,
                           {it.id for it in shown.items if it.kind == turnctx.TURN_KIND})
        shown.items = [replace(it, note=notes[it.id]) if it.id in notes else it
                       for it in shown.items]
        shown.pack(budget_, lang_, outcome.now)  # the most relevant units that fit first
        rendered = render(shown.items, budget_tokens=budget_, lang=lang_, now_ms=outcome.now,
                          nonce=shown.nonce,
                          conflicts=declared_conflicts([h.memory for h in shown.hits.values()]))
        injected = {"text": rendered.text, "tokens": rendered.tokens,
                    "budget_tokens": budget_, "lang": lang_, "block_id": rendered.block_id,
                    "included": rendered.included, "conflicts": rendered.conflicts,
                    "dropped": [{"id": d.id, "version": d.version, "reason": d.reason}
                                for d in rendered.dropped], "note": rendered.note,
                    "counter": rendered.counter,
                    "layers": shown.finish(rendered.included),
                    "route": shown.route.to_dict() if shown.route else None}
        tid = self._record_trace("context", outcome, trace_id=trace_id, injected=injected)
        by_id = shown.hits
        return ContextResult(text=rendered.text, tokens=rendered.tokens,
                             hits=[by_id[i] for i in rendered.included if i in by_id],
                             dropped=injected["dropped"], conflicts=rendered.conflicts,
                             trace_id=tid)

    def _record_trace(self, kind: str, outcome: RetrievalOutcome, *, trace_id: str | None,
                      injected: dict[str, Any] | None = None) -> str | None:
        cfg = self.strategy.traces
        if not cfg.enabled:
            return None
        tid = v.text(trace_id, "trace_id", max_chars=v.MAX_ID_CHARS,
                     required=False) or new_id("tr")
        at = self.clock()
        trace = build_trace(tid, kind, outcome, strategy_hash=self.strategy.hash, at=at,
                            injected=injected)
        self.store.write_trace(outcome.scope, trace,
                               keep_after=at - int(cfg.retention_days * 86_400_000),
                               max_per_scope=cfg.max_per_scope)
        return tid

    def trace(self, scope: Scope | dict[str, str], trace_id: str) -> dict[str, Any]:
        """The trace of one recall or context build: candidates, score parts, filters."""
        sc = v.scope(scope)
        tid = v.text(trace_id, "trace_id", max_chars=v.MAX_ID_CHARS)
        assert tid is not None
        t = self.store.get_trace(Scope(sc.tenant, sc.user), tid)
        if t is None:
            raise NotFoundError(f"no trace {tid} in scope {sc}")
        return t

    def traces(self, scope: Scope | dict[str, str], *, limit: int = 20) -> list[dict[str, Any]]:
        sc = v.scope(scope)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise ValidationError("limit: expected a whole number in 1..1000")
        return self.store.list_traces(Scope(sc.tenant, sc.user), limit)

    def users(self, tenant: str) -> list[str]:
        """The user ids of a tenant that have any recorded change, sorted (the admin page's
        user picker). Read from the revisions, so purged and deleted memories still count."""
        t = v.scope({"tenant": tenant, "user": "-"}).tenant  # the same id rules as a scope
        return self.store.users(t)  # a query that names the tenant, like every scoped read

    def profile(self, scope: Scope | dict[str, str], *,
                as_of: TimeLike = None) -> dict[str, dict[str, Any]]:
        """The user's active slots as a structured profile:
        {slot: {value, content, since, source, memory_id, version, frozen}}.
        Edits go through remember/edit (the gate and revisions), never through here."""
        sc = v.scope(scope)
        now = self.clock() if as_of is None else to_ms(as_of, field="as_of")
        assert now is not None
        out: dict[str, dict[str, Any]] = {}
        # Slotted memories only: a long history of turns must not crowd slots out.
        for m in self.list(sc, status=Status.ACTIVE.value, slotted=True, limit=10_000,
                           as_of=as_of):
            if m.slot is None or not m.is_live(now):
                continue
            seen = out.get(m.slot)
            # Several scopes (agent/session) may hold the same slot: the newest wins here.
            if seen is not None and seen["since"] >= m.updated_at:
                continue
            out[m.slot] = {"value": m.value if m.value is not None else m.content,
                           "content": m.content, "since": m.updated_at, "source": m.source,
                           "memory_id": m.id, "version": m.version, "frozen": m.frozen}
        return dict(sorted(out.items()))

    def audit(self, scope: Scope | dict[str, str], *, since: TimeLike = None,
              limit: int = 100) -> list[Revision]:
        """Every recorded change in the scope (who, what, why), newest first."""
        sc = v.scope(scope)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_000:
            raise ValidationError("limit: expected a whole number in 1..10000")
        after = to_ms(since, field="since")
        revs = [r for _, rs in self.store.scope_revisions(sc) for r in rs
                if after is None or r.at >= after]
        revs.sort(key=lambda r: (-r.at, r.memory_id, -r.to_version))
        return revs[:limit]

    def history(self, scope: Scope | dict[str, str], memory_id: str) -> list[Revision]:
        sc, mid = v.scope(scope), v.memory_id(memory_id)
        revs = self.store.revisions(sc, mid)
        if not revs:
            raise NotFoundError(f"no memory {mid} in scope {sc}")
        return revs

    def diff(self, scope: Scope | dict[str, str], memory_id: str, from_version: int,
             to_version: int) -> dict[str, dict[str, Any]]:
        """Fields that differ between two versions: {field: {"from": a, "to": b}}."""
        sc, mid = v.scope(scope), v.memory_id(memory_id)
        a, b = v.version(from_version, "from_version"), v.version(to_version, "to_version")
        states = self._states(sc, mid)
        if not states and not self.store.revisions(sc, mid):
            raise NotFoundError(f"no memory {mid} in scope {sc}")
        for n in (a, b):
            if n not in states:
                raise VersionError(f"memory {mid} has no version {n} "
                                   f"(known: {', '.join(map(str, sorted(states))) or 'none'})")
        sa, sb = states[a], states[b]
        return {f: {"from": sa.get(f), "to": sb.get(f)} for f in (*STATE_FIELDS, "frozen")
                if sa.get(f) != sb.get(f)}

    # --- layers (docs/layers.md) ---------------------------------------------------------
    def recent(self, scope: Scope | dict[str, str], *, n: int | None = None,
               max_tokens: int | None = None) -> list[Memory]:
        """The session's last `n` turns (strategy layers.short_term), verbatim, oldest
        first, at most `max_tokens` tokens of content."""
        from .layers.shortterm import recent

        return recent(self, scope, n=n, max_tokens=max_tokens)

    def summarize(self, scope: Scope | dict[str, str], *, force: bool = True,
                  summarizer: Any = None) -> list[Memory]:
        """Summarise a session's uncovered turns (a user scope: every session, then the
        user roll-up). force=False: only what the triggers call for. Returns the new
        summaries (kind `summary`, metadata.covers = the turn ids)."""
        from .layers.summarize import summarize

        return summarize(self, scope, force=force, summarizer=summarizer)

    def expand(self, scope: Scope | dict[str, str], summary_id: str) -> list[Memory]:
        """The raw turns a summary covers, oldest first."""
        from .layers.summarize import expand

        return expand(self, scope, summary_id)

    def graph_ingest(self, scope: Scope | dict[str, str],
                     memory_ids: list[str] | None = None) -> list[Memory]:
        """Read entities and relations from memories not read yet; the relations added."""
        from .layers.graph import ingest

        return ingest(self, scope, memory_ids)

    def graph_entity(self, scope: Scope | dict[str, str], name: str) -> Memory:
        """The entity a name, alias or id resolves to (NotFoundError if none)."""
        from .layers.graph import resolve

        return resolve(self, scope, name)

    def graph_facts(self, scope: Scope | dict[str, str], entity: str, *,
                    as_of: TimeLike = None, history: bool = False) -> list[dict[str, Any]]:
        """Relations of an entity that held at `as_of` (valid time; default now)."""
        from .layers.graph import facts

        return facts(self, scope, entity, as_of=as_of, history=history)

    def graph_neighbours(self, scope: Scope | dict[str, str], entity: str, *,
                         as_of: TimeLike = None,
                         history: bool = False) -> list[dict[str, Any]]:
        """Entities one relation away from `entity` at `as_of`."""
        from .layers.graph import neighbours

        return neighbours(self, scope, entity, as_of=as_of, history=history)

    # --- portability --------------------------------------------------------------------------
    def export_jsonl(self, scope: Scope | dict[str, str], out: IO[str]) -> int:
        """Write one header line, then one line per memory with its full history."""
        sc = v.scope(scope)
        if not callable(getattr(out, "write", None)):
            raise ValidationError("out: expected a text stream to write the export to")
        header = {"format": EXPORT_FORMAT, "format_version": EXPORT_FORMAT_VERSION,
                  "scope": sc.as_dict()}
        out.write(json.dumps(header, ensure_ascii=False, sort_keys=True) + "\n")
        n = 0
        for mid, revs in self.store.scope_revisions(sc):
            current = self.store.get(Scope(revs[0].scope.tenant, revs[0].scope.user), mid)
            line = {"id": mid, "memory": current.to_dict() if current else None,
                    "revisions": [r.to_dict() for r in revs]}
            out.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
            n += 1
        return n

    def import_jsonl(self, lines: Iterable[str], *, batch: int = 512, atomic: bool = True,
                     progress: Callable[[int], None] | None = None,
                     scope: Scope | dict[str, str] | None = None) -> int:
        """Load an export. With atomic=True (default) it is all or nothing: a bad line or an
        id that exists fails the lot. atomic=False commits every `batch` memories (bulk
        loads); a failure then leaves the earlier batches in place and names the line.
        With `scope`, every memory and revision must lie inside it (ScopeError otherwise):
        a caller allowed one scope cannot load rows into another."""
        batch = v.batch_size(batch)
        v.callback(progress, "progress")
        if not isinstance(atomic, bool):
            raise ValidationError("atomic: expected true or false")
        if isinstance(lines, str | bytes) or not isinstance(lines, Iterable):
            raise ValidationError("import: expected the lines of an export (an iterable of "
                                  "text)")
        records = _parse_export(lines, v.scope(scope) if scope is not None else None)
        total = 0
        brought: set[str] = set()  # ids this import has loaded so far

        def load(tx: Any, chunk: list[tuple[Memory | None, list[Revision]]]) -> None:
            mems = [m for m, _ in chunk if m is not None]
            ids = {m.id if m is not None else revs[0].memory_id
                   for m, revs in chunk if m is not None or revs}
            # Any scope: history under another user's id would be that user's to purge.
            for mid in ids:
                if tx.id_in_use(mid):
                    raise ConflictError(f"memory {mid} already exists in this store")
            brought.update(ids)
            for m in mems:
                self._check_sources(tx, m.scope, m.metadata, skip=brought)
            vectors = self._vectors([m.content for m in mems])
            rows = []
            for m, vec in zip(mems, vectors, strict=True):
                m = replace(m, embedding_model=self.embedding_model)
                rows.append((m, content_hash(m.content, m.slot, m.value),
                             memory_index_text(m.content, m.valid_from), vec))
            tx.insert_many(rows)
            tx.append_revisions([r for _, revs in chunk for r in revs])
            if progress:
                progress(len(chunk))

        def chunks() -> Iterator[list[tuple[Memory | None, list[Revision]]]]:
            buf: list[tuple[Memory | None, list[Revision]]] = []
            for rec in records:
                mem = Memory.from_dict(rec["memory"]) if rec["memory"] is not None else None
                buf.append((mem, [Revision.from_dict(r) for r in rec["revisions"]]))
                if len(buf) >= batch:
                    yield buf
                    buf = []
            if buf:
                yield buf

        if atomic:
            # Parse everything first: a malformed last line must not cost a rollback of work.
            parsed = list(chunks())
            with self.store.transaction() as tx:
                for chunk in parsed:
                    load(tx, chunk)
                    total += len(chunk)
            return total
        with self.store.bulk_load():
            for chunk in chunks():
                with self.store.transaction() as tx:
                    load(tx, chunk)
                total += len(chunk)
        return total

    # --- maintenance --------------------------------------------------------------------------
    def reindex(self, *, batch: int = 256,
                progress: Callable[[int, int], None] | None = None) -> int:
        """Re-embed every memory with the configured embedders, then record them.

        Crash-safe: new vectors are written beside the old ones, the model record switches
        only when every memory has them, and only then are the old models' vectors dropped.
        A reindex killed halfway leaves a store that still opens with the old model."""
        batch = v.batch_size(batch)
        v.callback(progress, "progress")
        total = self.store.count()
        stored = self.store.get_meta("embedders")
        old = [m["name"] for m in json.loads(stored)] if stored else []
        keep = {e.name for e in self.embedders}
        done = 0
        for rows in self.store.iter_all_for_reindex(batch):
            vecs = self._vectors([text for _, text in rows])
            self.store.replace_vectors([(key, vec) for (key, _), vec in zip(rows, vecs,
                                                                           strict=True)],
                                       drop_models=[], embedding_model=self.embedding_model)
            done += len(rows)
            if progress:
                progress(done, total)
        self.store.set_meta("embedders", json.dumps(self._model_record))
        self.store.drop_vector_models([m for m in old if m not in keep])
        if turnctx.enabled(self.strategy.retrieval.turn_context):
            # The loop above gave every turn its own vector; turns are keyed with context.
            for sc in self.store.scopes():
                self.relink_turns(sc)
        return done


def _inside(sc: Scope, within: Scope | None) -> bool:
    return within is None or (
        sc.tenant == within.tenant and sc.user == within.user
        and all(not w or getattr(sc, f) == w for f, w in (("agent", within.agent),
                                                             ("session", within.session))))


def _time_range(since: TimeLike, until: TimeLike) -> tuple[int | None, int | None]:
    lo, hi = to_ms(since, field="since"), to_ms(until, field="until")
    if lo is not None and hi is not None and lo >= hi:
        raise ValidationError("since: must be before until")
    return lo, hi


_MEMORY_FIELDS = frozenset(f.name for f in fields(Memory))
_REVISION_FIELDS = frozenset(f.name for f in fields(Revision))


def _check_fields(m: dict[str, Any]) -> None:
    """An imported memory's fields, checked like a write's: a bad date or kind stored
    here would only fail later, on a read."""
    v.text(m["content"], "content", max_chars=v.MAX_CONTENT_CHARS)
    v.kind(m["kind"])
    v.source(m["source"])
    v.status(m["status"])
    v.confidence(m["confidence"])
    v.tags(m["tags"])
    v.metadata(m["metadata"])
    v.version(m["version"])
    if m["slot"] is not None:
        v.slot(m["slot"])
    for f in ("recorded_at", "created_at", "updated_at"):
        v.epoch_ms(m[f], f)
    for f in ("valid_from", "valid_to", "expires_at"):
        if m[f] is not None:
            v.epoch_ms(m[f], f)
    if not isinstance(m["frozen"], bool):
        raise ValidationError("frozen: expected true or false")
    for f in ("source_text", "source_ref", "embedding_model"):
        v.text(m[f], f, max_chars=v.MAX_CONTENT_CHARS, required=False)
    v.memory_id(m["id"])


def _check_revision(r: dict[str, Any], memory_id: str, scope: Scope | None) -> Scope:
    """An imported revision, checked like a memory: history that a later read, rollback
    or audit cannot parse would fail there, far from the import. Returns its scope."""
    sc = v.scope(r["scope"])
    if scope is not None and sc != scope:
        raise ValidationError(f"revision {r.get('op_id')}: scope {sc} is not its memory's "
                              f"scope {scope}")
    if r["memory_id"] != memory_id:
        raise ValidationError("a revision of another memory")
    v.text(r["op_id"], "op_id", max_chars=v.MAX_ID_CHARS)
    v.enum_value(r["op"], Op, "op")
    v.actor(r["actor"])
    v.text(r["actor_role"], "actor_role", max_chars=v.MAX_ID_CHARS)
    for f in ("reason", "trigger_text"):
        v.text(r[f], f, max_chars=v.MAX_CONTENT_CHARS, required=False)
    v.text(r["trace_id"], "trace_id", max_chars=v.MAX_ID_CHARS, required=False)
    v.epoch_ms(r["at"], "at")
    v.version(r["to_version"])
    if r["from_version"] is not None:
        v.version(r["from_version"])
    if r["state"] is not None:
        if not isinstance(r["state"], dict):
            raise ValidationError("state: expected an object or null")
        state = Memory.from_dict(r["state"])
        _check_fields(r["state"])
        if state.id != memory_id or state.scope != sc:
            raise ValidationError(f"revision {r['op_id']}: its state is another memory's")
    return sc


def _parse_export(lines: Iterable[str], within: Scope | None = None
                  ) -> Iterator[dict[str, Any]]:
    it = iter(lines)
    try:
        header = json.loads(next(it))
    except StopIteration:
        raise ValidationError("import: empty input") from None
    except json.JSONDecodeError as e:
        raise ValidationError(f"import: line 1 is not JSON ({e.msg})") from None
    if not isinstance(header, dict) or header.get("format") != EXPORT_FORMAT:
        raise ValidationError(f"import: not a memvault export (line 1 must be the header, "
                              f'with "format": "{EXPORT_FORMAT}")')
    if header.get("format_version") != EXPORT_FORMAT_VERSION:
        raise ValidationError(f"import: unsupported format_version {header.get('format_version')}")
    seen: set[Any] = set()
    for n, line in enumerate(it, start=2):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValidationError(f"import: line {n} is not JSON ({e.msg})") from None
        if (not isinstance(rec, dict) or not isinstance(rec.get("revisions"), list)
                or not rec["revisions"]):
            raise ValidationError(f"import: line {n} has no revisions")
        try:
            mid = v.memory_id(rec.get("id"))
            owner: Scope | None = None
            if rec.get("memory") is not None:
                m = rec["memory"]
                if not isinstance(m, dict) or set(m) != _MEMORY_FIELDS:
                    raise ValidationError("the memory's fields are not those of an export")
                owner = v.scope(m["scope"])
                if not _inside(owner, within):
                    raise ScopeError(f"import: line {n} is outside the scope {within}")
                if m["id"] != mid:
                    raise ValidationError(f"import: line {n}: id does not match its memory")
                Memory.from_dict(m)
                _check_fields(m)
            if mid in seen:
                raise ValidationError(f"import: line {n}: memory {mid} appears twice")
            seen.add(mid)
            for r in rec["revisions"]:
                if not isinstance(r, dict) or set(r) != _REVISION_FIELDS:
                    raise ValidationError("a revision's fields are not those of an export")
                if not _inside(v.scope(r["scope"]), within):
                    raise ScopeError(f"import: line {n} is outside the scope {within}")
                # A tombstone line has no memory: its revisions share one scope.
                owner = _check_revision(r, mid, owner)
                Revision.from_dict(r)
        except ValidationError as e:
            if not e.message.startswith("import:"):
                raise type(e)(f"import: line {n}: {e.message}") from None
            raise
        except (KeyError, TypeError) as e:
            raise ValidationError(f"import: line {n} is malformed ({e})") from None
        yield rec

"""The Vault: every verb of memvault, over any Store — a thin facade.

Each verb checks its arguments and hands the work to the floor below (docs/design.md):
the write core (writes/: commit, mutations, purge, reindex), the read core (reads/:
retrieval, traces, records), the gated write path (writepath.py), the layers (layers/),
the lifecycle job (lifecycle.py) and export/import (portability.py). Reads are always
scoped; a memory of another scope is indistinguishable from one that does not exist."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import platformdirs

from . import lifecycle, review, writepath
from . import validate as v
from .changes import Event
from .config import Strategy, Weights, load_strategy
from .core import Core
from .embed import Embedder, load_embedders
from .engine import Engine
from .errors import ValidationError
from .ids import content_hash, new_id
from .layers import graph, shortterm
from .layers import summarize as summaries
from .layers.section import ContextResult, build_context
from .mergeverbs import MergeVerbs
from .model import Hits, Memory, PurgeResult, RememberResult, Revision, Scope, Source
from .portability import EXPORT_FORMAT, EXPORT_FORMAT_VERSION
from .reads import access, events, records, shared
from .recall import Reranker
from .store import Store, open_store
from .timeutil import TimeLike, now_ms, to_ms
from .validtime import valid_window
from .vault_agents import AgentVerbs
from .vault_imports import ImportVerbs
from .vault_online_eval import OnlineEvalVerbs
from .vault_replay import ReplayVerbs
from .vault_snapshots import SnapshotVerbs
from .vault_strategies import StrategyVerbs
from .vault_teams import TeamVerbs
from .writes import erase, mutations, prepare, prepare_items, turnkeys
from .writes import reindex as reindexing

__all__ = ["EXPORT_FORMAT", "EXPORT_FORMAT_VERSION", "ContextResult", "Vault",
           "content_hash", "default_db_path", "new_id"]


def default_db_path() -> Path:
    """The per-user data directory, e.g. ~/.local/share/memvault/memvault.db."""
    env = os.environ.get("MEMVAULT_DB")
    if env:
        return Path(env)
    return Path(platformdirs.user_data_dir("memvault", appauthor=False)) / "memvault.db"


def _shared(name: str, doc: str) -> property:
    """An attribute that lives on the Core, so the cores see a change made here."""
    return property(lambda self: getattr(self.core, name),
                    lambda self, value: setattr(self.core, name, value), doc=doc)


class Vault(SnapshotVerbs, MergeVerbs, StrategyVerbs, OnlineEvalVerbs, ReplayVerbs,
            ImportVerbs, AgentVerbs, TeamVerbs):
    """Open a store (SQLite path or PostgreSQL DSN) with an embedder spec.

    `actor` and `actor_role` are the default principal recorded in revisions; every
    mutating verb also takes `actor=` to override it per call. `read_db`: a PostgreSQL
    read replica of `db` for recall, context and list (docs/scaling.md, "Read replicas").
    """

    store = _shared("store", "The Store (SQLite or PostgreSQL) under this vault.")
    embedders = _shared("embedders", "The embedders, one vector each per memory.")
    strategy = _shared("strategy", "The strategy in force (config.py).")
    actor = _shared("actor", "The default actor recorded in revisions.")
    actor_role = _shared("actor_role", "The default actor's role (the gate reads it).")
    on_expire = _shared("on_expire", "'demote' (to pending) or 'expire'.")
    reranker = _shared("reranker", "An optional (query, hits) -> hits hook.")
    clock = _shared("clock", "Epoch milliseconds now (tests and replays set their own).")
    summarizer = _shared("summarizer", "A summariser object overriding the strategy's.")

    def __init__(self, db: str | os.PathLike[str] | Store | None = None, *,
                 embedder: str | list[str] | None = None, actor: str = "local",
                 actor_role: str = "admin", on_expire: str = "demote",
                 strategy: Strategy | str | os.PathLike[str] | None = None,
                 reranker: Reranker | None = None,
                 clock: Callable[[], int] | None = None, check_models: bool = True,
                 read_db: str | None = None) -> None:
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
        embedders: list[Embedder] = load_embedders(embedder)
        strat = strategy if isinstance(strategy, Strategy) else load_strategy(strategy)
        if isinstance(db, str | os.PathLike) or db is None:
            store: Store = open_store(db if db is not None else default_db_path(),
                                      read_db=read_db)
        elif read_db is not None:
            raise ValidationError("read_db: give it with a db DSN; an opened store keeps "
                                  "the replica it was opened with")
        else:
            store = db
        self.core = Core(store, embedders, strat, actor=actor, actor_role=actor_role,
                         on_expire=on_expire, reranker=reranker, clock=clock or now_ms)
        self.engine = Engine(self.core)
        if check_models:
            self.core.check_models()

    # --- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def weights(self) -> Weights:
        return self.core.weights

    @property
    def embedding_model(self) -> str:
        return self.core.embedding_model

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
                 expected_version: int | None = None,
                 topic: str | None = None) -> RememberResult:
        """Store a statement, or a new value of a slot. Returns added, updated or noop.
        `topic`: what it is about (derived from the content when omitted and no slot is
        given)."""
        v.caller_metadata(metadata)
        v.caller_value(slot, value)
        req = prepare(self.clock, scope, content, slot=slot, value=value, kind=kind,
                      source=source, source_text=source_text, source_ref=source_ref,
                      confidence=confidence, tags=tags, metadata=metadata, ttl=ttl,
                      expires_at=expires_at, valid_from=valid_from, valid_to=valid_to,
                      topic=topic)
        if expected_version is not None:
            expected_version = v.version(expected_version, "expected_version")
        return self.engine.writes.remember(req, actor=actor, reason=reason,
                                           trigger_text=trigger_text, trace_id=trace_id,
                                           expected_version=expected_version)

    def remember_many(self, items: list[dict[str, Any]], *, actor: str | None = None,
                      reason: str | None = None, batch: int = 256,
                      progress: Callable[[int], None] | None = None) -> list[RememberResult]:
        """Bulk remember: each item is the keyword arguments of `remember` (with `scope`).
        Embeds a batch at a time and commits each batch as one transaction."""
        batch = v.batch_size(batch)
        v.callback(progress, "progress")
        return self.engine.writes.remember_many(prepare_items(self.clock, items), actor=actor,
                                                reason=reason, batch=batch, progress=progress)

    def relink_turns(self, scope: Scope | dict[str, str]) -> int:
        """Rebuild the index keys of every live turn of the scope (after a reindex)."""
        return turnkeys.relink(self.core, scope)

    # --- the gated write path (writepath.py) -------------------------------------------
    def observe(self, scope: Scope | dict[str, str], messages: list[Any], *,
                source_ref: str | None = None, extractor: Any = None,
                actor: str | None = None, actor_role: str = "user") -> writepath.ObserveResult:
        """Keep the raw turns, extract candidate memories, and pass each through the gate:
        added, updated, noop, staged for review, blocked (frozen) or rejected."""
        result = writepath.observe(self.engine, scope, messages, source_ref=source_ref,
                                   extractor=extractor, actor=actor, actor_role=actor_role)
        if self.strategy.layers.on_observe:
            lifecycle.after_observe(self.engine, scope, result)
        return result

    def propose(self, scope: Scope | dict[str, str], content: str | None = None, *,
                slot: str | None = None, value: Any = None, kind: str | None = None,
                source: str = Source.USER_EXPLICIT.value, source_text: str | None = None,
                source_ref: str | None = None, confidence: float = 1.0,
                tags: Iterable[str] | None = None, metadata: dict[str, Any] | None = None,
                ttl: int | float | str | None = None, actor: str | None = None,
                actor_role: str = "agent", reason: str | None = None,
                expected_version: int | None = None,
                topic: str | None = None) -> writepath.Outcome:
        """A statement from a writer that cannot vouch for it (an agent, a model): through
        the gate like an observed candidate (writepath.propose). Returns the Outcome."""
        return writepath.propose(self.engine, scope, content, slot=slot, value=value,
                                 kind=kind, source=source, source_text=source_text,
                                 source_ref=source_ref, confidence=confidence, tags=tags,
                                 metadata=metadata, ttl=ttl, actor=actor,
                                 actor_role=actor_role, reason=reason,
                                 expected_version=expected_version, topic=topic)

    def review_list(self, scope: Scope | dict[str, str], *, limit: int = 100) -> list[Memory]:
        mems = review.review_list(self.engine, scope, limit=limit)
        access.record(self.core, scope, "review.list", [m.id for m in mems])
        return mems

    def review_show(self, scope: Scope | dict[str, str], memory_id: str) -> dict[str, Any]:
        out = review.review_show(self.engine, scope, memory_id)
        access.record(self.core, scope, "review.show",
                      [memory_id, *(m["id"] for m in out.get("linked", []))])
        return out

    def review_approve(self, scope: Scope | dict[str, str], memory_id: str, *,
                       actor: str | None = None, reason: str | None = None) -> Memory:
        return review.review_approve(self.engine, scope, memory_id, actor=actor,
                                        reason=reason)

    def review_reject(self, scope: Scope | dict[str, str], memory_id: str, *,
                      actor: str | None = None, reason: str | None = None) -> Memory:
        return review.review_reject(self.engine, scope, memory_id, actor=actor,
                                       reason=reason)

    # --- governance (writes/mutations.py, writes/erase.py) ---------------------------------
    def edit(self, scope: Scope | dict[str, str], memory_id: str, *,
             content: str | None = None, value: Any = None, kind: str | None = None,
             tags: Iterable[str] | None = None, metadata: dict[str, Any] | None = None,
             confidence: float | None = None, expires_at: TimeLike = None,
             actor: str | None = None, reason: str | None = None,
             expected_version: int | None = None, topic: str | None = None,
             valid_from: TimeLike = None, valid_to: TimeLike = None) -> Memory:
        """Change fields of a memory by hand: a new version, with the reason recorded.
        valid_from/valid_to set when it held in the world (valid_to: it no longer does)."""
        updates: dict[str, Any] = {}
        if topic is not None:
            updates["topic"] = v.topic(topic)
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
        for name, when in (("expires_at", expires_at), ("valid_from", valid_from),
                           ("valid_to", valid_to)):
            if when is not None:
                updates[name] = to_ms(when, field=name, historic=name != "expires_at")
        if not updates:
            raise ValidationError("edit: nothing to change")
        if expected_version is not None:
            expected_version = v.version(expected_version, "expected_version")
        return mutations.edit(self.engine.writes, scope, memory_id, updates, actor=actor,
                              reason=reason, expected_version=expected_version)

    def forget(self, scope: Scope | dict[str, str], memory_id: str, *,
               actor: str | None = None, reason: str | None = None) -> Memory:
        """Soft delete: the memory stops being served; history keeps it; rollback undoes it."""
        return mutations.forget(self.engine.writes, scope, memory_id, actor=actor,
                                reason=reason)

    def freeze(self, scope: Scope | dict[str, str], memory_id: str, *,
               actor: str | None = None, reason: str | None = None) -> Memory:
        """Lock a memory: no verb but unfreeze may change it."""
        return mutations.freeze(self.engine.writes, scope, memory_id, actor=actor,
                                reason=reason)

    def unfreeze(self, scope: Scope | dict[str, str], memory_id: str, *,
                 actor: str | None = None, reason: str | None = None) -> Memory:
        return mutations.unfreeze(self.engine.writes, scope, memory_id, actor=actor,
                                  reason=reason)

    def expire(self, scope: Scope | dict[str, str], memory_id: str, *,
               actor: str | None = None, reason: str | None = None) -> Memory:
        """Stop serving a memory whose shelf life is over. By default it is demoted to a
        candidate (status pending) to be confirmed again, not deleted."""
        return mutations.expire(self.engine.writes, scope, memory_id, actor=actor,
                                reason=reason)

    def rollback(self, scope: Scope | dict[str, str], memory_id: str, to_version: int, *,
                 actor: str | None = None, reason: str | None = None) -> Memory:
        """Restore the state of version `to_version` as a new version. Undoable like any
        other change: roll back to the version before the rollback."""
        target = v.version(to_version, "to_version")
        return mutations.rollback(self.engine.writes, v.scope(scope), v.memory_id(memory_id),
                                  target, actor=actor, reason=reason)

    def purge(self, scope: Scope | dict[str, str], memory_id: str, *,
              actor: str | None = None, reason: str | None = None) -> PurgeResult:
        """Erase: the content leaves the row, every revision, the full-text index and the
        vectors. A tombstone revision records that it happened, when and by whom.
        `erasure` is "done" once the bytes are gone from the files, "pending" while
        another connection's read snapshot still holds them (see purge_status)."""
        sc = v.scope(scope)
        mid = v.memory_id(memory_id)
        why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
        return erase.purge(self.engine.writes, sc, mid, actor=actor, why=why)

    def purge_status(self, scope: Scope | dict[str, str], memory_id: str) -> str:
        """"done" or "pending": whether a purged memory's erased bytes are gone from the
        store's files. A pending erasure is retried first."""
        return erase.status(self.engine.writes, v.scope(scope), v.memory_id(memory_id))

    def sweep(self, scope: Scope | dict[str, str] | None = None, *,
              actor: str = "system:sweep") -> int:
        """The lifecycle job (one scope, or all): expire every active memory whose
        expires_at has passed, run summary triggers, graph ingest, per-user caps and the
        consolidation pass (lifecycle.py). Returns how many expired; `maintain` returns
        the full report.
        Frozen memories are left alone: freezing means no automatic path changes them."""
        return self.maintain(scope, actor=actor).expired

    def maintain(self, scope: Scope | dict[str, str] | None = None, *,
                 steps: tuple[str, ...] | list[str] | None = None,
                 actor: str = "system:sweep",
                 progress: Callable[[int, int], None] | None = None) -> lifecycle.SweepReport:
        """The lifecycle job with its report (SweepReport: expired, summaries, relations,
        evicted, errors, snapshots, merges_proposed, merges_applied); `steps`: some of
        expire, summarize, graph, caps, consolidate, snapshots; `progress(done, total)`
        after each scope."""
        return lifecycle.run(self.engine, scope,
                             steps=lifecycle.STEPS if steps is None else steps, actor=actor,
                             progress=progress)

    # --- read (reads/) ----------------------------------------------------------------------
    def get(self, scope: Scope | dict[str, str], memory_id: str, *,
            as_of: TimeLike = None) -> Memory:
        m = records.get(self.core, scope, memory_id, as_of=as_of)
        access.record(self.core, scope, "get", [m.id])
        return m

    def list(self, scope: Scope | dict[str, str], *, kind: str | None = None,
             status: str | None = None, slot: str | None = None,
             tags: Iterable[str] | None = None, since: TimeLike = None,
             until: TimeLike = None, as_of: TimeLike = None, limit: int = 100,
             offset: int = 0, source: str | None = None, frozen: bool | None = None,
             expiring_before: TimeLike = None, q: str | None = None,
             slotted: bool | None = None, topic: str | None = None,
             valid_at: TimeLike = None, valid_since: TimeLike = None,
             valid_until: TimeLike = None) -> list[Memory]:
        """Newest first. source, frozen, expiring_before (has a TTL ending before then),
        q (case-insensitive substring of the content), slotted (holds a slot, or not)
        and topic (what it is about) narrow further; since/until on when it last changed;
        valid_at, or valid_since/valid_until: valid in the world then (validtime.py)."""
        valid = valid_window(valid_at, valid_since, valid_until)
        with self.store.reading(v.scope(scope)):  # a read replica may answer (read_db)
            mems = records.list_memories(self.core, scope, kind=kind, status=status,
                                         slot=slot, tags=tags, since=since, until=until,
                                         as_of=as_of, limit=limit, offset=offset,
                                         source=source, frozen=frozen,
                                         expiring_before=expiring_before, q=q,
                                         slotted=slotted, topic=topic, valid=valid)
        access.record(self.core, scope, "list", [m.id for m in mems])
        return mems

    def recall(self, scope: Scope | dict[str, str], query: str, *, top_k: int | None = None,
               kind: str | None = None, tags: Iterable[str] | None = None,
               since: TimeLike = None, until: TimeLike = None, as_of: TimeLike = None,
               min_score: float | None = None, trace_id: str | None = None,
               valid_at: TimeLike = None, valid_since: TimeLike = None,
               valid_until: TimeLike = None, reranker: str | None = None,
               teams: bool | Iterable[str] = True) -> Hits:
        """Ranked live memories of the scope for `query`, each with its score parts.

        Filters: kind, tags (all must be present), since/until on the memory's date
        (valid_from, else created_at); a time range named in the query ("last May")
        narrows the same way unless the strategy turns it off. Valid time (validtime.py):
        valid_at, or valid_since/valid_until, serves what held in the world then instead
        of what holds now; as_of (system time) reads what the store knew then; reranker
        (none, embedder, llm; rerank.py) in place of the strategy's. `teams`: the user's
        teams are read too (False: none; names: those), each hit marked with its scope,
        one scope winning each slot or topic (docs/teams.md). Hits.trace_id: its trace."""
        reads = self.engine.reads
        valid = valid_window(valid_at, valid_since, valid_until)
        with self.store.reading(v.scope(scope)):  # a read replica may answer (read_db)
            outcome = shared.retrieve(reads, scope, query, teams=teams, top_k=top_k,
                                      kind=kind, tags=tags, since=since, until=until,
                                      as_of=as_of, min_score=min_score, valid=valid,
                                      reranker=reranker)
        hits = Hits(outcome.hits)
        hits.trace_id = reads.record_trace("recall", outcome, trace_id=trace_id)
        access.record(self.core, scope, "recall", [h.memory.id for h in hits], hits.trace_id)
        return hits

    def context(self, scope: Scope | dict[str, str], query: str, *,
                budget: int | None = None, lang: str | None = None,
                kind: str | None = None, tags: Iterable[str] | None = None,
                as_of: TimeLike = None, trace_id: str | None = None,
                session: str | None = None, valid_at: TimeLike = None,
                valid_since: TimeLike = None, valid_until: TimeLike = None,
                teams: bool | Iterable[str] = True) -> ContextResult:
        """The prompt section for `query`: recalled memories rendered as reference data
        (not instructions) inside unforgeable markers, within `budget` tokens. The layers
        the query needs (docs/layers.md): `session` names the current conversation for the
        short-term layer when `scope` is user-wide. as_of, valid time and teams as in
        recall; the section says which scope won a slot or topic and why."""
        valid = valid_window(valid_at, valid_since, valid_until)
        cfg = self.strategy.context
        budget_ = cfg.budget_tokens if budget is None else budget
        if isinstance(budget_, bool) or not isinstance(budget_, int) or not \
                1 <= budget_ <= 200_000:
            raise ValidationError("budget: expected a whole number of tokens in 1..200000")
        lang_ = cfg.lang if lang is None else lang
        if lang_ not in ("en", "zh"):
            raise ValidationError("lang: expected 'en' or 'zh'")
        with self.store.reading(v.scope(scope)):  # a read replica may answer (read_db)
            r = build_context(self.engine, scope, query, budget=budget_, lang=lang_,
                              kind=kind, tags=tags, as_of=as_of, trace_id=trace_id,
                              session=session, valid=valid, teams=teams)
        access.record(self.core, scope, "context", [h.memory.id for h in r.hits], r.trace_id)
        return r

    def trace(self, scope: Scope | dict[str, str], trace_id: str) -> dict[str, Any]:
        """The trace of one recall or context build: candidates, score parts, filters."""
        t = records.trace(self.core, scope, trace_id)
        access.record(self.core, scope, "trace", t.get("memory_ids", []), trace_id)
        return t

    def traces(self, scope: Scope | dict[str, str], *, limit: int = 20) -> list[dict[str, Any]]:
        out = records.traces(self.core, scope, limit=limit)
        access.record(self.core, scope, "traces",
                      [i for t in out for i in t.get("memory_ids", [])])
        return out

    def users(self, tenant: str) -> list[str]:
        """The user ids of a tenant that have any recorded change, sorted (the admin page's
        user picker). Read from the revisions, so purged and deleted memories still count."""
        return records.users(self.core, tenant)

    def profile(self, scope: Scope | dict[str, str], *,
                as_of: TimeLike = None) -> dict[str, dict[str, Any]]:
        """The user's active slots as a structured profile:
        {slot: {value, content, since, source, memory_id, version, frozen}}.
        Edits go through remember/edit (the gate and revisions), never through here."""
        out = records.profile(self.core, scope, as_of=as_of)
        access.record(self.core, scope, "profile", [p["memory_id"] for p in out.values()])
        return out

    def audit(self, scope: Scope | dict[str, str], *, since: TimeLike = None,
              limit: int = 100) -> list[Revision]:
        """Every recorded change in the scope (who, what, why), newest first."""
        revs = records.audit(self.core, scope, since=since, limit=limit)
        access.record(self.core, scope, "audit", [r.memory_id for r in revs])
        return revs

    def events(self, tenant: str, *, user: str | None = None, since: int = 0,
               kinds: list[str] | None = None, follow: bool = False, limit: int = 100,
               poll_seconds: float = 0.5, stop: Any = None,
               idle_timeout: float | None = None) -> Iterator[Event]:
        """The change events of a tenant (of one user, if given) after event id `since`,
        oldest first (docs/events.md). Without `follow`: at most `limit` of them. With it:
        every one, then each new one as it commits, polling every `poll_seconds`, until
        `stop` (a threading.Event) is set or none came for `idle_timeout` seconds. Keep the
        last event's id to resume."""
        if follow:
            return events.follow(self.core, tenant, user=user, since=since, kinds=kinds,
                                 poll_seconds=poll_seconds, stop=stop,
                                 idle_timeout=idle_timeout)
        return iter(events.page(self.core, tenant, user=user, since=since, limit=limit,
                                kinds=kinds))

    def history(self, scope: Scope | dict[str, str], memory_id: str) -> list[Revision]:
        revs = records.history(self.core, scope, memory_id)
        access.record(self.core, scope, "history", [memory_id])
        return revs

    def diff(self, scope: Scope | dict[str, str], memory_id: str, from_version: int,
             to_version: int) -> dict[str, dict[str, Any]]:
        """Fields that differ between two versions: {field: {"from": a, "to": b}}."""
        out = records.diff(self.core, scope, memory_id, from_version, to_version)
        access.record(self.core, scope, "diff", [memory_id])
        return out

    # --- layers (docs/layers.md) ---------------------------------------------------------
    def recent(self, scope: Scope | dict[str, str], *, n: int | None = None,
               max_tokens: int | None = None, exact: bool = False) -> list[Memory]:
        """The session's last `n` turns (strategy layers.short_term), verbatim, oldest
        first, at most `max_tokens` tokens of content. exact: turns of exactly this scope
        (an empty agent or session is a value, not "any")."""
        mems = shortterm.recent(self.engine, scope, n=n, max_tokens=max_tokens, exact=exact)
        access.record(self.core, scope, "recent", [m.id for m in mems])
        return mems

    def summarize(self, scope: Scope | dict[str, str], *, force: bool = True,
                  summarizer: Any = None) -> list[Memory]:
        """Summarise a session's uncovered turns (a user scope: every session, then the
        user roll-up). force=False: only what the triggers call for. Returns the new
        summaries (kind `summary`, metadata.covers = the turn ids)."""
        return summaries.summarize(self.engine, scope, force=force, summarizer=summarizer)

    def expand(self, scope: Scope | dict[str, str], summary_id: str) -> list[Memory]:
        """The raw turns a summary covers, oldest first."""
        mems = summaries.expand(self.engine, scope, summary_id)
        access.record(self.core, scope, "expand", [summary_id, *(m.id for m in mems)])
        return mems

    def graph_ingest(self, scope: Scope | dict[str, str],
                     memory_ids: list[str] | None = None) -> list[Memory]:
        """Read entities and relations from memories not read yet; the relations added."""
        return graph.ingest(self.engine, scope, memory_ids)

    def graph_entity(self, scope: Scope | dict[str, str], name: str) -> Memory:
        """The entity a name, alias or id resolves to (NotFoundError if none)."""
        m = graph.resolve(self.engine, scope, name)
        access.record(self.core, scope, "graph.entity", [m.id])
        return m

    def graph_facts(self, scope: Scope | dict[str, str], entity: str, *,
                    as_of: TimeLike = None, history: bool = False, valid_at: TimeLike = None,
                    valid_since: TimeLike = None,
                    valid_until: TimeLike = None) -> list[dict[str, Any]]:
        """Relations of an entity that held at valid_at, or at some point of
        valid_since..valid_until (valid time; default: at as_of, else now), as the graph
        was known at `as_of` (system time; default now)."""
        out = graph.facts(self.engine, scope, entity, as_of=as_of, history=history,
                          valid=valid_window(valid_at, valid_since, valid_until))
        access.record(self.core, scope, "graph.facts", [f["id"] for f in out])
        return out

    def graph_neighbours(self, scope: Scope | dict[str, str], entity: str, *,
                         as_of: TimeLike = None, history: bool = False,
                         valid_at: TimeLike = None, valid_since: TimeLike = None,
                         valid_until: TimeLike = None) -> list[dict[str, Any]]:
        """Entities one relation away from `entity`; the times as in graph_facts."""
        out = graph.neighbours(self.engine, scope, entity, as_of=as_of, history=history,
                               valid=valid_window(valid_at, valid_since, valid_until))
        access.record(self.core, scope, "graph.neighbours",
                      [i for n in out for i in (n["relation_id"], n["entity_id"]) if i])
        return out

    # --- maintenance --------------------------------------------------------------------------
    def reindex(self, *, batch: int = 256,
                progress: Callable[[int, int], None] | None = None) -> int:
        """Re-embed every memory with the configured embedders, then record them. Crash-safe:
        new vectors are written beside the old ones, the model record switches only when
        every memory has them, and only then are the old models' vectors dropped. A reindex
        killed halfway leaves a store that still opens with the old model."""
        batch = v.batch_size(batch)
        v.callback(progress, "progress")
        return reindexing.reindex(self.core, batch=batch, progress=progress)

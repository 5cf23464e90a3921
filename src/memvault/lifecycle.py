"""The lifecycle job: expiry, summary triggers, graph ingest, per-user caps, consolidation
and scheduled snapshots.

`run(eng, scope=None)` (Vault.maintain; Vault.sweep and `memvault sweep` run it) does,
per user, in this order:

1. expire   active memories whose TTL has lapsed (demoted to pending by default)
2. summarize  each session's summary triggers (turns, tokens, topic shift), then the
              user-level roll-up
3. graph    read facts from memories not read yet (layers/graph.py)
4. caps     `layers.caps.max_items` active memories per user at most
5. consolidate  the near-duplicate pass (consolidate.py): each new group staged for
              review, or merged when the strategy says `consolidate.apply`; on while
              `consolidate.on_sweep`, and a user whose memories did not change since the
              last pass (no change event since) is not scanned again

and, when it sweeps every scope (no scope given: `memvault sweep`, the server's timer),
once per tenant:

6. snapshots  the day's scheduled snapshot of the tenant, and the scheduled ones past
              their retention dropped (strategy `snapshots`; docs/snapshots.md)

Eviction policy (caps): never a frozen memory, never a slot (profile) memory, never a kind
in `caps.exempt_kinds` (entity, relation by default; those do not count against the cap
either). Among the rest, first out:
turns a summary covers and kept (most of the turn's words are in the summary), then other
memories (a covered turn whose detail the summary dropped among them), then summaries;
within each group the lowest `metadata.importance` (default 0), then the fewest
confirmations, then the longest unused (last confirmation, else last update), then the
oldest (creation time, then turn order: a turn's sequence number in its session, so
turns written in one batch at one time go in the order they were said; then id). An evicted
memory is expired — status `expired`, an `expire` revision with actor `system:sweep` and
the reason "evicted: …" — not deleted: history keeps it, rollback restores it, and
`expand` still reaches an evicted turn from its summary.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from . import consolidate as consolidation
from . import validate as v
from .engine import Engine
from .errors import ConflictError, FrozenError, MemvaultError, ValidationError
from .layers import graph
from .layers.summarize import sessions_of, summaries, summarize_session, summarize_user
from .model import Kind, Memory, Scope, Status
from .store import ListFilter
from .textindex import terms
from .turnctx import turn_order
from .writes import snapshots as snapwrites
from .writes.mutations import evict, expire

ACTOR = "system:sweep"
STEPS = ("expire", "summarize", "graph", "caps", "consolidate", "snapshots")
DAY_MS = 86_400_000


@dataclass(slots=True)
class SweepReport:
    expired: int = 0
    summaries: list[str] = field(default_factory=list)
    relations: list[str] = field(default_factory=list)
    evicted: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    snapshots: list[str] = field(default_factory=list)  # "tenant/name" taken
    snapshots_dropped: list[str] = field(default_factory=list)  # past retention
    merges_proposed: list[str] = field(default_factory=list)  # staged proposals' ids
    merges_applied: list[str] = field(default_factory=list)  # merged memories' ids

    def to_dict(self) -> dict[str, Any]:
        return {"expired": self.expired, "summaries": self.summaries,
                "relations": self.relations, "evicted": self.evicted, "errors": self.errors,
                "snapshots": self.snapshots, "snapshots_dropped": self.snapshots_dropped,
                "merges_proposed": self.merges_proposed,
                "merges_applied": self.merges_applied}


def eviction_order(mems: list[Memory], covered: set[str]) -> list[Memory]:
    """Evictable memories, first to go first (see the module docstring)."""
    def group(m: Memory) -> int:
        if m.kind == Kind.TURN.value and m.id in covered:
            return 0
        return 2 if m.kind == Kind.SUMMARY.value else 1

    def key(m: Memory) -> tuple[Any, ...]:
        md = m.metadata
        imp = md.get("importance", 0.0)
        conf = md.get("confirmations", 1)
        used = md.get("last_confirmed_at")
        # Same creation time (one batch): the earlier turn goes first (turnctx.turn_order,
        # its sequence number; not its position in one call, which restarts per call).
        return (group(m), imp if isinstance(imp, int | float) else 0.0,
                conf if isinstance(conf, int) else 1,
                used if isinstance(used, int) else m.updated_at, m.created_at,
                turn_order(m))
    return sorted(mems, key=key)


# A summary keeps a turn when it holds most of the turn's words; a detail it dropped
# ("合同千万别寄到家里") must not go first just because a summary lists the turn.
KEPT_SHARE = 0.6


def kept_by_summaries(summs: list[Memory], mems: list[Memory]) -> set[str]:
    """Ids of the turns among `mems` whose words a summary covering them kept."""
    text = {m.id: m.content for m in mems if m.kind == Kind.TURN.value}
    out: set[str] = set()
    for s in summs:
        words = set(terms(s.content))
        for t in s.metadata.get("covers", []):
            own = set(terms(text.get(t, "")))
            if own and len(own & words) >= KEPT_SHARE * len(own):
                out.add(t)
    return out


def evictable(m: Memory, exempt: set[str]) -> bool:
    return not m.frozen and m.slot is None and m.kind not in exempt \
        and m.kind != Kind.PROFILE.value


def enforce_cap(eng: Engine, user: Scope, *, actor: str = ACTOR) -> list[str]:
    caps = eng.core.strategy.layers.caps
    if caps.max_items == 0:
        return []
    exempt = set(caps.exempt_kinds)
    # Exempt kinds (the graph) neither count nor go; frozen and slot memories count.
    active = [m for m in eng.reads.list(user, ListFilter(status=Status.ACTIVE.value,
                                                         limit=10_000_000))
              if m.kind not in exempt]
    over = len(active) - caps.max_items
    if over <= 0:
        return []
    covered = kept_by_summaries(summaries(eng, user), active)
    out = []
    reason = (f"evicted: {len(active)} active memories, cap {caps.max_items} "
              "(policy: turns a summary kept first, then lowest importance, fewest "
              "confirmations, longest unused)")
    for m in eviction_order([m for m in active if evictable(m, exempt)], covered)[:over]:
        try:
            evict(eng.writes, m, actor=actor, reason=reason)
            out.append(m.id)
        except (FrozenError, ConflictError):
            continue  # frozen or changed since the list: not ours to evict now
    return out


def run(eng: Engine, scope: Any = None, *, steps: tuple[str, ...] | list[str] = STEPS,
        actor: str = ACTOR, progress: Callable[[int, int], None] | None = None
        ) -> SweepReport:
    """The job over one scope or every scope; `progress(done, total)` after each scope."""
    if not isinstance(steps, tuple | list) or any(s not in STEPS for s in steps):
        raise ValidationError(f"steps: expected some of {', '.join(STEPS)}")
    v.callback(progress, "progress")
    scopes = [v.scope(scope)] if scope is not None else eng.core.store.scopes()
    rep = SweepReport()
    for done, sc in enumerate(scopes, 1):
        _sweep_scope(eng, sc, steps, actor, rep)
        if progress:
            progress(done, len(scopes))
    if "snapshots" in steps and scope is None:
        for tenant in sorted({sc.tenant for sc in scopes}):
            scheduled_snapshots(eng, tenant, rep, actor=actor)
    return rep


def scheduled_snapshots(eng: Engine, tenant: str, rep: SweepReport, *,
                        actor: str = ACTOR) -> None:
    """The tenant's snapshot of today (UTC), unless it has one, when the strategy says
    `snapshots.daily`; then the scheduled snapshots older than `snapshots.keep_days`
    go (those taken by hand or by a restore stay)."""
    cfg, now = eng.core.strategy.snapshots, eng.core.clock()
    store = eng.core.store
    if cfg.daily:
        name = "daily-" + datetime.fromtimestamp(now / 1000, UTC).strftime("%Y-%m-%d")
        if store.get_snapshot(tenant, None, name) is None:
            try:
                snapwrites.create(eng.writes, tenant, name, actor=actor, kind="scheduled",
                                  reason=f"daily snapshot, kept {cfg.keep_days:g} days")
                rep.snapshots.append(f"{tenant}/{name}")
            except ConflictError:
                pass  # another sweep took it first
    cutoff = now - int(cfg.keep_days * DAY_MS)
    for snap in store.list_snapshots(tenant, None):
        if snap["kind"] == "scheduled" and snap["user"] is None and \
                snap["taken_at"] < cutoff and store.drop_snapshot(tenant, None, snap["name"]):
            rep.snapshots_dropped.append(f"{tenant}/{snap['name']}")


def scheduled_consolidation(eng: Engine, user: Scope, rep: SweepReport, *,
                            actor: str = ACTOR) -> None:
    """The consolidation pass over the user's memories, when the strategy says
    `consolidate.on_sweep`, unless nothing changed since the last pass: the user's last
    change event and the consolidate settings are kept in the store's meta table after
    each pass (read before the scan, so a change made during it is seen next time)."""
    cfg = eng.core.strategy.consolidate
    if not cfg.on_sweep:
        return
    store = eng.core.store
    key = "consolidated:" + json.dumps([user.tenant, user.user])
    mark = json.dumps({"through": store.last_event_id(user.tenant, user.user),
                       "apply": cfg.apply, "threshold": cfg.threshold})
    if store.get_meta(key) == mark:
        return
    for group in consolidation.consolidate(eng, user, actor=actor):
        if group["proposal"]:
            rep.merges_proposed.append(group["proposal"])
        if group["merged"]:
            rep.merges_applied.append(group["merged"])
    store.set_meta(key, mark)


def _sweep_scope(eng: Engine, sc: Scope, steps: tuple[str, ...] | list[str], actor: str,
                 rep: SweepReport) -> None:
    if "expire" in steps:
        for mid in eng.core.store.expired_ids(sc, eng.core.clock()):
            try:
                expire(eng.writes, sc, mid, actor=actor, reason="ttl lapsed")
                rep.expired += 1
            except (FrozenError, ConflictError):
                continue
    user = Scope(sc.tenant, sc.user)
    # A failing step (an unreachable summariser) is reported and does not stop the
    # other steps, nor the job for everyone else.
    try:
        if "summarize" in steps:
            targets = [sc] if sc.session else sessions_of(eng, user)
            for session in targets:
                rep.summaries += [m.id for m in summarize_session(eng, session)]
            top = summarize_user(eng, user)
            if top is not None:
                rep.summaries.append(top.id)
    except MemvaultError as e:
        rep.errors.append(f"{user}: {e.code}: {e.message}")
    try:
        if "graph" in steps and eng.core.strategy.layers.graph:
            rep.relations += [m.id for m in graph.ingest(eng, user)]
    except MemvaultError as e:
        rep.errors.append(f"{user}: {e.code}: {e.message}")
    if "caps" in steps:
        rep.evicted += enforce_cap(eng, user, actor=actor)
    try:
        if "consolidate" in steps:
            scheduled_consolidation(eng, user, rep, actor=actor)
    except MemvaultError as e:
        rep.errors.append(f"{user}: {e.code}: {e.message}")


def after_observe(eng: Engine, scope: Any, result: Any) -> None:
    """strategy layers.on_observe: read the new memories into the graph and run the
    session's summary triggers right away, instead of at the next sweep."""
    sc = v.scope(scope)
    new = list(result.turns) + [o.memory_id for o in result.outcomes
                                if o.action in ("added", "updated") and o.memory_id]
    # The observed writes have committed: a failing step is reported with the result
    # (result.errors), not raised as if nothing had been stored.
    try:
        if eng.core.strategy.layers.graph and new:
            graph.ingest(eng, Scope(sc.tenant, sc.user), new)  # one graph per user
    except MemvaultError as e:
        result.errors.append(f"graph: {e}")
    try:
        if sc.session:
            summarize_session(eng, sc)
    except MemvaultError as e:
        result.errors.append(f"summarize: {e}")

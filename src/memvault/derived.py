"""What was made from a memory and carries its words: the memories `observe()` extracted
from a turn (`metadata.turn_id`), the graph facts read from it (`source_memory`), the
summaries that cover it (`covers`, and a user summary's `covers_summaries`), what was made
from those in turn, and the graph entities that no other fact names any more (an
entity's name is a word of its source). Purge erases them with it (docs/data-model.md,
"Purge"). A memory whose current version came from elsewhere stays; only its older
revisions that came from a purged turn lose their content (`quoting_revisions`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .layers.graphvocab import is_self
from .model import Kind, Memory, Scope, Status
from .store import ListFilter
from .turnnotes import TURN_TAG, turn_id

_KINDS = (Kind.RELATION.value, Kind.SUMMARY.value, Kind.ENTITY.value)


def sources_of(metadata: Any) -> set[str]:
    """Ids of the memories a memory with this metadata was made from."""
    md = metadata if isinstance(metadata, dict) else {}
    out = {md[k] for k in ("source_memory", "turn_id") if isinstance(md.get(k), str)}
    for key in ("covers", "covers_summaries"):
        if isinstance(md.get(key), list):
            out |= {x for x in md[key] if isinstance(x, str)}
    return out


def derived_from(store: Any, scope: Scope, memory_id: str,
                 versions: dict[str, set[int]] | None = None, *,
                 kind: str | None = None, erased: Iterable[str] = ()) -> list[Memory]:
    """Every memory of the user (any status, any agent or session) made from
    `memory_id`, or from the listed versions of other memories (those a purge blanks:
    a graph fact read from a slot's older value), directly or through another derived
    memory. `kind`: the source's kind, when it is no longer stored; `erased`: memories
    already erased with it, whose own derived memories count too."""
    user = Scope(scope.tenant, scope.user)
    if kind is None and (source := store.get(scope, memory_id)) is not None:
        kind = source.kind
    # Only a turn has extracted memories; they may be of any kind but turn.
    kinds = ([k.value for k in Kind if k != Kind.TURN]
             if kind == Kind.TURN.value else _KINDS)
    pool = [m for kind in kinds
            for m in store.list(user, ListFilter(kind=kind, limit=10_000_000))]
    found: dict[str, Memory] = {}
    for m in pool:
        md = m.metadata if isinstance(m.metadata, dict) else {}
        if md.get("source_version") in (versions or {}).get(md.get("source_memory"), ()):
            found[m.id] = m
    frontier = {memory_id, *found, *erased}
    while frontier:
        step = {m.id: m for m in pool if m.id not in found and m.id != memory_id
                and sources_of(m.metadata) & frontier}
        found.update(step)
        frontier = set(step)
    named = {(m.metadata or {}).get(k) for m in found.values()
             if m.kind == Kind.RELATION.value for k in ("subject", "object")}
    still = {(m.metadata or {}).get(k) for m in pool
             if m.kind == Kind.RELATION.value and m.id not in found
             for k in ("subject", "object")}
    for m in pool:
        if (m.kind == Kind.ENTITY.value and m.id in named and m.id not in still
                and not is_self((m.metadata or {}).get("name") or m.content)):
            found[m.id] = m
    return list(found.values())


@dataclass(frozen=True)
class Quoted:
    """What a purge takes from a memory that stays (see `quoting_revisions`)."""

    scope: Scope
    blank: list[str]  # op ids of revisions whose state was read from the turn
    unquote: list[str]  # op ids of revisions the turn triggered; their state stays
    versions: set[int]  # the versions whose content goes


def quoting_revisions(store: Any, turn: Memory) -> dict[str, Quoted]:
    """memory id -> (its scope, op ids of revisions whose state was read from `turn`, op
    ids of revisions the turn triggered that keep another version's state), for the
    user's memories. Empty unless `turn` is a turn. The write path names the triggering
    turn in a revision's reason ("[turn ID]")."""
    if turn.kind != Kind.TURN.value:
        return {}
    tag = TURN_TAG.format(turn.id)
    out: dict[str, Quoted] = {}
    for mid, revs in store.scope_revisions(Scope(turn.scope.tenant, turn.scope.user)):
        if mid == turn.id:
            continue
        read = [r for r in revs if r.state is not None and turn_id(r.state) == turn.id]
        blank = [r.op_id for r in read]
        unquote = [r.op_id for r in revs if r.op_id not in blank and tag in (r.reason or "")]
        if blank or unquote:
            out[mid] = Quoted(revs[0].scope, blank, unquote, {r.to_version for r in read})
    return out


def traces_quoting(store: Any, turn: Memory) -> list[str]:
    """Ids of the user's traces whose query holds the turn's text or a passage of it (an
    app builds the context for a message, then observes it: the trace comes first)."""
    if turn.kind != Kind.TURN.value or not (text := turn.content.strip()):
        return []
    out = []
    for t in store.list_traces(Scope(turn.scope.tenant, turn.scope.user), 1_000_000):
        q = str(t.get("query") or "").strip()
        if q and (text in q or q in text):
            out.append(str(t["trace_id"]))
    return out


def facts_from(reads: Any, user: Scope, mems: list[Memory]) -> dict[str, list[str]]:
    """memory id -> the live graph facts read from it, or read from the same words of the
    turn it came from (a retraction takes them along; the turn itself stays). `reads`:
    the read core."""
    if not mems:
        return {}
    by_source: dict[str, list[Memory]] = {}
    live = reads.list(user, ListFilter(kind=Kind.RELATION.value, status=Status.ACTIVE.value,
                                       limit=100_000))
    for r in live:
        src = r.metadata.get("source_memory")
        if isinstance(src, str):
            by_source.setdefault(src, []).append(r)
    out: dict[str, list[str]] = {}
    for m in mems:
        ids = [r.id for r in by_source.get(m.id, [])]
        turn = m.metadata.get("turn_id")
        said = m.source_text or m.content
        for r in by_source.get(turn, []) if isinstance(turn, str) else []:
            span = r.metadata.get("source_text")
            if isinstance(span, str) and span and (span in said or said in span):
                ids.append(r.id)
        if ids:
            out[m.id] = ids + _named_only_by(reads, user, live, set(ids))
    return out


def _named_only_by(reads: Any, user: Scope, live: list[Memory], gone: set[str]) -> list[str]:
    """The live entities the relations `gone` name and no other live relation does (a
    name only the taken-back words gave: "Lena" of "my sister Lena lives in Oslo"); never
    the user's own."""
    def ends(rels: Iterable[Memory]) -> set[Any]:
        return {(r.metadata or {}).get(k) for r in rels for k in ("subject", "object")}

    named = ends(r for r in live if r.id in gone) - ends(r for r in live if r.id not in gone)
    named.discard(None)
    return [e.id for e in reads.fetch(user, sorted(named))
            if e.kind == Kind.ENTITY.value and e.status == Status.ACTIVE.value
            and not is_self((e.metadata or {}).get("name") or e.content)] if named else []

"""Knowledge-graph layer: entities and (subject, relation, object) facts with validity.

Stored as ordinary memories in the user scope, so revisions, rollback, purge, export and
scoping apply unchanged:

    entity    content: the name; metadata {name, norm, aliases}
    relation  content: "Alice lives_in Shanghai"; metadata {subject, subject_name,
              relation, object, object_name, source_memory, source_text};
              valid_from = when the source memory says it held; valid_to = when a later
              fact closed it

A new fact on a single-valued relation (lives_in, works_at, born_in) with another object
closes the open one on the same subject and relation: its valid_to becomes the new
fact's valid_from, as a recorded revision (nothing is deleted). Different relations, or
another subject, are never touched. A fact older than the open one (replayed late) is
stored closed at the newer fact's start instead.

Entity resolution: a name matches an entity when their normalised forms or any of their
aliases (graphvocab.ALIASES: "Shanghai" = "上海") meet. A new surface form of a known
entity is added to its aliases (a revision of the entity).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .. import validate as v
from ..engine import Engine
from ..errors import NotFoundError, ValidationError
from ..model import Kind, Memory, Op, Scope, Source, Status
from ..reads import records
from ..store import ListFilter
from ..timeutil import TimeLike, to_ms
from ..turnnotes import UNAPPLIED, turn_notes
from ..validtime import ValidWindow
from ..writes import prepare
from .graphvocab import ALIASES, SELF, VOCAB, Mention, is_self, norm

ACTOR = "system:graph"
# What facts are read from: statements and what the user said (not summaries, not the
# graph itself, not the assistant's turns).
SOURCE_KINDS = frozenset({"fact", "preference", "profile", "episode", "note", "turn"})


def active(eng: Engine, sc: Scope, kind: str) -> list[Memory]:
    # The caller's scope, never wider: a session scope sees only that session's graph.
    return eng.reads.list(sc, ListFilter(kind=kind, status=Status.ACTIVE.value,
                                         limit=1_000_000))


def entity_keys(m: Memory) -> set[str]:
    keys = {norm(m.metadata.get("name") or m.content)}
    keys |= {norm(a) for a in m.metadata.get("aliases", []) if isinstance(a, str)}
    return {k for k in keys if k}


class _Index:
    """The user's entities by every key, loaded once per ingest."""

    def __init__(self, entities: list[Memory]) -> None:
        self.by_key: dict[str, Memory] = {}
        for e in sorted(entities, key=lambda m: m.created_at):
            for k in entity_keys(e):
                self.by_key.setdefault(k, e)

    def find(self, name: str) -> Memory | None:
        for k in sorted(ALIASES.of(name) | {norm(name)}):
            if k in self.by_key:
                return self.by_key[k]
        return None

    def add(self, e: Memory) -> None:
        for k in entity_keys(e):
            self.by_key[k] = e


def _date(m: Memory) -> int:
    # When the memory says it held: its event date, else when this version was written
    # (a slot's new value dates from its update, not from the slot's first value), or
    # when it was said, for a statement from a replayed conversation.
    if m.valid_from is not None:
        return m.valid_from
    said = m.metadata.get("said_at")
    if isinstance(said, int) and not isinstance(said, bool):
        return said
    return m.recorded_at or m.created_at


def _write(eng: Engine, tx: Any, sc: Scope, content: str, kind: str, *, value: Any = None,
           metadata: dict[str, Any], valid_from: int | None = None,
           valid_to: int | None = None, confidence: float = 1.0, reason: str,
           trigger: str | None = None) -> Memory:
    req = prepare(eng.core.clock, sc, content, kind=kind, value=value, metadata=metadata,
                  source=Source.SYSTEM_INFERRED.value, confidence=confidence,
                  valid_from=valid_from, valid_to=valid_to)
    r = eng.writes.remember_in(tx, req, eng.core.vectors([req["content"]])[0], actor=ACTOR,
                               reason=reason, trigger_text=trigger, trace_id=None,
                               expected_version=None)
    return r.memory


def _revise(eng: Engine, tx: Any, old: Memory, new: Memory, reason: str,
            trigger: str | None) -> Memory:
    new = replace(new, version=old.version + 1, recorded_at=eng.core.clock(),
                  updated_at=max(eng.core.clock(), old.updated_at))
    return eng.writes.write_version(
        tx, new, Op.UPDATE, old.version,
        terms=eng.writes.terms(new) if new.valid_from != old.valid_from else None,
        vectors=None, actor=ACTOR, reason=reason, trigger_text=trigger)


def _entity(eng: Engine, tx: Any, sc: Scope, idx: _Index, name: str,
            source_id: str) -> Memory:
    # An entity outlives the memory it was first read from, so its revisions name that
    # memory by id and never quote it: purging the memory leaves nothing of it here.
    canonical = SELF if is_self(name) else name.strip()
    found = idx.find(canonical)
    if found is not None:
        if norm(canonical) not in entity_keys(found) and not found.frozen:
            meta = dict(found.metadata)
            meta["aliases"] = [*meta.get("aliases", []), canonical]
            found = _revise(eng, tx, found, replace(found, metadata=meta),
                            f"graph: alias {canonical!r} (memory {source_id})", None)
            idx.add(found)
        return found
    aliases = sorted(a for a in ALIASES.of(canonical) if a != norm(canonical))
    e = _write(eng, tx, sc, canonical, Kind.ENTITY.value,
               metadata={"name": canonical, "norm": norm(canonical), "aliases": aliases},
               reason=f"graph: new entity (memory {source_id})")
    idx.add(e)
    return e


def _open(relations: list[Memory], sid: str, rel: str) -> list[Memory]:
    return [r for r in relations if r.metadata.get("subject") == sid
            and r.metadata.get("relation") == rel and r.valid_to is None]


def _apply(eng: Engine, sc: Scope, src: Memory, mention: Mention, idx: _Index,
           relations: list[Memory]) -> Memory | None:
    spec = VOCAB.get(mention.relation)
    if spec is None:
        return None
    at = _date(src)
    with eng.core.store.transaction() as tx:
        subj = _entity(eng, tx, sc, idx, mention.subject or SELF, src.id)
        obj = _entity(eng, tx, sc, idx, mention.object, src.id)
        same = [r for r in _open(relations, subj.id, spec.name)
                if r.metadata.get("object") == obj.id]
        if same:
            return None  # already known and still open
        valid_to = None
        closed = []
        if spec.single:
            for old in _open(relations, subj.id, spec.name):
                if _date(old) > at:
                    valid_to = _date(old) if valid_to is None else min(valid_to, _date(old))
                elif not old.frozen:
                    closed.append(old)
        if valid_to is not None and valid_to <= at:
            return None
        name_s, name_o = subj.metadata.get("name", subj.content), obj.content
        rel = _write(
            eng, tx, sc, f"{name_s} {spec.name} {name_o}",
            Kind.RELATION.value, value={"s": subj.id, "r": spec.name, "o": obj.id, "since": at},
            metadata={"subject": subj.id, "subject_name": name_s, "relation": spec.name,
                      "object": obj.id, "object_name": name_o, "source_memory": src.id,
                      "source_version": src.version, "source_text": mention.span[:500]},
            valid_from=at, valid_to=valid_to, confidence=src.confidence,
            reason=f"graph: from memory {src.id}", trigger=mention.span)
        for old in closed:
            # Close, never delete: "as of" before `at` still answers with the old fact.
            meta = {**old.metadata, "closed_by": rel.id}
            new = _revise(eng, tx, old, replace(old, valid_to=max(at, _date(old) + 1),
                                                  metadata=meta),
                          f"graph: superseded by fact {rel.id} (memory {src.id})", None)
            relations[relations.index(old)] = new
        relations.append(rel)
        return rel


def _speaker_ok(m: Memory) -> bool:
    # A turn speaks for the user only when the user said it.
    return m.kind != Kind.TURN.value or m.metadata.get("role", "user") == "user"


def ingest(eng: Engine, scope: Any, memory_ids: list[str] | None = None) -> list[Memory]:
    """Read facts from the scope's memories (or the given ones) that have not been read
    yet, oldest first; returns the relations added. Idempotent. The graph is written in
    the caller's exact scope: call it with the user scope (as sweep does) for one graph
    per user; a session scope builds a graph of that session only."""
    sc = v.scope(scope)
    if memory_ids is not None:
        if not isinstance(memory_ids, list | tuple):
            raise ValidationError("memory_ids: expected a list of memory ids")
        wanted = [v.memory_id(i) for i in memory_ids]
        found = eng.reads.fetch(sc, wanted)
        missing = set(wanted) - {m.id for m in found}
        if missing:
            raise NotFoundError(f"no memory {sorted(missing)[0]} in scope {sc}")
        sources = [m for m in found if m.status == Status.ACTIVE.value]
    else:
        sources = eng.reads.list(sc, ListFilter(status=Status.ACTIVE.value,
                                                limit=1_000_000))
    relations = active(eng, sc, Kind.RELATION.value)
    # Read = (memory, version) pairs some relation came from, forgotten relations
    # included (forgetting is a decision); a new version of a memory is read again.
    read = {(r.metadata.get("source_memory"), r.metadata.get("source_version"))
            for r in eng.reads.list(sc, ListFilter(kind=Kind.RELATION.value,
                                                   limit=1_000_000))}
    idx = _Index(active(eng, sc, Kind.ENTITY.value))
    # A turn whose statement was taken back, or whose change was blocked, staged or
    # rejected, says nothing that holds: read later, it would bring back what the user
    # withdrew (a blind audit: "forget what you know about my brother", then the sweep).
    notes = turn_notes(eng.core.store, sc, {m.id for m in sources
                                            if m.kind == Kind.TURN.value})
    added = []
    for m in sorted(sources, key=lambda x: (_date(x), x.created_at, x.id)):
        if m.kind not in SOURCE_KINDS or (m.id, m.version) in read or not _speaker_ok(m) \
                or notes.get(m.id) in UNAPPLIED:
            continue
        for mention in VOCAB.find(m.content):
            rel = _apply(eng, sc, m, mention, idx, relations)
            if rel is not None:
                added.append(rel)
    return added


# --- queries -------------------------------------------------------------------------------

def resolve(eng: Engine, scope: Any, entity: Any) -> Memory:
    """An entity by id, name or alias; NotFoundError if the graph has none."""
    sc = v.scope(scope)
    name = v.text(entity, "entity", max_chars=v.MAX_ID_CHARS)
    assert name is not None
    ents = active(eng, sc, Kind.ENTITY.value)
    for e in ents:
        if e.id == name:
            return e
    hit = _Index(ents).find(SELF if is_self(name) else name)
    if hit is None:
        raise NotFoundError(f"no entity {name!r} in the graph of {sc}")
    return hit


def _fact(r: Memory) -> dict[str, Any]:
    md = r.metadata
    return {"id": r.id, "subject": md.get("subject_name"), "subject_id": md.get("subject"),
            "relation": md.get("relation"), "object": md.get("object_name"),
            "object_id": md.get("object"), "valid_from": r.valid_from,
            "valid_to": r.valid_to, "source_memory": md.get("source_memory"),
            "confidence": r.confidence}


def holds(r: Memory, at: int | None) -> bool:
    if at is None:
        return True
    return (r.valid_from is None or r.valid_from <= at) and (r.valid_to is None
                                                             or at < r.valid_to)


def facts(eng: Engine, scope: Any, entity: Any, *, as_of: TimeLike = None,
          valid: ValidWindow | None = None, history: bool = False) -> list[dict[str, Any]]:
    """Facts about an entity (as subject or object) that held at some point of the
    valid-time window `valid` (validtime.py), else at `as_of` (else now). `as_of` is
    system time: the graph as the store knew it then (read from the revisions).
    history=True: every fact, closed ones included (as known at `as_of`)."""
    if not isinstance(history, bool):
        raise ValidationError("history: expected true or false")
    if history and valid is not None:
        raise ValidationError("history: every fact, whenever it held; give it or a "
                              "valid-time filter, not both")
    sc = v.scope(scope)
    known = to_ms(as_of, field="as_of")
    e = resolve(eng, sc, entity)
    at = eng.core.clock() if known is None else known
    window = None if history else valid or ValidWindow(at, at + 1, point=True)
    rels = (active(eng, sc, Kind.RELATION.value) if known is None
            else records.list_memories(eng.core, sc, kind=Kind.RELATION.value,
                                       status=Status.ACTIVE.value, as_of=known,
                                       limit=10_000))
    rels = [r for r in rels if e.id in (r.metadata.get("subject"), r.metadata.get("object"))
            and (window is None or window.holds(r.valid_from, r.valid_to))]
    rels.sort(key=lambda r: (r.valid_from or 0, r.id))
    return [_fact(r) for r in rels]


def neighbours(eng: Engine, scope: Any, entity: Any, *, as_of: TimeLike = None,
               valid: ValidWindow | None = None,
               history: bool = False) -> list[dict[str, Any]]:
    """Entities one relation away: {entity, entity_id, relation, direction (out: the
    entity is the subject), valid_from, valid_to, relation_id}; the times as in facts."""
    e = resolve(eng, scope, entity)
    out = []
    for f in facts(eng, scope, e.id, as_of=as_of, valid=valid, history=history):
        outgoing = f["subject_id"] == e.id
        out.append({"entity": f["object"] if outgoing else f["subject"],
                    "entity_id": f["object_id"] if outgoing else f["subject_id"],
                    "relation": f["relation"], "direction": "out" if outgoing else "in",
                    "valid_from": f["valid_from"], "valid_to": f["valid_to"],
                    "relation_id": f["id"]})
    return out


def known_names(eng: Engine, scope: Scope) -> dict[str, str]:
    """surface name (as stored, with aliases) -> entity id, for the router. The user's
    own entity is left out: "I" and "我" are in nearly every query."""
    out: dict[str, str] = {}
    for e in active(eng, scope, Kind.ENTITY.value):
        name = e.metadata.get("name") or e.content
        if is_self(name):
            continue
        for n in [name, *e.metadata.get("aliases", [])]:
            if isinstance(n, str) and len(norm(n)) >= 2:
                out[n] = e.id
    return out

"""Export and import: JSONL with a header line, then one line per memory with its full
history (original timestamps, actors and reasons), so a round trip is byte-identical.

An import is checked line by line like a write (every field, every revision's scope)
before anything is stored, and never brings rows outside the caller's scope.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field, fields, replace
from typing import IO, Any

from . import validate as v
from .core import Core
from .engine import Engine
from .errors import ConflictError, ScopeError, ValidationError
from .ids import content_hash
from .model import LATER_STATE_FIELDS, Memory, Op, Revision, Scope, Status
from .reads import access
from .textindex import memory_index_text
from .turnctx import SEQ, TURN_KIND, turn_order, turn_seq

EXPORT_FORMAT = "memvault-export"
# 2: memories carry `topic`. Version 1 exports (no topic) still import.
EXPORT_FORMAT_VERSION = 2
READABLE_VERSIONS = frozenset({1, 2})
# One export line: the memory as it is now (None: a tombstone) and its history.
Line = tuple[Memory | None, list[Revision]]


def export_jsonl(core: Core, scope: Any, out: IO[str]) -> int:
    """Write one header line, then one line per memory with its full history."""
    sc = v.scope(scope)
    store = core.store
    if not callable(getattr(out, "write", None)):
        raise ValidationError("out: expected a text stream to write the export to")
    header = {"format": EXPORT_FORMAT, "format_version": EXPORT_FORMAT_VERSION,
              "scope": sc.as_dict()}
    out.write(json.dumps(header, ensure_ascii=False, sort_keys=True) + "\n")
    ids: list[str] = []
    for mid, revs in store.scope_revisions(sc):
        current = store.get(Scope(revs[0].scope.tenant, revs[0].scope.user), mid)
        line = {"id": mid, "memory": current.to_dict() if current else None,
                "revisions": [r.to_dict() for r in revs]}
        out.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
        ids.append(mid)
    access.record(core, sc, "export", ids)
    return len(ids)


def _number_turns(tx: Any, chunk: list[Line],
                  tops: dict[str, int]) -> list[Line]:
    """Imported turns keep their `turn_seq` when all of a scope's are distinct and above
    every number that scope has (a round trip into an empty session keeps its numbers,
    gaps included; so does the next batch of one import). Otherwise that scope's imported
    turns are numbered after its own, in their imported order, and their revisions say
    so too (data-model.md "Turn order"). `tops`: each scope's highest number as this
    import left it, so a scope's maximum is read once per import, not once per batch
    (that read goes over all the user's rows)."""
    groups: dict[str, list[tuple[int, Memory]]] = {}
    for i, (m, _) in enumerate(chunk):
        if m is not None and m.kind == TURN_KIND and turn_seq(m) is not None:
            groups.setdefault(m.scope.key(), []).append((i, m))
    out = list(chunk)
    for turns in groups.values():
        sc = turns[0][1].scope
        turns.sort(key=lambda t: turn_order(t[1]))
        seqs = [turn_seq(m) or 0 for _, m in turns]
        if seqs[0] > tx.top_turn_seq(sc, tops.get(sc.key())) and len(set(seqs)) == len(seqs):
            tx.claim_turn_seq(sc, seqs[-1])
        else:
            for i, m in turns:
                seq = tx.next_turn_seq(sc)
                out[i] = (replace(m, metadata={**m.metadata, SEQ: seq}),
                          [_with_seq(r, seq) for r in out[i][1]])
        tops[sc.key()] = tx.top_turn_seq(sc)
    return out


def _with_seq(rev: Revision, seq: int) -> Revision:
    meta = rev.state.get("metadata") if rev.state else None
    if not isinstance(meta, dict) or SEQ not in meta:
        return rev
    return replace(rev, state={**(rev.state or {}), "metadata": {**meta, SEQ: seq}})


def import_jsonl(eng: Engine, lines: Iterable[str], *, batch: int = 512, atomic: bool = True,
                 progress: Callable[[int], None] | None = None,
                 scope: Any = None) -> int:
    """Load an export. With atomic=True (default) it is all or nothing: a bad line or an
    id that exists fails the lot. atomic=False commits every `batch` memories (bulk
    loads); a failure then leaves the earlier batches in place and names the line.
    PostgreSQL's HNSW indexes are dropped and rebuilt around such a load once it has
    brought as many memories as the store held (a small one keeps them).
    With `scope`, every memory and revision must lie inside it (ScopeError otherwise):
    a caller allowed one scope cannot load rows into another."""
    batch = v.batch_size(batch)
    v.callback(progress, "progress")
    if not isinstance(atomic, bool):
        raise ValidationError("atomic: expected true or false")
    if isinstance(lines, str | bytes) or not isinstance(lines, Iterable):
        raise ValidationError("import: expected the lines of an export (an iterable of "
                              "text)")
    store = eng.core.store
    records = parse_export(lines, v.scope(scope) if scope is not None else None)
    total = 0
    loading = Loading()

    def load(tx: Any, chunk: list[Line]) -> None:
        load_chunk(eng, tx, chunk, loading)
        if progress:
            progress(len(chunk))

    def chunks() -> Iterator[list[Line]]:
        buf: list[Line] = []
        for rec in records:
            buf.append(line_of(rec))
            if len(buf) >= batch:
                yield buf
                buf = []
        if buf:
            yield buf

    if atomic:
        # Parse everything first: a malformed last line must not cost a rollback of work.
        parsed = list(chunks())
        with store.transaction() as tx:
            for chunk in parsed:
                load(tx, chunk)
                total += len(chunk)
        return total
    # Bulk mode (store.bulk_load: PostgreSQL drops its HNSW indexes and rebuilds them over
    # the whole store at the end) only once the import has brought as many memories as
    # the store held when it began: the rebuild is then paid for by the import's own rows.
    # A few memories loaded into a large store must not cost a rebuild of all of it.
    held, bulk_on = store.count(), False
    with ExitStack() as bulk:
        for chunk in chunks():
            if total >= held and not bulk_on:
                bulk.enter_context(store.bulk_load())
                bulk_on = True
            with store.transaction() as tx:
                load(tx, chunk)
            total += len(chunk)
    return total



def line_of(rec: dict[str, Any]) -> Line:
    """A parsed export line (parse_export) as the memory and revisions it holds."""
    mem = Memory.from_dict(rec["memory"]) if rec["memory"] is not None else None
    return mem, [Revision.from_dict(r) for r in rec["revisions"]]


@dataclass(slots=True)
class Loading:
    """What one import has loaded so far: the ids it brought (their sources travel with
    them) and each exact scope's highest turn number. (Its earlier chunks' slots and op
    ids are in the store by then, where check_free reads them.)"""

    brought: set[str] = field(default_factory=set)
    tops: dict[str, int] = field(default_factory=dict)


def check_free(tx: Any, chunk: list[Line], loading: Loading) -> None:
    """ConflictError when a line of `chunk` would collide with what is stored or with an
    earlier line: its id (in any scope: history under another user's id would be that
    user's to purge), an op id of its history, or the active value of a slot. Earlier
    chunks of the same import are in the store (the same transaction, or committed)."""
    slotted = [m for m, _ in chunk if m is not None and m.slot is not None
               and m.status == Status.ACTIVE.value]
    held = {(h.scope.key(), h.slot): h.id
            for h in tx.active_slots([m.scope for m in slotted], [m.slot or "" for m in slotted])}
    mids = [m.id if m is not None else revs[0].memory_id for m, revs in chunk]
    used = tx.ids_in_use(mids)
    for mid in mids:
        if mid in loading.brought or mid in used:
            raise ConflictError(f"import: memory {mid} already exists in this store")
    mine: dict[tuple[str, str], str] = {}
    for m in slotted:
        key = (m.scope.key(), m.slot or "")
        if key in mine:
            raise ConflictError(f"import: memories {mine[key]} and {m.id} are both the "
                                f"active value of slot {m.slot} in {m.scope}")
        if key in held:
            raise ConflictError(
                f"import: memory {m.id}: slot {m.slot} in {m.scope} already has an active "
                f"memory, {held[key]}; nothing was imported (import with review to stage "
                "such lines instead)")
        mine[key] = m.id
    ops = [r.op_id for _, revs in chunk for r in revs]
    twice = {o for o, n in Counter(ops).items() if n > 1}
    taken = sorted(twice | tx.ops_in_use(ops))
    if taken:
        raise ConflictError(f"import: revision {taken[0]} is already in this store or "
                            "twice in the import (the same export imported twice?)")


def load_chunk(eng: Engine, tx: Any, chunk: list[Line], loading: Loading) -> None:
    """Store `chunk` as it was exported, inside the caller's transaction."""
    check_free(tx, chunk, loading)
    loading.brought.update(m.id if m is not None else revs[0].memory_id
                           for m, revs in chunk if m is not None or revs)
    chunk = _number_turns(tx, chunk, loading.tops)
    mems = [m for m, _ in chunk if m is not None]
    for m in mems:
        eng.writes.check_sources(tx, m.scope, m.metadata, skip=loading.brought)
    vectors = eng.core.vectors([m.content for m in mems])
    rows = []
    for m, vec in zip(mems, vectors, strict=True):
        m.embedding_model = eng.core.embedding_model  # m is this import's own object
        rows.append((m, content_hash(m.content, m.slot, m.value),
                     memory_index_text(m.content, m.valid_from), vec))
    tx.insert_many(rows)
    tx.append_revisions([r for _, revs in chunk for r in revs])



def _inside(sc: Scope, within: Scope | None) -> bool:
    return within is None or (
        sc.tenant == within.tenant and sc.user == within.user
        and all(not w or getattr(sc, f) == w for f, w in (("agent", within.agent),
                                                             ("session", within.session))))


_MEMORY_FIELDS = frozenset(f.name for f in fields(Memory))
# What a memory of an older export version may lack.
_LATER_FIELDS = LATER_STATE_FIELDS
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
    v.topic(m.get("topic"))
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


def _check_revision(r: dict[str, Any], memory_id: str, scope: Scope | None,
                    checked: dict[str, Any] | None, sc: Scope) -> Scope:
    """An imported revision, checked like a memory: history that a later read, rollback
    or audit cannot parse would fail there, far from the import. Returns its scope, `sc`
    (its "scope", already checked). `checked`: the line's memory, already checked; a
    state equal to it (the last revision's, as an export writes it) is not checked
    twice."""
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
    if r["state"] is not None and not (checked is not None and r["state"] == checked):
        if not isinstance(r["state"], dict):
            raise ValidationError("state: expected an object or null")
        state = Memory.from_dict(r["state"])
        _check_fields(r["state"])
        if state.id != memory_id or state.scope != sc:
            raise ValidationError(f"revision {r['op_id']}: its state is another memory's")
    return sc


_LINE_DEPTH = v.MAX_JSON_DEPTH + 8  # a line's own nesting around the metadata
# 2**63 has 19 digits; 18 are always inside 64 bits. A JSON number starts after ":", "[",
# ",", white space or its "-"; the digits of an id inside a string follow a letter or a
# quote ("m_01a2…6000015759…": a run of 19 there sent a line or two in a hundred down the
# slow walk, at random). So the line is mapped byte for byte (digits to "0", those
# starters to ":", the rest to "x") and searched for ":" and 19 zeros: no regex tried at
# every position, which cost 5 % of a bulk import. JSON numbers are ASCII digits only.
_NUMBER_VIEW = bytes(ord("0") if chr(b).isdigit() and b < 128 else
                     ord(":") if chr(b) in ':[, \t\n\r-' else ord("x") for b in range(256))
_LONG_NUMBER = b":" + b"0" * 19


def _plain(line: str | bytes, max_depth: int) -> bool:
    """True when the line, once parsed, cannot break json_shape's rules, seen from its
    text (walking every value cost a quarter of a bulk import): JSON keys are text;
    parsed JSON holds a NUL only where the text escapes it (\\u0000); an integer past
    64 bits takes 19 digits; nothing nests deeper than the brackets the line opens."""
    return (isinstance(line, str) and "\\u0000" not in line
            and line.count("{") + line.count("[") <= max_depth
            and _LONG_NUMBER not in line.encode("utf-8", "surrogatepass")
            .translate(_NUMBER_VIEW))


def parse_export(lines: Iterable[str], within: Scope | None = None
                  ) -> Iterator[dict[str, Any]]:
    """Each line of an export after the header, checked (ValidationError naming the
    line; ScopeError for a line outside `within`)."""
    return (rec for _, rec in parse_numbered(lines, within))


def parse_numbered(lines: Iterable[str], within: Scope | None = None
                   ) -> Iterator[tuple[int, dict[str, Any]]]:
    """parse_export, each line with its number in the input (the header is line 1)."""
    it = iter(lines)
    try:
        first = next(it)
    except StopIteration:
        raise ValidationError("import: empty input") from None
    header = v.parse_json(first, "import: line 1")
    if not isinstance(header, dict) or header.get("format") != EXPORT_FORMAT:
        raise ValidationError(f"import: not a memvault export (line 1 must be the header, "
                              f'with "format": "{EXPORT_FORMAT}")')
    if header.get("format_version") not in READABLE_VERSIONS:
        raise ValidationError(f"import: unsupported format_version {header.get('format_version')}")
    if header.get("scope") is not None:
        # Not used to place the lines (each names its own scope), but a header that
        # cannot be read is a file that was not written by export.
        try:
            v.scope(header["scope"])
        except ValidationError as e:
            raise ValidationError(f"import: line 1: {e.message}") from None
    seen: set[Any] = set()
    scopes: dict[tuple[Any, ...], Scope] = {}

    def scope_of(raw: Any) -> Scope:
        # An export holds a few scopes over many lines; a valid one is checked once.
        key = tuple(raw.items()) if isinstance(raw, dict) else None
        if key is None or not all(isinstance(x, str | None) for _, x in key):
            return v.scope(raw)
        if key not in scopes:
            scopes[key] = v.scope(raw)
        return scopes[key]

    for n, line in enumerate(it, start=2):
        if not line.strip():
            continue
        rec = v.parse_json(line, f"import: line {n}")
        if (not isinstance(rec, dict) or not isinstance(rec.get("revisions"), list)
                or not rec["revisions"]):
            raise ValidationError(f"import: line {n} has no revisions")
        try:
            mid = v.memory_id(rec.get("id"))
            owner: Scope | None = None
            m = None
            if rec.get("memory") is not None:
                m = rec["memory"]
                if not isinstance(m, dict) or not (
                        _MEMORY_FIELDS - _LATER_FIELDS <= set(m) <= _MEMORY_FIELDS):
                    raise ValidationError("the memory's fields are not those of an export")
                owner = scope_of(m["scope"])
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
                sc = scope_of(r["scope"])
                if not _inside(sc, within):
                    raise ScopeError(f"import: line {n} is outside the scope {within}")
                # A tombstone line has no memory: its revisions share one scope.
                owner = _check_revision(r, mid, owner, m, sc)
                Revision.from_dict(r)
        except ValidationError as e:
            if not e.message.startswith("import:"):
                raise type(e)(f"import: line {n}: {e.message}") from None
            raise
        except (KeyError, TypeError) as e:
            raise ValidationError(f"import: line {n} is malformed ({e})") from None
        # What the field checks above do not reach (a revision's state, its metadata) must
        # still be something every read can hand back.
        if not _plain(line, _LINE_DEPTH):
            v.json_shape(rec, f"import: line {n}", max_bytes=len(line) + 1,
                         max_depth=_LINE_DEPTH)
        yield n, rec

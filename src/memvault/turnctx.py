"""Turn context: a conversation turn is indexed together with its neighbours.

A turn alone is often unfindable ("Yes, last weekend!" answers a question the previous
turn asked). So a memory of kind `turn` is indexed under a key built from the turn and
the `before` earlier and `after` later turns of the same exact scope (tenant, user,
agent, session), in turn order (`turn_order`: the sequence number `metadata.turn_seq`
the write transaction gives each new turn, max + 1 in its exact scope; never a
timestamp, which turns written in one batch or one millisecond share):

- full text: the turn's own terms, the marker `|`, then the neighbours' terms. BM25
  (bm25.py) counts a term after the marker `text_weight` times (BM25F-style), so the
  turn's own words still rank it above its neighbours;
- vectors: per embedder, normalise(own + vector_weight × Σ the neighbours' own vectors)
  (no extra text is embedded: the neighbours' vectors are their own turn vectors).

Only the index key changes: the memory's content, version and revisions do not. Keys are
built the same way whichever path stores the turns (remember / remember_many / observe,
one turn at a time or a whole conversation at once): when new turns arrive after stored
ones, the last `after` stored turns have their keys rebuilt. Forgetting, deleting or
purging a turn rebuilds its neighbours' keys without it, and `reindex` rebuilds them all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .bm25 import CONTEXT_MARK as MARK  # never a term; full-text tokenizers ignore it
from .lrucache import LRUCache, text_digest
from .textindex import index_text, memory_index_text
from .turncues import SEQ as SEQ  # re-exported: the key turns are ordered by
from .turncues import is_question, turn_seq

if TYPE_CHECKING:
    from .config import TurnContext
    from .model import Memory, Scope

TURN_KIND = "turn"
# metadata key of a turn's position in its exact scope (1, 2, ...), set when it is stored.

Vectors = dict[str, np.ndarray]


def enabled(tc: TurnContext) -> bool:
    return bool(tc.before or tc.after)


@dataclass(frozen=True, slots=True)
class Said:
    """Who said a turn and when (its own time, `valid_from`), as far as known."""

    speaker: str | None
    at: int | None


def said(metadata: Any, valid_from: int | None) -> Said:
    md = metadata if isinstance(metadata, dict) else {}
    who = md.get("speaker") or md.get("role")
    return Said(who.strip().casefold() if isinstance(who, str) and who.strip() else None,
                valid_from)


def joined(a: Said, b: Said, tc: TurnContext) -> bool:
    """Whether two consecutive turns belong to one exchange. A reply within `max_gap`
    minutes of the turn before it (another speaker), or the same speaker going on within
    `burst` minutes, is; separate statements said hours apart are not, and must not lend
    each other their words. Turns without their own time (or speaker) are joined, and all
    are while `max_gap_minutes` is unset."""
    if tc.max_gap_minutes is None or a.at is None or b.at is None:
        return True
    same = a.speaker is not None and a.speaker == b.speaker
    limit = tc.burst_minutes if same else tc.max_gap_minutes
    return abs(b.at - a.at) <= limit * 60_000


def linked(said_by: Sequence[Said], k: int, tc: TurnContext) -> tuple[list[int], list[int]]:
    """Positions of the turns before and after position k that its key holds: up to
    `before`/`after` of them, stopping at the first pair of consecutive turns that is not
    one exchange (`joined`)."""
    back: list[int] = []
    j = k
    while len(back) < tc.before and j > 0 and joined(said_by[j - 1], said_by[j], tc):
        j -= 1
        back.append(j)
    ahead: list[int] = []
    j = k
    while len(ahead) < tc.after and j + 1 < len(said_by) and joined(said_by[j], said_by[j + 1],
                                                                      tc):
        j += 1
        ahead.append(j)
    return back[::-1], ahead


def lead(n_before: int, contents: Sequence[str]) -> int | None:
    """Index (in the neighbour list, whose first `n_before` are the earlier turns) of the
    question that the turn answers: the turn right before it, if that one asks."""
    if n_before and is_question(contents[n_before - 1]):
        return n_before - 1
    return None


def key_terms(content: str, valid_from: int | None, neighbours: Sequence[str],
              asked: int | None = None) -> str:
    """Own terms (with date words) and those of the question it answers, the marker, the
    other neighbours' terms."""
    own = memory_index_text(content, valid_from)
    if asked is not None:
        own = f"{own} {index_text(neighbours[asked])}"
    rest = [c for j, c in enumerate(neighbours) if j != asked]
    ctx = index_text(" ".join(rest)) if rest else ""
    return f"{own} {MARK} {ctx}" if ctx else own


def key_vectors(own: Vectors, neighbours: Sequence[Vectors], weight: float,
                asked: int | None = None) -> Vectors:
    if not neighbours or (weight <= 0 and asked is None):
        return own
    out: Vectors = {}
    for name, vec in own.items():
        x = np.array(vec, dtype=np.float32)
        for j, n in enumerate(neighbours):
            if name in n:
                x += (1.0 if j == asked else weight) * np.asarray(n[name], dtype=np.float32)
        norm = float(np.linalg.norm(x))
        out[name] = x / norm if norm > 0 else x
    return out


def turn_order(m: Memory) -> tuple[int, int, int, int, str]:
    """Sort key of a scope's turns, oldest first: by sequence number. Turns stored before
    sequence numbers existed (none is given to them) come first, in the order they were
    recorded then: (created_at, position in their observe() call, id)."""
    seq = turn_seq(m)
    if seq is not None:
        return (1, seq, 0, 0, m.id)
    pos = m.metadata.get("turn")
    return (0, 0, m.created_at, pos if isinstance(pos, int) else 0, m.id)


def stored_turns(store: Any, sc: Scope, limit: int | None = None) -> list[Memory]:
    """Live turns of exactly this scope in turn order (`limit`: only the last that many),
    chosen by sequence number in the store, never by timestamp."""
    return list(store.last_turns(sc, limit if limit is not None else 10_000_000,
                                 exact=True))


def stored_sequences(store: Any, sc: Scope) -> list[list[Memory]]:
    """Live turns inside `sc`, one oldest-first sequence per exact scope."""
    from .store import ListFilter

    seqs: dict[str, list[Memory]] = {}
    for m in store.list(sc, ListFilter(kind=TURN_KIND, status="active", limit=10_000_000)):
        seqs.setdefault(m.scope.key(), []).append(m)
    return [sorted(s, key=turn_order) for s in seqs.values()]


# Own vectors of recently written turns, so the next call that re-keys them (observe() of
# the following exchange) need not embed them again. Keyed by (embedder spec, text digest).
_recent: LRUCache[tuple[str, bytes], Vectors] = LRUCache(1024)


def _text_key(models: str, text: str) -> tuple[str, bytes]:
    return models, text_digest(text)


@dataclass(slots=True)
class _Entry:
    content: str
    valid_from: int | None
    said: Said
    item: int | None = None  # index into the call's items (a new turn)
    memory: Memory | None = None  # a stored turn


class Linker:
    """Index keys for the turns of one remember_many call (and the stored turns before
    them whose keys the new turns change)."""

    def __init__(self, tc: TurnContext, prepared: list[dict[str, Any]], store: Any,
                 embed: Callable[[list[str]], list[Vectors]], models: str = "") -> None:
        self.tc = tc
        self.embed = embed
        self.models = models
        self._first_done = False
        self._own: dict[tuple[str, Any], Vectors] = {}
        self.neighbours: dict[int, list[_Entry]] = {}  # item -> its neighbours
        self.seq_of: dict[int, list[_Entry]] = {}
        self.asked: dict[int, int | None] = {}  # item -> lead() in its neighbours
        # Stored turns to re-key: (turn, its neighbours, lead() in them).
        self.rebuild: list[tuple[_Entry, list[_Entry], int | None]] = []
        seqs: dict[str, tuple[Scope, list[_Entry]]] = {}
        for i, p in enumerate(prepared):
            if p["kind"] != TURN_KIND or p.get("slot"):
                continue
            seqs.setdefault(p["scope"].key(), (p["scope"], []))[1].append(
                _Entry(p["content"], p["valid_from"],
                       said(p.get("metadata"), p["valid_from"]), item=i))
        span = tc.before + tc.after
        for sc, new in seqs.values():
            tail = stored_turns(store, sc, limit=4 * span + 8)[-span:] if span else []
            seq = [_Entry(m.content, m.valid_from, said(m.metadata, m.valid_from), memory=m)
                   for m in tail] + new
            said_by = [e.said for e in seq]
            for k, e in enumerate(seq):
                back, ahead = linked(said_by, k, tc)
                nb = [seq[j] for j in back + ahead]
                asked = lead(len(back), [n.content for n in nb])
                if e.item is not None:
                    self.neighbours[e.item] = nb
                    self.asked[e.item] = asked
                elif k >= len(tail) - tc.after:
                    # A stored turn whose later neighbours have just arrived.
                    self.rebuild.append((e, nb, asked))

    def _rebuild_entries(self) -> list[_Entry]:
        """The stored turns to re-key and their neighbours: whose own vectors they need."""
        return [e for e, _, _ in self.rebuild] + [n for _, nb, _ in self.rebuild for n in nb]

    def _key(self, e: _Entry) -> tuple[str, Any]:
        return ("m", e.memory.id) if e.memory is not None else ("i", e.item)

    def own_vectors(self, entries: list[_Entry]) -> None:
        missing = {self._key(e): e for e in entries if self._key(e) not in self._own}
        stored = {k: _text_key(self.models, e.content) for k, e in missing.items()
                  if e.memory is not None}
        found = _recent.get_many(stored.values())
        for k, key in stored.items():
            if key in found:
                self._own[k] = found[key]
                del missing[k]
        if missing:
            vecs = self.embed([e.content for e in missing.values()])
            self._own.update(zip(missing, vecs, strict=True))
            _recent.put_many((_text_key(self.models, e.content), vec)
                             for e, vec in zip(missing.values(), vecs, strict=True))

    def keys(self, items: range, prepared: list[dict[str, Any]]
             ) -> tuple[list[Vectors], list[str | None]]:
        """Vectors and full-text keys (None: the default key) of items[start:end]."""
        entries = [_Entry(prepared[i]["content"], prepared[i]["valid_from"],
                          said(prepared[i].get("metadata"), prepared[i]["valid_from"]), item=i)
                   for i in items]
        need = entries + [n for i in items for n in self.neighbours.get(i, [])]
        if not self._first_done:
            # One embedding call: the stored turns to re-key come with the first chunk.
            self._first_done = True
            need += self._rebuild_entries()
        self.own_vectors(need)
        vectors: list[Vectors] = []
        terms: list[str | None] = []
        for i, e in zip(items, entries, strict=True):
            own = self._own[self._key(e)]
            nb = self.neighbours.get(i)
            if nb is None:
                vectors.append(own)
                terms.append(None)
                continue
            asked = self.asked.get(i)
            vectors.append(key_vectors(own, [self._own[self._key(n)] for n in nb],
                                       self.tc.vector_weight, asked))
            terms.append(key_terms(e.content, e.valid_from, [n.content for n in nb], asked))
        # Items of earlier chunks are not needed again unless they neighbour a later one.
        last = items[-1] if len(items) else -1
        keep_from = last - 2 * (self.tc.before + self.tc.after) - 1
        for k in [k for k in self._own if k[0] == "i" and k[1] < keep_from]:
            del self._own[k]
        return vectors, terms

    def stored_updates(self) -> list[tuple[Memory, str, Vectors]]:
        """(memory, key terms, key vectors) of the stored turns the new ones re-key."""
        self.own_vectors(self._rebuild_entries())
        out = []
        for e, nb, asked in self.rebuild:
            assert e.memory is not None
            out.append((e.memory,
                        key_terms(e.content, e.valid_from, [n.content for n in nb], asked),
                        key_vectors(self._own[self._key(e)], [self._own[self._key(n)]
                                                              for n in nb],
                                    self.tc.vector_weight, asked)))
        return out


def relink(tc: TurnContext, turns: list[Memory],
           embed: Callable[[list[str]], list[Vectors]]) -> list[tuple[Memory, str, Vectors]]:
    """Keys of a whole sequence of stored turns (oldest first): after a turn left it, or
    after a reindex."""
    if not turns:
        return []
    own = embed([m.content for m in turns])
    said_by = [said(m.metadata, m.valid_from) for m in turns]
    out = []
    for k, m in enumerate(turns):
        back, ahead = linked(said_by, k, tc) if enabled(tc) else ([], [])
        nb = back + ahead
        contents = [turns[j].content for j in nb]
        asked = lead(len(back), contents)
        out.append((m, key_terms(m.content, m.valid_from, contents, asked),
                    key_vectors(own[k], [own[j] for j in nb], tc.vector_weight, asked)))
    return out


def neighbourhood(tc: TurnContext, turns: list[Memory], memory_id: str,
                  embed: Callable[[list[str]], list[Vectors]], *, leaving: bool
                  ) -> list[tuple[Memory, str, Vectors]]:
    """New keys of the turns whose key holds `memory_id`: without it when it is leaving
    the sequence (forget, purge); with it, and its own key too, when its text changed or
    it came back (edit, rollback)."""
    ids = [m.id for m in turns]
    if not enabled(tc) or memory_id not in ids:
        return []
    k = ids.index(memory_id)
    span = tc.before + tc.after
    lo = max(0, k - tc.after - span)
    part = [m for m in turns[lo:k + tc.before + span + 1] if not leaving or m.id != memory_id]
    affected = {m.id for m in turns[max(0, k - tc.after):k + tc.before + 1]}
    if leaving:
        affected.discard(memory_id)
    return [row for row in relink(tc, part, embed) if row[0].id in affected]

"""Summary layer: rolling summaries per session and per user, linked to their turns.

A session summary is a memory of kind `summary` in the session's scope whose metadata
lists the turns it covers (`covers`); a user summary sits in the user scope and lists the
session summaries it rolls up (`covers_summaries`). Turns are never deleted by being
summarised: a summary is a view, and `expand()` goes back to the words.

Triggers (strategy `layers.summaries`), checked on the session's uncovered turns in order:
`every_turns` turns, `every_tokens` tokens, or a topic shift (the cosine distance between
the mean embeddings of the `window` turns before and after a point reaches
`topic_shift`). The earliest cut wins; its turns become one summary, and the rest is
checked again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import validate as v
from ..config import Summaries
from ..engine import Engine
from ..errors import NotFoundError, ValidationError
from ..model import Kind, Memory, Scope, Source, Status
from ..store import ListFilter
from ..tokens import count_tokens
from ..turnctx import turn_order
from ..wording import a_or_an
from ..writes import prepare
from .shortterm import session_turns
from .summarizers import Summarizer, load_summarizer

if TYPE_CHECKING:
    pass

ACTOR = "system:summarize"
MAX_CHUNK = 200  # turn ids in one summary's metadata stay well under the metadata limit


@dataclass(slots=True)
class Chunk:
    turns: list[Memory]
    trigger: str  # turns | tokens | topic_shift | manual


def summarizer_for(eng: Engine, summarizer: Summarizer | str | None = None) -> Summarizer:
    cfg = eng.core.strategy.layers.summaries
    if isinstance(summarizer, str):  # a spec, as in the strategy ("extractive", "llm:…")
        return load_summarizer(summarizer, eng.core.embedders[0].embed_documents,
                               max_sentences=cfg.max_sentences)
    if summarizer is not None:
        if not callable(getattr(summarizer, "summarize", None)):
            raise ValidationError("summarizer: expected a spec such as 'extractive' or an "
                                  "object with summarize(texts)")
        return summarizer
    own = eng.core.summarizer  # Vault(...).summarizer = X overrides config
    if own is not None:
        return own  # type: ignore[no-any-return]
    return load_summarizer(cfg.summarizer, eng.core.embedders[0].embed_documents,
                           max_sentences=cfg.max_sentences)


def summaries(eng: Engine, scope: Scope) -> list[Memory]:
    """Active summaries of the scope (and, for a user scope, of its sessions)."""
    return eng.reads.list(scope, ListFilter(kind=Kind.SUMMARY.value,
                                            status=Status.ACTIVE.value, limit=100_000))


def uncovered_turns(eng: Engine, session: Scope) -> list[Memory]:
    covered = {t for s in summaries(eng, session) for t in s.metadata.get("covers", [])}
    return [m for m in session_turns(eng, session) if m.id not in covered]


def topic_shift_at(vectors: np.ndarray, window: int, threshold: float,
                   earliest: int) -> int | None:
    """The first topic boundary (index >= earliest): where the mean of the `window` turns
    before i and of the `window` turns from i differ by a cosine distance >= threshold;
    of a run of such indexes, the one with the largest distance (the windows straddle
    the boundary on either side of it)."""
    if threshold <= 0 or len(vectors) < 2 * window:
        return None
    unit = vectors / (np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9)
    best: tuple[float, int] | None = None
    for i in range(max(window, earliest), len(unit) - window + 1):
        a, b = unit[i - window:i].mean(axis=0), unit[i:i + window].mean(axis=0)
        dist = 1.0 - float(a @ b / ((np.linalg.norm(a) * np.linalg.norm(b)) + 1e-9))
        if dist >= threshold and (best is None or dist > best[0]):
            best = (dist, i)
        elif best is not None:
            break
    return None if best is None else best[1]


def due_chunks(turns: Sequence[Memory], cfg: Summaries, vectors: np.ndarray | None,
               *, force: bool = False) -> list[Chunk]:
    """Split uncovered turns (oldest first) into the chunks the triggers call for."""
    out: list[Chunk] = []
    start = 0
    while len(turns) - start >= cfg.min_turns:
        rest = turns[start:]
        cuts: list[tuple[int, str]] = []
        if cfg.every_turns and len(rest) >= cfg.every_turns:
            cuts.append((cfg.every_turns, "turns"))
        if cfg.every_tokens:
            used = 0
            for k, m in enumerate(rest):
                used += count_tokens(m.content)
                if used >= cfg.every_tokens:
                    cuts.append((max(k + 1, cfg.min_turns), "tokens"))
                    break
        if vectors is not None:
            at = topic_shift_at(vectors[start:], cfg.window, cfg.topic_shift, cfg.min_turns)
            if at is not None:
                cuts.append((at, "topic_shift"))
        if not cuts:
            break
        cut, why = min(cuts)
        cut = min(cut, MAX_CHUNK)
        out.append(Chunk(list(rest[:cut]), why))
        start += cut
    if force:
        rest = turns[start:]
        for i in range(0, len(rest), MAX_CHUNK):
            out.append(Chunk(list(rest[i:i + MAX_CHUNK]), "manual"))
    return out


def _date(m: Memory) -> int:
    return m.valid_from if m.valid_from is not None else m.created_at


def write_summary(eng: Engine, scope: Scope, text: str, *, level: str, trigger: str,
                  summarizer: str, turns: Sequence[Memory] = (),
                  parts: Sequence[Memory] = ()) -> Memory | None:
    meta: dict[str, Any] = {"level": level, "trigger": trigger, "summarizer": summarizer}
    dated = list(turns) or list(parts)
    if turns:
        meta["covers"] = [m.id for m in turns]
    if parts:
        meta["covers_summaries"] = [m.id for m in parts]
        meta["turns"] = sum(len(p.metadata.get("covers", [])) for p in parts)
    meta["from"], meta["to"] = min(map(_date, dated)), max(map(_date, dated))
    req = prepare(eng.core.clock, scope, text, kind=Kind.SUMMARY.value,
                  source=Source.SYSTEM_INFERRED.value, confidence=0.8, metadata=meta,
                  valid_from=meta["from"])
    r = eng.writes.remember(req, actor=ACTOR, reason=f"summary ({trigger})",
                            trigger_text=None, trace_id=None, expected_version=None)
    # A noop means the very same text already summarises other turns: its covers stand.
    return r.memory if r.action == "added" else None


def summarize_session(eng: Engine, session: Scope, *, force: bool = False,
                      summarizer: Summarizer | None = None) -> list[Memory]:
    """Summarise what the session's triggers call for (with force: every uncovered turn)."""
    cfg = eng.core.strategy.layers.summaries
    turns = uncovered_turns(eng, session)
    if not turns:
        return []
    vectors = None
    if cfg.topic_shift > 0 and len(turns) >= 2 * cfg.window:
        embed = eng.core.embedders[0].embed_documents
        vectors = np.asarray(embed([m.content for m in turns]))
    chunks = due_chunks(turns, cfg, vectors, force=force)
    if not chunks:
        return []
    summ = summarizer_for(eng, summarizer)
    made = []
    for c in chunks:
        text = summ.summarize([m.content for m in c.turns])
        m = write_summary(eng, c.turns[0].scope, text, level="session", trigger=c.trigger,
                          summarizer=summ.name, turns=c.turns)
        if m is not None:
            made.append(m)
    return made


def summarize_user(eng: Engine, user: Scope, *, force: bool = False,
                   summarizer: Summarizer | None = None) -> Memory | None:
    """Roll the session summaries no user summary covers yet into one user summary, once
    there are `user_every` of them (with force: any)."""
    cfg = eng.core.strategy.layers.summaries
    every = summaries(eng, user)
    rolled = {i for s in every if s.metadata.get("level") == "user"
              for i in s.metadata.get("covers_summaries", [])}
    fresh = sorted((s for s in every if s.metadata.get("level") == "session"
                    and s.id not in rolled), key=_date)[:MAX_CHUNK]
    if not fresh or (not force and (cfg.user_every == 0 or len(fresh) < cfg.user_every)):
        return None
    summ = summarizer_for(eng, summarizer)
    text = summ.summarize([s.content for s in fresh])
    return write_summary(eng, Scope(user.tenant, user.user), text, level="user",
                         trigger="manual" if force else "sessions", summarizer=summ.name,
                         parts=fresh)


def summarize(eng: Engine, scope: Any, *, force: bool = True,
              summarizer: Summarizer | None = None) -> list[Memory]:
    """The verb: a session scope summarises that session; a user scope every session of
    the user, then the user-level roll-up."""
    sc = v.scope(scope)
    if not isinstance(force, bool):
        raise ValidationError("force: expected true or false")
    if sc.session:
        return summarize_session(eng, sc, force=force, summarizer=summarizer)
    made: list[Memory] = []
    for session in sessions_of(eng, sc):
        made += summarize_session(eng, session, force=force, summarizer=summarizer)
    top = summarize_user(eng, sc, force=force, summarizer=summarizer)
    return made + ([top] if top is not None else [])


def sessions_of(eng: Engine, user: Scope) -> list[Scope]:
    """Every (agent, session) scope of the user that holds turns, with a session."""
    seen: dict[str, Scope] = {}
    for m in eng.reads.list(user, ListFilter(kind=Kind.TURN.value,
                                             status=Status.ACTIVE.value, limit=100_000)):
        if m.scope.session:
            seen.setdefault(m.scope.key(), m.scope)
    return [seen[k] for k in sorted(seen)]


def expand(eng: Engine, scope: Any, summary_id: Any) -> list[Memory]:
    """The turns a summary covers (a user summary: those of its session summaries),
    oldest first. Turns forgotten or purged since are left out; turns are returned even
    if a cap has demoted them, since a summary's detail must stay reachable."""
    sc, sid = v.scope(scope), v.memory_id(summary_id)
    root = eng.reads.get(sc, sid)
    if root is None:
        raise NotFoundError(f"no memory {sid} in scope {sc}")
    if root.kind != Kind.SUMMARY.value:
        raise ValidationError(f"memory {sid} is {a_or_an(root.kind)}, not a summary")
    ids, todo, seen = [], [root], {root.id}
    while todo:
        s = todo.pop()
        ids += [i for i in s.metadata.get("covers", []) if isinstance(i, str)]
        subs = [i for i in s.metadata.get("covers_summaries", []) if isinstance(i, str)
                and i not in seen]
        seen.update(subs)
        todo += [m for m in eng.reads.fetch(sc, subs) if m.kind == Kind.SUMMARY.value]
    # Fetched through the caller's scope: metadata cannot reach past it.
    turns = [m for m in eng.reads.fetch(sc, list(dict.fromkeys(ids)))
             if m.kind == Kind.TURN.value and m.status != Status.DELETED.value]
    return sorted(turns, key=turn_order)

"""Short-term layer: the last turns of the current session, verbatim.

No ranking and no rewriting: what was just said is served as it was said, newest turns
kept first when the token cap bites (the oldest are dropped), returned oldest first.
"""

from __future__ import annotations

from typing import Any

from .. import validate as v
from ..engine import Engine
from ..errors import ValidationError
from ..model import Memory, Scope
from ..tokens import count_tokens


def _whole(value: Any, name: str, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= hi:
        raise ValidationError(f"{name}: expected a whole number in 0..{hi}")
    return value


def session_turns(eng: Engine, scope: Scope, *, limit: int = 10_000,
                  exact: bool = False) -> list[Memory]:
    """The last `limit` live turns of the scope (a session when it names one), oldest
    first, in turn order: by sequence number within a session, never by timestamp; a
    user's sessions interleave by when their turns were written (store/turnorder.py).
    exact: only turns of exactly this scope (agent "" is the agent-less conversation)."""
    return eng.reads.turns(scope, limit, now=eng.core.clock(), exact=exact)


def recent(eng: Engine, scope: Any, *, n: int | None = None,
           max_tokens: int | None = None, exact: bool = False) -> list[Memory]:
    """The last `n` turns of the scope's session (of the user when no session is named),
    at most `max_tokens` tokens of content in total; oldest first. exact: of exactly that
    scope, not of every agent or session inside it."""
    sc = v.scope(scope)
    if not isinstance(exact, bool):
        raise ValidationError("exact: expected true or false")
    cfg = eng.core.strategy.layers.short_term
    n_ = cfg.turns if n is None else _whole(n, "n", 1000)
    cap = cfg.max_tokens if max_tokens is None else _whole(max_tokens, "max_tokens", 200_000)
    if n_ == 0 or cap == 0:
        return []
    turns = session_turns(eng, sc, limit=n_, exact=exact)
    kept: list[Memory] = []
    used = 0
    for m in reversed(turns):  # newest first: the latest turn matters most
        t = count_tokens(m.content)
        if used + t > cap:
            break
        kept.append(m)
        used += t
    return kept[::-1]

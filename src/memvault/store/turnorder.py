"""The SQL of turn order: the last turns of a scope, chosen in the database.

Inside one exact scope (tenant, user, agent, session) turns follow their sequence number
`metadata.turn_seq`; turns stored before sequence numbers existed come first, by
(created_at, position in their observe() call, id). A scope that spans several exact
scopes (a user, or a session named without its agent) interleaves their sequences by
time: a turn's time is the latest `created_at` of it and of every turn before it in its
own sequence, so a clock that steps back never reorders a sequence, and with a clock that
only moves forward it is simply when the turn was written. Ties between sequences go by
(agent, session).

No index covers turn_seq or the session (one would take a migration): the user's active
rows are read through memories_scope's (tenant, user_id, status) prefix, the scope's turns
among them sorted; the limit bounds what is returned, not what is read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model import Scope
from .codec import MEMORY_COLUMNS, scope_where

# Oldest-first order inside one exact scope (turnctx.turn_order); `seq` and `pos` are
# columns of the inner query. {a}: the table alias, {d}: "" or " DESC".
_IN_SEQUENCE = "({a}.seq IS NOT NULL){d}, {a}.seq{d}, {a}.created_at{d}, {a}.pos{d}, {a}.id{d}"


def last_turns_sql(scope: Scope, *, limit: int, now: int | None, exact: bool,
                   ph: Callable[[str], str], json_int: Callable[[str], str]
                   ) -> tuple[str, dict[str, Any]]:
    """A query for the last `limit` active turns of `scope` (unexpired at `now` unless
    None; exactly that scope if `exact`), newest first. `json_int(key)`: the dialect's
    expression for metadata's `key` when it holds a whole number, else NULL."""
    where, params = scope_where(scope, ph, exact=exact)
    live = "" if now is None else f" AND (m.expires_at IS NULL OR m.expires_at > {ph('now')})"
    cols = ", ".join(f"m.{c}" for c in MEMORY_COLUMNS)
    out = ", ".join(f"t.{c}" for c in MEMORY_COLUMNS)
    asc, desc = _IN_SEQUENCE.format(a="u", d=""), _IN_SEQUENCE.format(a="t", d=" DESC")
    sql = (f"SELECT {out} FROM (SELECT u.*, MAX(u.created_at) OVER (PARTITION BY u.agent, "
           f"u.session ORDER BY {asc} ROWS UNBOUNDED PRECEDING) AS at_ "
           f"FROM (SELECT {cols}, {json_int('turn_seq')} AS seq, "
           f"COALESCE({json_int('turn')}, 0) AS pos FROM memories m WHERE {where} "
           f"AND m.kind = 'turn' AND m.status = 'active'{live}) u) t "
           f"ORDER BY t.at_ DESC, t.agent DESC, t.session DESC, {desc} "
           f"LIMIT {ph('limit')}")
    return sql, {**params, "limit": limit, **({} if now is None else {"now": now})}

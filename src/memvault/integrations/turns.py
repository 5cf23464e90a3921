"""A conversation's turns as the chat adapters read and clear them, through the verbs.

Framework-free: the LangChain history and the Agents SDK session share it. A history is
one session scope; reading it is the short-term layer (`Vault.recent`), and clearing it
forgets its turns (soft: they leave every read, their revisions stay, rollback restores
one). What was extracted from the conversation stays: it is the user's memory now.
"""

from __future__ import annotations

from typing import Any

from .. import validate as v
from ..errors import ScopeError, ValidationError
from ..model import Memory, Scope
from ..vault import Vault

# recent() serves at most this many turns (and 200,000 tokens): the window of a history.
MAX_TURNS = 1000
MAX_TOKENS = 200_000


class HistoryValueError(ValidationError, ValueError):
    """A message or item memvault cannot keep as a turn (wrong type, empty, oversized)."""


def session_scope(tenant: str, user: str, session: str, agent: str | None) -> Scope:
    """The scope of one conversation: a session is required (a history is one)."""
    if not isinstance(session, str) or not session:
        raise ScopeError("session: required (one history is one session)")
    return v.scope({"tenant": tenant, "user": user, "agent": agent or "",
                    "session": session})


def window(limit: Any) -> int:
    if limit is None:
        return MAX_TURNS
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise HistoryValueError("limit: expected a whole number >= 0 or None")
    return min(limit, MAX_TURNS)


def read(vault: Vault, scope: Scope, limit: int | None = None) -> list[Memory]:
    """The session's last turns (at most `limit`), oldest first: of exactly this scope, so
    a history without an agent never shows an agent's conversation of the same session."""
    n = window(limit)
    return vault.recent(scope, n=n, max_tokens=MAX_TOKENS, exact=True) if n else []


def forget_all(vault: Vault, scope: Scope, *, actor: str, reason: str) -> int:
    """Forget every live turn of exactly this session scope; how many. Pages through the
    history as it reads it; each page forgets at least one turn, so this ends."""
    done = 0
    while page := read(vault, scope):
        for m in page:
            vault.forget(scope, m.id, actor=actor, reason=reason)
        done += len(page)
    return done

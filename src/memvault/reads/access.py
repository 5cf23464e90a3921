"""Who read which memories: the access log, written from the one read path.

Every read verb of the Vault ends in `record()`. A face that serves callers with API
keys (REST, MCP) names the caller for the duration of the call with `reading_as()`, and
then every read leaves a row with that key and role. Without a named caller (the CLI,
Python, anything else) a read leaves a row only when the strategy asks for it
(`audit.log_reads`), with an empty key id and the vault's own actor role.

The caller travels in a context variable rather than as a verb argument: the verbs'
signatures stay the public API they are, and the variable follows the call into the
worker threads that REST and MCP run verbs on (both copy the context).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from .. import validate as v
from ..core import Core


@dataclass(frozen=True, slots=True)
class Accessor:
    """Who reads: the API key's id ('' when no key was used) and its role."""

    key_id: str
    role: str


_accessor: ContextVar[Accessor | None] = ContextVar("memvault_accessor", default=None)


@contextmanager
def reading_as(accessor: Accessor) -> Iterator[Accessor]:
    """Reads inside this block are logged as `accessor`'s, whatever the strategy says."""
    token = _accessor.set(accessor)
    try:
        yield accessor
    finally:
        _accessor.reset(token)


def bind(accessor: Accessor) -> None:
    """Name the accessor for the rest of the current context (a request's task, where a
    block cannot wrap the call: REST's dependencies)."""
    _accessor.set(accessor)


def current() -> Accessor | None:
    return _accessor.get()


def record(core: Core, scope: Any, action: str, memory_ids: Iterable[str],
           trace_id: str | None = None) -> None:
    """One access-log row for a read of `memory_ids` in `scope`, when it is to be logged."""
    who = _accessor.get()
    if who is None:
        if not core.strategy.audit.log_reads:
            return
        who = Accessor("", core.actor_role)
    sc = v.scope(scope)
    core.store.log_access([{
        "at": core.clock(), "tenant": sc.tenant, "user": sc.user, "key_id": who.key_id,
        "role": who.role, "action": action, "memory_ids": list(dict.fromkeys(memory_ids)),
        "trace_id": trace_id}])

"""Reading the change events (docs/events.md): a page after a cursor, and a follower that
polls for more. Scoped like every read: a tenant always, a user when given."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

from .. import validate as v
from ..changes import KINDS, Event
from ..core import Core
from ..errors import ValidationError
from ..model import Scope
from . import access

MAX_PAGE = 1000


def check(tenant: Any, user: Any, since: Any, limit: Any, kinds: Any
          ) -> tuple[str, str | None, int, int, list[str] | None]:
    """The arguments of an events read, validated: (tenant, user, since, limit, kinds)."""
    sc = v.scope({"tenant": tenant, "user": user or "_"})
    since = v.event_id(since)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise ValidationError(f"limit: expected a whole number in 1..{MAX_PAGE}")
    if kinds is not None:
        if isinstance(kinds, str) or not all(isinstance(k, str) for k in kinds):
            raise ValidationError("kinds: expected a list of event kinds")
        unknown = sorted(set(kinds) - set(KINDS))
        if unknown:
            raise ValidationError(f"kinds: unknown {', '.join(unknown)} (known: "
                                  f"{', '.join(KINDS)})")
        kinds = list(kinds) or None
    return sc.tenant, (sc.user if user else None), since, limit, kinds


def page(core: Core, tenant: Any, *, user: Any = None, since: Any = 0, limit: Any = 100,
         kinds: Any = None) -> list[Event]:
    """The events after `since` (an event id; 0: from the first), oldest first."""
    t, u, after, n, ks = check(tenant, user, since, limit, kinds)
    out = core.store.events(t, user=u, since=after, limit=n, kinds=ks)
    logged(core, out)
    return out


def logged(core: Core, events: list[Event]) -> None:
    """An access-log row per user whose events (content, for most kinds) were read."""
    by_user: dict[tuple[str, str], list[str]] = {}
    for e in events:
        by_user.setdefault((e.scope.tenant, e.scope.user), []).append(e.memory_id)
    for (tenant, user), ids in by_user.items():
        access.record(core, Scope(tenant, user), "events", ids)


def follow(core: Core, tenant: Any, *, user: Any = None, since: Any = 0,
           kinds: Any = None, poll_seconds: float = 0.5, batch: int = 100,
           stop: threading.Event | None = None,
           idle_timeout: float | None = None) -> Iterator[Event]:
    """Every event after `since`, then each new one as it commits (polling every
    `poll_seconds`), until `stop` is set or nothing came for `idle_timeout` seconds. The
    cursor is the last id yielded: a consumer that keeps it resumes where it stopped."""
    t, u, after, n, ks = check(tenant, user, since, batch, kinds)
    if isinstance(poll_seconds, bool) or not isinstance(poll_seconds, int | float) \
            or not 0 < poll_seconds <= 3600:
        raise ValidationError("poll_seconds: expected a number of seconds in (0, 3600]")
    if idle_timeout is not None and (isinstance(idle_timeout, bool) or not isinstance(
            idle_timeout, int | float) or idle_timeout < 0):
        raise ValidationError("idle_timeout: expected a number of seconds >= 0, or None")
    # Checked now, when called; the events come as the caller iterates.
    return _follow(core, t, u, after, n, ks, poll_seconds, stop, idle_timeout)


def _follow(core: Core, t: str, u: str | None, after: int, n: int, ks: list[str] | None,
            poll_seconds: float, stop: threading.Event | None,
            idle_timeout: float | None) -> Iterator[Event]:
    quiet_since = time.monotonic()
    while stop is None or not stop.is_set():
        got = core.store.events(t, user=u, since=after, limit=n, kinds=ks)
        logged(core, got)
        for e in got:
            after = e.id
            yield e
        if got:
            quiet_since = time.monotonic()
            if len(got) == n:
                continue  # more are waiting
        elif idle_timeout is not None and time.monotonic() - quiet_since >= idle_timeout:
            return
        if stop is not None:
            stop.wait(poll_seconds)
        else:
            time.sleep(poll_seconds)

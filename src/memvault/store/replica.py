"""Read replicas for the PostgreSQL store: which connection a read runs on.

With a read DSN (`read_db`: a streaming standby of the primary), a read verb (recall,
context, list) opens `ReadRouter.reading(scope)`, and the store's reads outside a
transaction inside it run on the replica's pool. Every write, and every read in a write
transaction, stays on the primary.

Read-your-writes. A write transaction that records a revision bumps, just before it
commits, a counter per (tenant, user) it wrote (`replica_marks`, on the primary, in that
transaction; the rows are locked in sorted order, so the counter of a scope grows in
commit order). The table is replicated like any other, so a replica that shows a scope's
counter at least as high as the primary's has replayed the commit that set it, and every
earlier one of that scope. `reading` compares the two (the user's row and the tenant's
team scopes, whose memories recall reads too): behind, the read goes to the primary. The
state is in the database, so it holds across processes (`serve --workers N`, the CLI).
Cost: two primary-key reads per read verb, one bumped row per write transaction, and
writers of one scope wait for each other from that bump to their commit.

A replica that fails (down, a conflict with recovery, anything) is left for
`RETRY_AFTER` seconds; the read runs again on the primary, logged and counted.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import StoreError
from ..model import Scope
from ..validate import TEAM_PREFIX

log = logging.getLogger("memvault")

T = TypeVar("T")
Pool = ConnectionPool[psycopg.Connection[dict[str, Any]]]

# Seconds a failed replica is left alone before a read tries it again.
RETRY_AFTER = 5.0
# Seconds a read waits for a replica connection before it goes to the primary.
REPLICA_WAIT = 1.0

_BUMP = ("INSERT INTO replica_marks (tenant, user_id, n) VALUES (%s, %s, 1) "
         "ON CONFLICT (tenant, user_id) DO UPDATE SET n = replica_marks.n + 1")
# The user's counter and the tenant's team scopes' ("team:" sorts as a range in "C").
_MARKS = ("SELECT user_id, n FROM replica_marks WHERE tenant = %(tenant)s AND "
          "(user_id = %(user)s OR (user_id >= %(lo)s AND user_id < %(hi)s))")
_TEAM_RANGE = (TEAM_PREFIX, TEAM_PREFIX[:-1] + chr(ord(TEAM_PREFIX[-1]) + 1))


def bump_marks(conn: Any, scopes: Iterable[tuple[str, str]]) -> None:
    """Bump the counters of these (tenant, user) scopes, in the caller's transaction."""
    rows = sorted(set(scopes))
    if rows:
        with conn.cursor() as cur:
            cur.executemany(_BUMP, rows)


def _marks(conn: Any, scope: Scope) -> dict[str, int]:
    rows = conn.execute(_MARKS, {"tenant": scope.tenant, "user": scope.user,
                                 "lo": _TEAM_RANGE[0], "hi": _TEAM_RANGE[1]}).fetchall()
    return {r["user_id"]: int(r["n"]) for r in rows}


def _breaks_replica(e: BaseException) -> bool:
    """A connection that failed or was closed by the server (not a query's own error)."""
    state = getattr(e, "sqlstate", None)
    return isinstance(e, PoolTimeout) or state is None or state[:2] in ("08", "57")


class ReadRouter:
    """The primary's pool, and a replica's when a read DSN is given. `in_tx()`: whether
    the calling thread has a write transaction open (its reads stay on the primary)."""

    def __init__(self, primary: Pool, read_dsn: str | None, *, in_tx: Callable[[], bool],
                 configure: Callable[[psycopg.Connection[Any]], None],
                 max_size: int = 8) -> None:
        self.primary = primary
        self.read_dsn = read_dsn
        self._in_tx = in_tx
        self._local = threading.local()
        self._lock = threading.Lock()
        self._down_until = 0.0
        # replica: reads answered there; primary_behind: verbs sent to the primary because
        # the replica had not replayed the scope's writes; fallback: reads that failed on
        # the replica and ran on the primary.
        self.stats: Counter[str] = Counter()
        self.replica: Pool | None = None
        if read_dsn is not None:
            # Opened without waiting: a replica that is down must not stop the store opening.
            self.replica = ConnectionPool(
                read_dsn, min_size=1, max_size=max_size, open=False, timeout=REPLICA_WAIT,
                kwargs={"row_factory": dict_row, "connect_timeout": 2},
                configure=configure, name="memvault-replica")
            self.replica.open(wait=False)

    @property
    def marking(self) -> bool:
        """Whether writes bump the scopes' counters (only a store given a replica does)."""
        return self.replica is not None

    def close(self) -> None:
        if self.replica is not None:
            self.replica.close()

    def _count(self, outcome: str) -> None:
        with self._lock:
            self.stats[outcome] += 1

    def snapshot(self) -> dict[str, int]:
        """The counts so far (see `stats`)."""
        with self._lock:
            return dict(self.stats)

    def _up(self) -> bool:
        with self._lock:
            return time.monotonic() >= self._down_until

    def _failed(self, e: BaseException, what: str) -> None:
        self._count("fallback")
        if _breaks_replica(e):
            with self._lock:
                self._down_until = time.monotonic() + RETRY_AFTER
        log.warning("read replica: %s failed, reading the primary (%s)", what,
                    str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__)

    @contextmanager
    def reading(self, scope: Scope) -> Iterator[None]:
        """The reads of one read verb on `scope`: on the replica when it has replayed the
        scope's writes (and the team scopes'), else on the primary. A nested one keeps
        the outer decision."""
        if (self.replica is None or getattr(self._local, "route", None) is not None
                or self._in_tx()):
            yield
            return
        self._local.route = "replica" if self._caught_up(scope) else "primary"
        try:
            yield
        finally:
            self._local.route = None

    def _caught_up(self, scope: Scope) -> bool:
        assert self.replica is not None
        if not self._up():
            self._count("fallback")
            return False
        try:
            with self.primary.connection() as conn:
                wanted = _marks(conn, scope)
        except (psycopg.OperationalError, PoolTimeout) as e:
            raise StoreError(f"PostgreSQL: {e}") from e
        if not wanted:
            return True  # nothing written by a marking store: any replica state will do
        try:
            with self.replica.connection(timeout=REPLICA_WAIT) as conn:
                have = _marks(conn, scope)
        except (psycopg.Error, PoolTimeout) as e:
            self._failed(e, "the read-your-writes check")
            return False
        if all(have.get(user, 0) >= n for user, n in wanted.items()):
            return True
        self._count("primary_behind")
        return False

    def run(self, read: Callable[[psycopg.Connection[dict[str, Any]]], T], *,
            timeout: float | None = None) -> T:
        """`read` on a connection of the pool this thread's reads go to (the replica
        inside a `reading` that chose it and outside a transaction; else the primary's,
        waiting at most `timeout` seconds for one, the pool's own when None)."""
        if (self.replica is not None and getattr(self._local, "route", None) == "replica"
                and not self._in_tx() and self._up()):
            try:
                with self.replica.connection(timeout=REPLICA_WAIT) as conn:
                    out = read(conn)
                self._count("replica")
                return out
            except (psycopg.Error, PoolTimeout) as e:
                self._failed(e, "a read")
        with self.primary.connection(timeout=timeout) as conn:
            return read(conn)

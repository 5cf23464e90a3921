"""Several servers on one store sweep one at a time (store/leadership.py, the server's
Sweeper): a lease only one holder has, released when the holder stops or dies."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from _util import until

from memvault import Vault
from memvault.server.jobs import Sweeper
from memvault.server.metrics import Metrics


def test_one_holder_of_a_lease_per_store(make_vault: Callable[..., Vault],
                                         new_db: Callable[[], str]) -> None:
    target = new_db()
    a, b = make_vault(target), make_vault(target)
    first = a.store.try_lead("sweep")
    assert first is not None and first.alive()
    assert b.store.try_lead("sweep") is None
    other = b.store.try_lead("reindex")  # another name is another lease
    assert other is not None
    other.release()
    first.release()
    assert not first.alive()
    second = b.store.try_lead("sweep")
    assert second is not None
    assert a.store.try_lead("sweep") is None
    second.release()


@pytest.mark.backends("sqlite")
def test_a_killed_holders_sqlite_lease_is_taken_over(make_vault: Callable[..., Vault],
                                                     new_db: Callable[[], str]) -> None:
    target = new_db()
    v = make_vault(target)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\n"
         "from pathlib import Path\n"
         "from memvault.store.leadership import file_lease\n"
         "lease = file_lease(Path(sys.argv[1]), 'sweep')\n"
         "print('held' if lease else 'busy', flush=True)\n"
         "time.sleep(600)\n", str(v.store.path)],  # type: ignore[attr-defined]
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert v.store.try_lead("sweep") is None
        holder.kill()  # no release: the kernel drops the lock with the process
        holder.wait(30)
        lease = v.store.try_lead("sweep")
        assert lease is not None
        lease.release()
    finally:
        holder.kill()
        holder.wait(30)


@pytest.mark.backends("postgres")
def test_a_lost_postgres_session_loses_its_lease(make_vault: Callable[..., Vault],
                                                 new_db: Callable[[], str]) -> None:
    target = new_db()
    a, b = make_vault(target), make_vault(target)
    lease: Any = a.store.try_lead("sweep")
    assert lease is not None and b.store.try_lead("sweep") is None
    pid = lease._conn.info.backend_pid  # the lease's own connection, ended from outside
    with psycopg.connect(target, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    assert until(lambda: not lease.alive(), 30.0, 0.02)
    taken = b.store.try_lead("sweep")
    assert taken is not None
    lease.release()  # releasing a lost lease is harmless
    taken.release()


def test_two_sweepers_on_one_store_sweep_one_at_a_time(
        make_vault: Callable[..., Vault], new_db: Callable[[], str]) -> None:
    target = new_db()
    vaults = [make_vault(target), make_vault(target)]
    sweepers = [Sweeper(v, Metrics(v.store.queue_depth), 0.02) for v in vaults]
    for s in sweepers:
        s.start()
    try:
        assert until(lambda: max(s.rounds for s in sweepers) >= 5, 30.0, 0.02)
        leader = max(sweepers, key=lambda s: s.rounds)
        follower = next(s for s in sweepers if s is not leader)
        assert follower.rounds == 0
        leader.stop()  # its lease goes with it: the other takes over
        assert until(lambda: follower.rounds >= 2, 30.0, 0.02)
    finally:
        for s in sweepers:
            s.stop()

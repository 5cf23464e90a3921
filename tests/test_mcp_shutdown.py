"""`memvault mcp` closes its store when it stops: on stdio when the client closes stdin,
over HTTP on SIGTERM and SIGINT. A closed SQLite store has folded its write-ahead log
into the database file, so the .db file alone, copied elsewhere, holds every write.
Real processes, spoken to with newline-delimited JSON-RPC (stdio) and the SDK client
(HTTP)."""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import anyio
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import LATEST_PROTOCOL_VERSION

from memvault import Scope, Vault
from memvault.apikeys import new_key

ALICE = Scope("acme", "alice")
CLI = [sys.executable, "-m", "memvault.cli"]


def send(stdin: IO[str], message: dict[str, Any]) -> None:
    stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    stdin.flush()


def reply(stdout: IO[str], request_id: int) -> dict[str, Any]:
    """The response to `request_id` (notifications in between are skipped)."""
    while True:
        line = stdout.readline()
        assert line, "the server closed stdout before answering"
        msg = json.loads(line)
        if msg.get("id") == request_id:
            return dict(msg)


def wal_is_folded(db: Path) -> None:
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    # The .db alone, without its -wal/-shm companions, holds the write.
    alone = db.parent / "alone" / db.name
    alone.parent.mkdir()
    shutil.copy(db, alone)
    with Vault(alone) as v:
        assert [m.content for m in v.list(ALICE)] == ["alice drinks oolong tea"]


def test_stdio_eof_closes_the_store(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    proc = subprocess.Popen([*CLI, "--db", str(db), "--tenant", "acme", "--user", "alice",
                             "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        send(proc.stdin, {"id": 1, "method": "initialize", "params": {
            "protocolVersion": LATEST_PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}})
        assert "result" in reply(proc.stdout, 1)
        send(proc.stdin, {"method": "notifications/initialized"})
        send(proc.stdin, {"id": 2, "method": "tools/call", "params": {
            "name": "remember", "arguments": {"content": "alice drinks oolong tea"}}})
        written = reply(proc.stdout, 2)["result"]["structuredContent"]
        assert written["action"] == "added", written
        send(proc.stdin, {"id": 3, "method": "tools/call", "params": {
            "name": "recall", "arguments": {"query": "oolong tea"}}})
        assert not reply(proc.stdout, 3)["result"].get("isError")
        proc.stdin.close()  # EOF: the client has gone
        assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    wal_is_folded(db)
    # MCP reads are logged even without a key: as the agent the server writes for.
    with Vault(db) as v:
        (row,) = [r for r in v.store.access_log("acme", user="alice")
                  if r["action"] == "recall"]
        assert (row["key_id"], row["role"], row["memory_ids"]) == (
            "", "agent", [written["id"]])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_http_signal_closes_the_store(tmp_path: Path, signum: signal.Signals) -> None:
    db = tmp_path / "m.db"
    with Vault(db) as v:
        alice_key, _ = new_key(v.store, tenant="acme", role="user", user="alice")
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("w") as out:
        proc = subprocess.Popen([*CLI, "--db", str(db), "mcp", "--transport", "http",
                                 "--port", str(port)], stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
                break
            except OSError:
                time.sleep(0.1)

        async def write() -> None:
            async with httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {alice_key}"}) as hc, \
                    streamable_http_client(f"http://127.0.0.1:{port}/mcp",
                                           http_client=hc) as (read, w), \
                    ClientSession(read, w) as s:
                await s.initialize()
                r = await s.call_tool("remember", {"content": "alice drinks oolong tea"})
                assert not r.is_error and r.structured_content["action"] == "added"  # type: ignore[index]

        anyio.run(write)
        proc.send_signal(signum)
        assert proc.wait(timeout=120) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    wal_is_folded(db)

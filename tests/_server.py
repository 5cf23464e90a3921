"""A real `memvault serve` in a subprocess on a free loopback port, for the server tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

KEY_PREFIX = "mvk_"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`memvault --db DB serve` on 127.0.0.1:<free port>. `admin_key` is the key printed
    at first start (None when the store already had keys)."""

    def __init__(self, db: str, *, extra: list[str] | None = None, tenant: str | None = "acme",
                 log: Path | None = None, pre: list[str] | None = None) -> None:
        """`extra`: options of `serve`; `pre`: global options before it (--config …);
        `tenant`: the global --tenant (None: not given)."""
        self.db, self.port = db, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "memvault.cli", "--db", db,
               *(["--tenant", tenant] if tenant else []),
               *(pre or []), "serve", "--port", str(self.port), "--sweep-interval", "0",
               *(extra or [])]
        self.log = log
        self.stderr = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.stderr, env=env)
        self.stdout_lines: list[str] = []
        self.admin_key: str | None = None
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        # The key (if any) is printed before uvicorn starts listening.
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            self.kill()
            raise RuntimeError("server did not start")
        # Everything printed so far (the key lines come before the server listens).
        os.set_blocking(self.proc.stdout.fileno(), False)  # type: ignore[union-attr]
        data = self.proc.stdout.read() or b""  # type: ignore[union-attr]
        self.stdout_lines = data.decode().splitlines()
        keys = [ln for ln in self.stdout_lines if ln.startswith(KEY_PREFIX)]
        self.admin_key = keys[0] if keys else None

    def client(self, key: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30.0)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._close()

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, no cleanup."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self._close()

    def _close(self) -> None:
        if self.proc.stdout:
            self.proc.stdout.close()
        if hasattr(self.stderr, "close"):
            self.stderr.close()


def tenant_admin_key(db: str, tenant: str) -> str:
    """An admin key of another tenant, made in the store directly (an admin key can only
    create keys in its own tenant)."""
    from memvault.apikeys import new_key as store_new_key
    from memvault.store import open_store

    store = open_store(db)
    try:
        return store_new_key(store, tenant=tenant, role="admin")[0]
    finally:
        store.close()


def new_key(admin: httpx.Client, **body: Any) -> str:
    r = admin.post("/v1/keys", json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["key"])

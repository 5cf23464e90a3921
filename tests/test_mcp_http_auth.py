"""MCP over streamable HTTP takes the REST API keys: a real server on loopback (uvicorn in
a thread, on the backend under test) driven by the official SDK client.

Every request needs `Authorization: Bearer mvk_...`; the tenant is the key's, the user
the key's own for a bound key and `?user=` on the endpoint URL otherwise (as REST);
roles follow the REST permission matrix; reads leave access-log rows. `memvault mcp`
refuses to serve a non-loopback address without keys, before it binds anything."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import anyio
import httpx
import httpx2
import uvicorn
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from memvault import Scope, Vault
from memvault.apikeys import new_key
from memvault.mcpserver import http_app

ALICE = Scope("acme", "alice")
BOB = Scope("acme", "bob")
CLI = [sys.executable, "-m", "memvault.cli"]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "0"}}}
ACCEPT = {"Accept": "application/json, text/event-stream",
          "Content-Type": "application/json"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(vault: Vault) -> Iterator[str]:
    """The MCP app on a loopback port in a thread; yields the endpoint URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(http_app(vault), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            assert thread.is_alive(), "the MCP server stopped before it started"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join()


@asynccontextmanager
async def session(url: str, key: str, **query: str) -> AsyncIterator[ClientSession]:
    target = f"{url}?{urlencode(query)}" if query else url
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}) as hc, \
            streamable_http_client(target, http_client=hc) as (read, write), \
            ClientSession(read, write) as s:
        await s.initialize()
        yield s


async def call(s: ClientSession, tool: str, **args: Any) -> tuple[bool, dict[str, Any]]:
    r = await s.call_tool(tool, args)
    if r.structured_content is not None:
        return r.is_error, r.structured_content
    return r.is_error, {"text": " ".join(getattr(c, "text", "") for c in r.content)}


def key(vault: Vault, role: str, user: str | None = None, tenant: str = "acme") -> str:
    return new_key(vault.store, tenant=tenant, role=role, user=user)[0]


def key_id(full_key: str) -> str:
    return full_key.split("_", 2)[1]


def test_requests_without_a_valid_key_are_refused(vault: Vault) -> None:
    good = key(vault, "user", "alice")
    revoked = key(vault, "user", "alice")
    vault.store.revoke_api_key("acme", key_id(revoked), 1)
    with serving(vault) as url:
        def post(headers: dict[str, str], params: dict[str, str] | None = None
                 ) -> httpx.Response:
            return httpx.post(url, json=INIT, headers={**ACCEPT, **headers},
                              params=params, timeout=60)

        for headers, code in (({}, "missing_key"),
                              ({"Authorization": "Bearer nope"}, "invalid_key"),
                              ({"Authorization": f"Bearer {good[:-2]}xx"}, "invalid_key"),
                              ({"Authorization": f"Bearer {revoked}"}, "key_revoked")):
            r = post(headers)
            assert r.status_code == 401, (headers, r.text)
            assert r.json()["code"] == code
            assert r.headers["www-authenticate"].startswith("Bearer")
        # A bound key naming another user, and an unbound key naming none.
        r = post({"Authorization": f"Bearer {good}"}, {"user": "bob"})
        assert (r.status_code, r.json()["code"]) == (403, "scope_denied")
        r = post({"Authorization": f"Bearer {key(vault, 'service')}"})
        assert (r.status_code, r.json()["code"]) == (422, "invalid_input")
        # The good key gets through to the MCP endpoint itself.
        assert post({"Authorization": f"Bearer {good}"}).status_code == 200


def test_a_user_key_sees_only_its_user(vault: Vault) -> None:
    bobs = vault.remember(BOB, "bob drinks green tea")
    alice_key = key(vault, "user", "alice")

    async def main() -> None:
        async with session(url, alice_key) as s:
            err, r = await call(s, "remember", content="alice drinks oolong tea")
            assert not err and r["action"] == "added"
            err, listed = await call(s, "list")
            assert [m["id"] for m in listed["memories"]] == [r["id"]]
            err, hits = await call(s, "recall", query="green tea")
            assert bobs.id not in [h["memory"]["id"] for h in hits["hits"]]
            for tool in ("get", "history", "forget"):
                err, e = await call(s, tool, memory_id=bobs.id)
                assert err and e["error"]["code"] == "not_found", tool
            scope = json.loads((await s.read_resource("memvault://scope"))
                               .contents[0].text)  # type: ignore[union-attr]
            assert (scope["tenant"], scope["user"]) == ("acme", "alice")

    with serving(vault) as url:
        anyio.run(main)
    assert vault.get(BOB, bobs.id).status == "active"
    (mine,) = vault.list(ALICE)
    # The revision names the key that wrote, as a REST write does.
    assert vault.history(ALICE, mine.id)[0].actor == f"user:{key_id(alice_key)}"


def test_a_service_key_names_the_user_and_stays_in_its_tenant(vault: Vault) -> None:
    bobs = vault.remember(BOB, "bob drinks green tea")
    service = key(vault, "service")
    other_tenant = key(vault, "service", tenant="globex")

    async def main() -> None:
        async with session(url, service, user="bob") as s:
            err, r = await call(s, "get", memory_id=bobs.id)
            assert not err and r["content"] == "bob drinks green tea"
        async with session(url, other_tenant, user="bob") as s:
            err, e = await call(s, "get", memory_id=bobs.id)
            assert err and e["error"]["code"] == "not_found"

    with serving(vault) as url:
        anyio.run(main)


def test_a_reader_key_cannot_write(vault: Vault) -> None:
    m = vault.remember(ALICE, "alice drinks oolong tea")
    reader = key(vault, "reader", "alice")

    async def main() -> None:
        async with session(url, reader) as s:
            err, e = await call(s, "remember", content="alice drinks coffee now")
            assert err and e["error"]["code"] == "forbidden"
            err, e = await call(s, "forget", memory_id=m.id)
            assert err and e["error"]["code"] == "forbidden"
            err, r = await call(s, "get", memory_id=m.id)
            assert not err and r["id"] == m.id

    with serving(vault) as url:
        anyio.run(main)
    assert [x.id for x in vault.list(ALICE)] == [m.id]
    assert vault.get(ALICE, m.id).status == "active"


def test_mcp_reads_leave_access_rows(vault: Vault) -> None:
    m = vault.remember(ALICE, "alice drinks oolong tea", slot="drink", value="oolong")
    alice_key = key(vault, "user", "alice")
    service = key(vault, "service")
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with session(url, alice_key) as s:
            _, hits = await call(s, "recall", query="oolong tea")
            seen["trace_id"] = hits["trace_id"]
            await call(s, "get", memory_id=m.id)
            await call(s, "list")
            await call(s, "history", memory_id=m.id)
            await call(s, "profile")
            await s.read_resource("memvault://profile")
            await call(s, "context", query="oolong tea")
        async with session(url, service, user="alice") as s:
            await call(s, "get", memory_id=m.id)

    with serving(vault) as url:
        anyio.run(main)
    rows = list(reversed(vault.store.access_log("acme", user="alice")))
    assert [(r["action"], r["key_id"], r["role"]) for r in rows] == [
        ("recall", key_id(alice_key), "user"), ("get", key_id(alice_key), "user"),
        ("list", key_id(alice_key), "user"), ("history", key_id(alice_key), "user"),
        ("profile", key_id(alice_key), "user"), ("profile", key_id(alice_key), "user"),
        ("context", key_id(alice_key), "user"), ("get", key_id(service), "service")]
    assert all(r["memory_ids"] == [m.id] for r in rows), rows
    assert rows[0]["trace_id"] == seen["trace_id"]


# --- the CLI refuses to expose an unauthenticated server ---------------------------------

def refused(*args: str) -> subprocess.CompletedProcess[str]:
    # A server that bound would run until killed: subprocess.run returning is the proof
    # that it stopped before serving.
    proc = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    return proc


def test_non_loopback_without_auth_is_refused_before_binding(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    p = refused("--db", str(db), "--tenant", "acme", "--user", "alice", "mcp",
                "--transport", "http", "--host", "0.0.0.0", "--no-auth")
    assert "--no-auth" in p.stderr and "loopback" in p.stderr
    assert not db.exists()  # refused before the store was even opened


def test_http_on_a_store_without_keys_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    Vault(db).close()
    p = refused("--db", str(db), "mcp", "--transport", "http", "--host", "0.0.0.0",
                "--port", str(free_port()))
    assert "API key" in p.stderr
    # It says how to make one on the store (rich may wrap the message).
    assert "memvault keys create" in " ".join(p.stderr.split())


def test_the_probe_needs_no_key_and_an_oversized_body_gets_rest_s_json_413(
        vault: Vault) -> None:
    good = key(vault, "user", "alice")
    with serving(vault) as url:
        base = url.rsplit("/mcp", 1)[0]
        r = httpx.get(base + "/healthz", timeout=60)
        assert (r.status_code, r.json()) == (200, {"status": "ok"})
        r = httpx.post(url, content=b"x" * 2_000_000, timeout=60,
                       headers={**ACCEPT, "Authorization": f"Bearer {good}"})
        assert (r.status_code, r.json()["code"]) == (413, "body_too_large")
        # Everything else still needs the key.
        assert httpx.get(base + "/mcp", timeout=60).status_code == 401

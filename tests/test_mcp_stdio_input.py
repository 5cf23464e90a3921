"""Every MCP request over stdio gets an answer (issue 19 audit): a request nested past what
the SDK's parser reads, or holding an integer of thousands of digits, used to get no reply
at all, and the client waited forever. A real `memvault mcp` process, spoken to with
newline-delimited JSON-RPC."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mcp.types import LATEST_PROTOCOL_VERSION
from test_mcp_shutdown import CLI, reply, send

from memvault import Scope, Vault
from memvault.mcpserver.stdio import MAX_REQUEST_DEPTH, depth, refusal


def deep(n: int) -> str:
    return '{"a":' * n + "1" + "}" * n


@pytest.mark.parametrize("line", [
    '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "remember", '
    '"arguments": {"content": "x", "metadata": {"k": ' + deep(300) + "}}}}",
    '{"jsonrpc": "2.0", "id": "r-7", "method": "tools/call", "params": {"name": "remember",'
    ' "arguments": {"content": "x", "metadata": {"k": ' + deep(5000) + "}}}}",
    '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "remember", '
    '"arguments": {"slot": "a.b", "value": 1' + "0" * 5000 + "}}}",
], ids=["deep300", "deep5000", "digits5000"])
def test_an_unreadable_request_is_refused_under_its_id(line: str) -> None:
    answer = refusal(line.encode())
    assert answer is not None and answer.endswith(b"\n")
    msg = json.loads(answer)
    assert msg["id"] in (7, "r-7") and msg["error"]["code"] == -32602
    assert "invalid params" in msg["error"]["message"]


def test_a_readable_request_passes_unchanged() -> None:
    line = ('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"arguments": '
            '{"metadata": ' + deep(30) + "}}}").encode()
    assert depth(json.loads(line)) <= MAX_REQUEST_DEPTH
    assert refusal(line) is None
    assert refusal(b"not json") is None  # the SDK answers a parse error itself


def test_the_stdio_server_answers_every_request(tmp_path: Path) -> None:
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
        for n, nesting in enumerate((40, 200, 1000, 100_000), start=2):
            proc.stdin.write('{"jsonrpc": "2.0", "id": ' + str(n) + ', "method": '
                             '"tools/call", "params": {"name": "remember", "arguments": '
                             '{"content": "deep", "metadata": {"k": ' + deep(nesting)
                             + "}}}}\n")
            proc.stdin.flush()
            answer = reply(proc.stdout, n)
            # 40 levels reach the tool, which refuses them; deeper never reach the SDK.
            refused = answer.get("error") or answer["result"].get("isError")
            assert refused, answer
        send(proc.stdin, {"id": 9, "method": "tools/call", "params": {
            "name": "remember", "arguments": {"content": "alice drinks oolong tea"}}})
        assert reply(proc.stdout, 9)["result"]["structuredContent"]["action"] == "added"
        proc.stdin.close()
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with Vault(db) as v:
        assert [m.content for m in v.list(Scope("acme", "alice"))] == [
            "alice drinks oolong tea"]

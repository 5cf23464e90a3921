"""MCP over stdio, with each request line read before the SDK reads it.

The SDK parses a line with pydantic's JSON parser, which gives up on nesting past ~200
levels (and Python's on integers of thousands of digits); it then answers nothing, and a
client waits for its reply forever. So the process's stdin and stdout go through two
relay threads: a line the SDK could not read is answered here with a JSON-RPC error under
the request's id; every other line reaches the SDK unchanged. Replies leave one whole line
at a time, the SDK's and these, so they never interleave.
"""

from __future__ import annotations

import json
import os
import re
import select
import threading
from typing import Any

# The deepest request passed on: a tool's metadata may be 32 levels (validate), and the
# JSON-RPC envelope adds a few; pydantic stops near 200.
MAX_REQUEST_DEPTH = 64
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d{1,18})')


def depth(value: Any) -> int:
    """How deeply `value` nests lists and objects (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, d = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in item)
    return deepest


def refusal(line: bytes) -> bytes | None:
    """The JSON-RPC error reply for a request line the SDK could not read; None for a line
    to pass on (or a broken notification, which has no one to answer)."""
    try:
        message = json.loads(line)
    except RecursionError:
        problem = "the request is nested too deeply to read"
    except ValueError as e:
        if isinstance(e, json.JSONDecodeError):
            return None  # not JSON at all: the SDK answers that itself
        problem = f"the request is not readable JSON ({e})"
    else:
        if depth(message) <= MAX_REQUEST_DEPTH:
            return None
        problem = f"the request is nested deeper than {MAX_REQUEST_DEPTH} levels"
        if isinstance(message, dict) and "id" in message:
            return _error(json.dumps(message["id"]).encode(), problem)
        return None
    found = _ID.search(line)
    return _error(found.group(1), problem) if found else None


def _error(raw_id: bytes, problem: str) -> bytes:
    body = json.dumps({"code": -32602, "message": f"invalid params: {problem}"})
    return b'{"jsonrpc": "2.0", "id": ' + raw_id + b', "error": ' + body.encode() + b"}\n"


def run(server: Any) -> None:
    """`server.run("stdio")` with the relays in front of it; returns when the client
    closes stdin (or the server stops)."""
    client_in = os.fdopen(os.dup(0), "rb")
    client_out = os.fdopen(os.dup(1), "wb", buffering=0)
    to_sdk_r, to_sdk_w = os.pipe()
    from_sdk_r, from_sdk_w = os.pipe()
    saved_in, saved_out = os.dup(0), os.dup(1)
    os.dup2(to_sdk_r, 0)
    os.dup2(from_sdk_w, 1)
    os.close(to_sdk_r)
    os.close(from_sdk_w)
    lock = threading.Lock()

    def send(data: bytes) -> None:
        with lock:
            client_out.write(data)

    def inbound() -> None:
        with os.fdopen(to_sdk_w, "wb", buffering=0) as sdk:
            for line in client_in:
                answer = refusal(line)
                if answer is not None:
                    send(answer)
                else:
                    sdk.write(line)

    stopped = threading.Event()

    def outbound() -> None:
        # Until the server has stopped and its pipe is drained (the SDK may keep its own
        # copy of the write end open, so end-of-file is not to be waited for).
        pending = b""
        while True:
            ready, _, _ = select.select([from_sdk_r], [], [], 0.1)
            if not ready:
                if stopped.is_set():
                    break
                continue
            chunk = os.read(from_sdk_r, 1 << 16)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                send(line + b"\n")
        if pending:
            send(pending)
        os.close(from_sdk_r)

    threads = [threading.Thread(target=inbound, daemon=True, name="mcp-stdin"),
               threading.Thread(target=outbound, daemon=True, name="mcp-stdout")]
    for t in threads:
        t.start()
    try:
        server.run("stdio")
    finally:
        # Back to the real descriptors: the last write end of the SDK's pipe closes, so
        # the outbound relay sends what is left and ends.
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
        stopped.set()
        threads[1].join(10)
        client_out.close()

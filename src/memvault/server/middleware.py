"""ASGI middleware: the request body limit, and one JSON log line + metrics per request."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import body
from .metrics import Metrics

access_log = logging.getLogger("memvault.server.requests")


# How much of an oversized body is read and dropped before the 413 goes out: a client
# still sending when the server closes the connection gets a reset instead of the answer
# (urllib, any client sending "Connection: close"). Past this much, it may.
DRAIN_BYTES = 64 * 1024 * 1024


async def drain(receive: Receive, budget: int) -> None:
    """Read and drop the rest of a request body, up to `budget` bytes."""
    seen = 0
    while seen <= budget:
        msg = await receive()
        if msg["type"] != "http.request":
            return
        seen += len(msg.get("body", b""))
        if not msg.get("more_body", False):
            return


class BodyLimit:
    """413 for a body over `max_bytes`: at once from Content-Length, or while reading a
    chunked body (FastAPI re-raises an HTTPException from receive). Either way the rest
    of the body is read first (up to DRAIN_BYTES), so the client reads the 413."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_bytes):
            status = 413 if length.isdigit() else 400
            if status == 413:
                await drain(receive, DRAIN_BYTES)
            payload = json.dumps(body("body_too_large" if status == 413 else "bad_request",
                                      f"request body over {self.max_bytes} bytes"
                                      if status == 413 else "bad Content-Length")).encode()
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(payload)).encode())]})
            await send({"type": "http.response.body", "body": payload})
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.max_bytes:
                    if msg.get("more_body", False):
                        await drain(receive, DRAIN_BYTES)
                    raise HTTPException(413, f"request body over {self.max_bytes} bytes")
            return msg

        await self.app(scope, limited, send)


class RequestLog:
    """One JSON line per request (method, path, status, latency, the recall/context trace
    id, the key id — never the secret) and the request latency histogram."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        state: dict[str, Any] = scope.setdefault("state", {})
        status = 500

        async def watch(msg: Message) -> None:
            nonlocal status
            if msg["type"] == "http.response.start":
                status = int(msg["status"])
            await send(msg)

        try:
            await self.app(scope, receive, watch)
        finally:
            latency = time.perf_counter() - start
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            self.metrics.requests.labels(scope["method"], route, str(status)).observe(latency)
            access_log.info("request", extra={"fields": {
                "method": scope["method"], "path": scope["path"], "route": route,
                "status": status, "latency_ms": round(latency * 1000, 3),
                "trace_id": state.get("trace_id"), "key_id": state.get("key_id"),
                "job_id": state.get("job_id")}})


class JsonFormatter(logging.Formatter):
    """A log record as one JSON object; `extra={"fields": {...}}` adds structured fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {"ts": round(record.created, 3), "level": record.levelname,
                               "logger": record.name, "msg": record.getMessage()}
        out.update(getattr(record, "fields", None) or {})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)

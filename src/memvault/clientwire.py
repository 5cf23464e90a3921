"""What `memvault.Client` needs besides HTTP: the server's error bodies back into memvault's
typed errors, JSON back into the core's objects, and the core's argument types (times,
tags) into what the REST API takes. No HTTP and no server code here (the server is a peer
face: the client meets it only on the wire)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from .errors import (
    AuthenticationError,
    ConflictError,
    FrozenError,
    MemvaultError,
    ModelMismatchError,
    NotFoundError,
    PermissionDeniedError,
    PolicyError,
    ScopeError,
    StoreError,
    SummarizationError,
    ValidationError,
    VersionError,
)
from .extract.candidate import ExtractionError
from .layers.section import ContextResult
from .lifecycle import SweepReport
from .model import Hit, Hits, Memory, ScoreParts
from .timeutil import TimeLike, duration_ms, to_ms
from .writepath import ObserveResult, Outcome

__all__ = ["as_duration", "as_time", "context_result", "error_from", "finite", "flag",
           "follow", "hits",
           "observe_result", "outcome", "sweep_report", "whole"]

# A server error body's `code` -> the class the embedded Vault raises for it. The codes
# are the errors' own (errors.py) plus what the server adds for requests and keys.
_BY_CODE: dict[str, type[MemvaultError]] = {
    cls.code: cls for cls in (
        ValidationError, ScopeError, VersionError, PolicyError, NotFoundError, FrozenError,
        ConflictError, ModelMismatchError, StoreError, SummarizationError, ExtractionError)}
_BY_CODE.update({
    "missing_key": AuthenticationError, "invalid_key": AuthenticationError,
    "key_revoked": AuthenticationError, "key_expired": AuthenticationError,
    "forbidden": PermissionDeniedError, "scope_denied": PermissionDeniedError,
    # The request itself was refused before a verb ran: input the caller must change.
    "malformed_json": ValidationError, "unsupported_media_type": ValidationError,
    "body_too_large": ValidationError, "method_not_allowed": ValidationError,
})
# A body without a known code (a proxy's page, an older server): by status.
_BY_STATUS: dict[int, type[MemvaultError]] = {
    400: ValidationError, 401: AuthenticationError, 403: PermissionDeniedError,
    404: NotFoundError, 409: ConflictError, 413: ValidationError, 415: ValidationError,
    422: ValidationError, 503: StoreError}


def error_from(status: int, payload: Any, text: str) -> MemvaultError:
    """The typed error of a failed response; `code` is the server's (e.g. key_revoked)."""
    code = message = None
    if isinstance(payload, dict):
        code, message = payload.get("code"), payload.get("message")
    cls = _BY_CODE.get(code) if isinstance(code, str) else None
    if cls is None:
        cls = _BY_STATUS.get(status, MemvaultError)
    if not isinstance(message, str) or not message:
        message = f"HTTP {status}: {text[:200] or 'no body'}"
    err = cls(message)
    if isinstance(code, str) and code:
        err.code = code
    err.status = status
    if isinstance(payload, dict) and isinstance(payload.get("details"), list):
        err.details = payload["details"]
    return err


def valid_time(valid_at: TimeLike, valid_since: TimeLike,
               valid_until: TimeLike) -> dict[str, int | str | None]:
    """A read's valid-time filter (validtime.py) as the API takes it; the server checks
    the combination as the Vault does."""
    return {"valid_at": as_time(valid_at, "valid_at"),
            "valid_since": as_time(valid_since, "valid_since"),
            "valid_until": as_time(valid_until, "valid_until")}


def as_time(value: TimeLike, field: str) -> int | str | None:
    """A time as the API takes it: epoch ms or the ISO-8601/relative text the core parses
    (the server parses text exactly as the Vault does); a datetime or float as epoch ms."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise ValidationError(f"{field}: expected a time, got a bool")
    if isinstance(value, int):
        return value
    if isinstance(value, float | datetime):
        # Valid time may be before 1970; the server checks the rest as the Vault does.
        return to_ms(value, field=field, historic=field.startswith("valid"))
    raise ValidationError(f"{field}: expected epoch ms, ISO-8601 text or a datetime, "
                          f"got {type(value).__name__}")


def as_duration(value: int | float | str | timedelta | None, field: str = "ttl") -> str | None:
    """A duration as the API takes it: checked as the Vault checks it (seconds, a
    timedelta or '90d'), sent as whole milliseconds ('5400ms'), so fractional seconds and
    a timedelta mean on the server what they mean in the Vault."""
    ms = duration_ms(value, field=field)
    return None if ms is None else f"{ms}ms"


def whole(value: Any, field: str, lo: int, hi: int) -> int:
    """A whole number, checked as the Vault checks it: a query parameter is text on the
    wire, where "2" and 2.0 would pass as 2."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValidationError(f"{field}: expected a whole number in {lo}..{hi}")
    return value


def flag(value: Any, field: str) -> bool | None:
    """True, False or None: on the wire "yes" and 1 would pass as true."""
    if value is not None and not isinstance(value, bool):
        raise ValidationError(f"{field}: expected true or false")
    return value  # type: ignore[no-any-return]


def finite(value: Any, field: str) -> float | None:
    """A finite number or None (NaN and infinity are not JSON)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or \
            not math.isfinite(value):
        raise ValidationError(f"{field}: expected a finite number")
    return value


def hit(d: dict[str, Any]) -> Hit:
    return Hit(Memory.from_dict(d["memory"]), float(d["score"]), ScoreParts(**d["parts"]),
               d.get("scope_mark"))


def hits(d: dict[str, Any]) -> Hits:
    out = Hits(hit(h) for h in d["hits"])
    out.trace_id = d.get("trace_id")
    return out


def context_result(d: dict[str, Any]) -> ContextResult:
    return ContextResult(text=d["text"], tokens=d["tokens"],
                         hits=[hit(h) for h in d["included"]], dropped=d["dropped"],
                         conflicts=d["conflicts"], trace_id=d.get("trace_id"))


def outcome(d: dict[str, Any]) -> Outcome:
    return Outcome(action=d["action"], reasons=list(d["reasons"]),
                   content=d.get("content", ""), memory_id=d.get("memory_id"),
                   version=d.get("version"), message=d.get("message", ""))


def observe_result(d: dict[str, Any]) -> ObserveResult:
    return ObserveResult(turns=list(d["turns"]), outcomes=[outcome(o) for o in d["outcomes"]],
                         errors=list(d.get("errors", [])))


def sweep_report(d: dict[str, Any]) -> SweepReport:
    return SweepReport(expired=d["expired"], summaries=list(d["summaries"]),
                       relations=list(d["relations"]), evicted=list(d["evicted"]),
                       errors=list(d["errors"]), snapshots=list(d.get("snapshots", [])),
                       snapshots_dropped=list(d.get("snapshots_dropped", [])),
                       merges_proposed=list(d.get("merges_proposed", [])),
                       merges_applied=list(d.get("merges_applied", [])))


def follow(page: Callable[[int], list[Any]], first: list[Any], since: int, *,
           poll_seconds: float, stop: Any = None,
           idle_timeout: float | None = None) -> Iterator[Any]:
    """Events (anything with an `id`) from `first`, then from `page(after)` polled every
    `poll_seconds`, until `stop` is set or none came for `idle_timeout` seconds."""
    if isinstance(poll_seconds, bool) or not isinstance(poll_seconds, int | float) \
            or not 0 < poll_seconds <= 3600:
        raise ValidationError("poll_seconds: expected a number of seconds in (0, 3600]")
    return _polled(page, first, since, poll_seconds, stop, idle_timeout)


def _polled(page: Callable[[int], list[Any]], first: list[Any], since: int,
            poll_seconds: float, stop: Any, idle_timeout: float | None) -> Iterator[Any]:
    after, got, quiet = since, first, time.monotonic()
    while True:
        for e in got:
            after = e.id
            yield e
        if got:
            quiet = time.monotonic()
        elif idle_timeout is not None and time.monotonic() - quiet >= idle_timeout:
            return
        if stop is not None and stop.is_set():
            return
        if not got:
            if stop is not None:
                stop.wait(poll_seconds)
            else:
                time.sleep(poll_seconds)
        got = page(after)


def segment(text: str | None) -> str:
    """An id or a name as one URL path segment: "/" and "." escaped (see client.py)."""
    return quote(text or "", safe="").replace(".", "%2E")

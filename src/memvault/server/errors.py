"""Every failure is a JSON body {code, message[, details]} with a 4xx/5xx status.

memvault's typed errors map by class; request validation, routing, body size and
authentication failures get codes of their own.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import (
    ConflictError,
    FrozenError,
    MemvaultError,
    ModelMismatchError,
    NotFoundError,
    PermissionDeniedError,
    ScopeError,
    StoreError,
    SummarizationError,
    ValidationError,
)
from ..extract import ExtractionError

log = logging.getLogger("memvault.server")


class ErrorBody(BaseModel):
    code: str
    message: str
    details: list[Any] | None = None


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


# Most specific first: ScopeError and VersionError are ValidationErrors.
_STATUS: list[tuple[type[MemvaultError], int]] = [
    (ScopeError, 403), (PermissionDeniedError, 403), (ValidationError, 422),
    (NotFoundError, 404), (FrozenError, 409),
    (ConflictError, 409), (ModelMismatchError, 503), (StoreError, 503),
    # The configured LLM (extractor or summariser) failed: the upstream's fault.
    (SummarizationError, 502), (ExtractionError, 502),
]

# Documented on every route, so clients (and the schema fuzz) know the error shape.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": desc} for status, desc in (
        (400, "malformed request (e.g. invalid JSON)"), (401, "missing, unknown, revoked "
         "or expired API key"), (403, "role not permitted, or outside the key's scope"),
        (404, "not found in the caller's scope"), (409, "frozen, conflict or stale version"),
        (413, "request body too large"),
        (415, "the body was not sent as JSON (send Content-Type: application/json)"),
        (422, "invalid input"),
        (502, "the configured LLM (extractor or summariser) failed"),
        (503, "store unavailable"))}


UNSUPPORTED_MEDIA_TYPE = (
    "the request body must be JSON sent with the header `Content-Type: application/json` "
    "(curl -d alone sends application/x-www-form-urlencoded: add "
    "-H \"Content-Type: application/json\")")


def is_json(content_type: str | None) -> bool:
    """application/json or a +json type, as FastAPI decides whether to parse a body."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    main, _, sub = media.partition("/")
    return main == "application" and (sub == "json" or sub.endswith("+json"))


def status_of(e: MemvaultError) -> int:
    for cls, status in _STATUS:
        if isinstance(e, cls):
            return status
    return 400


def body(code: str, message: str, details: list[Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        out["details"] = details
    return out


def install(app: FastAPI) -> None:
    @app.exception_handler(MemvaultError)
    async def _memvault(_: Request, e: MemvaultError) -> JSONResponse:
        return JSONResponse(body(e.code, e.message), status_code=status_of(e))

    @app.exception_handler(ApiError)
    async def _api(_: Request, e: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if e.status == 401 else None
        return JSONResponse(body(e.code, e.message), status_code=e.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        errors = [{"loc": list(err.get("loc", ())), "msg": str(err.get("msg", "")),
                   "type": str(err.get("type", ""))} for err in e.errors()]
        if any(err["loc"][:1] == ["body"] for err in errors) \
                and not is_json(request.headers.get("content-type")):
            # FastAPI reads a body only when it is declared JSON; otherwise the error
            # ("Input should be a valid dictionary") hides what to change.
            return JSONResponse(body("unsupported_media_type", UNSUPPORTED_MEDIA_TYPE,
                                     errors), status_code=415)
        if any(err["type"] == "json_invalid" for err in errors):
            return JSONResponse(body("malformed_json", "the request body is not valid JSON",
                                     errors), status_code=400)
        first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
        where = ".".join(str(p) for p in first["loc"])
        return JSONResponse(body("invalid_input", f"{where}: {first['msg']}", errors),
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, e: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed",
                413: "body_too_large"}.get(e.status_code, "http_error")
        message = str(e.detail)
        if e.status_code == 400 and message == "There was an error parsing the body":
            # FastAPI's words for a body its JSON parser gave up on (nested past Python's
            # recursion limit, an integer of thousands of digits, bytes that are not
            # UTF-8): malformed for us, like any other unparsable body.
            code, message = "malformed_json", (
                "the request body could not be read as JSON (not UTF-8, nested too "
                "deeply, or a number too long)")
        return JSONResponse(body(code, message), status_code=e.status_code,
                            headers=getattr(e, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, e: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return JSONResponse(body("internal", f"internal error ({type(e).__name__})"),
                            status_code=500)

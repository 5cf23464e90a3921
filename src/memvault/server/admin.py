"""Routes outside the memory verbs: the caller's key, job status, API keys, the access
log, health, metrics."""

from __future__ import annotations

import hmac
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.responses import JSONResponse

from .. import apikeys
from . import schemas as s
from .auth import Principal
from .deps import named_user, principal_for, server
from .errors import ERROR_RESPONSES, ApiError, ErrorBody, body

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)  # type: ignore[arg-type]
ops = APIRouter(tags=["operations"])


@router.get("/whoami", response_model=s.WhoamiOut, tags=["keys"])
def whoami(p: Annotated[Principal, Depends(principal_for("whoami"))]) -> Any:
    """The calling key: its id, tenant, role and bound user (null when unbound). A client
    reads it once, to refuse a scope of another tenant before it sends a write."""
    return {"key_id": p.key_id, "tenant": p.tenant, "role": p.role, "user": p.user,
            "team": p.team}


@router.get("/jobs/{job_id}", response_model=s.JobOut, tags=["write"])
def job(request: Request, job_id: Annotated[str, Path(min_length=1, max_length=128)],
        p: Annotated[Principal, Depends(principal_for("jobs.get"))],
        user: Annotated[str | None, Query(description="the job must be this user's")
                        ] = None) -> Any:
    """An async write: queued, done (with ids and decisions) or failed (with the error)."""
    j = server(request).vault.store.get_job(p.tenant, job_id, user=named_user(p, user))
    if j is None:
        raise ApiError(404, "not_found", f"no job {job_id}")
    return {k: j[k] for k in ("job_id", "kind", "status", "user", "created_at", "finished_at",
                              "result", "error")}


@router.post("/keys", response_model=s.NewKeyOut, status_code=201, tags=["keys"])
def create_key(request: Request, payload: s.KeyIn,
               p: Annotated[Principal, Depends(principal_for("keys.create"))]) -> Any:
    """A new key in the caller's tenant (`tenant`, when given, must be that tenant: another
    tenant's keys are made with `memvault keys create` on the store). The response holds
    the key; it is never shown again (the store keeps its hash)."""
    if payload.tenant is not None and payload.tenant != p.tenant:
        raise ApiError(403, "scope_denied", f"this key can create keys only in its own "
                       f"tenant {p.tenant!r}, not {payload.tenant!r}")
    key, record = apikeys.new_key(server(request).vault.store, tenant=p.tenant,
                                  role=payload.role, user=payload.user, name=payload.name,
                                  expires_at=payload.expires_at, created_by=p.key_id,
                                  team=payload.team)
    return {**apikeys.public(record), "key": key}


@router.get("/keys", response_model=list[s.KeyOut], tags=["keys"])
def list_keys(request: Request,
              p: Annotated[Principal, Depends(principal_for("keys.list"))]) -> Any:
    return apikeys.list_keys(server(request).vault.store, p.tenant)


@router.delete("/keys/{key_id}", response_model=s.KeyOut, tags=["keys"])
def revoke_key(request: Request, key_id: Annotated[str, Path(min_length=1, max_length=64)],
               p: Annotated[Principal, Depends(principal_for("keys.revoke"))]) -> Any:
    """Revoke a key of the caller's tenant; it fails with 401 from then on."""
    return apikeys.revoke_key(server(request).vault.store, key_id, tenant=p.tenant)


@router.get("/access-log", response_model=list[s.AccessOut], tags=["keys"])
def access_log(request: Request,
               p: Annotated[Principal, Depends(principal_for("access_log"))],
               user: str | None = None,
               limit: Annotated[int, Query(ge=1, le=1000)] = 100,
               offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0) -> Any:
    """Who read which memories, when, through which trace (the tenant's reads, newest
    first)."""
    return server(request).vault.store.access_log(p.tenant, user=user, limit=limit,
                                                  offset=offset)


@ops.get("/healthz")
def healthz() -> dict[str, str]:
    """The process is up."""
    return {"status": "ok"}


READY_TIMEOUT_S = 2.0


@ops.get("/readyz", responses={503: {"model": ErrorBody}})
def readyz(request: Request) -> Any:
    """The store answers (schema version, queue depth)."""
    st = server(request)
    try:
        # Fast when the store is gone: the pool would otherwise wait 30 s reconnecting.
        version = st.vault.store.schema_version(timeout=READY_TIMEOUT_S)
        depth = st.vault.store.queue_depth()
    except Exception as e:
        return JSONResponse(body("not_ready", f"store unavailable ({type(e).__name__})"),
                            status_code=503)
    return {"status": "ready", "schema_version": version, "queue_depth": depth}


@ops.get("/metrics", response_class=Response,
         responses={200: {"content": {"text/plain": {}}}, 401: {"model": ErrorBody}})
def metrics(request: Request) -> Response:
    """Prometheus text format. With a metrics token configured, only for a request that
    carries it as a bearer token."""
    token = server(request).settings.metrics_token
    if token:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(),
                                                                  token.encode()):
            raise ApiError(401, "invalid_metrics_token",
                           "GET /metrics needs the metrics token as a bearer token")
    return Response(server(request).metrics.render(),
                    media_type="text/plain; version=0.0.4; charset=utf-8")

"""The snapshot routes (docs/snapshots.md): named points in the revision time of the key's
tenant, or of one user (`user` query parameter; a bound key's own user). Taking, listing
and diffing them are an application's work; restoring and dropping are an admin's."""

# No `from __future__ import annotations`: FastAPI reads these annotations at runtime.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request

from .. import validate as v
from ..errors import ValidationError
from ..reads import access
from . import schemas as s
from .auth import Principal
from .deps import named_user, principal_for, server
from .errors import ERROR_RESPONSES

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES,  # type: ignore[arg-type]
                   tags=["snapshots"])

User = Annotated[str | None, Query(description="one user's snapshot (default: the whole "
                                   "tenant's); a bound key gets only its own user's")]
Name = Annotated[str, Path(min_length=1, max_length=128)]


def _user(p: Principal, user: str | None, request: Request) -> str | None:
    if user == "":
        raise ValidationError("user: empty; omit it for the whole tenant")
    if "team" in request.query_params:
        # Ignored, `team=` would make a restore meant for a team one of the whole tenant.
        raise ValidationError("team: snapshots are of a user or of the whole tenant, "
                              "whose snapshots hold its teams' memories; drop team=")
    access.bind(access.Accessor(p.key_id, p.role))
    named = named_user(p, user)
    return v.personal_user(named) if named is not None else None


@router.post("/snapshots", response_model=dict[str, Any], status_code=201)
def create(request: Request, p: Annotated[Principal, Depends(principal_for("snapshots.create"))],
           body: s.SnapshotIn, user: User = None) -> Any:
    """Name this moment of the tenant's (a user's) memory: a point in revision time."""
    return server(request).vault.snapshot(p.tenant, body.name, user=_user(p, user, request),
                                          reason=body.reason, actor=p.actor)


@router.get("/snapshots", response_model=list[dict[str, Any]])
def list_(request: Request, p: Annotated[Principal, Depends(principal_for("snapshots.list"))],
          user: User = None) -> Any:
    """The tenant's snapshots, oldest first (with `user`: that user's only)."""
    return server(request).vault.snapshots(p.tenant, user=_user(p, user, request))


@router.get("/snapshots/{name}/diff", response_model=dict[str, Any])
def diff(request: Request, name: Name,
         p: Annotated[Principal, Depends(principal_for("snapshots.diff"))],
         to: Annotated[str | None, Query(description="the later snapshot (default: now)")
                       ] = None, user: User = None) -> Any:
    """Memories added, removed (forgotten or purged) and changed from `name` to `to`."""
    return server(request).vault.snapshot_diff(p.tenant, name, to, user=_user(p, user, request))


@router.post("/snapshots/{name}/restore", response_model=dict[str, Any])
def restore(request: Request, name: Name,
            p: Annotated[Principal, Depends(principal_for("snapshots.restore"))],
            body: s.RestoreIn | None = None, user: User = None) -> Any:
    """Bring the memory back to snapshot `name` as one operation; restoring the snapshot
    named in `undo` undoes it."""
    return server(request).vault.restore_snapshot(
        p.tenant, name, user=_user(p, user, request), reason=body.reason if body else None,
        actor=p.actor)


@router.delete("/snapshots/{name}", response_model=dict[str, Any])
def drop(request: Request, name: Name,
         p: Annotated[Principal, Depends(principal_for("snapshots.drop"))],
         user: User = None) -> Any:
    """Forget a snapshot (the memories stay as they are)."""
    return server(request).vault.drop_snapshot(p.tenant, name, user=_user(p, user, request))

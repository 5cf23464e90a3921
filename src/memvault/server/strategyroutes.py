"""The strategy-version routes (docs/retrieval.md, "Strategy versions"): the strategies
the store has served with, one in full by its hash, and a shadow run of a candidate over
the recent traces of the key's tenant (of one user: `user`; a bound key's own user).
The history is the store's: one server serves every tenant with one strategy."""

# No `from __future__ import annotations`: FastAPI reads these annotations at runtime.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request

from ..errors import ValidationError
from ..reads import access
from . import schemas as s
from .auth import Principal
from .deps import named_user, principal_for, server
from .errors import ERROR_RESPONSES

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES,  # type: ignore[arg-type]
                   tags=["strategies"])


@router.get("/strategies", response_model=list[dict[str, Any]])
def history(request: Request,
            p: Annotated[Principal, Depends(principal_for("strategies.history"))]) -> Any:
    """Every strategy the store has served with, first used first (`current`: in force)."""
    return server(request).vault.strategy_history()


@router.post("/strategies/shadow", response_model=dict[str, Any])
def shadow(request: Request, p: Annotated[Principal, Depends(principal_for(
        "strategies.shadow"))], body: s.ShadowIn,
           user: Annotated[str | None, Query(description="one user's traces (default: "
                                             "the tenant's); a bound key gets its own")
                           ] = None) -> Any:
    """Replay recent traces' queries under the candidate and the strategy in force,
    writing nothing: per query what would enter, leave or move in the top k."""
    if user == "":
        raise ValidationError("user: empty; omit it for the whole tenant")
    access.bind(access.Accessor(p.key_id, p.role))
    return server(request).vault.shadow_run(p.tenant, body.strategy,
                                            user=named_user(p, user), traces=body.traces,
                                            top_k=body.top_k)


@router.get("/strategies/{hash_}", response_model=dict[str, Any])
def show(request: Request, hash_: Annotated[str, Path(min_length=1, max_length=64)],
         p: Annotated[Principal, Depends(principal_for("strategies.show"))]) -> Any:
    """One strategy the store has served with, in full, by its hash (404 if never)."""
    return server(request).vault.strategy_version(hash_)

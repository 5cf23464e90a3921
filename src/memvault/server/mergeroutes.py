"""The REST routes of merge, split, their undo and consolidation (writes/merging.py,
consolidate.py). Thin calls of the Vault, like server/api.py."""

# No `from __future__ import annotations`: FastAPI reads these annotations at runtime.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request

from . import schemas as s
from .deps import Caller, caller_for, server
from .errors import ERROR_RESPONSES

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)  # type: ignore[arg-type]

MemoryId = Annotated[str, Path(min_length=1, max_length=128)]


def _c(action: str) -> Any:
    return Depends(caller_for(action))


@router.post("/merge", response_model=s.MemoryOut, tags=["govern"])
def merge(request: Request, c: Annotated[Caller, _c("merge")], body: s.MergeIn) -> Any:
    """Merge memories into a new one whose `metadata.merged_from` names them; each is
    forgotten "merged into <id>". Frozen sources, other scopes and different slot values
    are refused (409 / 404), and nothing changes."""
    return server(request).vault.merge(c.scope, body.ids, content=body.content,
                                       reason=body.reason, actor=c.principal.actor).to_dict()


@router.post("/memories/{memory_id:path}/split", response_model=list[s.MemoryOut],
             tags=["govern"])
def split(request: Request, c: Annotated[Caller, _c("split")], memory_id: MemoryId,
          body: s.SplitIn) -> Any:
    """One new memory per part (`metadata.split_from`); the source is forgotten."""
    parts = server(request).vault.split(c.scope, memory_id, body.parts, reason=body.reason,
                                        actor=c.principal.actor)
    return [m.to_dict() for m in parts]


@router.post("/memories/{memory_id:path}/unmerge", response_model=list[s.MemoryOut],
             tags=["govern"])
def unmerge(request: Request, c: Annotated[Caller, _c("unmerge")], memory_id: MemoryId,
            body: s.ReasonIn | None = None) -> Any:
    """Undo a merge: the merged memory is forgotten; the restored sources are returned."""
    back = server(request).vault.unmerge(c.scope, memory_id, actor=c.principal.actor,
                                         reason=body.reason if body else None)
    return [m.to_dict() for m in back]


@router.post("/memories/{memory_id:path}/unsplit", response_model=s.MemoryOut,
             tags=["govern"])
def unsplit(request: Request, c: Annotated[Caller, _c("unsplit")], memory_id: MemoryId,
            body: s.ReasonIn | None = None) -> Any:
    """Undo a split (the source's id or a part's): parts forgotten, source restored."""
    return server(request).vault.unsplit(c.scope, memory_id, actor=c.principal.actor,
                                         reason=body.reason if body else None).to_dict()


@router.post("/consolidate", response_model=list[s.ConsolidateOut], tags=["govern"])
def consolidate(request: Request, c: Annotated[Caller, _c("consolidate")],
                body: s.ConsolidateIn | None = None) -> Any:
    """Near-duplicates of the user's scope (same topic, near-identical statement): each
    group staged for review (approve the proposal to merge), or merged with apply."""
    return server(request).vault.consolidate(
        c.scope, apply=body.apply if body else None, actor=c.principal.actor)

"""The replay route (reads/replay.py): the caller's queries, or its scope's stored ones,
against the store as of two times or around one revision. A read: any role that may
recall may replay, inside its own scope."""

# No `from __future__ import annotations`: FastAPI reads these annotations at runtime.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from .deps import Caller, caller_for, server
from .errors import ERROR_RESPONSES

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES,  # type: ignore[arg-type]
                   tags=["read"])


class ReplayIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    queries: list[str] | None = Field(None, description="the queries to replay; default: "
                                      "the scope's most recent stored ones")
    traces: int | None = Field(None, description="how many recent distinct stored queries "
                               "to take (default 20 when no queries)")
    from_time: int | str | None = Field(None, alias="from", description="earlier system "
                                        "time (ISO-8601 or epoch ms)")
    to_time: int | str | None = Field(None, alias="to", description="later system time "
                                      "(default: now)")
    around: str | None = Field(None, description="a revision (op id or MEMORY_ID@VERSION): "
                               "just before and just after it")
    top_k: int | None = None


@router.post("/replay", response_model=dict[str, Any])
def replay(request: Request, c: Annotated[Caller, Depends(caller_for("replay"))],
           body: ReplayIn) -> Any:
    """Per query: the memories that entered, left or moved between the two states, each
    with the revision (op id, actor, reason) that caused it. Writes nothing."""
    return server(request).vault.replay(c.scope, **body.model_dump(exclude_unset=True))

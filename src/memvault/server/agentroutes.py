"""The REST routes of agent memory (agentmemory.py): tool results, a task's steps,
lessons, promote. Thin calls of the Vault, like server/api.py; a body cannot name a
scope, and a source only an admin may claim is refused here as it is there."""

# No `from __future__ import annotations`: FastAPI reads these annotations at runtime.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request

from ..wording import a_or_an
from . import schemas as s
from .deps import Caller, caller_for, server
from .errors import ERROR_RESPONSES, ApiError

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)  # type: ignore[arg-type]

TaskId = Annotated[str, Path(min_length=1, max_length=128)]
MemoryId = Annotated[str, Path(min_length=1, max_length=128)]


def _c(action: str) -> Any:
    return Depends(caller_for(action))


def _claim(c: Caller, source: str) -> str:
    if source == "admin_manual" and c.principal.role != "admin":
        raise ApiError(403, "forbidden", f"{a_or_an(c.principal.role)} key may not write "
                       "with source admin_manual")
    return source


@router.post("/tool-results", response_model=s.RememberOut, tags=["agents"])
def tool_result(request: Request, c: Annotated[Caller, _c("tool_result")],
                body: s.ToolResultIn) -> Any:
    """Keep what a tool returned; short-lived by the strategy unless promoted."""
    return server(request).vault.tool_result(
        c.scope, body.tool, body.output, args=body.args, task_id=body.task_id, ttl=body.ttl,
        tags=body.tags, reason=body.reason, actor=c.principal.actor).to_dict()


@router.post("/tasks/{task_id}/steps", response_model=s.RememberOut, tags=["agents"])
def record_step(request: Request, c: Annotated[Caller, _c("task.step")], task_id: TaskId,
                body: s.StepIn) -> Any:
    """Record a step of the task, or a new state of it (the same seq: a new version)."""
    return server(request).vault.record_step(
        c.scope, task_id, body.step, status=body.status, seq=body.seq, inputs=body.inputs,
        outputs=body.outputs, source=_claim(c, body.source), reason=body.reason,
        actor=c.principal.actor).to_dict()


@router.get("/tasks/{task_id}/steps", response_model=list[s.MemoryOut], tags=["agents"])
def task_steps(request: Request, c: Annotated[Caller, _c("task.steps")],
               task_id: TaskId) -> Any:
    """The task's live steps, ordered by seq."""
    return [m.to_dict() for m in server(request).vault.task_steps(c.scope, task_id)]


@router.get("/tasks/{task_id}/resume", response_model=s.TaskStateOut, tags=["agents"])
def resume(request: Request, c: Annotated[Caller, _c("task.resume")],
           task_id: TaskId) -> Any:
    """What was I doing? The steps in order and the first unfinished one."""
    return server(request).vault.resume(c.scope, task_id).to_dict()


@router.post("/tasks/{task_id}/close", response_model=list[s.MemoryOut], tags=["agents"])
def close_task(request: Request, c: Annotated[Caller, _c("task.close")], task_id: TaskId,
               body: s.ReasonIn | None = None) -> Any:
    """The task is over: its steps expire with it."""
    mems = server(request).vault.close_task(c.scope, task_id,
                                            reason=body.reason if body else None,
                                            actor=c.principal.actor)
    return [m.to_dict() for m in mems]


@router.post("/lessons", response_model=s.RememberOut, tags=["agents"])
def learn(request: Request, c: Annotated[Caller, _c("lesson")], body: s.LessonIn) -> Any:
    """Keep a lesson from a run: added, staged (waits for review) or noop."""
    return server(request).vault.learn(
        c.scope, body.content, outcome=body.outcome, task_id=body.task_id,
        source=_claim(c, body.source), tags=body.tags, reason=body.reason,
        actor=c.principal.actor).to_dict()


@router.post("/memories/{memory_id:path}/promote", response_model=s.MemoryOut,
             tags=["govern"])
def promote(request: Request, c: Annotated[Caller, _c("promote")], memory_id: MemoryId,
            body: s.ReasonIn | None = None) -> Any:
    """Keep a memory past its shelf life: its expiry is cleared in a new version."""
    return server(request).vault.promote(c.scope, memory_id,
                                         reason=body.reason if body else None,
                                         actor=c.principal.actor).to_dict()

"""The online-evaluation routes (docs/evaluation.md, "Online evaluation"): an application
reports the answer it produced with a context build, and reads the judge's figures for
its tenant. Judging itself never runs here: the sweep timer does it (jobs.Sweeper)."""

# No `from __future__ import annotations`: FastAPI reads these annotations at runtime.
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from . import schemas as s
from .auth import Principal
from .deps import Caller, caller_for, principal_for, server
from .errors import ERROR_RESPONSES

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES,  # type: ignore[arg-type]
                   tags=["evaluation"])

Duration = Annotated[str, Query(min_length=1, max_length=16,
                                description="a duration such as 1h, 1d, 7d")]


@router.post("/answers", response_model=dict[str, Any])
def record_answer(request: Request, c: Annotated[Caller, Depends(caller_for("answer"))],
                  body: s.AnswerIn) -> Any:
    """The answer produced with context build `trace_id`: `{sampled: true, status:
    "pending"}` when that build is an online-evaluation sample (judged later, in the
    background), else `{sampled: false}` and nothing stored. 404 for a trace the scope
    does not have, 409 for a second answer to one sample."""
    return server(request).vault.record_answer(c.scope, body.trace_id, body.answer)


@router.get("/eval/online", response_model=dict[str, Any])
def online_report(request: Request,
                  p: Annotated[Principal, Depends(principal_for("eval.online"))],
                  since: Duration = "7d", window: Duration = "1d") -> Any:
    """The tenant's memory-use and contamination rates, judge tokens and latency, in
    total and per window over the last `since`."""
    return server(request).vault.online_eval_report(p.tenant, since=since, window=window)

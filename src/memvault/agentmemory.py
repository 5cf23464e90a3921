"""Agent memory verbs: what a tool returned, the steps of a task, lessons from a run.

Each writes one of the agent kinds through the write core, so the kind's policy
(agentpolicy.py, strategy section `agents`) decides who may write it, where it is kept,
how long it lives and whether it waits for review; history, rollback, forget and purge
apply as to any memory. A task's steps are read back in the order of their explicit
`seq`, so a run that stopped (a crash, a restart) can ask "what was I doing?".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from . import agentpolicy as ap
from . import validate as v
from .engine import Engine
from .errors import ValidationError
from .model import Kind, Memory, Op, RememberResult, Scope, Status
from .store import ListFilter
from .timeutil import MAX_MS, duration_ms
from .writes import prepare

MAX_TOOL_CHARS = 128
MAX_STEP_CHARS = 200
# Steps of one task read back at most (a task is a plan, not a log).
MAX_STEPS = 1000


@dataclass(slots=True)
class TaskState:
    """A task's live steps in order and the one to go on with: the first (by seq) still
    pending or running; None when every step is finished (or there are none)."""

    task_id: str
    steps: list[Memory]
    current: Memory | None

    def to_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "steps": [m.to_dict() for m in self.steps],
                "current": self.current.to_dict() if self.current else None,
                "finished": self.current is None and bool(self.steps)}


def _args(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValidationError(f"args: expected an object, got {type(value).__name__}")
    out = v.json_value(value, "args")
    assert isinstance(out, dict)
    return out


def tool_result(eng: Engine, scope: Any, tool: Any, output: Any, *, args: Any = None,
                task_id: Any = None, ttl: Any = None, tags: Any = None,
                actor: str | None = None, reason: Any = None) -> RememberResult:
    """Keep what a tool returned (source `tool`). The call (tool name and arguments) is
    the revision's trigger, so history and audit show what brought it in."""
    name = v.label(tool, "tool", max_chars=MAX_TOOL_CHARS)
    args_ = _args(args)
    meta: dict[str, Any] = {"tool": name}
    if args_ is not None:
        meta["args"] = args_
    if task_id is not None:
        meta[ap.TASK_ID] = ap.task_id(task_id)
    req = prepare(eng.core.clock, scope, output, kind=Kind.TOOL_RESULT.value,
                  source="tool", metadata=meta, ttl=ttl, tags=tags)
    call = f"tool {name}({json.dumps(args_ or {}, ensure_ascii=False, sort_keys=True)})"
    return eng.writes.remember(req, actor=actor, reason=v.text(
        reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False),
        trigger_text=call[:v.MAX_SOURCE_TEXT_CHARS], trace_id=None, expected_version=None)


def _steps(eng: Engine, sc: Scope, task: str) -> list[Memory]:
    """Every step row of the task in the scope, newest first (any status). The tag finds
    them; the task id decides (a caller's own tag cannot put a step in another task)."""
    rows = eng.reads.list(sc, ListFilter(kind=Kind.STEP.value, tags=[ap.task_tag(task)],
                                         limit=MAX_STEPS * 4))
    return [m for m in rows if m.metadata.get(ap.TASK_ID) == task]


def record_step(eng: Engine, scope: Any, task_id: Any, step: Any, *,
                status: Any = "pending", seq: Any = None, inputs: Any = None,
                outputs: Any = None, source: Any = "tool", actor: str | None = None,
                reason: Any = None) -> RememberResult:
    """Record a step of a task, or a new state of it. Without `seq` the step is added
    after the task's last; with the `seq` of a live step, that step gets a new version
    (its status, inputs, outputs), so history shows how it went."""
    sc = v.scope(scope)
    task = ap.task_id(task_id)
    name = v.label(step, "step", max_chars=MAX_STEP_CHARS)
    state = ap.step_status(status)
    why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
    now = eng.core.clock()
    rows = _steps(eng, sc, task)
    live = [m for m in rows if m.is_live(now) and m.scope == sc]
    if seq is None:
        seq_ = max((int(m.metadata.get(ap.SEQ, -1)) for m in rows), default=-1) + 1
    else:
        seq_ = ap.seq(seq)
    meta: dict[str, Any] = {ap.TASK_ID: task, ap.SEQ: seq_, "step": name, "status": state}
    if inputs is not None:
        meta["inputs"] = v.json_value(inputs, "inputs")
    if outputs is not None:
        meta["outputs"] = v.json_value(outputs, "outputs")
    content = f"step {seq_} of task {task}: {name} ({state})"
    req = prepare(eng.core.clock, sc, content, kind=Kind.STEP.value, source=source,
                  metadata=meta)
    req = ap.admit(eng.core.strategy.agents, req, now)
    trigger = f"step {seq_} {state}"
    same = next((m for m in live if m.metadata.get(ap.SEQ) == seq_), None)
    if same is None:
        return eng.writes.remember(req, actor=actor, reason=why, trigger_text=trigger,
                                   trace_id=None, expected_version=None)

    def change(m: Memory) -> Memory:
        return replace(m, content=req["content"], metadata=req["metadata"],
                       tags=req["tags"], expires_at=req["expires_at"],
                       version=m.version + 1, recorded_at=eng.core.clock())
    new = eng.writes.mutate(same.scope, same.id, Op.UPDATE, change, actor=actor,
                            reason=why or f"step {state}", trigger_text=trigger)
    return RememberResult("updated", new, same.version)


def task_steps(eng: Engine, scope: Any, task_id: Any) -> list[Memory]:
    """The task's live steps in the order of their `seq` (one per seq: the newest)."""
    sc = v.scope(scope)
    task = ap.task_id(task_id)
    now = eng.core.clock()
    by_seq: dict[int, Memory] = {}
    for m in _steps(eng, sc, task):  # newest first: the first seen of a seq wins
        s = m.metadata.get(ap.SEQ)
        if m.is_live(now) and isinstance(s, int) and s not in by_seq:
            by_seq[s] = m
    return [by_seq[s] for s in sorted(by_seq)][:MAX_STEPS]


def resume(eng: Engine, scope: Any, task_id: Any) -> TaskState:
    """"What was I doing?": the task's steps in order and the first unfinished one."""
    steps = task_steps(eng, scope, task_id)
    current = next((m for m in steps if m.metadata.get("status") in ap.OPEN_STATUSES),
                   None)
    return TaskState(ap.task_id(task_id), steps, current)


def close_task(eng: Engine, scope: Any, task_id: Any, *, actor: str | None = None,
               reason: Any = None) -> list[Memory]:
    """The task is over: its steps expire with it, at once or after the policy's
    `after_close`. Returns the steps as changed (their history keeps every state)."""
    steps = task_steps(eng, scope, task_id)
    why = v.text(reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False)
    after = eng.core.strategy.agents.step.after_close
    grace = 0 if after is None or after.strip() in ("0", "0s", "0ms") else (
        duration_ms(after) or 0)
    out = []
    for m in steps:
        until = min(eng.core.clock() + grace, MAX_MS)

        def change(cur: Memory, until: int = until) -> Memory:
            if grace == 0:
                return replace(cur, status=Status.EXPIRED.value, expires_at=until,
                               version=cur.version + 1)
            return replace(cur, expires_at=until, version=cur.version + 1)
        out.append(eng.writes.mutate(m.scope, m.id, Op.EXPIRE if grace == 0 else Op.UPDATE,
                                     change, actor=actor, reason=why or "task closed",
                                     trigger_text=f"task {m.metadata.get(ap.TASK_ID)} "
                                                  "closed"))
    return out


def learn(eng: Engine, scope: Any, content: Any, *, outcome: Any = None,
          task_id: Any = None, source: Any = "system_inferred", tags: Any = None,
          actor: str | None = None, reason: Any = None) -> RememberResult:
    """Keep a lesson (what worked or failed). An inferred one (source system_inferred) is
    staged for review by the default policy: action "staged", not served until approved."""
    meta: dict[str, Any] = {}
    if outcome is not None:
        meta["outcome"] = outcome
    if task_id is not None:
        meta[ap.TASK_ID] = ap.task_id(task_id)
    req = prepare(eng.core.clock, scope, content, kind=Kind.LESSON.value, source=source,
                  metadata=meta, tags=tags)
    return eng.writes.remember(req, actor=actor, reason=v.text(
        reason, "reason", max_chars=v.MAX_REASON_CHARS, required=False),
        trigger_text=None, trace_id=None, expected_version=None)

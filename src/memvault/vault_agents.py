"""The Vault's agent-memory verbs (agentmemory.py, docs/agents.md), mixed into Vault:
tool results, a task's steps, lessons, and keeping a memory past its shelf life."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import agentmemory
from .core import Core
from .engine import Engine
from .model import Memory, RememberResult, Scope, Source
from .reads import access
from .writes import mutations


class AgentVerbs:
    engine: Engine
    core: Core

    def tool_result(self, scope: Scope | dict[str, str], tool: str, output: str, *,
                    args: dict[str, Any] | None = None, task_id: str | None = None,
                    ttl: int | float | str | None = None, tags: Iterable[str] | None = None,
                    actor: str | None = None, reason: str | None = None) -> RememberResult:
        """Keep what a tool returned; the call is the revision's trigger. Short-lived by
        the strategy's `agents.tool_result.ttl` unless promoted."""
        return agentmemory.tool_result(self.engine, scope, tool, output, args=args,
                                       task_id=task_id, ttl=ttl, tags=tags, actor=actor,
                                       reason=reason)

    def record_step(self, scope: Scope | dict[str, str], task_id: str, step: str, *,
                    status: str = "pending", seq: int | None = None, inputs: Any = None,
                    outputs: Any = None, source: str = "tool", actor: str | None = None,
                    reason: str | None = None) -> RememberResult:
        """A step of a task, or its new state (same `seq`: a new version)."""
        return agentmemory.record_step(self.engine, scope, task_id, step, status=status,
                                       seq=seq, inputs=inputs, outputs=outputs,
                                       source=source, actor=actor, reason=reason)

    def task_steps(self, scope: Scope | dict[str, str], task_id: str) -> list[Memory]:
        """The task's live steps, ordered by their explicit seq."""
        mems = agentmemory.task_steps(self.engine, scope, task_id)
        access.record(self.core, scope, "task.steps", [m.id for m in mems])
        return mems

    def resume(self, scope: Scope | dict[str, str], task_id: str) -> agentmemory.TaskState:
        """The task's steps in order and the first unfinished one ("what was I doing?")."""
        state = agentmemory.resume(self.engine, scope, task_id)
        access.record(self.core, scope, "task.resume", [m.id for m in state.steps])
        return state

    def close_task(self, scope: Scope | dict[str, str], task_id: str, *,
                   actor: str | None = None, reason: str | None = None) -> list[Memory]:
        """The task is over: its steps expire with it (`agents.step.after_close`)."""
        return agentmemory.close_task(self.engine, scope, task_id, actor=actor,
                                      reason=reason)

    def learn(self, scope: Scope | dict[str, str], content: str, *,
              outcome: str | None = None, task_id: str | None = None,
              source: str = Source.SYSTEM_INFERRED.value, tags: Iterable[str] | None = None,
              actor: str | None = None, reason: str | None = None) -> RememberResult:
        """Keep a lesson from a run; an inferred one is staged for review by default."""
        return agentmemory.learn(self.engine, scope, content, outcome=outcome,
                                 task_id=task_id, source=source, tags=tags, actor=actor,
                                 reason=reason)

    def promote(self, scope: Scope | dict[str, str], memory_id: str, *,
                actor: str | None = None, reason: str | None = None) -> Memory:
        """Keep a memory past its shelf life (a tool result worth keeping)."""
        return mutations.promote(self.engine.writes, scope, memory_id, actor=actor,
                                 reason=reason)

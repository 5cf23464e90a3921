"""Agent memory on the command line: tool-result, lesson, promote and the `task` group
(step, steps, resume, close). Each is one call of the Vault verb (agentmemory.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..model import RememberResult
from .options import content_arg, parse_json_opt, ttl_opt
from .render import memory_table, out, show
from .session import Ctx, emit, emit_memories, emit_mutation, run_verb

task_app = typer.Typer(no_args_is_help=True,
                       help="The steps of an agent's task: record, list, resume, close.")


def _written(c: Ctx, r: RememberResult) -> None:
    emit(c, r.to_dict(), lambda: out.print(
        f"{r.action} {r.id} v{r.version}" + (f" (was v{r.previous_version})"
                                             if r.action == "updated" else "")))


def tool_result(
    ctx: typer.Context,
    tool: Annotated[str, typer.Argument(help="The tool's name.")],
    output: Annotated[str, typer.Argument(help="What it returned; - reads stdin.")],
    args: Annotated[str | None, typer.Option(help="The call's arguments (JSON object).")
                    ] = None,
    task: Annotated[str | None, typer.Option(help="The task it belongs to.")] = None,
    ttl: Annotated[str | None, typer.Option(
        help="Shelf life (default: the strategy's agents.tool_result.ttl).")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="Repeatable.")] = None,
    reason: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Keep what a tool returned (source tool; short-lived unless promoted)."""
    run_verb(ctx, lambda c: _written(c, c.vault().tool_result(
        c.scope(), tool, content_arg(output) or "", args=parse_json_opt(args, "args"),
        task_id=task, ttl=ttl_opt(ttl), tags=tag, reason=reason)))


def lesson(
    ctx: typer.Context,
    content: Annotated[str, typer.Argument(help="What worked or failed; - reads stdin.")],
    outcome: Annotated[str | None, typer.Option(help="worked or failed.")] = None,
    task: Annotated[str | None, typer.Option(help="The task it was learned in.")] = None,
    source: Annotated[str, typer.Option(
        help="system_inferred (staged for review by default) or user_explicit, ...")
                      ] = "system_inferred",
    tag: Annotated[list[str] | None, typer.Option(help="Repeatable.")] = None,
    reason: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Keep a lesson from a run: prints added, staged (waits for review) or noop."""
    run_verb(ctx, lambda c: _written(c, c.vault().learn(
        c.scope(), content_arg(content) or "", outcome=outcome, task_id=task, source=source,
        tags=tag, reason=reason)))


def promote(ctx: typer.Context, memory_id: str,
            reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Keep a memory past its shelf life (clears its expiry; a new version)."""
    emit_mutation(ctx, lambda c: c.vault().promote(c.scope(), memory_id, reason=reason))


@task_app.command("step")
def step(
    ctx: typer.Context,
    task: Annotated[str, typer.Argument(help="The task id.")],
    name: Annotated[str, typer.Argument(help="What the step does.")],
    status: Annotated[str, typer.Option(
        help="pending, running, done, failed or skipped.")] = "pending",
    seq: Annotated[int | None, typer.Option(
        help="Its place in the task; an existing step's seq records its new state "
             "(default: after the last).")] = None,
    inputs: Annotated[str | None, typer.Option(help="JSON.")] = None,
    outputs: Annotated[str | None, typer.Option(help="JSON.")] = None,
    source: Annotated[str, typer.Option()] = "tool",
    reason: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Record a step of a task, or a new state of it."""
    run_verb(ctx, lambda c: _written(c, c.vault().record_step(
        c.scope(), task, name, status=status, seq=seq,
        inputs=parse_json_opt(inputs, "inputs"), outputs=parse_json_opt(outputs, "outputs"),
        source=source, reason=reason)))


@task_app.command("steps")
def steps(ctx: typer.Context,
          task: Annotated[str, typer.Argument(help="The task id.")]) -> None:
    """The task's live steps in order (by seq)."""
    emit_memories(ctx, lambda c: c.vault().task_steps(c.scope(), task))


@task_app.command("resume")
def resume(ctx: typer.Context,
           task: Annotated[str, typer.Argument(help="The task id.")]) -> None:
    """What was I doing? The steps in order and the first unfinished one."""
    def go(c: Ctx) -> None:
        st = c.vault().resume(c.scope(), task)

        def human() -> None:
            show(memory_table(st.steps))
            if st.current is not None:
                out.print(f"resume at step {st.current.metadata.get('seq')}: "
                          f"{st.current.metadata.get('step')} "
                          f"({st.current.metadata.get('status')}) {st.current.id}")
            else:
                out.print("nothing unfinished" if st.steps else "no live steps")
        emit(c, st.to_dict(), human)
    run_verb(ctx, go)


@task_app.command("close")
def close(ctx: typer.Context, task: Annotated[str, typer.Argument(help="The task id.")],
          reason: Annotated[str | None, typer.Option()] = None) -> None:
    """The task is over: its steps expire with it."""
    emit_memories(ctx, lambda c: c.vault().close_task(c.scope(), task, reason=reason))

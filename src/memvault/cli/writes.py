"""Verbs that write: remember, propose, observe, and the review queue."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from .. import validate as v
from .options import content_arg, parse_json_opt, read_input, slot_value_opt, ttl_opt
from .render import out
from .session import Ctx, emit, emit_memories, emit_mutation, run_verb


def remember(
    ctx: typer.Context,
    content: Annotated[str | None, typer.Argument(
        help="The statement to remember; - reads it from stdin.")] = None,
    slot: Annotated[str | None, typer.Option(help="Business key, e.g. report.format.")] = None,
    value: Annotated[str | None, typer.Option(help="Structured value (JSON or text).")] = None,
    topic: Annotated[str | None, typer.Option(
        help="What it is about when no slot names it, e.g. 'quiet cafes' (default: "
             "derived from the content).")] = None,
    kind: Annotated[str | None, typer.Option()] = None,
    source: Annotated[str, typer.Option()] = "user_explicit",
    source_text: Annotated[str | None, typer.Option()] = None,
    source_ref: Annotated[str | None, typer.Option()] = None,
    confidence: Annotated[float, typer.Option()] = 1.0,
    tag: Annotated[list[str] | None, typer.Option(help="Repeatable.")] = None,
    metadata: Annotated[str | None, typer.Option(help="JSON object.")] = None,
    ttl: Annotated[str | None, typer.Option(
        help="Shelf life: seconds (3600) or e.g. 90d, 12h.")] = None,
    valid_from: Annotated[str | None, typer.Option(help="ISO time or epoch ms.")] = None,
    valid_to: Annotated[str | None, typer.Option(help="ISO time or epoch ms.")] = None,
    reason: Annotated[str | None, typer.Option()] = None,
    expected_version: Annotated[int | None, typer.Option()] = None,
) -> None:
    """Store a statement or a new slot value: prints added, updated or noop."""
    def go(c: Ctx) -> None:
        val = slot_value_opt(slot, value)
        r = c.vault().remember(c.scope(), content_arg(content), slot=slot, value=val, kind=kind,
                               source=source, source_text=source_text, source_ref=source_ref,
                               confidence=confidence, tags=tag,
                               metadata=parse_json_opt(metadata, "metadata"), ttl=ttl_opt(ttl),
                               valid_from=valid_from, valid_to=valid_to, reason=reason,
                               expected_version=expected_version, topic=topic)
        emit(c, r.to_dict(), lambda: out.print(
            f"{r.action} {r.id} v{r.version}" + (f" (was v{r.previous_version})"
                                                 if r.action == "updated" else "")))
    run_verb(ctx, go)


def propose(
    ctx: typer.Context,
    content: Annotated[str | None, typer.Argument(
        help="The statement an agent proposes; - reads it from stdin.")] = None,
    slot: Annotated[str | None, typer.Option(help="Business key, e.g. report.format.")] = None,
    value: Annotated[str | None, typer.Option(help="Structured value (JSON or text).")] = None,
    topic: Annotated[str | None, typer.Option(
        help="What it is about when no slot names it (default: derived from the "
             "content).")] = None,
    kind: Annotated[str | None, typer.Option()] = None,
    source: Annotated[str, typer.Option()] = "user_explicit",
    source_text: Annotated[str | None, typer.Option(
        help="The user's own words; needed to change a stored value.")] = None,
    confidence: Annotated[float, typer.Option()] = 1.0,
    tag: Annotated[list[str] | None, typer.Option(help="Repeatable.")] = None,
    ttl: Annotated[str | None, typer.Option(
        help="Shelf life: seconds (3600) or e.g. 90d, 12h.")] = None,
    reason: Annotated[str | None, typer.Option()] = None,
) -> None:
    """A statement from an agent, through the write gate: prints added, updated, noop,
    stage (kept for review), block or reject, with the gate's reasons."""
    def go(c: Ctx) -> None:
        val = slot_value_opt(slot, value)
        o = c.vault().propose(c.scope(), content_arg(content), slot=slot, value=val, kind=kind,
                              source=source, source_text=source_text, confidence=confidence,
                              tags=tag, ttl=ttl_opt(ttl), reason=reason, topic=topic)
        emit(c, o.to_dict(), lambda: out.print(
            f"{o.action} {o.memory_id or ''}".rstrip()
            + (f" ({', '.join(o.reasons)})" if o.reasons else "")))
    run_verb(ctx, go)


def observe(ctx: typer.Context,
            path: Annotated[Path | None, typer.Argument(
                help="JSON list of {role, content[, id]}; - or none: stdin.")] = None,
            source_ref: Annotated[str | None, typer.Option()] = None) -> None:
    """Keep a conversation's turns and learn from it through the gate."""
    def go(c: Ctx) -> None:
        raw = read_input(path, "observe: the messages")
        messages = v.parse_json(raw, "observe: the messages")
        r = c.vault().observe(c.scope(), messages, source_ref=source_ref)

        def human() -> None:
            out.print(f"kept {len(r.turns)} turns")
            for o in r.outcomes:
                out.print(f"{o.action:7} {', '.join(o.reasons) or '-':40} {o.content}",
                          highlight=False, markup=False)
        emit(c, r.to_dict(), human)
    run_verb(ctx, go)


review_app = typer.Typer(help="The review queue: staged candidates waiting for a person.",
                         no_args_is_help=True)


@review_app.command("list")
def review_list(ctx: typer.Context,
                limit: Annotated[int, typer.Option()] = 100) -> None:
    """Pending candidates, newest first."""
    emit_memories(ctx, lambda c: c.vault().review_list(c.scope(), limit=limit))


@review_app.command("show")
def review_show(ctx: typer.Context, memory_id: str) -> None:
    """A candidate, why it was staged, and the memories it contradicts."""
    def go(c: Ctx) -> None:
        d = c.vault().review_show(c.scope(), memory_id)
        emit(c, d, lambda: out.print_json(json.dumps(d, ensure_ascii=False)))
    run_verb(ctx, go)


@review_app.command("approve")
def review_approve(ctx: typer.Context, memory_id: str,
                   reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Apply a candidate through the normal commit path."""
    emit_mutation(ctx, lambda c: c.vault().review_approve(c.scope(), memory_id, reason=reason))


@review_app.command("reject")
def review_reject(ctx: typer.Context, memory_id: str,
                  reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Keep a candidate as rejected, with the reason."""
    emit_mutation(ctx, lambda c: c.vault().review_reject(c.scope(), memory_id, reason=reason))

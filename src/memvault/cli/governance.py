"""Verbs that govern stored memories: rollback, edit, freeze, unfreeze, forget, expire,
purge, purge-status, sweep."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .options import parse_json_opt
from .render import out, progress_bar
from .session import Ctx, emit, emit_mutation, run_verb


def rollback(ctx: typer.Context, memory_id: str, to_version: int,
             reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Restore version N's state as a new version."""
    emit_mutation(ctx, lambda c: c.vault().rollback(c.scope(), memory_id, to_version,
                                                    reason=reason))


def edit(ctx: typer.Context, memory_id: str,
         content: Annotated[str | None, typer.Option()] = None,
         value: Annotated[str | None, typer.Option(
             help='Structured value as JSON (a string is quoted: \'"XLSX"\').')] = None,
         kind: Annotated[str | None, typer.Option()] = None,
         topic: Annotated[str | None, typer.Option(
             help="What it is about, e.g. 'quiet cafes'.")] = None,
         tag: Annotated[list[str] | None, typer.Option()] = None,
         metadata: Annotated[str | None, typer.Option(help="JSON object.")] = None,
         confidence: Annotated[float | None, typer.Option()] = None,
         expires_at: Annotated[str | None, typer.Option(help="ISO time or epoch ms.")] = None,
         reason: Annotated[str | None, typer.Option()] = None,
         expected_version: Annotated[int | None, typer.Option()] = None,
         valid_from: Annotated[str | None, typer.Option(
             help="When it began to hold in the world (ISO time or epoch ms).")] = None,
         valid_to: Annotated[str | None, typer.Option(
             help="When it stopped holding in the world (ISO time or epoch ms).")] = None
         ) -> None:
    """Change a memory by hand (a new version with the reason)."""
    emit_mutation(ctx, lambda c: c.vault().edit(
        c.scope(), memory_id, content=content, value=parse_json_opt(value, "value"),
        kind=kind, tags=tag, metadata=parse_json_opt(metadata, "metadata"),
        confidence=confidence, expires_at=expires_at, reason=reason,
        expected_version=expected_version, topic=topic, valid_from=valid_from,
        valid_to=valid_to))


def freeze(ctx: typer.Context, memory_id: str,
           reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Lock a memory against every change but unfreeze."""
    emit_mutation(ctx, lambda c: c.vault().freeze(c.scope(), memory_id, reason=reason))


def unfreeze(ctx: typer.Context, memory_id: str,
             reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Unlock a frozen memory."""
    emit_mutation(ctx, lambda c: c.vault().unfreeze(c.scope(), memory_id, reason=reason))


def forget(ctx: typer.Context, memory_id: str,
           reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Soft delete (kept in history; rollback restores it)."""
    emit_mutation(ctx, lambda c: c.vault().forget(c.scope(), memory_id, reason=reason))


def expire(ctx: typer.Context, memory_id: str,
           reason: Annotated[str | None, typer.Option()] = None) -> None:
    """End a memory's shelf life now (demoted to a candidate by default)."""
    emit_mutation(ctx, lambda c: c.vault().expire(c.scope(), memory_id, reason=reason))


def purge(ctx: typer.Context, memory_id: str,
          reason: Annotated[str | None, typer.Option()] = None,
          yes: Annotated[bool, typer.Option("--yes", help="Do not ask.")] = False) -> None:
    """Erase a memory's content from every revision and index (irreversible). Says
    whether the erased bytes are gone from the files yet, or pending (purge-status)."""
    if not yes and sys.stdin.isatty() and not typer.confirm(
            f"Erase {memory_id} permanently?"):
        raise typer.Exit(1)

    def go(c: Ctx) -> None:
        r = c.vault().purge(c.scope(), memory_id, reason=reason)
        emit(c, r.to_dict(), lambda: out.print(
            f"purged {memory_id} ({r.tombstone.op_id}); erasure {r.erasure}"))
    run_verb(ctx, go)


def purge_status(ctx: typer.Context, memory_id: str) -> None:
    """Whether a purged memory's erased bytes are gone from the store's files: done, or
    pending while another connection's read snapshot holds them (retried first)."""
    def go(c: Ctx) -> None:
        state = c.vault().purge_status(c.scope(), memory_id)
        emit(c, {"memory_id": memory_id, "erasure": state},
             lambda: out.print(f"{memory_id}: erasure {state}"))
    run_verb(ctx, go)


def sweep(ctx: typer.Context,
          all_scopes: Annotated[bool, typer.Option("--all", help="Every scope.")] = False,
          step: Annotated[list[str] | None, typer.Option(
              "--step", help="Only these steps: expire, summarize, graph, caps, "
              "consolidate, snapshots (with --all; repeatable; default all).")] = None
          ) -> None:
    """The lifecycle job: expire lapsed memories, run summary triggers, read new facts
    into the graph, enforce per-user caps, propose (or apply) merges of near-duplicates
    (docs/layers.md, docs/consolidation.md)."""
    def go(c: Ctx) -> None:
        with progress_bar() as p:
            task = p.add_task("sweeping scopes", total=None)
            rep = c.vault().maintain(
                None if all_scopes else c.scope(), steps=step or None,
                progress=lambda done, total: p.update(task, completed=done, total=total))
        d = rep.to_dict()
        emit(c, d, lambda: out.print(
            f"expired {d['expired']}, summaries {len(d['summaries'])}, relations "
            f"{len(d['relations'])}, evicted {len(d['evicted'])}, snapshots "
            f"{len(d['snapshots'])} taken, {len(d['snapshots_dropped'])} dropped, merges "
            f"{len(d['merges_proposed'])} proposed, {len(d['merges_applied'])} applied"
            + "".join(f"\nerror {e}" for e in d["errors"])))
    run_verb(ctx, go)

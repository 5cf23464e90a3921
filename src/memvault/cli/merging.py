"""Merge, split, their undo, and consolidation (writes/merging.py, consolidate.py)."""

from __future__ import annotations

from typing import Annotated

import typer

from .render import out
from .session import Ctx, emit, emit_memories, emit_mutation, run_verb


def merge(ctx: typer.Context, memory_ids: Annotated[list[str], typer.Argument(
              help="Two or more memory ids.")],
          content: Annotated[str | None, typer.Option(
              help="The merged statement (default: the best source's).")] = None,
          reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Merge memories into one; each source is forgotten "merged into <id>"."""
    emit_mutation(ctx, lambda c: c.vault().merge(c.scope(), memory_ids, content=content,
                                                 reason=reason))


def split(ctx: typer.Context, memory_id: str,
          part: Annotated[list[str], typer.Option(
              "--part", help="One statement of the split (repeat, two or more).")],
          reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Split a memory into several; the source is forgotten "split into …"."""
    emit_memories(ctx, lambda c: c.vault().split(c.scope(), memory_id, part, reason=reason))


def unmerge(ctx: typer.Context, memory_id: str,
            reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Undo a merge: the merged memory is forgotten, its sources restored."""
    emit_memories(ctx, lambda c: c.vault().unmerge(c.scope(), memory_id, reason=reason))


def unsplit(ctx: typer.Context, memory_id: str,
            reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Undo a split (name the source or a part): parts forgotten, source restored."""
    emit_mutation(ctx, lambda c: c.vault().unsplit(c.scope(), memory_id, reason=reason))


def consolidate(ctx: typer.Context,
                apply: Annotated[bool | None, typer.Option(
                    "--apply/--propose",
                    help="Merge now, or stage for review (default: the strategy's "
                    "consolidate.apply).")] = None) -> None:
    """Find near-duplicates (same topic, near-identical statement): stage each group's
    merge for review, or merge it."""
    def go(c: Ctx) -> None:
        groups = c.vault().consolidate(c.scope(), apply=apply)

        def human() -> None:
            if not groups:
                out.print("no near-duplicates")
            for g in groups:
                what = (f"merged as {g['merged']}" if g["merged"] else
                        f"proposed as {g['proposal']}" if g["proposal"] else
                        "already proposed")
                out.print(f"{' + '.join(g['ids'])}: {what} — {g['content']}")
        emit(c, groups, human)
    run_verb(ctx, go)

"""The Vault's merge, split and consolidation verbs (writes/merging.py, consolidate.py),
kept apart from vault.py so the facade stays small; Vault inherits them."""

from __future__ import annotations

from typing import Any

from . import consolidate as consolidation
from .engine import Engine
from .model import Memory, Scope
from .writes import merging


class MergeVerbs:
    engine: Engine

    def merge(self, scope: Scope | dict[str, str], ids: list[str], *,
              content: str | None = None, actor: str | None = None,
              reason: str | None = None) -> Memory:
        """Merge memories into a new one (content given, or the best source's): its
        `merged_from` names the sources, each forgotten "merged into <new id>". Frozen
        sources, other scopes and different slot values are refused; nothing changes."""
        return merging.merge(self.engine.writes, scope, ids, content=content, actor=actor,
                             reason=reason)

    def split(self, scope: Scope | dict[str, str], memory_id: str, parts: list[str], *,
              actor: str | None = None, reason: str | None = None) -> list[Memory]:
        """Split a memory into one new memory per statement (`split_from`); the source is
        forgotten "split into …"."""
        return merging.split(self.engine.writes, scope, memory_id, parts, actor=actor,
                             reason=reason)

    def unmerge(self, scope: Scope | dict[str, str], memory_id: str, *,
                actor: str | None = None, reason: str | None = None) -> list[Memory]:
        """Undo a merge: the merged memory is forgotten, its sources restored."""
        return merging.unmerge(self.engine.writes, scope, memory_id, actor=actor,
                               reason=reason)

    def unsplit(self, scope: Scope | dict[str, str], memory_id: str, *,
                actor: str | None = None, reason: str | None = None) -> Memory:
        """Undo a split (name the source or any part): parts forgotten, source restored."""
        return merging.unsplit(self.engine.writes, scope, memory_id, actor=actor,
                               reason=reason)

    def consolidate(self, scope: Scope | dict[str, str], *, apply: bool | None = None,
                    actor: str | None = None) -> list[dict[str, Any]]:
        """Find near-duplicates (same topic, near-identical statement) and stage each
        group's merge for review, or merge them with `apply` (default: the strategy's
        `consolidate.apply`)."""
        return consolidation.consolidate(self.engine, scope, apply=apply, actor=actor)

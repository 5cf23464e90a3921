"""The Vault's export and import verbs (portability.py; docs/import.md for the reviewed
import), mixed into Vault. Thin: export and the plain import are portability.py, the
reviewed import's scan importscan.py and its commit importreview.py."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import IO

from . import portability
from .core import Core
from .engine import Engine
from .importreview import import_review
from .importscan import ImportReport
from .model import Scope


class ImportVerbs:
    core: Core
    engine: Engine

    def export_jsonl(self, scope: Scope | dict[str, str], out: IO[str]) -> int:
        """Write one header line, then one line per memory with its full history."""
        return portability.export_jsonl(self.core, scope, out)

    def import_jsonl(self, lines: Iterable[str], *, batch: int = 512, atomic: bool = True,
                     progress: Callable[[int], None] | None = None,
                     scope: Scope | dict[str, str] | None = None) -> int:
        """Load an export. With atomic=True (default) it is all or nothing: a bad line or an
        id that exists fails the lot. atomic=False commits every `batch` memories (bulk
        loads); a failure then leaves the earlier batches in place and names the line.
        PostgreSQL's HNSW indexes are dropped and rebuilt around such a load once it has
        brought as many memories as the store held (a small one keeps them).
        With `scope`, every memory and revision must lie inside it (ScopeError otherwise):
        a caller allowed one scope cannot load rows into another. A line that collides
        with the store (an id, a revision's op id, the active value of a slot) or with an
        earlier line fails it with ConflictError naming it; import_review stages such
        lines instead."""
        return portability.import_jsonl(self.engine, lines, batch=batch, atomic=atomic,
                                        progress=progress, scope=scope)

    def import_review(self, lines: Iterable[str], *,
                      scope: Scope | dict[str, str] | None = None, dry_run: bool = False,
                      actor: str | None = None) -> ImportReport:
        """Scan an export against the store and within itself (duplicates, slot and
        topic conflicts, declared clashes, frozen targets, the version cap, instruction-
        like text, sensitive data, ids and history already stored) and report every
        line. Unless `dry_run`, one transaction then loads the clean lines as exported
        and stages each flagged statement in the review queue (review_list), its review
        record saying why. `scope`: as in import_jsonl."""
        return import_review(self.engine, lines, scope=scope, dry_run=dry_run, actor=actor)

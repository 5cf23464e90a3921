"""Moving memories in and out of a store: export, import, reindex, migrate."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from .. import validate
from ..errors import ValidationError
from ..importscan import ImportReport
from .options import read_input
from .render import err, out, progress_bar, short, show
from .session import Ctx, emit, run_verb


def export_(ctx: typer.Context,
            path: Annotated[Path | None, typer.Argument(help="Output file (default stdout).")]
            = None) -> None:
    """Export the scope's memories with full history as JSONL."""
    def go(c: Ctx) -> None:
        vault, scope = c.vault(), validate.scope(c.scope())  # fail before touching a file
        if path is None:
            n = vault.export_jsonl(scope, sys.stdout)
        else:
            n = _write_file(path, lambda f: vault.export_jsonl(scope, f), c.db)
        err.print(f"exported {n} memories")
    run_verb(ctx, go)


def _write_file(path: Path, write: Callable[[Any], int], db: str) -> int:
    """Write through a temporary file beside `path`, renamed over it only when complete:
    a failed export leaves an existing file as it was. The store's own files are refused."""
    target = path.expanduser().resolve()
    store = Path(db).expanduser().resolve() if db and "://" not in db else None
    if store is not None and target in {store, *(Path(f"{store}{x}") for x in
                                                 ("-wal", "-shm", "-journal"))}:
        raise ValidationError(f"export: {path} is the store itself; choose another file")
    if target.is_dir():
        raise ValidationError(f"export: {path} is a directory")
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as e:
        raise ValidationError(f"export: cannot write {path} ({e.strerror or e})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            n = write(f)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise
    return n


def import_(ctx: typer.Context,
            path: Annotated[Path, typer.Argument(help="A JSONL export; - reads stdin.")],
            review: Annotated[bool, typer.Option(
                "--review", help="Scan first (duplicates, conflicts, frozen targets, "
                "instruction-like text, PII); load the clean lines, stage the rest for "
                "review; print the report.")] = False,
            dry_run: Annotated[bool, typer.Option(
                "--dry-run", help="Scan and print the report; store nothing.")] = False
            ) -> None:
    """Import a JSONL export into the scope (--tenant, --user), all or nothing: a memory
    or revision of another scope fails the lot. --review / --dry-run: docs/import.md."""
    def go(c: Ctx) -> None:
        scope = c.scope()  # like every other verb: named, and nothing outside it is written
        lines = read_input(path, "import").split("\n")
        if review or dry_run:
            report = c.vault().import_review(lines, scope=scope, dry_run=dry_run)
            emit(c, report.to_dict(), lambda: _show_report(report))
            return
        with progress_bar() as p:
            task = p.add_task("importing", total=max(len(lines) - 1, 0))
            n = c.vault().import_jsonl(lines, progress=lambda k: p.advance(task, k),
                                       scope=scope)
        emit(c, {"imported": n}, lambda: out.print(f"imported {n} memories"))
    run_verb(ctx, go)


def _show_report(report: ImportReport) -> None:
    """The scan, one row per line that has findings or was staged or skipped, then the
    counts."""
    t = Table(title="import scan" + (" (dry run: nothing stored)" if report.dry_run else ""))
    for col in ("line", "id", "action", "findings", "content"):
        t.add_column(col, no_wrap=col in ("id",))
    for r in report.lines:
        if r.action == "import" and not r.findings:
            continue
        found = "; ".join(f"{f.kind}: {f.message}" for f in r.findings)
        t.add_row(str(r.line), r.staged_id or r.id, r.action, found, short(r.content or ""))
    show(t)
    tail = " — a dry run, nothing was stored" if report.dry_run else \
        " (see `memvault review list`)"
    out.print(f"{report.imported} to import, {report.staged} to stage for review, "
              f"{report.skipped} to skip{tail}" if report.dry_run else
              f"{report.imported} imported, {report.staged} staged for review, "
              f"{report.skipped} skipped{tail}")


def reindex(ctx: typer.Context) -> None:
    """Re-embed every memory with the configured embedder and record it in the store."""
    def go(c: Ctx) -> None:
        v = c.vault(check_models=False)
        with progress_bar() as p:
            task = p.add_task(f"embedding with {v.embedding_model}", total=v.store.count())
            n = v.reindex(progress=lambda done, total: p.update(task, completed=done))
        emit(c, {"reindexed": n, "embedder": v.embedding_model},
             lambda: out.print(f"reindexed {n} memories with {v.embedding_model}"))
    run_verb(ctx, go)


def migrate(ctx: typer.Context) -> None:
    """Bring the store's schema up to date (SQLite file or postgresql:// DSN)."""
    from ..store import open_store

    def go(c: Ctx) -> None:
        store = open_store(c.db)  # opening applies pending migrations, under a lock
        try:
            version = store.schema_version()
        finally:
            store.close()
        emit(c, {"schema_version": version},
             lambda: out.print(f"schema at version {version}: up to date"))
    run_verb(ctx, go)

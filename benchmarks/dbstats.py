"""What the core benchmark reads from the SQLite file it built: file sizes, bytes per table
(`dbstat`) and row counts, through a separate read-only connection (the project's driver,
sqlean), so nothing goes through the store's internals."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import sqlean


@contextmanager
def read_only(db: Path) -> Iterator[sqlean.Connection]:
    """A read-only connection to `db`; it sees what the vault has committed (WAL included)."""
    with closing(sqlean.connect(db.resolve().as_uri() + "?mode=ro", uri=True)) as con:
        yield con


def row_counts(db: Path, tables: list[str]) -> dict[str, int]:
    with read_only(db) as con:
        return {t: con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}


def file_sizes(db: Path) -> dict[str, int]:
    return {suffix or "db": (Path(str(db) + suffix).stat().st_size
                             if Path(str(db) + suffix).exists() else 0)
            for suffix in ("", "-wal", "-shm")}


def table_sizes(db: Path) -> list[tuple[str, int]]:
    """Bytes per table (indexes and FTS shadow tables folded into their owner)."""
    try:
        with read_only(db) as con:
            rows = con.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall()
            owners = dict(con.execute(
                "SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')"
            ).fetchall())
    except sqlean.Error:  # dbstat not compiled in
        return []
    out: Counter = Counter()
    for name, size in rows:
        owner = owners.get(name, name)
        if owner.startswith("memories_fts"):
            owner = "memories_fts (FTS5)"
        out[owner] += int(size)
    return out.most_common()

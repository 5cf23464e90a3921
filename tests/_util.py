"""Helpers that look at the store file through a separate SQLite connection, so the
assertions do not trust the code under test to report its own state."""

from __future__ import annotations

import hashlib
from contextlib import closing
from pathlib import Path
from typing import Any

import sqlean as sqlite3

from memvault import Vault


def _path(target: Vault | str | Path) -> str:
    if isinstance(target, Vault):
        return str(target.store.path)  # type: ignore[attr-defined]
    return str(target)


def query(target: Vault | str | Path, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(_path(target))) as db:
        return [tuple(r) for r in db.execute(sql, params).fetchall()]


def scalar(target: Vault | str | Path, sql: str, params: Any = ()) -> Any:
    return query(target, sql, params)[0][0]


def counts(target: Vault | str | Path) -> dict[str, int]:
    """Rows in every table that a write touches."""
    return {t: scalar(target, f"SELECT COUNT(*) FROM {t}")
            for t in ("memories", "revisions", "memories_fts", "vectors")}


def dump(target: Vault | str | Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table a write touches (vectors as digests), in a stable order.
    Two equal dumps mean the store did not change."""
    def vec_rows() -> list[tuple[Any, ...]]:
        return [(r[0], r[1], hashlib.sha256(r[2]).hexdigest())
                for r in query(target, "SELECT mrow, model, vec FROM vectors ORDER BY 1, 2")]

    return {
        "memories": query(target, "SELECT rowid, * FROM memories ORDER BY rowid"),
        "revisions": query(target, "SELECT * FROM revisions ORDER BY seq"),
        "memories_fts": query(target, "SELECT rowid, scope, body FROM memories_fts "
                                      "ORDER BY rowid"),
        "vectors": vec_rows(),
    }


class ManualClock:
    """A clock the test moves by hand (epoch ms). Vault(clock=...) reads it for every
    timestamp it records, so as-of and expiry tests need no sleeping."""

    def __init__(self, start: int = 1_767_225_600_000) -> None:  # 2026-01-01T00:00:00Z
        self.now = start

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> int:
        self.now += ms
        return self.now

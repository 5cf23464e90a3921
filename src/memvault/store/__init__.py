"""Storage backends behind one interface (see base.py)."""

from __future__ import annotations

import os

from .base import ListFilter, Store, Tx
from .sqlite import SQLiteStore


def open_store(db: str | os.PathLike[str]) -> Store:
    """A SQLite path, or a postgresql:// DSN."""
    target = os.fspath(db)
    if target.startswith(("postgresql://", "postgres://")):
        try:
            from .postgres import PostgresStore
        except ImportError as e:
            from ..errors import StoreError

            raise StoreError(f"the PostgreSQL backend needs its extra: "
                             f"pip install 'memvault[postgres]' ({e})") from None
        return PostgresStore(target)
    if not target.strip() or "://" in target:
        from ..errors import ValidationError

        raise ValidationError(f"db: {target!r} is neither a SQLite file path nor a "
                              "postgresql:// DSN")
    return SQLiteStore(target)


__all__ = ["ListFilter", "SQLiteStore", "Store", "Tx", "open_store"]

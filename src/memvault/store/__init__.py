"""Storage backends behind one interface (see base.py)."""

from __future__ import annotations

import os

from .base import ListFilter, Store, Tx
from .sqlite import SQLiteStore


def open_store(db: str | os.PathLike[str]) -> Store:
    """A SQLite path, or a postgresql:// DSN."""
    target = os.fspath(db)
    if target.startswith(("postgresql://", "postgres://")):
        from ..errors import StoreError

        raise StoreError("the PostgreSQL backend is not available in this version")
    return SQLiteStore(target)


__all__ = ["ListFilter", "SQLiteStore", "Store", "Tx", "open_store"]

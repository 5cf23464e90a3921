"""Storage backends behind one interface (see base.py)."""

from __future__ import annotations

import os
import re

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
    if _LIBPQ_PAIRS.match(target):
        from ..errors import ValidationError

        # "dbname=x host=y" would otherwise become a directory of that name holding a
        # SQLite file, and the caller would never learn PostgreSQL was not used.
        raise ValidationError("db: this looks like a libpq key=value connection string; "
                              "give PostgreSQL as a postgresql:// URI (postgresql://user@"
                              "host/dbname)")
    return SQLiteStore(target)


_LIBPQ_PAIRS = re.compile(r"^\s*(?:host|hostaddr|port|dbname|user|password|sslmode|"
                          r"service|options)\s*=\S*(?:\s+\w+\s*=)", re.IGNORECASE)


__all__ = ["ListFilter", "SQLiteStore", "Store", "Tx", "open_store"]

"""Storage backends behind one interface (see base.py)."""

from __future__ import annotations

import os
import re

from .base import ListFilter, Store, Tx
from .sqlite import SQLiteStore


def open_store(db: str | os.PathLike[str], *, read_db: str | None = None) -> Store:
    """A SQLite path, or a postgresql:// DSN; `read_db`: a PostgreSQL read replica of it
    (a streaming standby) for the read verbs (store/replica.py)."""
    target = os.fspath(db)
    if read_db is not None:
        _check_read_db(target, read_db)
    if target.startswith(("postgresql://", "postgres://")):
        try:
            from .postgres import PostgresStore
        except ImportError as e:
            from ..errors import StoreError

            raise StoreError(f"the PostgreSQL backend needs its extra: "
                             f"pip install 'memvault[postgres]' ({e})") from None
        return PostgresStore(target, read_db=read_db)
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


def _check_read_db(db: str, read_db: object) -> None:
    from ..errors import ValidationError

    if not isinstance(read_db, str) or not read_db.startswith(("postgresql://",
                                                               "postgres://")):
        raise ValidationError("read_db: expected the postgresql:// URI of a read replica "
                              "(a streaming standby of the primary)")
    if not db.startswith(("postgresql://", "postgres://")):
        raise ValidationError("read_db: read replicas are for a PostgreSQL store; this "
                              "store is SQLite (give --db a postgresql:// URI, or leave "
                              "--read-db out)")


_LIBPQ_PAIRS = re.compile(r"^\s*(?:host|hostaddr|port|dbname|user|password|sslmode|"
                          r"service|options)\s*=\S*(?:\s+\w+\s*=)", re.IGNORECASE)


__all__ = ["ListFilter", "SQLiteStore", "Store", "Tx", "open_store"]

"""Strategy versions in the store (SQLite migration 11, PostgreSQL 13), written once for
both backends and mixed into SQLStore: one row per strategy hash with its full content
and when the store first and last served with it (reads/strategies.py decides when)."""

from __future__ import annotations

from typing import Any

from .tablebase import TableAccess

STRATEGY_COLS = "hash, name, content, first_used_at, last_used_at"


def strategy_dict(r: Any) -> dict[str, Any]:
    return {"hash": r["hash"], "name": r["name"], "content": r["content"],
            "first_used_at": int(r["first_used_at"]), "last_used_at": int(r["last_used_at"])}


class StrategyTables(TableAccess):
    def note_strategy(self, hash_: str, name: str, content: str, at: int) -> None:
        """Insert the strategy, or widen its first/last use to include `at` (the content
        of a hash never changes: it is the hash of that content)."""
        ph = self._ph
        self._execute(
            f"INSERT INTO strategies ({STRATEGY_COLS}) VALUES ({ph('hash')}, {ph('name')}, "
            f"{ph('content')}, {ph('at')}, {ph('at')}) ON CONFLICT (hash) DO UPDATE SET "
            "first_used_at = CASE WHEN excluded.first_used_at < strategies.first_used_at "
            "THEN excluded.first_used_at ELSE strategies.first_used_at END, "
            "last_used_at = CASE WHEN excluded.last_used_at > strategies.last_used_at "
            "THEN excluded.last_used_at ELSE strategies.last_used_at END",
            {"hash": hash_, "name": name, "content": content, "at": at})

    def get_strategy(self, hash_: str) -> dict[str, Any] | None:
        rows = self._q(f"SELECT {STRATEGY_COLS} FROM strategies WHERE hash = "
                       f"{self._ph('hash')}", {"hash": hash_})
        return strategy_dict(rows[0]) if rows else None

    def list_strategies(self) -> list[dict[str, Any]]:
        """Every strategy served with, first used first."""
        rows = self._q(f"SELECT {STRATEGY_COLS} FROM strategies "
                       "ORDER BY first_used_at, hash")
        return [strategy_dict(r) for r in rows]

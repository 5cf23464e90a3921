"""What a backend supplies to the tables written once for both (server_tables.py,
outbox.py, snapshot_tables.py), declared once: its placeholder style (`_ph`), a read
(`_q`, rows readable by column name), writes that run in their own transaction or nest
as a savepoint inside an open one (`_execute` → rowcount, `_execute_many`), and
`transaction()`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


class TableAccess:
    _ph: Callable[[str], str]

    def _q(self, query: Any, params: Any = None) -> list[Any]:
        raise NotImplementedError

    def _execute(self, query: str, params: dict[str, Any]) -> int:
        raise NotImplementedError

    def _execute_many(self, query: str, rows: Iterable[dict[str, Any]]) -> None:
        raise NotImplementedError

    def transaction(self) -> Any:
        raise NotImplementedError

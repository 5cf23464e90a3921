"""Strategy versions: every strategy a store has served with, kept whole (its canonical
JSON), with when it was first and last used, so a trace's `strategy_hash` resolves to
the strategy that produced it long after the store switched to another one.

Noting is cheap: once per distinct hash per store per process, then again only when the
last note is an hour old (last use is coarse, not per recall)."""

from __future__ import annotations

import json
import re
import threading
import weakref
from typing import Any

from ..core import Core
from ..errors import NotFoundError, ValidationError

# Last use is recorded to within this much (ms): one small write an hour per process.
NOTE_EVERY_MS = 3_600_000

_HASH = re.compile(r"^[0-9a-f]{16}$")
_lock = threading.Lock()
# store -> {hash: when this process last noted it}; weak: a closed store goes with it.
_noted: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()


def note(core: Core) -> None:
    """Record that the store serves with the core's strategy (now), unless this process
    did so for that hash less than NOTE_EVERY_MS ago."""
    s, now = core.strategy, core.clock()
    with _lock:
        seen = _noted.setdefault(core.store, {})
        last = seen.get(s.hash)
        if last is not None and 0 <= now - last < NOTE_EVERY_MS:
            return
        seen[s.hash] = now
    try:
        core.store.note_strategy(s.hash, s.name, s.canonical_json(), now)
    except BaseException:
        with _lock:  # not kept: the next serve tries again
            _noted.get(core.store, {}).pop(s.hash, None)
        raise


def _public(row: dict[str, Any], current: str) -> dict[str, Any]:
    return {"hash": row["hash"], "name": row["name"],
            "first_used_at": row["first_used_at"], "last_used_at": row["last_used_at"],
            "current": row["hash"] == current}


def history(core: Core) -> list[dict[str, Any]]:
    """Every strategy the store has served with, first used first; `current` marks the
    one this vault serves with."""
    return [_public(r, core.strategy.hash) for r in core.store.list_strategies()]


def check_hash(value: Any) -> str:
    if not isinstance(value, str) or not _HASH.match(value.strip().lower()):
        raise ValidationError("hash: expected a strategy hash, 16 hex digits (as in a "
                              "trace's strategy_hash or `config history`)")
    return value.strip().lower()


def show(core: Core, hash_: Any) -> dict[str, Any]:
    """One strategy the store has served with: the history row and the full strategy."""
    h = check_hash(hash_)
    row = core.store.get_strategy(h)
    if row is None:
        raise NotFoundError(f"no strategy {h} in this store's history (`config history` "
                            "lists those it has served with)")
    # As stored, not re-read through today's Strategy: its defaults may have moved since.
    return {**_public(row, core.strategy.hash), "strategy": json.loads(row["content"])}

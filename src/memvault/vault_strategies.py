"""The Vault's strategy-version verbs (docs/retrieval.md, "Strategy versions"), mixed into
Vault: the strategies the store has served with, one of them in full by its hash, and a
shadow run of a candidate strategy over a scope's recent traces. Thin: the work is in
reads/strategies.py and reads/shadow.py."""

from __future__ import annotations

import os
from typing import Any

from .config import Strategy, as_strategy
from .engine import Engine
from .reads import access, strategies
from .reads import shadow as shadowing


class StrategyVerbs:
    engine: Engine

    def strategy_history(self) -> list[dict[str, Any]]:
        """Every strategy the store has served with, first used first: hash, name,
        first_used_at, last_used_at (epoch ms, to within an hour) and `current`."""
        return strategies.history(self.engine.core)

    def strategy_version(self, hash: str) -> dict[str, Any]:
        """One strategy the store has served with, in full (`strategy`), by its hash (a
        trace's `strategy_hash`); NotFoundError if it never served here."""
        return strategies.show(self.engine.core, hash)

    def shadow_run(self, tenant: str, candidate: Strategy | str | os.PathLike[str]
                   | dict[str, Any], *, user: str | None = None, traces: int = 20,
                   top_k: int | None = None) -> dict[str, Any]:
        """Replay the queries of the `traces` most recent traces of the user (None: of
        the tenant) under the strategy in force and under `candidate`, writing nothing:
        per query the memories that would enter, leave or move in the top k, and a
        summary (changed, unchanged, mean_overlap)."""
        core = self.engine.core
        out = shadowing.shadow(core, tenant, as_strategy(candidate, 'candidate'), user=user,
                               traces=traces, top_k=top_k)
        by_user: dict[str, list[str]] = {}
        for q in out["queries"]:
            by_user.setdefault(q["user"], []).extend(q.get("current", []) + q.get(
                "candidate", []))
        for usr, ids in by_user.items():
            access.record(core, {"tenant": out["tenant"], "user": usr}, "shadow", ids)
        return out

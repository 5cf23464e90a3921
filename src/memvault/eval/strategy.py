"""What retrieval strategy a run measured, as recorded in its snapshot.

HOOK: for now the strategy is the Vault's recall weights and its embedder, and
`strategy_hash` is the sha256 of the weights' canonical JSON. The versioned strategy
config (memvault.config) replaces this function; a snapshot keeps the same keys
(``strategy``, ``strategy_hash``), so `memvault eval compare` works across the change.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from ..vault import Vault


def _as_dict(obj: Any) -> dict[str, Any]:
    # The weights are a dataclass today; accept a pydantic model or a mapping as well so
    # a change of the weights' type does not break the harness.
    if obj is None:
        return {}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        return dict(dump(mode="json"))
    if isinstance(obj, dict):
        return dict(obj)
    return {"repr": repr(obj)}


def strategy_info(vault: Vault) -> dict[str, Any]:
    """{"weights": {...}, "embedding_model": "...", "strategy_hash": sha256 hex}."""
    weights = _as_dict(getattr(vault, "weights", None))
    canonical = json.dumps(weights, sort_keys=True, separators=(",", ":"), default=str)
    return {"weights": weights, "embedding_model": vault.embedding_model,
            "strategy_hash": hashlib.sha256(canonical.encode("utf-8")).hexdigest()}

"""What retrieval strategy a run measured, as recorded in its snapshot: the whole
strategy config (memvault.config), its hash, and the embedder."""

from __future__ import annotations

from typing import Any

from ..vault import Vault


def strategy_info(vault: Vault) -> dict[str, Any]:
    """{"config": {...}, "embedding_model": "...", "strategy_hash": the config's hash}."""
    return {"config": vault.strategy.model_dump(mode="json"),
            "embedding_model": vault.embedding_model,
            "strategy_hash": vault.strategy.hash}

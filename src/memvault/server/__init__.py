"""The REST server: `memvault serve` (docs/server.md)."""

from __future__ import annotations

from .app import Settings, create_app
from .run import serve

__all__ = ["Settings", "create_app", "serve"]

"""The two cores over one Core: what the write path, the layers and the lifecycle job
are given instead of the Vault (which they must not import: it is the floor above).
An engine serves with its core's strategy: the store keeps it (reads/strategies.py)."""

from __future__ import annotations

from .core import Core
from .reads import Reader, strategies
from .writes import Writer


class Engine:
    def __init__(self, core: Core) -> None:
        self.core = core
        self.reads = Reader(core)
        self.writes = Writer(core)
        strategies.note(core)

"""The two cores over one Core: what the write path, the layers and the lifecycle job
are given instead of the Vault (which they must not import: it is the floor above)."""

from __future__ import annotations

from .core import Core
from .reads import Reader
from .writes import Writer


class Engine:
    def __init__(self, core: Core) -> None:
        self.core = core
        self.reads = Reader(core)
        self.writes = Writer(core)

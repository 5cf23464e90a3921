"""memvault: a governed long-term memory layer for LLM applications.

    from memvault import Vault, Scope
    vault = Vault("memory.db")
    me = Scope(tenant="acme", user="alice")
    vault.remember(me, slot="report.format", value="CSV", reason="user asked")
    vault.recall(me, "which export format?")
"""

from .client import Client
from .errors import (
    AuthenticationError,
    ConflictError,
    ConnectionFailedError,
    FrozenError,
    MemvaultError,
    ModelMismatchError,
    NotFoundError,
    PermissionDeniedError,
    PolicyError,
    ScopeError,
    StoreError,
    ValidationError,
    VersionError,
)
from .importscan import ImportReport
from .model import (
    Hit,
    Kind,
    Memory,
    Op,
    PurgeResult,
    RememberResult,
    Revision,
    Scope,
    Source,
    Status,
)
from .vault import Vault

__version__ = "0.1.0"

__all__ = [
    "AuthenticationError", "Client", "ConflictError", "ConnectionFailedError",
    "FrozenError", "Hit", "ImportReport", "Kind", "Memory", "MemvaultError", "ModelMismatchError",
    "NotFoundError", "Op", "PermissionDeniedError", "PolicyError", "PurgeResult", "RememberResult",
    "Revision", "Scope", "ScopeError", "Source", "Status", "StoreError", "ValidationError",
    "Vault", "VersionError",
]

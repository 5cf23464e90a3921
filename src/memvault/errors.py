"""Typed errors. Every failure a caller can cause has its own class and a stable code."""

from __future__ import annotations

from typing import Any


class MemvaultError(Exception):
    """Base class; `code` is stable and machine-readable (CLI exit messages, REST bodies)."""

    code = "error"
    # Set by memvault.Client on an error a server answered: its HTTP status, and the
    # request validation details of a 422 when the server gave them.
    status: int | None = None
    details: list[Any] | None = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class ValidationError(MemvaultError):
    """Input is malformed: wrong type, empty, oversized, invalid UTF-8, unknown field."""

    code = "invalid_input"


class ScopeError(ValidationError):
    """A scope is missing, incomplete or has fields that do not exist."""

    code = "invalid_scope"


class PolicyError(ValidationError):
    """The strategy's policy for a kind refuses the write (agentpolicy.py): a source that
    may not write it, a path it may not come through, a scope or task it needs."""

    code = "policy_refused"


class NotFoundError(MemvaultError):
    """No such memory in the caller's scope (a memory of another scope is also 'not found')."""

    code = "not_found"


class FrozenError(MemvaultError):
    """The target memory is frozen; only `unfreeze` may change it."""

    code = "frozen"


class VersionError(ValidationError):
    """A version number that does not exist for this memory."""

    code = "bad_version"


class ConflictError(MemvaultError):
    """The write would break an invariant (stale expected_version, a second active slot value)."""

    code = "conflict"


class ModelMismatchError(MemvaultError):
    """The store was indexed with other embedding models than the ones configured."""

    code = "model_mismatch"


class StoreError(MemvaultError):
    """The storage backend failed or the store file is not a memvault store."""

    code = "store_error"


class SummarizationError(MemvaultError):
    """The configured summariser (an LLM endpoint) gave no usable summary after its
    retries. Nothing was stored."""

    code = "summarization_failed"


class JudgementError(MemvaultError):
    """The online-evaluation judge (an LLM endpoint) gave no usable judgement after its
    attempts: the sample is recorded as failed, and nothing is stored as a judgement."""

    code = "judgement_failed"


class AuthenticationError(MemvaultError):
    """The server refused the API key: missing, unknown, revoked or expired (HTTP 401).
    `code` is the server's own: missing_key, invalid_key, key_revoked or key_expired."""

    code = "unauthenticated"


class PermissionDeniedError(MemvaultError):
    """The key may not do this (HTTP 403): its role lacks the action (`forbidden`), or a
    key bound to one user named another (`scope_denied`)."""

    code = "forbidden"


class ConnectionFailedError(MemvaultError):
    """The memvault server could not be reached, or did not answer in time (Client)."""

    code = "connection_failed"

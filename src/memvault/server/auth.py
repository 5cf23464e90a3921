"""API keys: who is calling, in which tenant, with which role.

A key is `mvk_<key id>_<secret>`. The key id is public (listings, logs, the access log);
the secret is 32 random bytes, shown once at creation. The store keeps only
sha256(secret): with 256 bits of entropy there is nothing to brute-force, so a slow hash
(scrypt) would only cost latency on every request.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

from .. import validate as v
from ..model import Scope
from ..store import Store
from ..timeutil import now_ms
from ..wording import a_or_an
from .errors import ApiError
from .permissions import ROLES

PREFIX = "mvk"


@dataclass(frozen=True, slots=True)
class Principal:
    key_id: str
    tenant: str
    role: str
    user: str | None  # bound user: the scope's user always comes from here when set

    @property
    def actor(self) -> str:
        # Recorded in revisions: which key, in which role, made the change.
        return f"{self.role}:{self.key_id}"


def hash_secret(secret: str) -> str:
    return "sha256$" + hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_key(store: Store, *, tenant: str, role: str, user: str | None = None,
            name: str = "", expires_at: int | None = None,
            created_by: str = "") -> tuple[str, dict[str, Any]]:
    """Create a key; returns (the full key, shown once; the stored record)."""
    if role not in ROLES:
        raise ApiError(422, "invalid_input", f"role: expected one of {', '.join(ROLES)}")
    if role == "user" and not user:
        raise ApiError(422, "invalid_input", "user: a user key must be bound to a user id")
    if role in ("admin", "service") and user:
        raise ApiError(422, "invalid_input", f"user: {a_or_an(role)} key is not bound to a user")
    if name:
        v.label(name, "name", max_chars=200)
    if user:
        v.scope({"tenant": tenant, "user": user})
    key_id = "k" + secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    record = {"key_id": key_id, "tenant": tenant, "role": role, "user": user or None,
              "name": name, "secret_hash": hash_secret(secret), "created_at": now_ms(),
              "created_by": created_by, "expires_at": expires_at, "revoked_at": None}
    store.add_api_key(record)
    return f"{PREFIX}_{key_id}_{secret}", record


def authenticate(store: Store, authorization: str | None) -> Principal:
    """The principal of an `Authorization: Bearer mvk_...` header, or 401."""
    if not authorization:
        raise ApiError(401, "missing_key", "an API key is required: "
                       "Authorization: Bearer mvk_...")
    scheme, _, token = authorization.partition(" ")
    parts = token.strip().split("_", 2)
    if scheme.lower() != "bearer" or len(parts) != 3 or parts[0] != PREFIX:
        raise ApiError(401, "invalid_key", "malformed API key")
    record = store.get_api_key(parts[1])
    # compare_digest on the hashes: the time taken says nothing about the stored value.
    if record is None or not hmac.compare_digest(record["secret_hash"],
                                                 hash_secret(parts[2])):
        raise ApiError(401, "invalid_key", "unknown API key")
    if record["revoked_at"] is not None:
        raise ApiError(401, "key_revoked", f"API key {record['key_id']} was revoked")
    if record["expires_at"] is not None and record["expires_at"] <= now_ms():
        raise ApiError(401, "key_expired", f"API key {record['key_id']} has expired")
    return Principal(record["key_id"], record["tenant"], record["role"], record["user"])


def named_user(p: Principal, user: str | None) -> str | None:
    """The user a request names where naming one is optional (jobs, users): a bound key's
    own user; naming another is refused like on every other route."""
    if p.user is not None:
        if user is not None and user != p.user:
            raise ApiError(403, "scope_denied",
                           f"this key is bound to user {p.user!r}; it cannot act for {user!r}")
        return p.user
    return user or None


def scope_for(p: Principal, user: str | None, agent: str | None = None,
              session: str | None = None) -> Scope:
    """The scope a request acts in: the key's tenant; the key's user when it is bound to
    one (naming another is refused), else the `user` the request names (required)."""
    user = named_user(p, user)
    if not user:
        raise ApiError(422, "invalid_input", f"user: required for {a_or_an(p.role)} key "
                       "(query parameter)")
    return v.scope({"tenant": p.tenant, "user": user, "agent": agent, "session": session})


def bootstrap_admin(store: Store, tenant: str) -> str | None:
    """On a store without keys, create an admin key and return it (to print once)."""
    if store.count_api_keys() > 0:
        return None
    key, _ = new_key(store, tenant=tenant, role="admin", name="bootstrap",
                     created_by="memvault serve")
    return key


def public(record: dict[str, Any]) -> dict[str, Any]:
    """A key record without its hash."""
    return {k: val for k, val in record.items() if k != "secret_hash"}

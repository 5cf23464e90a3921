"""API keys in the store: create, list, revoke, and the first admin key. The rules live
here once; `memvault keys` (local access to the store is the authority) and the REST
routes under /v1/keys (an admin key, within its own tenant) are adapters over them.

A key is `mvk_<key id>_<secret>`. The key id is public (listings, logs, the access log);
the secret is 32 random bytes, shown once at creation. The store keeps only
sha256(secret): with 256 bits of entropy there is nothing to brute-force, so a slow hash
(scrypt) would only cost latency on every request.

Roles (a key has exactly one, and always one tenant); what each may call is the table in
server/permissions.py:
  admin    everything in its tenant, including purge, key management and the access log
  service  an application: reads and writes for any user of its tenant
  user     bound to one user id: its own memories
  reader   read only in its tenant; a reader key created with a user is bound to it
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from . import teams
from . import validate as v
from .errors import ConflictError, NotFoundError, ValidationError
from .store import Store
from .timeutil import TimeLike, now_ms, to_ms
from .wording import a_or_an

PREFIX = "mvk"
ROLES = ("admin", "service", "user", "reader")


def hash_secret(secret: str) -> str:
    return "sha256$" + hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_key(store: Store, *, tenant: str, role: str, user: str | None = None,
            name: str = "", expires_at: TimeLike | None = None,
            created_by: str = "", team: str | None = None) -> tuple[str, dict[str, Any]]:
    """Create a key; returns (the full key, shown once; the stored record). Every check
    runs before the store is written: a refused key leaves nothing behind."""
    v.scope({"tenant": tenant, "user": "-"})  # the tenant, checked like any scope's
    if role not in ROLES:
        raise ValidationError(f"role: expected one of {', '.join(ROLES)}, got {role!r}")
    if role == "user" and not user:
        raise ValidationError("user: a user key must be bound to a user id")
    if role in ("admin", "service") and user:
        raise ValidationError(f"user: {a_or_an(role)} key is not bound to a user")
    if name:
        v.label(name, "name", max_chars=200)
    if user:
        v.personal_user(user)  # a team's scope is reached through team=, never as a user
    if team is not None:
        teams.get(store, tenant, team)  # a project key: the team must exist
    exp = to_ms(expires_at, field="expires_at")
    if exp is not None and exp <= now_ms():
        raise ValidationError("expires_at: must be in the future (a key that is expired at "
                              "birth could never be used)")
    key_id = "k" + secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    record = {"key_id": key_id, "tenant": tenant, "role": role, "user": user or None,
              "name": name, "secret_hash": hash_secret(secret), "created_at": now_ms(),
              "created_by": created_by, "expires_at": exp, "revoked_at": None}
    with store.transaction():
        store.add_api_key(record)
        if team is not None:
            teams.bind_key(store, key_id, tenant, team)
    if team is not None:
        record["team"] = team
    return f"{PREFIX}_{key_id}_{secret}", record


def list_keys(store: Store, tenant: str | None = None) -> list[dict[str, Any]]:
    """The keys of a tenant (every tenant's when None), oldest first, without hashes; a
    key bound to a team says which (`team`)."""
    out = [public(k) for k in store.list_api_keys(tenant)]
    for k in out:
        if (team := store.key_team(k["key_id"])) is not None:
            k["team"] = team
    return out


def revoke_key(store: Store, key_id: str, *, tenant: str | None = None) -> dict[str, Any]:
    """Revoke a key (of `tenant` when given: another tenant's key is not found there); it
    fails authentication from then on. Returns the record without its hash."""
    known = store.get_api_key(key_id)
    if known is None or (tenant is not None and known["tenant"] != tenant):
        where = f" in tenant {tenant}" if tenant is not None else ""
        raise NotFoundError(f"no key {key_id}{where}")
    if not store.revoke_api_key(known["tenant"], key_id, now_ms()):
        raise ConflictError(f"key {key_id} is already revoked")
    return public(store.get_api_key(key_id) or known)


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

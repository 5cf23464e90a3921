"""Authentication: who is calling, in which tenant, with which role. Keys themselves
(their format, creation, revocation) are memvault.apikeys, shared with `memvault keys`."""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from .. import validate as v
from ..apikeys import PREFIX, hash_secret
from ..model import Scope
from ..store import Store
from ..timeutil import now_ms
from ..wording import a_or_an
from .errors import ApiError


@dataclass(frozen=True, slots=True)
class Principal:
    key_id: str
    tenant: str
    role: str
    user: str | None  # bound user: the scope's user always comes from here when set
    team: str | None = None  # bound team (a project key): docs/teams.md

    @property
    def actor(self) -> str:
        # Recorded in revisions: which key, in which role, made the change.
        return f"{self.role}:{self.key_id}"


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
    return Principal(record["key_id"], record["tenant"], record["role"], record["user"],
                     store.key_team(record["key_id"]))


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
    if p.team is not None and p.user is None:
        raise ApiError(403, "scope_denied", f"this key is bound to team {p.team!r}: "
                       f"add team={p.team}")
    v.personal_user(user)  # a team's scope is reached with team=, never as a user
    return v.scope({"tenant": p.tenant, "user": user, "agent": agent, "session": session})

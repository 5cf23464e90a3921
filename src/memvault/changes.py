"""Change events: what the outbox holds for every committed revision, and how a webhook
body is signed (docs/events.md).

The store writes one event per revision, in the revision's own transaction
(store/sql_tx.py), so a change and its event commit together or not at all; an event is
read with its revision (store/outbox.py). This module is the pure part: which kind a
revision is, which payload it carries (never erased content: a purge's event has ids and
counts only), and the HMAC-SHA256 signature a receiver checks.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass, field
from typing import Any

from .model import Revision, Scope

# Event kinds, by revision op. A create is "add", or "staged" when the memory waits for
# review (how reviewers hear of it); an import's memories are "import".
KIND_OF_OP = {
    "update": "update", "delete": "forget", "purge": "purge", "rollback": "rollback",
    "freeze": "freeze", "unfreeze": "unfreeze", "approve": "approve", "reject": "reject",
    "expire": "expire", "reinforce": "reinforce", "redact": "redact", "blocked": "blocked",
}
KINDS = ("add", "staged", "import", *KIND_OF_OP.values())
# Events that never carry content: the erasures.
CONTENTLESS = frozenset({"purge", "redact"})

SIGNATURE_HEADER = "X-Memvault-Signature"
_ROLLBACK = re.compile(r"^rollback to version ([0-9]+)$")


def rollback_trigger(target: int) -> str:
    """The trigger text of a rollback's revision: names the version it restored (read
    back by `restored_version`)."""
    return f"rollback to version {target}"


def restored_version(trigger_text: str | None) -> int | None:
    m = _ROLLBACK.match(trigger_text or "")
    return int(m.group(1)) if m else None


@dataclass(slots=True)
class Event:
    """One committed change. `id` grows with commit order in the store (a cursor: read
    `since` the last id seen); `payload` is None when a purge erased it."""

    id: int
    scope: Scope
    kind: str
    memory_id: str
    from_version: int | None
    to_version: int
    actor: str
    actor_role: str
    reason: str | None
    at: int
    op_id: str
    payload: dict[str, Any] | None = field(default=None)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "tenant": self.scope.tenant, "user": self.scope.user,
                "agent": self.scope.agent, "session": self.scope.session, "kind": self.kind,
                "memory_id": self.memory_id, "from_version": self.from_version,
                "to_version": self.to_version, "actor": self.actor,
                "actor_role": self.actor_role, "reason": self.reason, "at": self.at,
                "op_id": self.op_id, "payload": self.payload}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        return cls(id=int(d["id"]), scope=Scope(d["tenant"], d["user"], d.get("agent", ""),
                                                 d.get("session", "")),
                   kind=d["kind"], memory_id=d["memory_id"], from_version=d["from_version"],
                   to_version=d["to_version"], actor=d["actor"], actor_role=d["actor_role"],
                   reason=d.get("reason"), at=d["at"], op_id=d["op_id"],
                   payload=d.get("payload"))


def kind_of(rev: Revision, *, imported: bool = False) -> str:
    if imported:
        return "import"
    if rev.op == "create":
        return "staged" if (rev.state or {}).get("status") == "pending" else "add"
    return KIND_OF_OP.get(rev.op, rev.op)


def payload_of(rev: Revision, kind: str) -> dict[str, Any]:
    """What an event of `rev` carries: the state the memory is in after it (a rollback:
    also the version it restored; a staged candidate: the gate's review record, inside
    the state's metadata). An erasure carries ids and counts only, never content."""
    if kind == "purge":
        return {"erased_versions": rev.from_version or 0}
    if kind in CONTENTLESS:
        return {}
    out: dict[str, Any] = {"state": rev.state}
    if kind == "rollback":
        out["restored_version"] = restored_version(rev.trigger_text)
    return out


# --- webhook signatures ---------------------------------------------------------------------
def sign(secret: str, body: bytes) -> str:
    """The X-Memvault-Signature of a webhook body: "sha256=" + hex HMAC-SHA256 of the raw
    body bytes, keyed with the subscription's secret."""
    mac = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return f"sha256={mac}"


def verify(secret: str, body: bytes, signature: str | None) -> bool:
    """Whether `signature` (the header's value) is the body's, compared in constant time."""
    return bool(signature) and hmac.compare_digest(sign(secret, body), str(signature))

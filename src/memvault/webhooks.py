"""Webhooks: subscriptions to the change events (docs/events.md) and their delivery.

The rules live here once; `memvault webhook` (local access to the store) and the REST
routes under /v1/webhooks (an admin key, within its own tenant) are adapters over them,
and the server's delivery thread (server/delivery.py) calls `deliver_due`.

Delivery is at least once, in event order per webhook. A subscription's `queued_through`
is the last event id queued for it: each round queues the newer events that match it
(its user, its kinds), then sends its oldest pending delivery if due. A delivery is
leased while it is sent, so two servers on one store never send it at once; a worker
killed mid-send leaves it pending, and it is sent again once the lease lapses (same event
id: receivers deduplicate by it). A failure (no answer, or not 2xx) is retried after
`backoff_ms * 2**(attempt - 1)` (at most `backoff_max_ms`); after `max_attempts` the
delivery is dead (a dead letter) until retried by hand. Later events of the webhook wait
while its oldest is pending, so a receiver sees each memory's events in order. Every
attempt is logged (time, HTTP status or error, duration); no body is stored: it is the
event as it is when sent, so one a purge erased meanwhile goes out erased.
"""

from __future__ import annotations

import json
import secrets
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from . import validate as v
from .changes import KINDS, SIGNATURE_HEADER, sign
from .errors import ConflictError, NotFoundError, ValidationError
from .store import Store
from .timeutil import now_ms

SECRET_PREFIX = "whsec_"
STATUSES = ("pending", "delivered", "dead")


@dataclass(frozen=True, slots=True)
class Policy:
    """How the delivery worker retries (the server's settings)."""

    max_attempts: int = 8
    backoff_ms: int = 1000
    backoff_max_ms: int = 600_000
    timeout: float = 10.0

    def __post_init__(self) -> None:
        for name in ("max_attempts", "backoff_ms", "backoff_max_ms"):
            n = getattr(self, name)
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ValidationError(f"webhook {name}: expected a whole number >= 1")
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, int | float) \
                or not 0 < self.timeout <= 300:
            raise ValidationError("webhook timeout: expected seconds in (0, 300]")

    def delay(self, attempts: int) -> int:
        """Milliseconds before the next try after `attempts` failed ones."""
        return min(self.backoff_ms * 2 ** min(attempts - 1, 40), self.backoff_max_ms)


# --- subscriptions ------------------------------------------------------------------------
def public(hook: dict[str, Any]) -> dict[str, Any]:
    """A webhook as listed: never its secret."""
    return {k: hook[k] for k in ("webhook_id", "tenant", "user", "url", "kinds",
                                 "queued_through", "created_at", "created_by", "removed_at")}


def check_url(url: Any) -> str:
    if not isinstance(url, str) or not url or len(url) > 2000:
        raise ValidationError("url: expected an http(s) URL of at most 2000 characters")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError(f"url: expected an http(s) URL with a host, got {url!r}")
    return url


def add(store: Store, *, tenant: str, url: Any, secret: Any = None, kinds: Any = None,
        user: Any = None, since: Any = None, created_by: str = "") -> dict[str, Any]:
    """Subscribe `url` to the tenant's events (one user's, when given; these kinds only,
    when given) after event id `since` (default: from now on). Returns the record with
    its secret, shown this once (generated when not given). Checks run before the store
    is written."""
    if user is not None and not (isinstance(user, str) and user.strip()):
        # An empty name must not widen the filter to the whole tenant without a word.
        raise ValidationError("user: expected a user id, or none for the whole tenant")
    v.scope({"tenant": tenant, "user": user or "-"})
    url = check_url(url)
    if secret is None:
        secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    elif not isinstance(secret, str) or not 16 <= len(secret) <= 200:
        raise ValidationError("secret: expected 16 to 200 characters")
    if kinds is None:
        kinds = []
    if isinstance(kinds, str) or not isinstance(kinds, list | tuple) \
            or not all(isinstance(k, str) for k in kinds):
        raise ValidationError("kinds: expected a list of event kinds")
    if unknown := sorted(set(kinds) - set(KINDS)):
        raise ValidationError(f"kinds: unknown {', '.join(unknown)} (known: "
                              f"{', '.join(KINDS)})")
    if since is None:
        since = store.last_event_id(tenant, user or None)
    elif v.event_id(since) > (last := store.last_event_id(tenant, None)):
        # Ids are given in commit order: a cursor past the last event (another store's,
        # a time typed for an id) would skip the next events without a word.
        raise ValidationError(f"since: {since} is past the last event id ({last}) of "
                              f"tenant {tenant!r}")
    record = {"webhook_id": "wh" + secrets.token_hex(8), "tenant": tenant,
              "user": user or None, "url": url, "secret": secret,
              "kinds": sorted(set(kinds)), "queued_through": since,
              "created_at": now_ms(), "created_by": created_by, "removed_at": None}
    store.add_webhook(record)
    return record


def list_hooks(store: Store, tenant: str | None) -> list[dict[str, Any]]:
    """The live webhooks of a tenant (every tenant's when None), without secrets."""
    return [public(h) for h in store.webhooks(tenant)]


def _hook(store: Store, tenant: str, webhook_id: str) -> dict[str, Any]:
    hook = store.get_webhook(tenant, webhook_id)
    if hook is None:
        raise NotFoundError(f"no webhook {webhook_id} in tenant {tenant}")
    return hook


def remove(store: Store, tenant: str, webhook_id: str) -> dict[str, Any]:
    """Stop a webhook: nothing more is queued or sent to it; its log stays."""
    _hook(store, tenant, webhook_id)
    if not store.remove_webhook(tenant, webhook_id, now_ms()):
        raise ConflictError(f"webhook {webhook_id} is already removed")
    return public(_hook(store, tenant, webhook_id))


def deliveries(store: Store, tenant: str, webhook_id: str, *, status: Any = None,
               limit: Any = 100) -> list[dict[str, Any]]:
    """The webhook's deliveries, newest event first, each with its attempt log."""
    _hook(store, tenant, webhook_id)
    if status is not None and status not in STATUSES:
        raise ValidationError(f"status: expected one of {', '.join(STATUSES)}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
        raise ValidationError("limit: expected a whole number in 1..1000")
    return store.deliveries(tenant, webhook_id, status=status, limit=limit)


def retry(store: Store, tenant: str, webhook_id: str, event_id: Any) -> dict[str, Any]:
    """Send a dead letter again: pending, due now, with a fresh count of attempts."""
    _hook(store, tenant, webhook_id)
    v.event_id(event_id, "event_id", least=1)
    if not store.retry_delivery(tenant, webhook_id, event_id, now_ms()):
        raise ConflictError(f"no dead delivery of event {event_id} to webhook {webhook_id}")
    return next(d for d in store.deliveries(tenant, webhook_id, limit=1000)
                if d["event_id"] == event_id)


# --- delivery -------------------------------------------------------------------------------
def deliver_due(store: Store, policy: Policy) -> int:
    """One round over every live webhook: queue its new events, send its oldest pending
    delivery when due. Returns how many were sent (successfully or not)."""
    sent = 0
    for hook in store.webhooks(None):
        queue_new(store, hook)
        d = store.next_delivery(hook["webhook_id"])
        now = now_ms()
        if d is None or d["next_at"] > now:
            continue
        lease = now + int(policy.timeout * 1000) + 1000  # then another worker may send it
        if store.lease_delivery(hook["webhook_id"], d["event_id"], now, lease):
            send(store, hook, d, policy)
            sent += 1
    return sent


def queue_new(store: Store, hook: dict[str, Any], batch: int = 500) -> None:
    got = store.events(hook["tenant"], user=hook["user"], since=hook["queued_through"],
                       limit=batch)
    if got:
        kinds = set(hook["kinds"])
        ids = [e.id for e in got if not kinds or e.kind in kinds]
        store.queue_deliveries(hook, ids, got[-1].id, now_ms())


def body_of(event: Any) -> bytes:
    """The bytes a webhook receives (and its signature covers): the event as JSON."""
    return json.dumps(event.to_dict(), ensure_ascii=False, sort_keys=True,
                      separators=(",", ":")).encode("utf-8")


def send(store: Store, hook: dict[str, Any], d: dict[str, Any], policy: Policy) -> None:
    """POST one event, log the attempt, and set the delivery's next state."""
    event = store.get_event(hook["tenant"], d["event_id"])
    attempt = d["attempts"] + 1
    t0 = time.monotonic()
    code: int | None = None
    error: str | None = None
    if event is None:
        error = "the event is gone"
    else:
        data = body_of(event)
        req = urllib.request.Request(hook["url"], data=data, method="POST", headers={
            "Content-Type": "application/json", "User-Agent": "memvault-webhooks",
            SIGNATURE_HEADER: sign(hook["secret"], data),
            "X-Memvault-Event-Id": str(event.id), "X-Memvault-Event-Kind": event.kind,
            "X-Memvault-Webhook-Id": hook["webhook_id"],
            "X-Memvault-Delivery-Attempt": str(attempt)})
        try:
            with urllib.request.urlopen(req, timeout=policy.timeout) as r:
                code = int(r.status)
        except urllib.error.HTTPError as e:
            code, error = int(e.code), f"HTTP {e.code}"
        except (OSError, ValueError) as e:  # refused, timed out, bad address
            error = f"{type(e).__name__}: {e}"[:500]
    ok = code is not None and 200 <= code < 300
    now = now_ms()
    status = "delivered" if ok else ("dead" if attempt >= policy.max_attempts or event is None
                                     else "pending")
    store.record_attempt(
        {"webhook_id": hook["webhook_id"], "tenant": hook["tenant"],
         "event_id": d["event_id"], "status": status, "attempts": attempt,
         "next_at": now if status != "pending" else now + policy.delay(attempt)},
        {"at": now, "code": code, "error": None if ok else error,
         "ms": int((time.monotonic() - t0) * 1000)})

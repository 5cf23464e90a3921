"""The change-event routes (docs/events.md): a page of events after a cursor, the same as
a server-sent-events stream, and the webhook subscriptions (admin keys). Events are
scoped like reads: the key's tenant, and a bound key's user only."""

# No `from __future__ import annotations`: FastAPI reads these annotations at runtime.
import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from .. import validate as v
from .. import webhooks
from ..changes import Event
from ..errors import ValidationError
from ..reads import access
from . import schemas as s
from .auth import Principal
from .deps import named_user, principal_for, server
from .errors import ERROR_RESPONSES

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)  # type: ignore[arg-type]

Since = Annotated[int, Query(ge=0, le=v.MAX_EVENT_ID,
                             description="the last event id seen (0: from the first)")]
Kinds = Annotated[list[str] | None, Query(description="only these kinds (repeat)")]
User = Annotated[str | None, Query(description="one user's events; a bound key gets only "
                                   "its own user's")]
HookId = Annotated[str, Path(min_length=1, max_length=64)]
KEEPALIVE_S = 15.0


def _reader(p: Principal, user: str | None) -> str | None:
    access.bind(access.Accessor(p.key_id, p.role))
    return named_user(p, user)


@router.get("/events", response_model=dict[str, Any], tags=["events"])
def events(request: Request, p: Annotated[Principal, Depends(principal_for("events"))],
           since: Since = 0, limit: Annotated[int, Query(ge=1, le=1000)] = 100,
           kinds: Kinds = None, user: User = None) -> Any:
    """The events after `since`, oldest first → {items, next}: pass `next` as `since` to
    read on (it stays `since` when there is nothing new)."""
    got = list(server(request).vault.events(p.tenant, user=_reader(p, user), since=since,
                                            limit=limit, kinds=kinds))
    return {"items": [e.to_dict() for e in got], "next": got[-1].id if got else since}


def _frame(e: Event) -> str:
    data = json.dumps(e.to_dict(), ensure_ascii=False, separators=(",", ":"))
    return f"id: {e.id}\nevent: {e.kind}\ndata: {data}\n\n"


@router.get("/events/stream", tags=["events"], response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}}}})
async def stream(request: Request,
                 p: Annotated[Principal, Depends(principal_for("events"))],
                 since: Since = 0, kinds: Kinds = None, user: User = None,
                 last_event_id: Annotated[str | None, Header(
                     description="set by a reconnecting EventSource: resume after it")
                                          ] = None) -> StreamingResponse:
    """Server-sent events: each event as `id: <event id>`, `event: <kind>`, `data: <JSON>`,
    from after `since` (or the Last-Event-ID header, which wins), then each new one as it
    commits. A stream ends after the server's stream_seconds; reconnect with
    Last-Event-ID to go on. Comment lines keep an idle connection open."""
    st = server(request)
    after = since
    if last_event_id is not None:
        # Sent back as the stream gave it: anything else is a client's bug, said as one.
        text = last_event_id.strip()
        if not (text.isascii() and text.isdigit()):
            raise ValidationError("Last-Event-ID: expected an event id (a whole number)")
        after = v.event_id(int(text), "Last-Event-ID")
    who = _reader(p, user)
    # Checked now: bad input is a 422, not a stream that ends at once.
    await run_in_threadpool(lambda: list(st.vault.events(p.tenant, user=who, since=after,
                                                         limit=1, kinds=kinds)))

    def page(since: int) -> list[Event]:
        return list(st.vault.events(p.tenant, user=who, since=since, limit=100, kinds=kinds))

    async def frames() -> AsyncIterator[str]:
        nonlocal after
        loop = asyncio.get_running_loop()
        end = loop.time() + st.settings.stream_seconds
        beat = loop.time()
        yield "retry: 1000\n\n"
        while loop.time() < end and not st.stopping.is_set() \
                and not await request.is_disconnected():
            got = await run_in_threadpool(page, after)
            for e in got:
                after = e.id
                yield _frame(e)
            if len(got) == 100:
                continue
            if got:
                beat = loop.time()
            elif loop.time() - beat >= KEEPALIVE_S:
                beat = loop.time()
                yield ": keepalive\n\n"
            await asyncio.sleep(st.settings.events_poll_seconds)

    return StreamingResponse(frames(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache",
                                      "X-Accel-Buffering": "no"})


# --- webhooks (admin) ------------------------------------------------------------------------
@router.post("/webhooks", response_model=dict[str, Any], status_code=201, tags=["events"])
def add_webhook(request: Request,
                p: Annotated[Principal, Depends(principal_for("webhooks.create"))],
                body: s.WebhookIn) -> Any:
    """Subscribe a URL to the tenant's events (one user's; some kinds) after event id
    `since` (default: from now). The response holds the signing `secret`, shown once."""
    rec = webhooks.add(server(request).vault.store, tenant=p.tenant, created_by=p.actor,
                       **body.model_dump())
    return {**webhooks.public(rec), "secret": rec["secret"]}


@router.get("/webhooks", response_model=list[dict[str, Any]], tags=["events"])
def list_webhooks(request: Request,
                  p: Annotated[Principal, Depends(principal_for("webhooks.list"))]) -> Any:
    return webhooks.list_hooks(server(request).vault.store, p.tenant)


@router.delete("/webhooks/{webhook_id}", response_model=dict[str, Any], tags=["events"])
def remove_webhook(request: Request, webhook_id: HookId,
                   p: Annotated[Principal, Depends(principal_for("webhooks.remove"))]
                   ) -> Any:
    return webhooks.remove(server(request).vault.store, p.tenant, webhook_id)


@router.get("/webhooks/{webhook_id}/deliveries", response_model=list[dict[str, Any]],
            tags=["events"])
def deliveries(request: Request, webhook_id: HookId,
               p: Annotated[Principal, Depends(principal_for("webhooks.list"))],
               status: str | None = None,
               limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> Any:
    """The delivery log, newest event first: status (pending, delivered, dead), attempts,
    and each attempt's time, HTTP status or error, and duration."""
    return webhooks.deliveries(server(request).vault.store, p.tenant, webhook_id,
                               status=status, limit=limit)


@router.post("/webhooks/{webhook_id}/deliveries/{event_id}/retry",
             response_model=dict[str, Any], tags=["events"])
def retry(request: Request, webhook_id: HookId,
          event_id: Annotated[int, Path(ge=1, le=v.MAX_EVENT_ID)],
          p: Annotated[Principal, Depends(principal_for("webhooks.retry"))]) -> Any:
    """Send a dead letter again (pending, due now, attempts counted afresh)."""
    return webhooks.retry(server(request).vault.store, p.tenant, webhook_id, event_id)

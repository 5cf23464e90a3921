"""The FastAPI application: routes, error handlers, middleware, the job worker and the
sweep timer, around one Vault."""

from __future__ import annotations

import math
import signal
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline

from .. import __version__
from ..errors import ValidationError
from ..evalreport import online_figures
from ..vault import Vault
from ..webhooks import Policy
from . import (
    admin,
    agentroutes,
    api,
    errors,
    evalroutes,
    eventroutes,
    mergeroutes,
    replayroutes,
    snapshotroutes,
    strategyroutes,
    teamroutes,
    ui,
)
from .delivery import Dispatcher
from .jobs import Sweeper, Worker
from .metrics import Metrics
from .middleware import BodyLimit, RequestLog

MiB = 1024 * 1024


@dataclass
class Settings:
    max_body_bytes: int = MiB
    sweep_interval: float | None = 60.0  # seconds; None or <= 0 disables the timer
    worker: bool = True  # run queued jobs in this process
    job_poll_seconds: float = 0.5
    # When set, GET /metrics asks for `Authorization: Bearer <token>` (a scraper's secret,
    # not an API key: metrics carry no tenant data, and a scraper needs no role).
    metrics_token: str | None = None
    # Change events (docs/events.md): the webhook delivery thread and its retry policy,
    # how often a server-sent-events stream polls, and how long one stream lasts (the
    # client resumes with Last-Event-ID).
    webhooks: bool = True
    webhook_policy: Policy = field(default_factory=Policy)
    webhook_poll_seconds: float = 0.5
    events_poll_seconds: float = 0.5
    stream_seconds: float = 300.0

    def __post_init__(self) -> None:
        if isinstance(self.webhook_policy, dict):  # from JSON (serve --workers N)
            self.webhook_policy = Policy(**self.webhook_policy)
        if isinstance(self.max_body_bytes, bool) or not isinstance(self.max_body_bytes, int) \
                or self.max_body_bytes < 1:
            raise ValidationError("max_body: expected a whole number of bytes, at least 1")
        s = self.sweep_interval
        if s is not None and (isinstance(s, bool) or not isinstance(s, int | float)
                              or not math.isfinite(s) or s < 0):
            raise ValidationError("sweep_interval: expected a number of seconds >= 0 "
                                  "(0 disables the timer)")


@dataclass
class ServerState:
    vault: Vault
    settings: Settings
    metrics: Metrics
    worker: Worker | None = None
    sweeper: Sweeper | None = None
    dispatcher: Dispatcher | None = None
    stopping: threading.Event = field(default_factory=threading.Event)  # ends SSE streams
    extra: dict[str, Any] = field(default_factory=dict)

    def worker_notify(self) -> None:
        if self.worker is not None:
            self.worker.notify()


def _stop_streams_on_signal(state: ServerState) -> None:
    """uvicorn's graceful shutdown waits for every request to end, and an open event
    stream would hold it for its stream_seconds: a SIGTERM or SIGINT ends the streams first
    (eventroutes.py), then goes to uvicorn's own handler (installed before the app starts,
    in every worker process). Only the main thread may set signal handlers (not so under
    a test client)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGINT):
        prev = signal.getsignal(sig)
        if not callable(prev):
            continue

        def handler(signum: int, frame: Any, prev: Any = prev) -> None:
            state.stopping.set()
            prev(signum, frame)
        signal.signal(sig, handler)


def create_app(vault: Vault, settings: Settings | None = None, *,
               close_vault: bool = False) -> FastAPI:
    """`close_vault`: the app owns the vault and closes it at shutdown (memvault serve)."""
    settings = settings or Settings()
    metrics = Metrics(vault.store.queue_depth, online_eval=lambda: online_figures(vault),
                      replica=vault.store.replica_stats)
    state = ServerState(vault, settings, metrics)
    if settings.worker:
        state.worker = Worker(vault, metrics, poll_seconds=settings.job_poll_seconds,
                              on_result=lambda kind, r: metrics.gate_outcomes(kind, r))
    if settings.sweep_interval and settings.sweep_interval > 0:
        state.sweeper = Sweeper(vault, metrics, settings.sweep_interval)
    if settings.webhooks:
        state.dispatcher = Dispatcher(vault, settings.webhook_policy,
                                      settings.webhook_poll_seconds)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        _stop_streams_on_signal(state)
        for part in (state.worker, state.sweeper, state.dispatcher):
            if part is not None:
                part.start()
        try:
            yield
        finally:
            state.stopping.set()
            for part in (state.dispatcher, state.sweeper, state.worker):
                if part is not None:
                    part.stop()
            # Here, not after uvicorn returns: on SIGTERM uvicorn re-raises the signal once
            # this shutdown is over, which kills the process before any later code runs.
            # Closing checkpoints the WAL into the db file (and finishes a pending erasure).
            if close_vault:
                vault.close()

    # /docs (Swagger UI) from assets shipped in the fastapi-offline package, served by
    # this server: FastAPI's default loads them from a CDN, which leaves the page blank
    # offline. No online spec validator either. No /redoc: ReDoc still fetches its logo
    # from cdn.redoc.ly.
    app = FastAPIOffline(redoc_url=None, title="memvault", version=__version__,
                         lifespan=lifespan,
                         description="Governed long-term memory for LLM applications: "
                         "every core verb over HTTP, scoped by API key. See docs/server.md.",
                         swagger_ui_parameters={"validatorUrl": None})
    app.state.server = state
    errors.install(app)
    app.include_router(api.router)
    app.include_router(agentroutes.router)
    app.include_router(mergeroutes.router)
    app.include_router(eventroutes.router)
    app.include_router(snapshotroutes.router)
    app.include_router(strategyroutes.router)
    app.include_router(evalroutes.router)
    app.include_router(replayroutes.router)
    app.include_router(teamroutes.router)
    app.include_router(admin.router)
    app.include_router(admin.ops)
    app.include_router(ui.router)  # the admin page (/admin/), static files only
    # Outermost first: the log line also covers requests refused for their size.
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(RequestLog, metrics=metrics)
    return app

"""`memvault serve`: open the store, make the first admin key, run uvicorn."""

from __future__ import annotations

import dataclasses
import json
import logging
import logging.config
import os
import shlex
import sys
from typing import Any, TextIO

from .. import validate as v
from ..apikeys import bootstrap_admin, list_keys
from ..errors import ValidationError
from ..store import Store
from ..timeutil import now_ms
from ..vault import Vault, default_db_path
from .app import Settings, create_app
from .jobs import Sweeper
from .metrics import Metrics

_LOG_CONFIG: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "memvault.server.middleware.JsonFormatter"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json",
                            "stream": "ext://sys.stderr"}},
    "loggers": {
        "memvault": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
        "uvicorn": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
        "uvicorn.error": {"level": "INFO"},
    },
}


def existing_keys_note(store: Store, tenant: str) -> str:
    """What `serve` says on a store that already has keys: no new key was made, which
    tenants have keys, and how to mint one (a lost first key, or another tenant)."""
    active = [k for k in list_keys(store) if k["revoked_at"] is None
              and (k["expires_at"] is None or k["expires_at"] > now_ms())]
    tenants = sorted({k["tenant"] for k in active})
    admins = [k for k in active if k["tenant"] == tenant and k["role"] == "admin"]
    have = (f"active keys for tenant(s) {', '.join(map(repr, tenants))}" if tenants
            else "keys, none of them active")
    if admins:
        state = f"tenant {tenant!r} has {len(admins)} active admin key(s)"
    else:
        state = f"none is an active admin key for tenant {tenant!r}"
    return (f"memvault: the store already has API keys, so no new key was made: {have}; "
            f"{state}.\n"
            f"memvault: to mint one (a lost key, another tenant), on this store: "
            f"memvault keys create --tenant {shlex.quote(tenant)} --role admin\n")


# How long uvicorn's supervisor waits for a worker's answer to its health ping before it
# kills the worker and starts another. A spawned worker answers only once it has imported
# memvault and begun to serve: several seconds on a busy machine (measured 3-4 s for the
# imports alone at load 5 on two cores), so uvicorn's default of 5 s killed workers while
# they started, again and again, and `serve --workers N` never came up. Generous: a hung
# worker is rare, and a slow start must not become a restart loop.
WORKER_HEALTHCHECK_SECONDS = 120

# What a worker process needs to open its own vault (memvault serve --workers N): passed
# through the environment, which uvicorn's spawned workers inherit.
_WORKER_SPEC = "MEMVAULT_SERVE_WORKER"


def _open(db: str | None, embedder: str | None, config: str | None,
          read_db: str | None = None) -> Vault:
    return Vault(db, embedder=embedder, actor="server", actor_role="api", strategy=config,
                 read_db=read_db)


def worker_app() -> Any:
    """The app of one worker process of `serve --workers N` (a uvicorn factory): its own
    vault on the same store. The timer sweep runs in the supervising process instead, so
    N workers do not sweep the store N times over."""
    spec = json.loads(os.environ[_WORKER_SPEC])
    settings = Settings(**{**spec["settings"], "sweep_interval": 0})
    return create_app(_open(spec["db"], spec["embedder"], spec["config"],
                            spec.get("read_db")), settings, close_vault=True)


def serve(db: str, *, host: str = "127.0.0.1", port: int = 8765,
          embedder: str | None = None, config: str | None = None,
          bootstrap_tenant: str = "default", settings: Settings | None = None,
          workers: int = 1, out: TextIO = sys.stdout, read_db: str | None = None) -> None:
    """Serve the REST API. `workers` > 1 runs that many server processes on one port
    (uvicorn's supervisor), each with its own store connections and embedder: recall is
    CPU work that one process runs on one core at a time (the GIL), so a second process is
    what uses a second core. Every read goes to the store, so a write through one worker is
    seen by the next read through any other; with `read_db` (a PostgreSQL read replica)
    too, through the marks every worker reads (store/replica.py)."""
    import uvicorn

    # Checked before the store is opened: a bad option must not leave a new admin key.
    v.port(port)
    v.host(host)
    workers = v.workers(workers)
    if workers > 1 and str(db) == ":memory:":
        # Each worker would open a store of its own: N servers that do not share a memory.
        raise ValidationError("workers: an in-memory store lives in one process; "
                              "give a file or a PostgreSQL DSN to run several")
    settings = settings or Settings()
    logging.config.dictConfig(_LOG_CONFIG)
    vault = _open(db, embedder, config, read_db)
    try:
        key = bootstrap_admin(vault.store, bootstrap_tenant)
        if key is not None:
            # Printed once: only its hash is stored, so it cannot be shown again.
            out.write(f"memvault: created the first admin key for tenant "
                      f"{bootstrap_tenant!r} (shown once; only its hash is stored):\n"
                      f"{key}\n")
        else:
            out.write(existing_keys_note(vault.store, bootstrap_tenant))
        out.flush()
        out.write(f"memvault: store {_shown(db if db is not None else str(default_db_path()))}"
                  + (f" (reads: replica {_shown(read_db)})" if read_db else "") + "\n"
                  f"memvault: admin page http://{host}:{port}/admin/ · "
                  f"API docs http://{host}:{port}/docs\n")
        if workers > 1:
            out.write(f"memvault: {workers} worker processes\n")
        out.flush()
        if workers == 1:
            uvicorn.run(create_app(vault, settings, close_vault=True), host=host, port=port,
                        log_config=_LOG_CONFIG, access_log=False)
        else:
            _serve_workers(vault, db, read_db, embedder, config, settings, host, port,
                           workers)
    finally:
        # The app's shutdown closes the store (SIGTERM never reaches here); this covers a
        # failure before the app started. Closing twice is harmless.
        vault.close()


def _shown(where: str) -> str:
    """A store target as printed: a DSN without its password."""
    if "://" in where:
        return where.split("://", 1)[0] + "://…@" + where.rsplit("@", 1)[-1]
    return where


def _serve_workers(vault: Vault, db: str | None, read_db: str | None, embedder: str | None,
                   config: str | None, settings: Settings, host: str, port: int,
                   workers: int) -> None:
    import uvicorn

    os.environ[_WORKER_SPEC] = json.dumps({
        "db": db, "read_db": read_db, "embedder": embedder, "config": config,
        "settings": dataclasses.asdict(settings)})
    # The supervisor keeps its vault for the timer sweep alone (one sweeper per store).
    sweeper = None
    if settings.sweep_interval and settings.sweep_interval > 0:
        sweeper = Sweeper(vault, Metrics(vault.store.queue_depth), settings.sweep_interval)
        sweeper.start()
    try:
        uvicorn.run("memvault.server.run:worker_app", factory=True, workers=workers,
                    host=host, port=port, log_config=_LOG_CONFIG, access_log=False,
                    timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS)
    finally:
        if sweeper is not None:
            sweeper.stop()
        os.environ.pop(_WORKER_SPEC, None)

"""`memvault serve`: open the store, make the first admin key, run uvicorn."""

from __future__ import annotations

import logging
import logging.config
import shlex
import sys
from typing import Any, TextIO

from .. import validate as v
from ..apikeys import bootstrap_admin, list_keys
from ..store import Store
from ..timeutil import now_ms
from ..vault import Vault, default_db_path
from .app import Settings, create_app

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


def serve(db: str, *, host: str = "127.0.0.1", port: int = 8765,
          embedder: str | None = None, config: str | None = None,
          bootstrap_tenant: str = "default", settings: Settings | None = None,
          out: TextIO = sys.stdout) -> None:
    import uvicorn

    # Checked before the store is opened: a bad option must not leave a new admin key.
    v.port(port)
    v.host(host)
    logging.config.dictConfig(_LOG_CONFIG)
    vault = Vault(db, embedder=embedder, actor="server", actor_role="api", strategy=config)
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
        app = create_app(vault, settings, close_vault=True)
        where = db if db is not None else str(default_db_path())
        if "://" in where:  # a DSN: never print its password
            where = where.split("://", 1)[0] + "://…@" + where.rsplit("@", 1)[-1]
        out.write(f"memvault: store {where}\n"
                  f"memvault: admin page http://{host}:{port}/admin/ · "
                  f"API docs http://{host}:{port}/docs\n")
        out.flush()
        state = app.state.server

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: Any) -> None:
                # The graceful shutdown waits for every request to end: an open event
                # stream ends now (eventroutes.py), not when its stream_seconds are up.
                state.stopping.set()
                super().handle_exit(sig, frame)

        Server(uvicorn.Config(app, host=host, port=port, log_config=_LOG_CONFIG,
                              access_log=False)).run()
    finally:
        # The app's shutdown closes the store (SIGTERM never reaches here); this covers a
        # failure before the app started. Closing twice is harmless.
        vault.close()

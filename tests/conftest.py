"""Shared fixtures: one conformance suite, run on every backend.

Every test that uses `backend` (directly or through `make_vault`, `new_db`, `db`, `vault`,
`clocked_vault`) runs once per backend, with the backend in its id: test_x[sqlite],
test_x[postgres]. A SQLite target is a real file under tmp_path; a PostgreSQL target is a
fresh database on the test server (tests/pgserver.py: a private server, or
MEMVAULT_PG_DSN), dropped at teardown. PostgreSQL not starting fails those tests; it never
skips them.

A test that is inherently about one backend (the bytes of SQLite's files, FTS5's integrity
check) says so with `@backends("sqlite")` from _util, and its id still names the backend.

The embedder (use-m3) is cached per process by memvault.embed, so every Vault after the
first one opens in milliseconds; `_warm_embedder` pays the load once per session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pgserver
import pytest
from _server import Server, new_key
from _util import BACKENDS, ManualClock, pg_uri

from memvault import Vault
from memvault.embed import load_embedder

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pg_server_dsn = pgserver.pg_server_dsn


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "backends(*names): run this test on these backends only (default: all)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("backends")
    names = list(marker.args) if marker else list(BACKENDS)
    unknown = set(names) - set(BACKENDS)
    if unknown:
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: unknown backends {unknown}")
    # Session scope: pytest groups the tests by backend, so module-scoped fixtures that
    # depend on it (test_recall's shared vault) are built once per backend.
    metafunc.parametrize("backend", names, indirect=True, scope="session")


@pytest.fixture(scope="session")
def backend(request: pytest.FixtureRequest) -> str:
    """The backend under test: "sqlite" or "postgres" (parametrised in conftest)."""
    return str(request.param)


@pytest.fixture(scope="session", autouse=True)
def _warm_embedder() -> None:
    emb = load_embedder("use-m3")
    emb.embed_documents(["warm up"])


@pytest.fixture
def new_db(backend: str, tmp_path: Path,
           request: pytest.FixtureRequest) -> Iterator[Callable[[], str]]:
    """new_db(): a fresh, empty store target of the backend under test — a SQLite file
    path under tmp_path, or the postgresql:// URI of a new database (dropped at teardown,
    after every Vault that make_vault opened is closed)."""
    created: list[str] = []
    server = request.getfixturevalue("pg_server_dsn") if backend == "postgres" else None
    n = 0

    def _new() -> str:
        nonlocal n
        n += 1
        if backend == "sqlite":
            return str(tmp_path / f"vault{n}.db")
        dsn = pgserver.create_database(server)
        created.append(dsn)
        return pg_uri(dsn)

    yield _new
    for dsn in created:
        pgserver.drop_database(dsn, server)


@pytest.fixture
def make_vault(new_db: Callable[[], str]) -> Iterator[Callable[..., Vault]]:
    """make_vault(target=None, **Vault kwargs): open a Vault on a store target; closed at
    teardown. Without a target, a fresh store of the backend under test."""
    opened: list[Vault] = []

    def _make(target: str | Path | None = None, **kw: Any) -> Vault:
        kw.setdefault("embedder", "use-m3")
        v = Vault(new_db() if target is None else target, **kw)
        opened.append(v)
        return v

    yield _make
    for v in opened:
        v.close()  # closing twice is harmless if a test closed it itself


@pytest.fixture
def db(new_db: Callable[[], str]) -> str:
    """One store target of the backend under test (SQLite path or PostgreSQL URI)."""
    return new_db()


@pytest.fixture
def vault(make_vault: Callable[..., Vault], db: str) -> Vault:
    return make_vault(db)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def clocked_vault(make_vault: Callable[..., Vault], db: str, clock: ManualClock) -> Vault:
    return make_vault(db, clock=clock)


# --- server tests: a module that defines `srv` (a tests/_server.Server) gets these ------

@pytest.fixture(scope="module")
def admin(srv: Server) -> Iterator[httpx.Client]:
    """A client with the admin key `srv` printed at its first start."""
    assert srv.admin_key is not None
    with srv.client(srv.admin_key) as c:
        yield c


@pytest.fixture(scope="module")
def alice(srv: Server, admin: httpx.Client) -> Iterator[httpx.Client]:
    """A client with a `user` key bound to alice."""
    with srv.client(new_key(admin, role="user", user="alice")) as c:
        yield c


# --- page tests: a module that asks for `browser` gets Debian's headless Chromium ----------

@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium (tests/_browser.py), one per module and closed with it. Not one per
    session: while a sync Playwright runs, the worker's thread counts as inside an asyncio
    loop, so a later test's asyncio.run (or another module's own `chromium(...)`, as
    test_docs_offline's) would fail. A module may define its own (test_docs_offline)."""
    from _browser import chromium  # only the page tests pay for Playwright's import

    with chromium() as b:
        yield b

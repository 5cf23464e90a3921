"""Shared fixtures: real SQLite files under tmp_path and the real default embedder.

The embedder (use-m3) is cached per process by memvault.embed, so every Vault after the
first one opens in milliseconds; `_warm_embedder` pays the load once per session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _util import ManualClock

from memvault import Vault
from memvault.embed import load_embedder


@pytest.fixture(scope="session", autouse=True)
def _warm_embedder() -> None:
    emb = load_embedder("use-m3")
    emb.embed_documents(["warm up"])


@pytest.fixture
def make_vault(tmp_path: Path) -> Iterator[Callable[..., Vault]]:
    """make_vault(path=None, **Vault kwargs): open a Vault on a SQLite file; closed at
    teardown. Without a path, a fresh file under tmp_path."""
    opened: list[Vault] = []

    def _make(path: str | Path | None = None, **kw: Any) -> Vault:
        if path is None:
            path = tmp_path / f"vault{len(opened)}.db"
        kw.setdefault("embedder", "use-m3")
        v = Vault(path, **kw)
        opened.append(v)
        return v

    yield _make
    for v in opened:
        v.close()  # closing twice is harmless if a test closed it itself


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memvault.db"


@pytest.fixture
def vault(make_vault: Callable[..., Vault], db_path: Path) -> Vault:
    return make_vault(db_path)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def clocked_vault(make_vault: Callable[..., Vault], db_path: Path, clock: ManualClock) -> Vault:
    return make_vault(db_path, clock=clock)

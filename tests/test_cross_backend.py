"""Portability between backends: an export from one backend, imported into the other and
exported again, is byte-identical — memories, full histories (purged ones included, as
their content-free history), scopes with agent and session, every field's type.

Needs both backends at once, so it takes no `backend` parameter: the direction is the
parameter. PostgreSQL not starting fails these tests (tests/pgserver.py), never skips them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _util import (
    HISTORY_SCOPE,
    ManualClock,
    build_history,
    check_consistent,
    export_text,
    fresh_target,
)

from memvault import Scope, Vault

ME = HISTORY_SCOPE
BOB = Scope("acme", "bob")


@pytest.mark.parametrize(("first", "second"), [("sqlite", "postgres"), ("postgres", "sqlite")],
                         ids=["sqlite-to-postgres", "postgres-to-sqlite"])
def test_export_import_export_across_backends_is_byte_identical(
        pg_server_dsn: str, tmp_path: Path, first: str, second: str) -> None:
    clock = ManualClock()
    with (fresh_target(first, tmp_path) as a, fresh_target(second, tmp_path) as b,
          fresh_target(first, tmp_path) as c):
        src = Vault(a, embedder="use-m3", clock=clock)
        dst = Vault(b, embedder="use-m3")
        back = Vault(c, embedder="use-m3")
        try:
            ids = build_history(src, clock)
            text = {sc: export_text(src, sc) for sc in (ME, BOB)}
            assert len(text[ME].splitlines()) == 1 + 6 and len(text[BOB].splitlines()) == 2

            # first -> second -> export: the same bytes.
            for sc in (ME, BOB):
                dst.import_jsonl(text[sc].splitlines(keepends=True))
            assert {sc: export_text(dst, sc) for sc in (ME, BOB)} == text
            # ... and back to a fresh store of the first backend: the same bytes again.
            for sc in (ME, BOB):
                back.import_jsonl(export_text(dst, sc).splitlines())
            assert {sc: export_text(back, sc) for sc in (ME, BOB)} == text

            # The imported store is whole and served, not just re-exportable.
            c_dst = check_consistent(dst)
            assert c_dst["memories"] == c_dst["text"] == c_dst["vectors"] == 6
            for key, mid in ids.items():
                if key == "purged":
                    continue
                sc = Scope("acme", "alice", "reporter", "s1") if key == "agent" else ME
                assert dst.get(sc, mid).to_dict() == src.get(sc, mid).to_dict(), key
            assert [r.op for r in dst.history(ME, ids["purged"])] == ["create", "purge"]
            assert [h.memory.value for h in dst.recall(ME, "导出格式", top_k=10)
                    if h.memory.slot == "report.format"] == ["CSV"]
            assert dst.recall(ME, "dog named Bao")[0].memory.id == ids["plain"]
            assert [h.memory.content for h in dst.recall(BOB, "tea")] == ["Bob prefers tea"]
        finally:
            for v in (src, dst, back):
                v.close()

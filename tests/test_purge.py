"""Invariant 7: after purge, the erased text cannot be found anywhere in the store: not in
the memory table, not in any revision, not in the full-text index or its shadow tables,
not in the vectors, not in the database file or its write-ahead log."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from _util import counts, query

from memvault import NotFoundError, Op, Scope, Vault

ME = Scope("acme", "alice")
TOKENS = ["zebracorn42", "紫色独角兽"]
SECRET_EN, SECRET_ZH = TOKENS


def _store_files(db: Path) -> list[Path]:
    return [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}-journal"))
            if p.exists()]


def _raw_hits(db: Path) -> dict[str, list[str]]:
    """Which store files contain each token, in UTF-8 or (for safety) UTF-16."""
    out: dict[str, list[str]] = {}
    for token in TOKENS:
        needles = [token.encode("utf-8"), token.encode("utf-16-le")]
        out[token] = [p.name for p in _store_files(db)
                      if any(n in p.read_bytes() for n in needles)]
    return out


def _remember_secret(vault: Vault, padding: str = "") -> str:
    r = vault.remember(
        ME, f"Export reports as CSV, code {SECRET_EN}, 用户叫它{SECRET_ZH}{padding}",
        slot="report.format", value=f"CSV-{SECRET_EN}",
        source_text=f"I said {SECRET_EN} / 我说{SECRET_ZH}",
        reason=f"because {SECRET_EN} {SECRET_ZH}", trigger_text=f"trigger {SECRET_ZH} {SECRET_EN}",
        tags=[f"tag-{SECRET_EN}", SECRET_ZH], metadata={"note": f"{SECRET_ZH} {SECRET_EN}"})
    vault.remember(ME, f"Export reports as XLSX ({SECRET_EN} {SECRET_ZH})",
                   slot="report.format", value="XLSX", reason=f"{SECRET_ZH} changed",
                   trigger_text=f"update: {SECRET_EN}")
    vault.edit(ME, r.id, content=f"Export reports as XLSX zipped {SECRET_EN} {SECRET_ZH}",
               reason=f"edit {SECRET_EN}")
    vault.rollback(ME, r.id, 1, reason=f"rollback {SECRET_ZH}")
    assert len(vault.history(ME, r.id)) == 4
    return r.id


# "long" content spills onto overflow pages, which are freed (not rewritten) on delete.
@pytest.mark.parametrize("padding", ["", " " + "长文本 long text " * 600], ids=["short", "long"])
def test_purge_erases_every_trace(vault: Vault, db_path: Path, padding: str) -> None:
    keep = vault.remember(ME, "The user has a cat named Miso")
    other = vault.remember(Scope("acme", "bob"), "Bob prefers tea")
    mid = _remember_secret(vault, padding)
    # Before: the tokens are really in the file (the check below could fail).
    vault.store.compact()
    assert all(_raw_hits(db_path)[t] for t in TOKENS)
    assert vault.recall(ME, SECRET_EN)[0].memory.id == mid

    tomb = vault.purge(ME, mid, actor="dpo@acme", reason="GDPR erasure request #12")
    vault.store.compact()

    # The files: nothing, in the database or its WAL.
    assert _raw_hits(db_path) == {t: [] for t in TOKENS}
    wal = Path(f"{db_path}-wal")
    assert not wal.exists() or wal.stat().st_size == 0

    # The API.
    with pytest.raises(NotFoundError):
        vault.get(ME, mid)
    assert all(h.memory.id != mid for h in vault.recall(ME, SECRET_EN, top_k=50))
    assert all(h.memory.id != mid for h in vault.recall(ME, SECRET_ZH, top_k=50))
    assert all(h.memory.id != mid for h in vault.recall(ME, "export format", top_k=50))
    assert [m.id for m in vault.list(ME)] == [keep.id]

    # History: earlier revisions keep who/when but no content; a tombstone says who erased.
    hist = vault.history(ME, mid)
    assert [r.op for r in hist] == [Op.CREATE.value, Op.UPDATE.value, Op.UPDATE.value,
                                    Op.ROLLBACK.value, Op.PURGE.value]
    for r in hist[:-1]:
        assert (r.state, r.reason, r.trigger_text) == (None, None, None)
        assert r.actor and r.at
    last = hist[-1]
    assert last.op_id == tomb.op_id
    assert (last.actor, last.reason, last.state) == ("dpo@acme", "GDPR erasure request #12",
                                                      None)
    assert (last.from_version, last.to_version) == (4, 5)

    # As-of reads do not resurrect it.
    assert [m.id for m in vault.list(ME, as_of=hist[1].at)] == [keep.id]
    with pytest.raises(NotFoundError):
        vault.get(ME, mid, as_of=hist[1].at)
    assert all(h.memory.id != mid for h in vault.recall(ME, SECRET_EN, as_of=hist[2].at))

    # Every table, searched through SQL, FTS shadow tables included.
    for table in ("memories", "revisions", "memories_fts", "memories_fts_data",
                  "memories_fts_idx", "memories_fts_content", "memories_fts_docsize",
                  "memories_fts_config", "meta", "vectors"):
        for row in query(db_path, f"SELECT * FROM {table}"):
            blob = b"".join(c if isinstance(c, bytes) else str(c).encode() for c in row)
            for t in TOKENS:
                assert t.encode() not in blob, (table, t)
    assert query(db_path, "SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH ?",
                 (f'"{SECRET_EN}"',)) == [(0,)]
    assert query(db_path, "SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH ?",
                 ('"独角兽"',)) == [(0,)]
    c = counts(db_path)
    assert c["memories"] == c["memories_fts"] == c["vectors"] == 2

    # The other memories are untouched.
    assert vault.get(ME, keep.id).content == "The user has a cat named Miso"
    assert vault.get(Scope("acme", "bob"), other.id).content == "Bob prefers tea"


def test_purge_survives_reopen(make_vault: Callable[..., Vault], db_path: Path) -> None:
    vault = make_vault(db_path)
    mid = _remember_secret(vault)
    vault.purge(ME, mid, actor="dpo")
    vault.close()
    assert _raw_hits(db_path) == {t: [] for t in TOKENS}
    again = make_vault(db_path)
    with pytest.raises(NotFoundError):
        again.get(ME, mid)
    assert [r.op for r in again.history(ME, mid)][-1] == Op.PURGE.value
    assert _raw_hits(db_path) == {t: [] for t in TOKENS}


def test_purge_of_other_scope_is_not_found_and_changes_nothing(vault: Vault) -> None:
    mid = _remember_secret(vault)
    before = vault.get(ME, mid).to_dict()
    for other in (Scope("acme", "bob"), Scope("globex", "alice")):
        with pytest.raises(NotFoundError):
            vault.purge(other, mid)
    assert vault.get(ME, mid).to_dict() == before
    assert len(vault.history(ME, mid)) == 4

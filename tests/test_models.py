"""The store records which embedding models made its vectors; opening it with another
model is refused until `reindex` re-embeds every memory."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from _util import check_consistent, counts, dump, query, vector_counts

from memvault import ModelMismatchError, Scope, Vault

ME = Scope("acme", "alice")


def test_other_model_is_refused_until_reindex(make_vault: Callable[..., Vault],
                                             db: str) -> None:
    v = make_vault(db, embedder="use-m3")
    v.remember(ME, "用户希望报表导出为 XLSX", slot="report.format", value="XLSX")
    v.remember(ME, "The user has a cat named Miso")
    purged = v.remember(ME, "Temporary note to erase")
    v.purge(ME, purged.id)
    v.remember(Scope("acme", "bob"), "Bob prefers tea")
    v.close()
    assert json.loads(query(db, "SELECT value FROM meta WHERE key = 'embedders'")[0][0]) \
        == [{"name": "use-m3", "dim": 512}]
    before = dump(db)

    with pytest.raises(ModelMismatchError) as exc:
        make_vault(db, embedder="e5-small")
    msg = exc.value.message
    assert "use-m3" in msg and "e5-small" in msg
    assert "`memvault --embedder e5-small reindex`" in msg  # a command that runs as printed
    assert dump(db) == before  # refusing touched nothing
    # Adding a second model is a different record too.
    with pytest.raises(ModelMismatchError):
        make_vault(db, embedder="use-m3+e5-small")

    fixer = make_vault(db, embedder="e5-small", check_models=False)
    assert fixer.reindex() == 3
    fixer.close()

    assert vector_counts(db) == {"e5-small": (3, 384)}
    assert query(db, "SELECT DISTINCT embedding_model FROM memories") == [("e5-small",)]
    c = check_consistent(db)
    assert c["memories"] == c["vectors"] == c["text"] == 3

    v2 = make_vault(db, embedder="e5-small")
    assert v2.embedding_model == "e5-small"
    for q in ("导出格式", "which export format?"):
        hits = v2.recall(ME, q)
        assert hits[0].memory.value == "XLSX"
        assert set(hits[0].parts.dense) == {"e5-small"}
    # A write after reindex stores an e5-small vector only.
    v2.remember(ME, "Prefers dark mode")
    assert vector_counts(db) == {"e5-small": (4, 384)}
    with pytest.raises(ModelMismatchError):
        make_vault(db, embedder="use-m3")


def test_two_models_then_drop_one(make_vault: Callable[..., Vault], db: str) -> None:
    v = make_vault(db, embedder="use-m3+e5-small")
    v.remember(ME, "Export reports as XLSX", slot="report.format", value="XLSX")
    v.remember(ME, "The user has a cat named Miso")
    assert vector_counts(db) == {"e5-small": (2, 384), "use-m3": (2, 512)}
    hit = v.recall(ME, "export format")[0]
    assert hit.memory.value == "XLSX" and set(hit.parts.dense) == {"use-m3", "e5-small"}
    v.close()
    with pytest.raises(ModelMismatchError):
        make_vault(db, embedder="use-m3")
    assert make_vault(db, embedder="use-m3", check_models=False).reindex() == 2
    assert vector_counts(db) == {"use-m3": (2, 512)}
    assert counts(db)["vectors"] == 2
    assert make_vault(db, embedder="use-m3").recall(ME, "export format")[0] \
        .memory.value == "XLSX"

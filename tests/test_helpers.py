"""The inspection helpers of _util see what they claim to see, on every backend: a dump
changes with every kind of write, and the consistency check fails on a store that is not
consistent. Otherwise "dump unchanged" and "store consistent" would prove nothing."""

from __future__ import annotations

import pytest
from _util import check_consistent, counts, dump, is_pg, query, text_hits, vector_counts

from memvault import Scope, Vault

ME = Scope("acme", "alice")


def test_dump_and_counts_see_every_write(vault: Vault, db: str) -> None:
    empty = dump(db)
    assert counts(db) == {"memories": 0, "revisions": 0, "text": 0, "vectors": 0}
    r = vault.remember(ME, "Export reports as CSV", slot="report.format", value="CSV")
    one = dump(db)
    assert one["memories"] != empty["memories"] and one["revisions"] != empty["revisions"]
    assert one["vectors"] != empty["vectors"]
    assert counts(db) == {"memories": 1, "revisions": 1, "text": 1, "vectors": 1}
    assert vector_counts(db) == {"use-m3": (1, 512)}
    assert text_hits(db, "csv") == 1 and text_hits(db, "xlsx") == 0

    vault.edit(ME, r.id, content="Export reports as XLSX")  # new text: terms and vector
    two = dump(db)
    assert two["vectors"] != one["vectors"]
    assert (text_hits(db, "csv"), text_hits(db, "xlsx")) == (0, 1)
    vault.edit(ME, r.id, tags=["x"])  # same text: only the row and a revision
    three = dump(db)
    assert three["memories"] != two["memories"] and three["revisions"] != two["revisions"]
    assert three["vectors"] == two["vectors"]
    vault.freeze(ME, r.id)
    assert dump(db)["memories"] != three["memories"]
    assert check_consistent(db)["memories"] == 1


@pytest.mark.parametrize("damage", ["no_vector", "no_revision", "row_ahead_of_history"])
def test_consistency_check_catches_a_half_written_memory(vault: Vault, db: str,
                                                         damage: str) -> None:
    vault.remember(ME, "The user has a cat named Miso")
    r = vault.remember(ME, "Export reports as CSV", slot="report.format", value="CSV")
    check_consistent(db)
    if damage == "no_vector":
        if is_pg(db):
            (tbl,) = query(db, "SELECT tbl FROM vector_models")[0]
            query(db, f'DELETE FROM "{tbl}" WHERE mrow = '
                      "(SELECT mrow FROM memories WHERE id = ?)", (r.id,))
        else:
            query(db, "DELETE FROM vectors WHERE mrow = "
                      "(SELECT rowid FROM memories WHERE id = ?)", (r.id,))
    elif damage == "no_revision":
        # The append-only guard must be bypassed to fake this: drop its triggers.
        if is_pg(db):
            query(db, "ALTER TABLE revisions DISABLE TRIGGER USER")
            query(db, "DELETE FROM revisions WHERE memory_id = ?", (r.id,))
        else:
            query(db, "DROP TRIGGER revisions_no_delete")
            query(db, "DELETE FROM revisions WHERE memory_id = ?", (r.id,))
    else:
        query(db, "UPDATE memories SET version = 2, content = 'Export reports as XLSX' "
                  "WHERE id = ?", (r.id,))
    with pytest.raises(AssertionError):
        check_consistent(db)

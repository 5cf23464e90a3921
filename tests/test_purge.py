"""Invariant 7: after purge, the erased text cannot be found anywhere in the store: not in
the memory table, not in any revision, not in the full-text index, not in the vectors.

On both backends every table of the store is read back through a separate connection
(SQLite: FTS5's shadow tables included; PostgreSQL: every table of the schema, the
generated full-text columns and the per-model vector tables included), and the full-text
index is asked for every term only the erased memory had. On SQLite, where the store is a
file, the bytes of the database file and its write-ahead log are searched as well
(@backends("sqlite")); PostgreSQL's table files after compact are covered by
test_postgres_store.test_compact_prunes_the_purged_bytes_from_the_table_files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from _util import all_text, backends, check_consistent, text_hits

from memvault import (
    ConflictError,
    FrozenError,
    NotFoundError,
    Op,
    Scope,
    Vault,
    VersionError,
)
from memvault.textindex import terms
from memvault.writes import Writer

ME = Scope("acme", "alice")
TOKENS = ["zebracorn42", "紫色独角兽"]
SECRET_EN, SECRET_ZH = TOKENS


def _secret_terms(padding: str) -> list[str]:
    """Index terms that only the erased memory's versions contain (the kept memories share
    none of them); the full-text index must not find any of them after the purge."""
    return sorted(set(terms(f"Export reports XLSX zipped CSV code {SECRET_EN} 用户叫它"
                            f"{SECRET_ZH} {padding}")))


def _store_files(db: Path) -> list[Path]:
    return [p for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}-journal"))
            if p.exists()]


def _raw_hits(db: str) -> dict[str, list[str]]:
    """Which SQLite store files contain each token, in UTF-8 or (for safety) UTF-16."""
    out: dict[str, list[str]] = {}
    for token in TOKENS:
        needles = [token.encode("utf-8"), token.encode("utf-16-le")]
        out[token] = [p.name for p in _store_files(Path(db))
                      if any(n in p.read_bytes() for n in needles)]
    return out


def _table_hits(db: str) -> dict[str, list[str]]:
    """Which tables of the store hold each token (read through a separate connection)."""
    tables = all_text(db)
    return {t: sorted(name for name, text in tables.items() if t in text) for t in TOKENS}


NOWHERE = {t: [] for t in TOKENS}


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


# "long" content spills onto SQLite overflow pages (freed, not rewritten, on delete) and
# into PostgreSQL's TOAST table.
@pytest.mark.parametrize("padding", ["", " " + "长文本 long text " * 600], ids=["short", "long"])
def test_purge_erases_every_trace(vault: Vault, db: str, padding: str) -> None:
    keep = vault.remember(ME, "The user has a cat named Miso")
    other = vault.remember(Scope("acme", "bob"), "Bob prefers tea")
    mid = _remember_secret(vault, padding)
    # Before: the tokens and terms really are in the store (the checks below could fail).
    assert all(_table_hits(db)[t] for t in TOKENS)
    assert all(text_hits(db, t) == 1 for t in (SECRET_EN.lower(), "独角兽"))
    assert vault.recall(ME, SECRET_EN)[0].memory.id == mid

    result = vault.purge(ME, mid, actor="dpo@acme", reason="GDPR erasure request #12")
    tomb = result.tombstone
    assert result.erasure == "done"  # no other connection holds a snapshot

    # Every table of the store, and the full-text index term by term.
    assert _table_hits(db) == NOWHERE
    gone = _secret_terms(padding)
    assert {t: text_hits(db, t) for t in gone} == dict.fromkeys(gone, 0)
    c = check_consistent(db)
    assert c["memories"] == c["text"] == c["vectors"] == 2

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

    # The other memories are untouched.
    assert vault.get(ME, keep.id).content == "The user has a cat named Miso"
    assert vault.get(Scope("acme", "bob"), other.id).content == "Bob prefers tea"


@backends("sqlite")
@pytest.mark.parametrize("padding", ["", " " + "长文本 long text " * 600], ids=["short", "long"])
def test_purge_leaves_no_bytes_in_the_sqlite_files(vault: Vault, db: str, padding: str) -> None:
    """SQLite only: the bytes of the database file and its WAL (the equivalent for
    PostgreSQL's heap files is in test_postgres_store)."""
    vault.remember(ME, "The user has a cat named Miso")
    mid = _remember_secret(vault, padding)
    vault.store.compact()
    assert all(_raw_hits(db)[t] for t in TOKENS)  # before: really in the file
    vault.purge(ME, mid, actor="dpo@acme")
    vault.store.compact()
    assert _raw_hits(db) == NOWHERE
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    assert _table_hits(db) == NOWHERE


def test_purge_survives_reopen(backend: str, make_vault: Callable[..., Vault], db: str) -> None:
    vault = make_vault(db)
    mid = _remember_secret(vault)
    vault.purge(ME, mid, actor="dpo")
    vault.close()
    assert _table_hits(db) == NOWHERE
    if backend == "sqlite":
        assert _raw_hits(db) == NOWHERE
    again = make_vault(db)
    with pytest.raises(NotFoundError):
        again.get(ME, mid)
    assert [r.op for r in again.history(ME, mid)][-1] == Op.PURGE.value
    assert _table_hits(db) == NOWHERE
    if backend == "sqlite":
        assert _raw_hits(db) == NOWHERE


def test_purge_of_other_scope_is_not_found_and_changes_nothing(vault: Vault) -> None:
    mid = _remember_secret(vault)
    before = vault.get(ME, mid).to_dict()
    for other in (Scope("acme", "bob"), Scope("globex", "alice")):
        with pytest.raises(NotFoundError):
            vault.purge(other, mid)
    assert vault.get(ME, mid).to_dict() == before
    assert len(vault.history(ME, mid)) == 4


def test_purge_takes_what_was_made_from_it(vault: Vault, db: str, backend: str) -> None:
    """A graph fact read from the memory, the entity only it named, and a summary that
    covers it carry its words: they are erased with it. The user's own entity, other
    facts and other memories stay."""
    session = Scope("acme", "alice", session="s1")
    vault.remember(ME, "I live in Shanghai")
    told = vault.remember(ME, f"I like {SECRET_EN} tea")
    turns = vault.observe(session, [
        {"role": "user", "content": f"My cat is called {SECRET_ZH} and she is three."},
        {"role": "assistant", "content": "What a lovely name for a cat."},
        {"role": "user", "content": "We moved to a bigger flat last spring."},
        {"role": "assistant", "content": "A bigger flat must feel great."}]).turns
    vault.maintain(ME, steps=["graph"])
    [summary] = vault.summarize(session, force=True)
    facts = {f["object"] for f in vault.graph_facts(ME, "user")}
    assert f"{SECRET_EN} tea" in facts and "Shanghai" in facts  # before: both facts there
    assert SECRET_ZH in summary.content and summary.metadata["covers"] == turns

    # A frozen copy holds the purge back, and nothing is erased.
    [fact] = [f for f in vault.graph_facts(ME, "user") if f["object"] == f"{SECRET_EN} tea"]
    vault.freeze(ME, fact["id"])
    with pytest.raises(FrozenError, match=fact["id"]):
        vault.purge(ME, told.id)
    assert vault.get(ME, told.id).content == told.memory.content
    vault.unfreeze(ME, fact["id"])

    vault.purge(ME, told.id)
    vault.purge(session, turns[0])
    assert {f["object"] for f in vault.graph_facts(ME, "user")} == {"Shanghai"}
    with pytest.raises(NotFoundError):
        vault.get(session, summary.id)
    assert [r.op for r in vault.history(session, summary.id)][-1] == Op.PURGE.value
    names = {m.content for m in vault.list(ME, kind="entity", limit=100)}
    assert "user" in names and "Shanghai" in names and f"{SECRET_EN} tea" not in names
    assert sorted(m.id for m in vault.list(session, kind="turn")) == sorted(turns[1:])
    vault.store.compact()
    assert _table_hits(db) == NOWHERE
    if backend == "sqlite":
        assert _raw_hits(db) == NOWHERE


def test_purge_removes_a_trace_that_rendered_the_memory_from_another_layer(
        vault: Vault, db: str) -> None:
    """A turn can reach the context section through the recent-turns layer without being
    a ranked candidate; the trace that holds the rendered block must still go."""
    session = Scope("acme", "alice", session="s1")
    vault.remember_many([{"scope": ME, "content": f"Pasta recipe note {i}: tomato sauce, "
                                                 f"basil and garlic"} for i in range(120)])
    turns = vault.observe(session, [
        {"role": "user", "content": f"My cat is called {SECRET_EN}"},
        {"role": "assistant", "content": "A fine name."}]).turns
    r = vault.context(ME, "dinner recipe pasta tomato sauce", budget=2000, session="s1")
    assert SECRET_EN in r.text  # rendered through the recent turns
    trace = vault.trace(ME, r.trace_id)
    assert turns[0] not in {c["id"] for c in trace["candidates"]}  # not a ranked candidate
    vault.purge(session, turns[0])
    vault.store.compact()
    assert SECRET_EN not in " ".join(all_text(db).values())


def test_purge_of_a_turn_erases_the_older_slot_version_read_from_it(
        vault: Vault, db: str, backend: str) -> None:
    """The slot's current value came from a later turn, so the memory stays; the version
    read from the purged turn (and a restatement it triggered) lose their content."""
    session = Scope("acme", "alice", session="s1")
    first = vault.observe(session, [
        {"role": "user", "content": f"From now on notify me by email, {SECRET_EN}."},
        {"role": "assistant", "content": "Noted."}])
    slot_id = vault.list(session, slot="notify.channel")[0].id
    assert first.outcomes[0].memory_id == slot_id
    vault.observe(session, [
        {"role": "user", "content": "Change it to SMS notifications instead."},
        {"role": "assistant", "content": "Done."}])
    later = vault.observe(session, [
        {"role": "user", "content": f"Please send notifications by SMS. {SECRET_ZH}"},
        {"role": "assistant", "content": "Sure."}])
    slot = vault.get(session, slot_id)
    assert slot.value == "SMS" and slot.version == 2
    ops = [r.op for r in vault.history(session, slot_id)]
    assert ops == ["create", "update", "reinforce"]
    assert SECRET_EN in " ".join(all_text(db).values())

    # Memories that merely share words with the purged turns keep their history.
    other = Scope("acme", "alice", agent="a2")
    bystanders = [vault.remember(other, "notify me by email").id,
                  vault.remember(other, "Please send notifications by SMS.").id]
    before = {b: vault.history(other, b) for b in bystanders}
    vault.purge(session, first.turns[0])
    vault.purge(session, later.turns[0])
    assert {b: vault.history(other, b) for b in bystanders} == before
    kept = vault.get(session, slot_id)
    assert (kept.value, kept.version, kept.content) == ("SMS", 2, slot.content)
    hist = vault.history(session, slot_id)
    assert [r.op for r in hist] == ["create", "update", "reinforce", "redact", "redact"]
    assert hist[0].state is None and hist[0].trigger_text is None  # read from turn 1
    assert hist[1].state is not None and hist[1].state["value"] == "SMS"  # turn 2 stays
    # Triggered by turn 3, but its state is version 2's: only the quote goes.
    assert hist[2].state is not None and hist[2].state["value"] == "SMS"
    assert hist[2].trigger_text is None and hist[2].reason is None
    assert all(r.state == kept.to_dict() for r in hist[3:])
    assert "purged memory " + first.turns[0] in (hist[3].reason or "")
    # Version 1's content is gone, so it cannot come back.
    with pytest.raises(VersionError, match="no version 1 left: its content was erased"):
        vault.rollback(session, slot_id, 1)
    assert vault.recall(session, "how to notify the user")[0].memory.value == "SMS"
    vault.store.compact()
    assert _table_hits(db) == NOWHERE
    if backend == "sqlite":
        assert _raw_hits(db) == NOWHERE
    check_consistent(db)


def test_purge_follows_approval_and_edits_and_takes_the_traces_that_asked(
        vault: Vault, db: str, backend: str) -> None:
    session = Scope("acme", "alice", session="s1")

    def say(text: str) -> str:
        return vault.observe(session, [{"role": "user", "content": text},
                                       {"role": "assistant", "content": "OK."}]).turns[0]

    # Approved: the slot's new version is the staged candidate's, so it links to the
    # candidate's turn; purging that turn erases the value that came from it.
    say("后续使用短信接收进度通知")
    slot_id = vault.list(session, slot="notify.channel")[0].id
    asked = say(f"update: 用户不喜欢任何形式的推送通知 {SECRET_ZH}")
    [pending] = vault.review_list(session)
    approved = vault.review_approve(session, pending.id)
    assert approved.id == slot_id and approved.value == "none"
    vault.purge(session, asked)
    with pytest.raises(NotFoundError):
        vault.get(session, slot_id)

    # Edited metadata keeps the link to the turn the version quotes.
    told = say(f"From now on notify me by email, {SECRET_EN}.")
    mid = vault.list(session, slot="notify.channel")[0].id
    vault.edit(session, mid, metadata={"reviewed": True})
    assert vault.get(session, mid).metadata == {"reviewed": True, "turn_id": told}
    vault.purge(session, told)
    with pytest.raises(NotFoundError):
        vault.get(session, mid)

    # The app built the context for a message before observing it: that trace's query
    # is the message, and it goes with the turn.
    msg = f"My locker code is {SECRET_EN}7, keep it safe"
    ctx = vault.context(session, msg)
    turn = say(msg)
    vault.purge(session, turn)
    with pytest.raises(NotFoundError):
        vault.trace(session, ctx.trace_id)
    vault.store.compact()
    assert _table_hits(db) == NOWHERE
    if backend == "sqlite":
        assert _raw_hits(db) == NOWHERE
    check_consistent(db)


def test_restated_sensitive_text_is_redacted_in_history_too(vault: Vault) -> None:
    session = Scope("acme", "alice", session="s1")
    for text in ("From now on notify me by email.",
                 "From now on notify me by email, write to zebra.secret@example.com please."):
        vault.observe(session, [{"role": "user", "content": text}])
    [slot] = vault.list(session, slot="notify.channel")
    hist = vault.history(session, slot.id)
    assert hist[-1].op == "reinforce"
    assert not any("zebra.secret" in (r.trigger_text or "") + str(r.state) for r in hist)


def test_purge_never_touches_rows_of_another_user_that_reuse_the_id(vault: Vault) -> None:
    import io
    import json

    alice, bob = ME, Scope("acme", "bob")
    x = vault.remember(alice, f"alice secret {SECRET_EN}")
    b = vault.remember(bob, "bob note")
    vault.forget(bob, b.id)
    buf = io.StringIO()
    vault.export_jsonl(bob, buf)
    header, record = buf.getvalue().splitlines()[:2]
    rec = json.loads(record)
    rec["memory"], rec["id"] = None, x.id
    for r in rec["revisions"]:
        r["memory_id"], r["op_id"] = x.id, r["op_id"] + "z"
        if r["state"] is not None:
            r["state"]["id"] = x.id
    with pytest.raises(ConflictError, match=x.id):
        vault.import_jsonl([header, json.dumps(rec)], scope=bob)
    with pytest.raises(NotFoundError):
        vault.history(bob, x.id)
    # Were such rows there anyway, purge would leave them: its updates are scoped.
    vault.purge(alice, x.id)
    assert vault.history(bob, b.id)[-1].state is not None


def test_purge_takes_the_graph_fact_read_from_an_older_slot_value(
        vault: Vault, db: str) -> None:
    session = Scope("acme", "alice", session="s1")
    first = vault.observe(session, [{"role": "user", "content": "I live in Zebracorn42ville."}])
    slot_id = first.outcomes[0].memory_id
    vault.graph_ingest(ME, [slot_id])
    vault.observe(session, [{"role": "user", "content": "I moved to Paris last week."}])
    vault.maintain(ME, steps=["graph"])
    before = {f["object"] for f in vault.graph_facts(ME, "user", history=True)}
    assert {"Zebracorn42ville", "Paris"} <= before
    vault.purge(session, first.turns[0])
    assert vault.get(session, slot_id).value == "Paris"
    after = {f["object"] for f in vault.graph_facts(ME, "user", history=True)}
    assert "Paris" in after and "Zebracorn42ville" not in after
    vault.store.compact()
    assert "zebracorn42" not in " ".join(all_text(db).values()).lower()


def test_a_memory_made_from_a_purged_one_is_refused(vault: Vault) -> None:
    """A writer that read a memory before it was purged (a summariser, the graph, an
    extractor) cannot store what it made from it afterwards: the purge would never see
    it. Source ids that were never memories, or another user's purged ids, are not
    refused."""
    session = Scope("acme", "alice", session="s1")
    [turn, _] = vault.observe(session, [
        {"role": "user", "content": f"My cat is called {SECRET_EN}."},
        {"role": "assistant", "content": "A fine name."}]).turns
    gone = vault.remember(ME, f"I like {SECRET_ZH} tea").id
    vault.purge(session, turn)
    vault.purge(ME, gone)
    before = vault.list(ME, limit=1000)
    for meta, kind in (({"covers": [turn]}, "summary"), ({"turn_id": turn}, "fact"),
                       ({"source_memory": gone, "source_version": 1}, "relation"),
                       ({"covers_summaries": ["s-x", gone]}, "summary")):
        with pytest.raises(ConflictError, match="was purged; nothing was stored"):
            vault.remember(session, f"made from {SECRET_EN}", kind=kind, metadata=meta)
    with pytest.raises(ConflictError, match=f"memory {gone}, which this one is made from"):
        vault.propose(ME, "Made from it", metadata={"source_memory": gone})
    assert vault.list(ME, limit=1000) == before
    # Nor by an edit of its metadata, nor by an import.
    kept = vault.remember(ME, "A note that stays").memory
    with pytest.raises(ConflictError, match="was purged"):
        vault.edit(ME, kept.id, metadata={"source_memory": gone})
    assert vault.get(ME, kept.id) == kept
    import io
    import json
    buf = io.StringIO()
    vault.export_jsonl(ME, buf)
    header, *lines = buf.getvalue().splitlines()
    rec = next(json.loads(x) for x in lines if json.loads(x)["id"] == kept.id)
    new_id = "m_imported_made_from_purged"
    rec["id"] = rec["memory"]["id"] = new_id
    rec["memory"]["metadata"] = {"turn_id": turn}
    for r in rec["revisions"]:
        r["memory_id"], r["op_id"] = new_id, r["op_id"] + "x"
        r["state"] = {**rec["memory"]}
    with pytest.raises(ConflictError, match="was purged"):
        vault.import_jsonl([header, json.dumps(rec)])
    with pytest.raises(NotFoundError):
        vault.get(ME, new_id)
    # Not a purged memory of this user: stored as usual.
    bob = Scope("acme", "bob")
    assert vault.remember(bob, "Bob's note", metadata={"turn_id": turn}).action == "added"
    assert vault.remember(ME, "A note", metadata={"turn_id": "m-never"}).action == "added"


def test_what_a_concurrent_writer_made_before_the_purge_locked_it_goes_too(
        make_vault: Callable[..., Vault], db: str, backend: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process commits, between the purge's reads and its transaction, a summary
    of the turn, a roll-up of the summary the purge is about to erase, and a trace whose
    query holds the turn: the purge erases them as well."""
    vault, other = make_vault(db), make_vault(db)
    session = Scope("acme", "alice", session="s1")
    turns = vault.observe(session, [
        {"role": "user", "content": f"My cat is called {SECRET_EN}."},
        {"role": "assistant", "content": "A fine name."}]).turns
    [summary] = vault.summarize(session, force=True)
    late: list[str] = []
    real = vault.store.transaction

    def racing() -> object:
        if not late:
            late.append(other.remember(session, f"Cat named {SECRET_EN}", kind="summary",
                                       metadata={"covers": [turns[0]]}).id)
            late.append(other.remember(ME, f"All about {SECRET_EN}", kind="summary",
                                       metadata={"covers_summaries": [summary.id]}).id)
            late.append(other.context(ME, f"My cat is called {SECRET_EN}.").trace_id)
        return real()

    monkeypatch.setattr(vault.store, "transaction", racing)
    vault.purge(session, turns[0])
    monkeypatch.undo()
    assert len(late) == 3
    for scope, mid in ((session, late[0]), (ME, late[1]), (session, summary.id)):
        with pytest.raises(NotFoundError):
            vault.get(scope, mid)
        assert vault.history(scope, mid)[-1].op == Op.PURGE.value
    with pytest.raises(NotFoundError):
        vault.trace(ME, late[2])
    vault.store.compact()
    assert _table_hits(db) == {SECRET_EN: [], SECRET_ZH: []}
    if backend == "sqlite":
        assert _raw_hits(db)[SECRET_EN] == []
    check_consistent(db)


@backends("postgres")
def test_a_purge_and_a_summary_writer_wait_for_each_other_without_deadlock(
        make_vault: Callable[..., Vault], db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer locks the turns its summary covers (in id order) and pauses between two
    of them; the purge of the last turn starts meanwhile. Both lock in id order, so the
    purge waits, then erases the summary; nothing fails with a deadlock."""
    import threading
    import time

    vault, writer = make_vault(db), make_vault(db)
    session = Scope("acme", "alice", session="s1")
    turns = vault.observe(session, [
        {"role": "user", "content": "first thing I said"},
        {"role": "assistant", "content": "second thing"},
        {"role": "user", "content": f"third thing, my secret {SECRET_EN}"}]).turns
    locked = threading.Event()
    real = Writer.check_sources

    def paused(tx: object, scope: Scope, metadata: object, had: object = None,
               skip: object = ()) -> None:
        user = Scope(scope.tenant, scope.user)
        for i, sid in enumerate(sorted(turns)):
            tx.get(user, sid, for_update=True)  # type: ignore[attr-defined]
            if i == 1:
                locked.set()
                time.sleep(1.0)
        real(tx, scope, metadata, had, skip)  # type: ignore[arg-type]

    monkeypatch.setattr(writer.engine.writes, "check_sources", paused)
    out: dict[str, object] = {}

    def write() -> None:
        try:
            out["write"] = writer.remember(session, f"Summary: {SECRET_EN}", kind="summary",
                                           metadata={"covers": turns}).action
        except Exception as e:
            out["write"] = repr(e)

    def purge() -> None:
        locked.wait()
        try:
            out["purge"] = vault.purge(session, turns[2]).tombstone.op
        except Exception as e:
            out["purge"] = repr(e)

    threads = [threading.Thread(target=write), threading.Thread(target=purge)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == {"write": "added", "purge": "purge"}
    assert vault.list(ME, kind="summary") == []
    vault.store.compact()
    assert _table_hits(db)[SECRET_EN] == []


def test_a_new_row_on_a_purged_rowid_is_indexed_by_its_own_words_only(
        tmp_path: Path) -> None:
    """SQLite reuses the largest rowid once its row is gone, and a new row's full-text
    entry is written without first deleting one (sqlite.py `_new_terms`): neither the
    purged memory's words nor a stray entry left on that rowid may find the new one."""
    import sqlean  # the store's SQLite build: the stdlib's may be too old for its FTS5

    v = Vault(tmp_path / "v.db", embedder="use-m3")
    me = Scope("acme", "alice")
    try:
        gone = v.remember(me, "The zeppelin hangar code is 4471").memory
        v.purge(me, gone.id)
        new = v.remember(me, "Lunch is at the noodle bar").memory
        assert text_hits(v, "zeppelin") == 0 and text_hits(v, "noodl") == 1
        # A stray entry on the next rowid (as a crashed older build might have left).
        db = sqlean.connect(str(tmp_path / "v.db"))
        with db:
            top = db.execute("SELECT MAX(rowid) FROM memories").fetchone()[0]
            db.execute("INSERT INTO memories_fts (rowid, scope, body) VALUES (?, 'x', "
                       "'stray marmalade')", (top + 1,))
        db.close()
        third = v.remember(me, "Parking is on level two").memory
        assert text_hits(v, "marmalad") == 0 and text_hits(v, "park") == 1
        assert [h.memory.id for h in v.recall(me, "parking level")][:1] == [third.id]
        assert v.get(me, new.id) is not None
    finally:
        v.close()

"""Change events (docs/events.md), on both backends: one per committed change, written in
the change's own transaction, in commit order, scoped, resumable from a cursor, and never
holding content a purge erased."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from _util import all_text, backends

from memvault import Scope, Vault
from memvault.changes import Event
from memvault.errors import ScopeError, ValidationError

ME = Scope("acme", "alice")
BOB = Scope("acme", "bob")
OTHER = Scope("globex", "alice")


def _events(vault: Vault, tenant: str = "acme", **kw: Any) -> list[Event]:
    return list(vault.events(tenant, limit=1000, **kw))


def test_every_verb_commits_its_event(vault: Vault) -> None:
    """add, update, rollback, freeze, unfreeze, forget, staged, approve, reject and purge:
    each an event, in order, with the memory, versions, actor and reason."""
    a = vault.remember(ME, "Prefers CSV reports", slot="report.format", value="CSV",
                       reason="asked")
    vault.remember(ME, "Prefers PDF reports", slot="report.format", value="PDF")
    vault.rollback(ME, a.id, 1, reason="undo")
    vault.freeze(ME, a.id, reason="policy")
    vault.unfreeze(ME, a.id)
    vault.forget(ME, a.id, reason="moved on")
    base = vault.remember(ME, "Prefers SMS notifications", slot="pref.notify", value="sms")
    staged = [vault.propose(ME, f"Prefers {how} notifications", slot="pref.notify",
                            value=how) for how in ("email", "push")]
    assert [o.action for o in staged] == ["stage", "stage"]
    vault.review_approve(ME, staged[0].memory_id or "", reason="confirmed")
    vault.review_reject(ME, staged[1].memory_id or "", reason="wrong")
    gone = vault.remember(ME, "The door code is 4711")
    vault.purge(ME, gone.id, reason="asked to erase")

    got = _events(vault)
    assert [e.id for e in got] == sorted(e.id for e in got) and len({e.id for e in got}) \
        == len(got)
    mine = [(e.kind, e.from_version, e.to_version) for e in got if e.memory_id == a.id]
    assert mine == [("add", None, 1), ("update", 1, 2), ("rollback", 2, 3),
                    ("freeze", 3, 3), ("unfreeze", 3, 3), ("forget", 3, 4)]
    first = next(e for e in got if e.memory_id == a.id)
    assert (first.reason, first.scope, first.payload["state"]["content"]) == (  # type: ignore[index]
        "asked", ME, "Prefers CSV reports")
    kinds = [e.kind for e in got]
    assert kinds.count("staged") == 2
    assert "approve" in kinds and "reject" in kinds and "purge" in kinds
    staged_ev = [e for e in got if e.kind == "staged"]
    assert {e.memory_id for e in staged_ev} == {o.memory_id for o in staged}
    # The reviewer's notification carries the gate's record: why it waits, what it links.
    review = staged_ev[0].payload["state"]["metadata"]["review"]  # type: ignore[index]
    assert review["reasons"] == ["conflict_not_explicit"] and base.id in review["links"]
    approved = [e for e in got if e.kind == "approve"]
    assert {e.memory_id for e in approved} == {base.id, staged[0].memory_id}
    assert any(e.payload["state"]["value"] == "email" for e in approved  # type: ignore[index]
               if e.memory_id == base.id)
    rejected = next(e for e in got if e.kind == "reject")
    assert (rejected.memory_id, rejected.reason) == (staged[1].memory_id, "wrong")


def test_a_rollback_event_carries_what_downstream_needs_to_roll_back(vault: Vault) -> None:
    a = vault.remember(ME, "Prefers CSV reports", slot="report.format", value="CSV")
    vault.remember(ME, "Prefers PDF reports", slot="report.format", value="PDF")
    vault.remember(ME, "Prefers XLS reports", slot="report.format", value="XLS")
    vault.rollback(ME, a.id, 1, reason="bad import")
    e = _events(vault, kinds=["rollback"])[-1]
    assert (e.memory_id, e.from_version, e.to_version, e.reason) == (a.id, 3, 4,
                                                                      "bad import")
    assert e.payload is not None and e.payload["restored_version"] == 1
    state = e.payload["state"]
    assert (state["content"], state["value"], state["version"], state["status"]) == (
        "Prefers CSV reports", "CSV", 4, "active")
    assert state == vault.get(ME, a.id).to_dict()


def test_a_failed_write_leaves_no_event(vault: Vault) -> None:
    vault.remember(ME, "Prefers tea")
    before = _events(vault)

    def fail(point: str) -> None:
        if point == "after_revision":
            raise RuntimeError("injected")
    vault.store.fault_hook = fail
    try:
        with pytest.raises(RuntimeError):
            vault.remember(ME, "Prefers coffee")
    finally:
        vault.store.fault_hook = None
    assert _events(vault) == before
    vault.remember(ME, "Prefers juice")
    after = _events(vault)
    assert [e.payload["state"]["content"] for e in after[len(before):]  # type: ignore[index]
            ] == ["Prefers juice"]


def test_purge_events_carry_no_content_and_purge_erases_earlier_events(vault: Vault
                                                                       ) -> None:
    secret = "zanzibar-violet-7341"
    m = vault.remember(ME, f"My locker code is {secret}", reason=f"said {secret}")
    vault.edit(ME, m.id, content=f"My locker code is {secret}!", reason="typo")
    keep = vault.remember(ME, "Prefers green tea")
    vault.purge(ME, m.id, reason="user asked")
    got = [e for e in _events(vault) if e.memory_id == m.id]
    assert [e.kind for e in got] == ["add", "update", "purge"]
    assert all(e.payload is None and e.reason is None for e in got[:2])
    assert got[2].payload == {"erased_versions": 2} and got[2].reason == "user asked"
    assert secret not in repr([e.to_dict() for e in _events(vault)])
    # Not in any table (the events table included), nor in the files (test_purge.py).
    assert not [t for t, text in all_text(vault).items() if secret in text]
    # Another memory's events keep their content.
    other = next(e for e in _events(vault) if e.memory_id == keep.id)
    assert other.payload is not None and other.payload["state"]["content"] == \
        "Prefers green tea"


def test_events_are_scoped_and_filtered(vault: Vault) -> None:
    vault.remember(ME, "Alice likes jazz")
    vault.remember(BOB, "Bob likes rock")
    vault.remember(OTHER, "Globex alice likes pop")
    assert {e.scope.user for e in _events(vault)} == {"alice", "bob"}
    assert [e.scope for e in _events(vault, user="bob")] == [BOB]
    assert [e.scope.tenant for e in _events(vault, "globex")] == ["globex"]
    a = vault.remember(ME, "Alice likes blues")
    vault.forget(ME, a.id)
    assert [e.kind for e in _events(vault, user="alice", kinds=["forget"])] == ["forget"]
    for bad in ({"since": -1}, {"limit": 0}, {"kinds": ["nope"]}, {"kinds": "add"},
                {"since": "3"}):
        with pytest.raises(ValidationError):
            list(vault.events("acme", **bad))
    for bad in ({"poll_seconds": 0}, {"idle_timeout": "soon"}, {"kinds": ["nope"]}):
        with pytest.raises(ValidationError):  # when called, not when first iterated
            vault.events("acme", follow=True, **bad)
    with pytest.raises(ScopeError):
        vault.events("", follow=True)


def test_the_iterator_resumes_from_its_cursor_and_follows_new_commits(vault: Vault
                                                                      ) -> None:
    for i in range(3):
        vault.remember(ME, f"Fact number {i}")
    first = list(vault.events("acme", limit=2))
    rest = list(vault.events("acme", since=first[-1].id))
    assert [e.payload["state"]["content"] for e in first + rest] == [  # type: ignore[index]
        "Fact number 0", "Fact number 1", "Fact number 2"]
    # Follow: the backlog, then what commits while following, until stopped.
    stop = threading.Event()
    seen: list[Event] = []

    def consume() -> None:
        for e in vault.events("acme", since=rest[-1].id, follow=True, poll_seconds=0.01,
                              stop=stop):
            seen.append(e)
            if len(seen) == 2:
                stop.set()
    t = threading.Thread(target=consume)
    t.start()
    vault.remember(ME, "Fact number 3")
    vault.remember(ME, "Fact number 4")
    t.join(30)
    assert not t.is_alive()
    assert [e.payload["state"]["content"] for e in seen] == [  # type: ignore[index]
        "Fact number 3", "Fact number 4"]
    assert seen[0].id > rest[-1].id


def test_an_import_is_one_event_per_memory(vault: Vault, make_vault: Any) -> None:
    import io
    a = vault.remember(ME, "Prefers CSV reports", slot="report.format", value="CSV")
    vault.remember(ME, "Prefers PDF reports", slot="report.format", value="PDF")
    buf = io.StringIO()
    vault.export_jsonl(ME, buf)
    other = make_vault()
    other.import_jsonl(buf.getvalue().splitlines())
    got = _events(other)
    assert [(e.kind, e.memory_id, e.to_version) for e in got] == [("import", a.id, 2)]
    assert got[0].payload["state"]["value"] == "PDF"  # type: ignore[index]


@backends("postgres")
def test_an_event_committed_late_is_not_skipped_by_a_cursor(vault: Vault) -> None:
    """PostgreSQL: a write that took its outbox row first but commits after a later write
    must not be numbered below an id a reader has already passed. (No word in common: a
    word's vector row would make the second wait for the first.)"""
    # A first write makes the vector table (its creation would make the two take turns).
    start = vault.remember(ME, "Warm up").memory
    held, release = threading.Event(), threading.Event()
    slow = threading.Thread(target=lambda: vault.remember(ME, "Zebras cross roads"))

    def hook(point: str) -> None:  # the slow writer waits, its outbox row written
        if point == "after_revision" and threading.current_thread() is slow:
            held.set()
            release.wait(30)
    vault.store.fault_hook = hook
    slow.start()
    try:
        assert held.wait(30)
        vault.store.fault_hook = None
        vault.remember(ME, "Quantum physics lectures")
        seen = [e for e in _events(vault) if e.memory_id != start.id]
        assert [e.payload["state"]["content"] for e in seen] == [  # type: ignore[index]
            "Quantum physics lectures"]
    finally:
        release.set()
        slow.join(30)
    later = _events(vault, since=seen[-1].id)
    assert [e.payload["state"]["content"] for e in later] == [  # type: ignore[index]
        "Zebras cross roads"]
    assert later[0].id > seen[-1].id

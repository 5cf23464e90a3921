"""memvault.Client against a real `memvault serve` on loopback: the Vault-level verb tests
that make sense over HTTP, each run against BOTH faces — an embedded Vault on a SQLite
file and a Client on a server (`face`) — with the same calls and the same assertions,
typed errors included (a FrozenError on the server is a FrozenError in the client). Then
what only the client has: the tenant check before a write, the key's errors, a server
that is not there. No mocks: the server is a subprocess, the store a real file."""

from __future__ import annotations

import io
import json
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from _server import Server, free_port, new_key, tenant_admin_key

from memvault import (
    AuthenticationError,
    Client,
    ConflictError,
    ConnectionFailedError,
    FrozenError,
    Memory,
    MemvaultError,
    NotFoundError,
    PermissionDeniedError,
    PurgeResult,
    RememberResult,
    Revision,
    Scope,
    ScopeError,
    ValidationError,
    Vault,
    VersionError,
)
from memvault.layers.section import ContextResult
from memvault.model import Hits
from memvault.writepath import ObserveResult, Outcome

TENANT = "acme"
Face = Vault | Client


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(str(tmp_path_factory.mktemp("client") / "server.db"), tenant=TENANT)
    assert s.admin_key
    yield s
    s.stop()


@pytest.fixture(scope="module")
def remote(srv: Server) -> Iterator[Client]:
    assert srv.admin_key
    with Client(srv.url, srv.admin_key) as c:
        yield c


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vault]:
    with Vault(str(tmp_path_factory.mktemp("embedded") / "vault.db"), embedder="use-m3") as v:
        yield v


@pytest.fixture(params=["vault", "client"])
def face(request: pytest.FixtureRequest) -> Face:
    """The embedded Vault or the Client on a real server: every verb test runs on both."""
    return request.getfixturevalue("embedded" if request.param == "vault" else "remote")  # type: ignore[no-any-return]


def _user() -> Scope:
    return Scope(TENANT, f"u{uuid.uuid4().hex[:12]}")


@pytest.fixture
def me() -> Scope:
    return _user()


# --- the shared verb tests: the same calls and assertions on both faces -----------------

def test_remember_adds_updates_and_noops(face: Face, me: Scope) -> None:
    a = face.remember(me, "Prefers CSV reports", slot="report.format", value="CSV",
                      tags=["work"], reason="user asked")
    assert isinstance(a, RememberResult) and isinstance(a.memory, Memory)
    assert (a.action, a.version, a.previous_version) == ("added", 1, None)
    assert (a.memory.value, a.memory.tags, a.memory.scope) == ("CSV", ["work"], me)
    b = face.remember(me, "Prefers PDF reports", slot="report.format", value="PDF")
    assert (b.action, b.id, b.version, b.previous_version) == ("updated", a.id, 2, 1)
    c = face.remember(me, "Prefers PDF reports", slot="report.format", value="PDF")
    assert (c.action, c.id, c.version) == ("noop", a.id, 2)
    got = face.get(me, a.id)
    assert (got.value, got.version, got.status) == ("PDF", 2, "active")
    assert [m.id for m in face.list(me, slot="report.format")] == [a.id]
    with pytest.raises(ConflictError):
        face.remember(me, "Prefers XLS reports", slot="report.format", value="XLS",
                      expected_version=1)


def test_recall_context_and_trace(face: Face, me: Scope) -> None:
    tea = face.remember(me, "The user drinks green tea every morning").memory
    face.remember(me, "The user's car is a blue hatchback")
    hits = face.recall(me, "what does the user drink in the morning?", top_k=2)
    assert isinstance(hits, Hits) and hits and hits.trace_id
    assert hits[0].memory.id == tea.id
    assert hits[0].score == hits[0].parts.total > 0
    trace = face.trace(me, hits.trace_id)
    assert tea.id in trace["memory_ids"]
    assert any(t["trace_id"] == hits.trace_id for t in face.traces(me, limit=5))
    ctx = face.context(me, "what does the user drink?", budget=400)
    assert isinstance(ctx, ContextResult)
    assert "green tea" in ctx.text and 0 < ctx.tokens <= 400
    assert tea.id in [h.memory.id for h in ctx.hits] and ctx.trace_id


def test_history_diff_and_rollback(face: Face, me: Scope) -> None:
    mid = face.remember(me, slot="city", value="Paris", content="Lives in Paris").id
    face.remember(me, slot="city", value="Rome", content="Lives in Rome")
    back = face.rollback(me, mid, 1, reason="moved back")
    assert (back.version, back.value, back.content) == (3, "Paris", "Lives in Paris")
    hist = face.history(me, mid)
    assert all(isinstance(r, Revision) for r in hist)
    assert [(r.op, r.to_version) for r in hist] == [("create", 1), ("update", 2),
                                                   ("rollback", 3)]
    assert hist[-1].reason == "moved back"
    assert face.diff(me, mid, 1, 2)["value"] == {"from": "Paris", "to": "Rome"}
    with pytest.raises(VersionError) as e:
        face.rollback(me, mid, 99)
    assert e.value.code == "bad_version" and isinstance(e.value, ValidationError)
    assert e.value.status == (None if isinstance(face, Vault) else 422)
    assert face.get(me, mid).version == 3  # nothing changed


def test_freeze_then_edit_is_frozen(face: Face, me: Scope) -> None:
    mid = face.remember(me, "Allergic to peanuts").id
    frozen = face.freeze(me, mid, reason="medical")
    assert frozen.frozen is True
    with pytest.raises(FrozenError) as e:
        face.edit(me, mid, content="Not allergic to anything", reason="test")
    assert e.value.code == "frozen" and "frozen" in e.value.message
    with pytest.raises(FrozenError):
        face.forget(me, mid)
    assert face.get(me, mid).content == "Allergic to peanuts"
    assert face.unfreeze(me, mid).frozen is False
    edited = face.edit(me, mid, content="Allergic to peanuts and shellfish", reason="doctor")
    assert (edited.version, edited.content) == (2, "Allergic to peanuts and shellfish")


def test_forget_hides_and_history_keeps(face: Face, me: Scope) -> None:
    mid = face.remember(me, "Plays the cello on Sundays").id
    gone = face.forget(me, mid, reason="asked to forget")
    assert gone.status == "deleted"
    assert [h.memory.id for h in face.recall(me, "cello")] == []
    assert face.list(me, status="active") == []
    assert [m.status for m in face.list(me)] == ["deleted"]
    assert [r.op for r in face.history(me, mid)] == ["create", "delete"]


def test_review_via_propose_staging(face: Face, me: Scope) -> None:
    face.remember(me, "Prefers SMS notifications", slot="pref.notify", value="sms")
    staged = [face.propose(me, f"Prefers {how} notifications", slot="pref.notify", value=how)
              for how in ("email", "push")]
    assert all(isinstance(o, Outcome) for o in staged)
    assert [(o.action, o.reasons) for o in staged] == [("stage", ["conflict_not_explicit"])] * 2
    queue = face.review_list(me)
    assert sorted(m.content for m in queue) == ["Prefers email notifications",
                                                "Prefers push notifications"]
    assert all(m.status == "pending" for m in queue)
    shown = face.review_show(me, staged[0].memory_id or "")
    assert shown["memory"]["id"] == staged[0].memory_id and "review" in shown
    approved = face.review_approve(me, staged[0].memory_id or "", reason="user confirmed")
    assert (approved.status, approved.value) == ("active", "email")
    rejected = face.review_reject(me, staged[1].memory_id or "", reason="wrong")
    assert rejected.status == "rejected"
    assert face.review_list(me) == []
    assert face.profile(me)["pref.notify"]["value"] == "email"


def test_observe_keeps_turns_and_extracts(face: Face, me: Scope) -> None:
    r = face.observe(Scope(me.tenant, me.user, session="s1"), [
        {"role": "user", "content": "I live in Shanghai"},
        {"role": "assistant", "content": "Noted."}])
    assert isinstance(r, ObserveResult) and len(r.turns) == 2
    assert any(o.action == "added" for o in r.outcomes)
    turns = face.recent(Scope(me.tenant, me.user, session="s1"))
    assert [m.content for m in turns] == ["I live in Shanghai", "Noted."]
    # Another agent's conversation with the same session id: any agent's turns by default,
    # exactly the agent-less conversation with exact.
    face.observe(Scope(me.tenant, me.user, agent="bot", session="s1"),
                 [{"role": "user", "content": "Remind me about the dentist"}])
    mine = Scope(me.tenant, me.user, session="s1")
    assert len(face.recent(mine)) == 3
    assert [m.content for m in face.recent(mine, exact=True)] == ["I live in Shanghai",
                                                                  "Noted."]


def test_purge_erases(face: Face, me: Scope) -> None:
    mid = face.remember(me, "Card number on file ends 4242").id
    res = face.purge(me, mid, reason="erasure request")
    assert isinstance(res, PurgeResult) and res.tombstone.op == "purge"
    assert res.erasure in ("done", "pending")
    assert face.purge_status(me, mid) in ("done", "pending")
    with pytest.raises(NotFoundError):
        face.get(me, mid)


def test_export_then_import_is_byte_identical(face: Face, me: Scope,
                                              tmp_path: Path) -> None:
    mid = face.remember(me, slot="lang", value="fr", content="Speaks French").id
    face.edit(me, mid, content="Speaks French and Italian", reason="more")
    face.remember(me, "Works from Lyon")
    out = io.StringIO()
    assert face.export_jsonl(me, out) == 2
    text = out.getvalue()
    # The face's export is a real export: a fresh store imports it and exports the same.
    with Vault(str(tmp_path / "copy.db"), embedder="use-m3") as copy:
        assert copy.import_jsonl(text.splitlines()) == 2
        again = io.StringIO()
        copy.export_jsonl(me, again)
        assert again.getvalue() == text
        # And the face imports what another store exported, to the byte.
        other = _user()
        copy.remember(other, "Keeps bees", tags=["hobby"])
        theirs = io.StringIO()
        copy.export_jsonl(other, theirs)
    assert face.import_jsonl(theirs.getvalue().splitlines(keepends=True), scope=other) == 1
    mine = io.StringIO()
    face.export_jsonl(other, mine)
    assert mine.getvalue() == theirs.getvalue()
    with pytest.raises(ConflictError):  # the same ids again: all or nothing
        face.import_jsonl(theirs.getvalue().splitlines(), scope=other)


def test_unknown_and_other_users_memories_are_not_found(face: Face, me: Scope) -> None:
    with pytest.raises(NotFoundError) as e:
        face.get(me, "m_doesnotexist")
    assert e.value.code == "not_found"
    mid = face.remember(me, "A private note").id
    stranger = _user()
    for call in (lambda: face.get(stranger, mid), lambda: face.history(stranger, mid),
                 lambda: face.forget(stranger, mid), lambda: face.freeze(stranger, mid)):
        with pytest.raises(NotFoundError):
            call()
    assert face.get(me, mid).status == "active"


def test_bad_input_is_validation_error(face: Face, me: Scope) -> None:
    bad: list[Any] = [lambda: face.remember(me),  # neither content nor slot
                      lambda: face.remember(me, "x", confidence="high"),
                      lambda: face.rollback(me, "m_x", "one"),
                      lambda: face.recall(me, "tea", top_k="all"),
                      lambda: face.edit(me, "m_x"),  # nothing to change
                      lambda: face.get(me, "")]
    for call in bad:
        with pytest.raises(ValidationError) as e:
            call()
        assert e.value.code == "invalid_input", e.value
    with pytest.raises(ScopeError):
        face.remember({"tenant": TENANT}, "no user")
    with pytest.raises(ScopeError):
        face.remember({"tenant": TENANT, "user": "u", "team": "x"}, "unknown field")
    assert face.list(me) == []


def test_arguments_json_cannot_carry_are_validation_errors(face: Face, me: Scope) -> None:
    """What the Vault refuses as a ValidationError naming the field, the client refuses
    the same way before it sends: not a raw TypeError/ValueError from the JSON encoder,
    and not a silently changed value (a metadata key 1 sent as "1")."""
    bad: list[tuple[str, Any]] = [
        ("metadata", lambda: face.remember(me, "x", metadata={"a": object()})),
        ("metadata", lambda: face.remember(me, "x", metadata={"a": float("nan")})),
        ("metadata", lambda: face.remember(me, "x", metadata={1: "a"})),
        ("metadata", lambda: face.propose(me, "x", metadata={"a": object()})),
        ("value", lambda: face.remember(me, "x", slot="s", value=datetime(2020, 1, 1))),
        ("confidence", lambda: face.remember(me, "x", confidence=float("nan"))),
        ("confidence", lambda: face.remember(me, "x", confidence=None)),
        ("source", lambda: face.remember(me, "x", source=None)),
        ("min_score", lambda: face.recall(me, "x", min_score=float("nan"))),
        ("reranker", lambda: face.recall(me, "x", reranker="cross")),
        ("reranker", lambda: face.recall(me, "x", reranker=3)),
        ("import", lambda: face.import_jsonl([b"{}\n"], scope=me)),
    ]
    for field, call in bad:
        with pytest.raises(ValidationError) as e:
            call()
        assert e.value.message.startswith(field), (field, e.value.message)
    assert face.list(me) == []


def test_numbers_and_flags_are_checked_as_the_vault_checks_them(face: Face,
                                                                me: Scope) -> None:
    """A query parameter is text on the wire, so the server would read "2" as 2 and "yes"
    as true; the Vault refuses both, and so does the client."""
    mid = face.remember(me, "Likes jazz").id
    bad: list[tuple[str, Any]] = [
        ("limit", lambda: face.list(me, limit="2")),
        ("limit", lambda: face.list(me, limit=2.0)),
        ("offset", lambda: face.list(me, offset="1")),
        ("frozen", lambda: face.list(me, frozen="yes")),
        ("frozen", lambda: face.list(me, frozen=1)),
        ("limit", lambda: face.audit(me, limit="2")),
        ("limit", lambda: face.traces(me, limit="2")),
        ("limit", lambda: face.review_list(me, limit="2")),
        ("n", lambda: face.recent(me, n="2")),
        ("max_tokens", lambda: face.recent(me, max_tokens="9")),
        ("exact", lambda: face.recent(me, exact="yes")),
        ("history", lambda: face.graph_facts(me, "Jazz", history="yes")),
        ("entity", lambda: face.graph_facts(me, 5)),
        ("from_version", lambda: face.diff(me, mid, True, 1)),
    ]
    for field, call in bad:
        with pytest.raises(ValidationError) as e:
            call()
        assert e.value.message.startswith(field), (field, e.value.message)


def test_what_the_vault_accepts_the_client_accepts(face: Face, me: Scope) -> None:
    """Versions as numeric text, and a ttl of fractional seconds or a timedelta, work on
    both faces."""
    a = face.remember(me, "Prefers CSV", slot="report.format", value="CSV")
    b = face.remember(me, "Prefers PDF", slot="report.format", value="PDF",
                      expected_version="1")
    assert (b.action, b.version) == ("updated", 2)
    assert face.rollback(me, a.id, "1").value == "CSV"
    assert face.edit(me, a.id, content="Prefers CSV files", expected_version="3").version == 4
    for ttl in (1.5, 90.0, timedelta(hours=1)):
        m = face.remember(me, f"Short-lived note {ttl}", ttl=ttl).memory
        assert m.expires_at is not None and m.expires_at > m.created_at


def test_a_missing_scope_is_a_scope_error(face: Face) -> None:
    """scope=None is refused as the Vault refuses it: ScopeError, not the server's
    complaint about a missing query parameter."""
    calls: list[Any] = [lambda: face.remember(None, "x"),  # type: ignore[arg-type]
                        lambda: face.list(None),  # type: ignore[arg-type]
                        lambda: face.recall(None, "x")]  # type: ignore[arg-type]
    for call in calls:
        with pytest.raises(ScopeError):
            call()


def test_an_imported_id_with_a_slash_is_reachable(face: Face, me: Scope,
                                                  tmp_path: Path) -> None:
    """An import may bring ids the store did not make ("notes/2024-01"): every verb that
    names a memory reaches it on both faces (on the server the id is a path parameter)."""
    with Vault(str(tmp_path / "source.db"), embedder="use-m3") as src:
        made = src.remember(me, "A note kept under its own id").id
        out = io.StringIO()
        src.export_jsonl(me, out)
    mid = "notes/2024-01"
    assert face.import_jsonl(out.getvalue().replace(made, mid).splitlines(True), scope=me) == 1
    assert face.get(me, mid).content == "A note kept under its own id"
    assert [r.op for r in face.history(me, mid)] == ["create"]
    assert face.edit(me, mid, content="A note, edited").version == 2
    assert face.diff(me, mid, 1, 2)["content"]["to"] == "A note, edited"
    assert face.freeze(me, mid).frozen and not face.unfreeze(me, mid).frozen
    assert face.rollback(me, mid, 1).content == "A note kept under its own id"
    assert face.forget(me, mid).status == "deleted"
    assert face.purge(me, mid).tombstone.memory_id == mid
    assert face.purge_status(me, mid) == "done"


def test_ids_that_look_like_url_paths_are_not_found_by_name(face: Face, me: Scope) -> None:
    """".", "..", "../x", "x?y": ids the Vault looks up and does not find; over HTTP they
    must not become another URL (a dot segment dropped, a query string), so the answer is
    the same NotFoundError naming the id, not a redirect or a bare 'Not Found'."""
    for odd in (".", "..", "../x", "a/..", "x?y", "x#y", "%2F"):
        for verb, what in ((face.get, "memory"), (face.history, "memory"),
                           (face.trace, "trace"), (face.graph_entity, "entity")):
            with pytest.raises(NotFoundError) as e:
                verb(me, odd)
            assert what in e.value.message and odd in e.value.message, e.value.message


def test_observe_takes_the_messages_the_vault_takes(face: Face, me: Scope) -> None:
    """OpenAI-style messages as an app has them: content as a list of parts, `at` as
    ISO-8601 text or a datetime, keys memvault does not read (tool_call_id). The Vault
    reads them; the client sends what the Vault would have read."""
    chat = Scope(me.tenant, me.user, session="c1")
    msgs: list[Any] = [
        {"role": "user", "content": [{"type": "text", "text": "I moved to Lisbon."}],
         "at": "2024-05-01T10:00:00Z"},
        {"role": "tool", "content": "weather: sunny", "tool_call_id": "call_1",
         "at": datetime(2024, 5, 1, 10, 1, tzinfo=UTC)},
        {"role": "assistant", "content": "Nice, enjoy Lisbon!", "at": 1714557720000},
    ]
    r = face.observe(chat, msgs)
    assert isinstance(r, ObserveResult) and len(r.turns) == 3
    turns = face.recent(chat, n=3)
    assert [t.content for t in turns] == ["I moved to Lisbon.", "weather: sunny",
                                          "Nice, enjoy Lisbon!"]


def test_list_takes_the_vaults_limit(face: Face, me: Scope) -> None:
    """Vault.list takes limit up to 10000; the server answers at most 1000 a page, so the
    client reads pages (offset) until it has `limit` or the list ends."""
    lines = _export_of(me, 1205)
    for part in range(1, 1206, 400):  # parts under the server's 1 MiB body limit
        face.import_jsonl(lines[:1] + lines[part:part + 400], scope=me)
    every = face.list(me, limit=5000)
    assert len(every) == 1205 and len({m.id for m in every}) == 1205
    assert [m.id for m in face.list(me, limit=1100, offset=100)] == [
        m.id for m in every[100:1200]]
    assert [m.id for m in face.list(me, limit=3, offset=1201)] == [m.id for m in every[1201:1204]]


def _export_of(me: Scope, n: int) -> list[str]:
    """An export of `n` small memories of `me`, made without embedding them one by one."""
    header = {"format": "memvault-export", "format_version": 2, "scope": me.as_dict()}
    lines = [json.dumps(header)]
    for i in range(n):
        at = 1_700_000_000_000 + i * 1000
        mem = Memory(id=f"m_bulk{i:05d}", scope=me, kind="note", content=f"bulk note {i}",
                     recorded_at=at, created_at=at, updated_at=at, embedding_model="use-m3")
        state = mem.to_dict()
        rev = Revision(op_id=f"op_bulk{i:05d}", memory_id=mem.id, scope=me, op="create",
                       from_version=None, to_version=1, state=state, actor="local",
                       actor_role="admin", reason=None, trigger_text=None, trace_id=None,
                       at=at)
        lines.append(json.dumps({"id": mem.id, "memory": state,
                                 "revisions": [rev.to_dict()]}))
    return [ln + "\n" for ln in lines]


def test_same_results_on_both_faces(embedded: Vault, remote: Client) -> None:
    """One script, both faces, one shared scope name (two stores): equal results apart
    from ids, times and the actor (the key's id on the server)."""
    me = _user()
    assert _script(embedded, me) == _script(remote, me)


def _plain(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items()
            if k not in ("id", "created_at", "updated_at", "recorded_at")}


def _mem(m: Memory) -> dict[str, Any]:
    return _plain(m.to_dict())


def _rev(r: Revision) -> dict[str, Any]:
    d = r.to_dict()
    for k in ("op_id", "memory_id", "at", "actor", "actor_role", "trace_id"):
        d.pop(k)
    d["state"] = _plain(d["state"]) if d["state"] else d["state"]
    return d


def _script(f: Face, me: Scope) -> list[Any]:
    out: list[Any] = []
    r = f.remember(me, "Prefers window seats", slot="seat", value="window", tags=["travel"])
    out.append((r.action, _mem(r.memory)))
    out.append(_mem(f.remember(me, "Prefers aisle seats", slot="seat", value="aisle").memory))
    f.remember(me, "Flies to Berlin in June", kind="episode")
    out.append(_mem(f.edit(me, r.id, tags=["travel", "air"], reason="more tags")))
    out.append(_mem(f.rollback(me, r.id, 1, reason="undo")))
    out.append(_mem(f.freeze(me, r.id)))
    out.append([_rev(x) for x in f.history(me, r.id)])
    out.append(f.diff(me, r.id, 1, 2))
    out.append([_mem(m) for m in f.list(me)])
    out.append([h.memory.content for h in f.recall(me, "which seat on the plane?")])
    out.append(f.context(me, "seat", budget=300).tokens > 0)
    out.append({k: {kk: vv for kk, vv in p.items() if kk not in ("memory_id", "since")}
                for k, p in f.profile(me).items()})
    o = f.propose(me, "Prefers middle seats", slot="seat", value="middle")
    out.append((o.action, o.reasons))
    return out


# --- what only the client has -------------------------------------------------------------

def test_wrong_tenant_is_refused_before_anything_is_sent(srv: Server, remote: Client) -> None:
    other = Scope("globex", "alice")
    with pytest.raises(ScopeError) as e:
        remote.remember(other, "should never reach the server")
    assert "globex" in e.value.message and TENANT in e.value.message
    with pytest.raises(ScopeError):
        remote.recall(other, "anything")
    with pytest.raises(ScopeError):
        remote.users("globex")
    # The globex tenant itself (its own admin key) sees nothing written.
    with Client(srv.url, tenant_admin_key(srv.db, "globex")) as globex:
        assert globex.whoami()["tenant"] == "globex"
        assert globex.list(other) == []
        assert globex.audit(other) == []


def test_key_errors_are_typed(srv: Server, remote: Client) -> None:
    me = _user()
    with httpx.Client(base_url=srv.url,
                      headers={"Authorization": f"Bearer {srv.admin_key}"}) as admin:
        reader = new_key(admin, role="reader")
        bound = new_key(admin, role="user", user=me.user)
        doomed = new_key(admin, role="service")
        assert admin.delete(f"/v1/keys/{doomed.split('_', 2)[1]}").is_success
    with Client(srv.url, reader) as c:
        assert c.whoami()["role"] == "reader"
        with pytest.raises(PermissionDeniedError) as e:
            c.remember(me, "readers cannot write")
        assert e.value.code == "forbidden"
        assert c.list(me) == []  # but they read
    with Client(srv.url, bound) as c:
        assert c.whoami()["user"] == me.user
        assert c.remember(me, "my own note").action == "added"
        with pytest.raises(PermissionDeniedError) as e:
            c.list(_user())
        assert e.value.code == "scope_denied"
        assert c.users(TENANT) == [me.user]
    with Client(srv.url, doomed) as c, pytest.raises(AuthenticationError) as e2:
        c.list(me)
    assert e2.value.code == "key_revoked"
    with Client(srv.url, "mvk_nope_nope") as c, pytest.raises(AuthenticationError) as e2:
        c.get(me, "m_x")
    assert e2.value.code == "invalid_key"
    assert isinstance(e2.value, MemvaultError) and not isinstance(e2.value, ValidationError)
    assert [m.content for m in remote.list(me)] == ["my own note"]


def test_no_server_is_a_typed_error() -> None:
    with Client(f"http://127.0.0.1:{free_port()}", "mvk_a_b", timeout=2.0) as c, \
            pytest.raises(ConnectionFailedError) as e:
        c.recall(_user(), "anything")
    assert e.value.code == "connection_failed" and "127.0.0.1" in e.value.message
    with pytest.raises(ValidationError):
        Client("127.0.0.1:8765", "mvk_a_b")


def test_an_import_over_the_servers_body_limit_is_refused_whole(remote: Client) -> None:
    """docs/client.md: an import is one request, so at most the server's --max-body
    (1 MiB here); past it a ValidationError body_too_large, and nothing is stored."""
    me = _user()
    with pytest.raises(ValidationError) as e:
        remote.import_jsonl(["x" * (1 << 20) + "\n"], scope=me)
    assert e.value.code == "body_too_large" and e.value.status == 413
    assert remote.list(me) == []


def test_a_closed_client_is_a_typed_error(srv: Server) -> None:
    """After close() (or the end of a with block) a call is a MemvaultError, not httpx's
    RuntimeError: no raw httpx exception leaves the client (docs/client.md)."""
    assert srv.admin_key
    with Client(srv.url, srv.admin_key) as c:
        me = _user()
        assert c.list(me) == []
    with pytest.raises(ConnectionFailedError) as e:
        c.list(me)
    assert "closed" in e.value.message


class _NotMemvault(BaseHTTPRequestHandler):
    """A web server that is not quite memvault: a whoami, then HTML pages (200 on
    /v1/recent, 404 elsewhere), as a proxy or another service might answer."""

    def do_GET(self) -> None:
        if self.path.startswith("/v1/whoami"):
            status, kind, page = 200, "application/json", json.dumps(
                {"key_id": "k", "tenant": TENANT, "role": "admin", "user": None}).encode()
        else:
            status, kind, page = (200 if self.path.startswith("/v1/recent") else 404,
                                  "text/html", b"<html>hello</html>")
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args: Any) -> None:
        pass


def test_an_answer_that_is_not_memvaults_is_a_typed_error(me: Scope) -> None:
    web = ThreadingHTTPServer(("127.0.0.1", 0), _NotMemvault)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    try:
        with Client(f"http://127.0.0.1:{web.server_address[1]}", "mvk_a_b") as c:
            with pytest.raises(NotFoundError) as e:  # no error body: typed by its status
                c.get(me, "m_x")
            assert (e.value.status, e.value.code) == (404, "not_found")
            assert "<html>hello</html>" in e.value.message
            with pytest.raises(MemvaultError) as e2:
                c.recent(me)
            assert e2.value.status == 200 and "without JSON" in e2.value.message
    finally:
        web.shutdown()
        web.server_close()


def test_client_has_every_rest_verb_of_the_vault() -> None:
    """The Vault's verbs the client leaves out are exactly the ones docs/client.md lists
    as having no REST route."""
    public = {n for n in dir(Vault) if not n.startswith("_")}
    missing = public - {n for n in dir(Client) if not n.startswith("_")}
    doc = (Path(__file__).parents[1] / "docs" / "client.md").read_text(encoding="utf-8")
    section = doc.split("## What Client lacks", 1)[1].split("\n## ", 1)[0]
    listed = {ln.split("`")[1] for ln in section.splitlines() if ln.startswith("- `")}
    assert missing == listed

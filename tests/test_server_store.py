"""The store side of the server (migration 3) on every backend: API keys, the job queue,
the access log, nested transactions (what makes a queued write apply exactly once), and
the core additions the REST API relies on (list filters, scoped import)."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from _util import query

from memvault import Scope, Vault
from memvault.errors import ScopeError, ValidationError

A = Scope("acme", "alice")
B = Scope("acme", "bob")


def test_schema_has_migration_3(vault: Vault) -> None:
    assert vault.store.schema_version() >= 3
    for table in ("api_keys", "jobs", "access_log"):
        assert query(vault, f"SELECT COUNT(*) FROM {table}")[0][0] == 0


def test_api_keys_are_per_tenant_and_revocable(vault: Vault) -> None:
    st = vault.store
    st.add_api_key({"key_id": "k1", "tenant": "acme", "role": "admin", "user": None,
                    "name": "first", "secret_hash": "h1", "created_at": 1, "created_by": "boot",
                    "expires_at": None})
    st.add_api_key({"key_id": "k2", "tenant": "other", "role": "user", "user": "zed",
                    "name": "", "secret_hash": "h2", "created_at": 2, "expires_at": 99})
    assert st.count_api_keys() == 2
    k1 = st.get_api_key("k1")
    assert k1 is not None and k1["role"] == "admin" and k1["user"] is None
    assert k1["secret_hash"] == "h1" and k1["revoked_at"] is None
    k2 = st.get_api_key("k2")
    assert k2 is not None and k2["user"] == "zed" and k2["expires_at"] == 99
    assert [k["key_id"] for k in st.list_api_keys("acme")] == ["k1"]
    # Revoking through another tenant does nothing.
    assert st.revoke_api_key("acme", "k2", 5) is False
    assert st.get_api_key("k2")["revoked_at"] is None  # type: ignore[index]
    assert st.revoke_api_key("other", "k2", 5) is True
    assert st.revoke_api_key("other", "k2", 6) is False  # already revoked
    assert st.get_api_key("k2")["revoked_at"] == 5  # type: ignore[index]
    assert st.get_api_key("nope") is None


def _job(job_id: str, tenant: str = "acme", user: str = "alice") -> dict[str, object]:
    return {"job_id": job_id, "tenant": tenant, "user": user, "kind": "remember",
            "payload": {"content": f"secret text {job_id}"}, "key_id": "k1", "created_at": 10}


def test_job_queue_order_claim_finish(vault: Vault) -> None:
    st = vault.store
    for j in ("j1", "j2", "j3"):
        st.enqueue_job(_job(j))
    assert st.queue_depth() == 3
    assert [j["job_id"] for j in st.queued_jobs(10)] == ["j1", "j2", "j3"]
    job = st.get_job("acme", "j1")
    assert job is not None and job["status"] == "queued"
    assert job["payload"] == {"content": "secret text j1"}
    assert st.get_job("other", "j1") is None  # another tenant
    assert st.get_job("acme", "j1", user="bob") is None  # another user
    with st.transaction():
        assert st.claim_job("acme", "j1") is True
        assert st.finish_job("acme", "j1", status="done", result={"id": "m1"}, error=None,
                             at=20) is True
    done = st.get_job("acme", "j1", user="alice")
    assert done is not None and done["status"] == "done" and done["result"] == {"id": "m1"}
    assert done["payload"] == {}  # the content does not outlive the job
    assert st.claim_job("acme", "j1") is False  # never twice
    assert st.queue_depth() == 2
    assert st.finish_job("acme", "j2", status="failed", result=None,
                         error={"code": "invalid_input", "message": "x"}, at=21)
    assert st.get_job("acme", "j2")["error"]["code"] == "invalid_input"  # type: ignore[index]
    assert [j["job_id"] for j in st.queued_jobs(10)] == ["j3"]


def test_nested_transaction_commits_with_the_outer_one(vault: Vault) -> None:
    """The job runner's guarantee: a verb run inside an open transaction (its own
    transactions become savepoints) commits with the job's completion, or not at all."""
    st = vault.store
    st.enqueue_job(_job("j1"))
    with pytest.raises(RuntimeError), st.transaction():
        assert st.claim_job("acme", "j1")
        vault.remember(A, "rolled back with the job", slot="x.y", value=1)
        raise RuntimeError("crash before the job is finished")
    assert vault.list(A) == []
    assert st.get_job("acme", "j1")["status"] == "queued"  # type: ignore[index]
    with st.transaction():
        assert st.claim_job("acme", "j1")
        r = vault.remember(A, "committed with the job", slot="x.y", value=2)
        # An inner failure rolls back only its savepoint.
        with pytest.raises(ValidationError):
            vault.remember(A, "", slot="x.y")
        st.finish_job("acme", "j1", status="done", result={"id": r.id}, error=None, at=1)
    assert [m.content for m in vault.list(A)] == ["committed with the job"]
    assert len(vault.history(A, r.id)) == 1
    assert st.get_job("acme", "j1")["status"] == "done"  # type: ignore[index]


def test_access_log_scoped_newest_first(vault: Vault) -> None:
    st = vault.store
    st.log_access([{"at": 1, "tenant": "acme", "user": "alice", "key_id": "k1",
                    "role": "service", "action": "get", "memory_ids": ["m1"],
                    "trace_id": None},
                   {"at": 2, "tenant": "acme", "user": "bob", "key_id": "k1",
                    "role": "service", "action": "recall", "memory_ids": ["m2", "m3"],
                    "trace_id": "tr_1"},
                   {"at": 3, "tenant": "other", "user": "alice", "key_id": "k9",
                    "role": "admin", "action": "list", "memory_ids": [], "trace_id": None}])
    rows = st.access_log("acme")
    assert [r["action"] for r in rows] == ["recall", "get"]
    assert rows[0]["memory_ids"] == ["m2", "m3"] and rows[0]["trace_id"] == "tr_1"
    assert [r["action"] for r in st.access_log("acme", user="alice")] == ["get"]
    assert [r["action"] for r in st.access_log("acme", limit=1, offset=1)] == ["get"]
    assert [r["tenant"] for r in st.access_log("other")] == ["other"]


def test_list_filters_source_frozen_expiring_q(vault: Vault) -> None:
    a = vault.remember(A, "Prefers XLSX_reports for export", slot="report.format",
                       value="XLSX").memory
    b = vault.remember(A, "Lives in Lyon", source="document", ttl="1d").memory
    c = vault.remember(A, "100% sure about tea", ttl="30d").memory
    vault.freeze(A, a.id, reason="confirmed")
    ids = lambda ms: {m.id for m in ms}  # noqa: E731
    assert ids(vault.list(A, source="document")) == {b.id}
    assert ids(vault.list(A, frozen=True)) == {a.id}
    assert ids(vault.list(A, frozen=False)) == {b.id, c.id}
    soon = vault.clock() + 2 * 86_400_000
    assert ids(vault.list(A, expiring_before=soon)) == {b.id}
    assert ids(vault.list(A, q="xlsx_")) == {a.id}  # case-insensitive, _ is literal
    assert ids(vault.list(A, q="100%")) == {c.id}  # % is literal
    assert ids(vault.list(A, q="lyon", as_of=vault.clock())) == {b.id}
    assert vault.list(B, q="lyon") == []
    with pytest.raises(ValidationError):
        vault.list(A, source="nonsense")
    with pytest.raises(ValidationError):
        vault.list(A, frozen="yes")  # type: ignore[arg-type]


def test_import_restricted_to_a_scope(make_vault: Callable[..., Vault]) -> None:
    src = make_vault()
    src.remember(A, "alice's memory")
    src.remember(B, "bob's memory")
    buf = io.StringIO()
    src.export_jsonl({"tenant": "acme", "user": "alice"}, buf)
    alice_export = buf.getvalue()
    dst = make_vault()
    with pytest.raises(ScopeError):
        dst.import_jsonl(alice_export.splitlines(), scope=B)
    assert dst.list(A) == [] and dst.list(B) == []
    assert dst.import_jsonl(alice_export.splitlines(), scope=A) == 1
    assert [m.content for m in dst.list(A)] == ["alice's memory"]


def test_out_of_range_numbers_are_validation_errors(vault: Vault) -> None:
    """Found by the server's schema fuzz: numbers past what the stores' 64-bit integers
    hold must be typed errors, not driver overflows (a 500 over HTTP)."""
    for kw in ({"ttl": 10**30}, {"ttl": float("inf")}, {"expires_at": 10**30},
               {"valid_from": str(10**25)}, {"valid_from": float("nan")}):
        with pytest.raises(ValidationError):
            vault.remember(A, "out of range", **kw)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        vault.list(A, offset=10**24)
    with pytest.raises(ValidationError):
        vault.list(A, until=10**24)
    assert vault.list(A) == []
    assert vault.remember(A, "in range", ttl="10y").action == "added"

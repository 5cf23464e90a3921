"""The server's tables (migration 3: API keys, the job queue, the access log), written once
for both backends. A backend supplies its placeholder style (`_ph`), a read (`_q`, rows
readable by column name) and two writes that run in its own transaction, nesting as a
savepoint inside an open one (`_execute` → rowcount, `_execute_many`); the access log's
rows go through `_observe_many`, which a backend may commit without waiting for the disk."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .codec import ACCESS_COLS, JOB_COLS, KEY_COLS, access_dict, job_dict, key_dict
from .tablebase import TableAccess


class ServerTables(TableAccess):
    def _observe_many(self, query: str, rows: Iterable[dict[str, Any]]) -> None:
        """As `_execute_many`, for rows that record what happened (the access log): a
        commit that need not reach the disk before it returns (SQLStore: the traces'
        transaction). Here: an ordinary, durable one."""
        self._execute_many(query, rows)

    def _sql(self, template: str) -> str:
        """`{name}` in the template becomes the driver's named placeholder."""
        names = {n: self._ph(n) for n in _NAMES}
        return template.format(**names)

    # --- API keys ------------------------------------------------------------------------
    def add_api_key(self, key: dict[str, Any]) -> None:
        self._execute(self._sql(
            "INSERT INTO api_keys (key_id, tenant, role, user_id, name, secret_hash, "
            "created_at, created_by, expires_at, revoked_at) VALUES ({key_id}, {tenant}, "
            "{role}, {user}, {name}, {secret_hash}, {created_at}, {created_by}, {expires_at}, "
            "NULL)"),
            {"key_id": key["key_id"], "tenant": key["tenant"], "role": key["role"],
             "user": key.get("user") or "", "name": key.get("name") or "",
             "secret_hash": key["secret_hash"], "created_at": key["created_at"],
             "created_by": key.get("created_by") or "", "expires_at": key.get("expires_at")})

    def get_api_key(self, key_id: str) -> dict[str, Any] | None:
        rows = self._q(self._sql(f"SELECT {KEY_COLS} FROM api_keys WHERE key_id = {{key_id}}"),
                       {"key_id": key_id})
        return key_dict(rows[0]) if rows else None

    def list_api_keys(self, tenant: str | None) -> list[dict[str, Any]]:
        if tenant is None:  # every tenant's: `memvault keys list` on the store itself
            rows = self._q(f"SELECT {KEY_COLS} FROM api_keys ORDER BY created_at, key_id")
        else:
            rows = self._q(self._sql(f"SELECT {KEY_COLS} FROM api_keys WHERE tenant = "
                                     "{tenant} ORDER BY created_at, key_id"),
                           {"tenant": tenant})
        return [key_dict(r) for r in rows]

    def revoke_api_key(self, tenant: str, key_id: str, at: int) -> bool:
        return self._execute(self._sql(
            "UPDATE api_keys SET revoked_at = {at} WHERE tenant = {tenant} AND "
            "key_id = {key_id} AND revoked_at IS NULL"),
            {"at": at, "tenant": tenant, "key_id": key_id}) == 1

    def count_api_keys(self) -> int:
        return int(self._q("SELECT COUNT(*) AS n FROM api_keys")[0]["n"])

    # --- the job queue ---------------------------------------------------------------------
    def enqueue_job(self, job: dict[str, Any]) -> None:
        self._execute(self._sql(
            "INSERT INTO jobs (job_id, tenant, user_id, kind, payload, status, key_id, "
            "created_at) VALUES ({job_id}, {tenant}, {user}, {kind}, {payload}, 'queued', "
            "{key_id}, {created_at})"),
            {"job_id": job["job_id"], "tenant": job["tenant"], "user": job["user"],
             "kind": job["kind"], "payload": json.dumps(job["payload"], ensure_ascii=False),
             "key_id": job.get("key_id") or "", "created_at": job["created_at"]})

    def get_job(self, tenant: str, job_id: str, user: str | None = None
                ) -> dict[str, Any] | None:
        query = f"SELECT {JOB_COLS} FROM jobs WHERE tenant = {{tenant}} AND job_id = {{job_id}}"
        params: dict[str, Any] = {"tenant": tenant, "job_id": job_id}
        if user is not None:
            query, params["user"] = query + " AND user_id = {user}", user
        rows = self._q(self._sql(query), params)
        return job_dict(rows[0]) if rows else None

    def queued_jobs(self, limit: int) -> list[dict[str, Any]]:
        rows = self._q(self._sql(f"SELECT {JOB_COLS} FROM jobs WHERE status = 'queued' "
                                 "ORDER BY seq LIMIT {limit}"), {"limit": limit})
        return [job_dict(r) for r in rows]

    def claim_job(self, tenant: str, job_id: str) -> bool:
        # On PostgreSQL the row lock makes a second worker (another process) wait, then see
        # the job taken; SQLite's write lock does the same.
        return self._execute(self._sql(
            "UPDATE jobs SET status = 'running' WHERE tenant = {tenant} AND "
            "job_id = {job_id} AND status = 'queued'"),
            {"tenant": tenant, "job_id": job_id}) == 1

    def finish_job(self, tenant: str, job_id: str, *, status: str, result: Any,
                   error: dict[str, Any] | None, at: int) -> bool:
        return self._execute(self._sql(
            "UPDATE jobs SET status = {status}, result = {result}, error = {error}, "
            "finished_at = {at}, payload = '{{}}' WHERE tenant = {tenant} AND "
            "job_id = {job_id} AND status IN ('queued', 'running')"),
            {"status": status,
             "result": None if result is None else json.dumps(result, ensure_ascii=False),
             "error": None if error is None else json.dumps(error, ensure_ascii=False),
             "at": at, "tenant": tenant, "job_id": job_id}) == 1

    def queue_depth(self) -> int:
        return int(self._q("SELECT COUNT(*) AS n FROM jobs WHERE status = 'queued'")[0]["n"])

    # --- the access log --------------------------------------------------------------------
    def log_access(self, rows: list[dict[str, Any]]) -> None:
        # Per read request: not fsynced one by one (on disk with the next durable commit
        # or at a clean close), so a read does not wait for the disk.
        self._observe_many(self._sql(
            "INSERT INTO access_log (at, tenant, user_id, key_id, role, action, memory_ids, "
            "trace_id) VALUES ({at}, {tenant}, {user}, {key_id}, {role}, {action}, "
            "{memory_ids}, {trace_id})"),
            [{"at": r["at"], "tenant": r["tenant"], "user": r["user"], "key_id": r["key_id"],
              "role": r["role"], "action": r["action"],
              "memory_ids": json.dumps(list(r["memory_ids"])), "trace_id": r.get("trace_id")}
             for r in rows])

    def access_log(self, tenant: str, *, user: str | None = None, limit: int = 100,
                   offset: int = 0) -> list[dict[str, Any]]:
        query = f"SELECT {ACCESS_COLS} FROM access_log WHERE tenant = {{tenant}}"
        params: dict[str, Any] = {"tenant": tenant, "limit": limit, "offset": offset}
        if user is not None:
            query, params["user"] = query + " AND user_id = {user}", user
        rows = self._q(self._sql(query + " ORDER BY seq DESC LIMIT {limit} OFFSET {offset}"),
                       params)
        return [access_dict(r) for r in rows]

    # --- the admin page's user picker -----------------------------------------------------
    def users(self, tenant: str) -> list[str]:
        rows = self._q(self._sql("SELECT DISTINCT user_id FROM revisions WHERE "
                                 "tenant = {tenant} ORDER BY user_id"), {"tenant": tenant})
        return [r["user_id"] for r in rows]


_NAMES = ("key_id", "tenant", "role", "user", "name", "secret_hash", "created_at",
          "created_by", "expires_at", "at", "job_id", "kind", "payload", "status", "result",
          "error", "limit", "offset", "action", "memory_ids", "trace_id")

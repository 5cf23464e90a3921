"""Row <-> object conversion shared by the SQL backends (column names are the same)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..model import Memory, Revision, Scope
from ..validtime import ValidWindow

MEMORY_COLUMNS = (
    "id", "tenant", "user_id", "agent", "session", "kind", "content", "content_hash", "slot",
    "value", "tags", "metadata", "source", "source_text", "source_ref", "confidence", "status",
    "frozen", "version", "valid_from", "valid_to", "recorded_at", "expires_at",
    "embedding_model", "created_at", "updated_at", "topic",
)

REVISION_COLUMNS = (
    "op_id", "memory_id", "tenant", "user_id", "agent", "session", "op", "from_version",
    "to_version", "state", "actor", "actor_role", "reason", "trigger_text", "trace_id", "at",
)


def dumps(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def memory_params(m: Memory, content_hash: str) -> dict[str, Any]:
    return {
        "id": m.id, "tenant": m.scope.tenant, "user_id": m.scope.user, "agent": m.scope.agent,
        "session": m.scope.session, "kind": m.kind, "content": m.content,
        "content_hash": content_hash, "slot": m.slot,
        "value": None if m.value is None else dumps(m.value),
        "tags": dumps(list(m.tags)), "metadata": dumps(dict(m.metadata)), "source": m.source,
        "source_text": m.source_text, "source_ref": m.source_ref,
        "confidence": float(m.confidence), "status": m.status, "frozen": int(bool(m.frozen)),
        "version": m.version, "valid_from": m.valid_from, "valid_to": m.valid_to,
        "recorded_at": m.recorded_at, "expires_at": m.expires_at,
        "embedding_model": m.embedding_model, "created_at": m.created_at,
        "updated_at": m.updated_at, "topic": m.topic,
    }


# Most memories have no tags and no metadata: a recall decodes ~70 rows, and the JSON
# parser's call costs more than the comparison (issue 21's warm recall).
def _list(raw: str) -> list[Any]:
    return [] if raw == "[]" else json.loads(raw)  # type: ignore[no-any-return]


def _dict(raw: str) -> dict[str, Any]:
    return {} if raw == "{}" else json.loads(raw)  # type: ignore[no-any-return]


def memory_from_row(r: Any) -> Memory:
    """`r` is a mapping with MEMORY_COLUMNS keys (sqlite Row or psycopg dict row)."""
    return Memory(
        id=r["id"],
        scope=Scope(r["tenant"], r["user_id"], r["agent"], r["session"]),
        kind=r["kind"], content=r["content"], slot=r["slot"],
        value=None if r["value"] is None else json.loads(r["value"]),
        tags=_list(r["tags"]), metadata=_dict(r["metadata"]), source=r["source"],
        source_text=r["source_text"], source_ref=r["source_ref"],
        confidence=float(r["confidence"]), status=r["status"], frozen=bool(r["frozen"]),
        version=int(r["version"]), valid_from=r["valid_from"], valid_to=r["valid_to"],
        recorded_at=r["recorded_at"], expires_at=r["expires_at"],
        embedding_model=r["embedding_model"], created_at=r["created_at"],
        updated_at=r["updated_at"], topic=r["topic"],
    )


def revision_params(rev: Revision) -> dict[str, Any]:
    return {
        "op_id": rev.op_id, "memory_id": rev.memory_id, "tenant": rev.scope.tenant,
        "user_id": rev.scope.user, "agent": rev.scope.agent, "session": rev.scope.session,
        "op": rev.op, "from_version": rev.from_version, "to_version": rev.to_version,
        "state": None if rev.state is None else dumps(rev.state), "actor": rev.actor,
        "actor_role": rev.actor_role, "reason": rev.reason, "trigger_text": rev.trigger_text,
        "trace_id": rev.trace_id, "at": rev.at,
    }


def revision_from_row(r: Any) -> Revision:
    return Revision(
        op_id=r["op_id"], memory_id=r["memory_id"],
        scope=Scope(r["tenant"], r["user_id"], r["agent"], r["session"]), op=r["op"],
        from_version=r["from_version"], to_version=r["to_version"],
        state=None if r["state"] is None else json.loads(r["state"]), actor=r["actor"],
        actor_role=r["actor_role"], reason=r["reason"], trigger_text=r["trigger_text"],
        trace_id=r["trace_id"], at=r["at"],
    )


# --- SQL both backends share; `ph` renders a named placeholder in the driver's style ------


def sqlite_ph(name: str) -> str:
    return f":{name}"


def pyformat_ph(name: str) -> str:
    return f"%({name})s"


def scope_where(scope: Scope, ph: Any, *, alias: str = "m",
                exact: bool = False) -> tuple[str, dict[str, str]]:
    """The scope predicate every query carries. tenant and user always match exactly;
    agent and session narrow when given (reads) or must equal (exact: writes, slots)."""
    a = alias
    parts = [f"{a}.tenant = {ph('s_tenant')}", f"{a}.user_id = {ph('s_user')}"]
    params = {"s_tenant": scope.tenant, "s_user": scope.user}
    for field, value in (("agent", scope.agent), ("session", scope.session)):
        if value or exact:
            parts.append(f"{a}.{field} = {ph('s_' + field)}")
            params["s_" + field] = value
    return " AND ".join(parts), params


def live_where(ph: Any, alias: str = "m") -> str:
    """Servable at :now — active, unexpired, valid in the world."""
    a, now = alias, ph("now")
    return (f"{a}.status = 'active' AND ({a}.expires_at IS NULL OR {a}.expires_at > {now}) "
            f"AND ({a}.valid_from IS NULL OR {a}.valid_from <= {now}) "
            f"AND ({a}.valid_to IS NULL OR {a}.valid_to > {now})")


def live_sql(ph: Any, valid: ValidWindow | None,
             alias: str = "m") -> tuple[str, dict[str, int]]:
    """live_where, or with a valid-time window (validtime.py): active, unexpired at :now,
    and valid at some point of the window — a memory whose validity has ended is history
    a window may reach back to. Returns (clause, its window parameters)."""
    if valid is None:
        return live_where(ph, alias), {}
    a = alias
    parts = [f"{a}.status = 'active'",
             f"({a}.expires_at IS NULL OR {a}.expires_at > {ph('now')})"]
    params: dict[str, int] = {}
    if valid.hi is not None:
        parts.append(f"({a}.valid_from IS NULL OR {a}.valid_from < {ph('v_hi')})")
        params["v_hi"] = valid.hi
    if valid.lo is not None:
        parts.append(f"({a}.valid_to IS NULL OR {a}.valid_to > {ph('v_lo')})")
        params["v_lo"] = valid.lo
    return " AND ".join(parts), params


def list_where(flt: Any, ph: Any) -> tuple[list[str], dict[str, Any]]:
    """The list filters both dialects write the same way (tags differ: JSON functions)."""
    clauses: list[str] = []
    params: dict[str, Any] = {}
    for field, column, op in (("kind", "kind", "="), ("status", "status", "="),
                              ("slot", "slot", "="), ("topic", "topic", "="),
                              ("since", "updated_at", ">="),
                              ("until", "updated_at", "<")):
        value = getattr(flt, field)
        if value is not None and value != "":
            clauses.append(f"m.{column} {op} {ph(field)}")
            params[field] = value
    if flt.source:
        clauses.append(f"m.source = {ph('source')}")
        params["source"] = flt.source
    if flt.frozen is not None:
        clauses.append(f"m.frozen = {ph('frozen')}")
        params["frozen"] = int(flt.frozen)
    if flt.slotted is not None:
        clauses.append("m.slot IS NOT NULL" if flt.slotted else "m.slot IS NULL")
    if flt.topicked is not None:
        clauses.append("m.topic IS NOT NULL" if flt.topicked else "m.topic IS NULL")
    if flt.expires_before is not None:
        clauses.append(f"m.expires_at IS NOT NULL AND m.expires_at < {ph('expires_before')}")
        params["expires_before"] = flt.expires_before
    if flt.valid is not None:
        if flt.valid.hi is not None:
            clauses.append(f"(m.valid_from IS NULL OR m.valid_from < {ph('v_hi')})")
            params["v_hi"] = flt.valid.hi
        if flt.valid.lo is not None:
            clauses.append(f"(m.valid_to IS NULL OR m.valid_to > {ph('v_lo')})")
            params["v_lo"] = flt.valid.lo
    if flt.q:
        # LIKE with the pattern's own wildcards escaped: q is a substring, not a pattern.
        clauses.append(f"LOWER(m.content) LIKE LOWER({ph('q')}) ESCAPE '\\'")
        esc = flt.q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params["q"] = f"%{esc}%"
    return clauses, params


MEMORY_SELECT = "SELECT " + ", ".join(f"m.{c}" for c in MEMORY_COLUMNS) + " FROM memories m"
REVISION_FIELDS = ", ".join(f"r.{c}" for c in REVISION_COLUMNS)
REVISION_SELECT = f"SELECT {REVISION_FIELDS} FROM revisions r"


def insert_sql(table: str, columns: Iterable[str], ph: Any) -> str:
    """INSERT of one row whose parameters are named after its columns."""
    cols = list(columns)
    return (f"INSERT INTO {table} ({', '.join(cols)}) VALUES "
            f"({', '.join(ph(c) for c in cols)})")


def group_revisions(revisions: Iterable[Revision]) -> Iterator[tuple[str, list[Revision]]]:
    """(memory_id, its revisions) in order of each memory's first revision."""
    grouped: dict[str, list[Revision]] = {}
    for rev in revisions:
        grouped.setdefault(rev.memory_id, []).append(rev)
    yield from grouped.items()


# --- server tables (migration 3): rows as plain dicts ---------------------------------

KEY_COLS = ("key_id, tenant, role, user_id, name, secret_hash, created_at, created_by, "
            "expires_at, revoked_at")
JOB_COLS = ("seq, job_id, tenant, user_id, kind, payload, status, result, error, key_id, "
            "created_at, finished_at")
ACCESS_COLS = "seq, at, tenant, user_id, key_id, role, action, memory_ids, trace_id"


def key_dict(r: Any) -> dict[str, Any]:
    return {"key_id": r["key_id"], "tenant": r["tenant"], "role": r["role"],
            "user": r["user_id"] or None, "name": r["name"], "secret_hash": r["secret_hash"],
            "created_at": r["created_at"], "created_by": r["created_by"],
            "expires_at": r["expires_at"], "revoked_at": r["revoked_at"]}


def job_dict(r: Any) -> dict[str, Any]:
    return {"seq": r["seq"], "job_id": r["job_id"], "tenant": r["tenant"], "user": r["user_id"],
            "kind": r["kind"], "payload": json.loads(r["payload"]), "status": r["status"],
            "result": None if r["result"] is None else json.loads(r["result"]),
            "error": None if r["error"] is None else json.loads(r["error"]),
            "key_id": r["key_id"], "created_at": r["created_at"],
            "finished_at": r["finished_at"]}


def access_dict(r: Any) -> dict[str, Any]:
    return {"seq": r["seq"], "at": r["at"], "tenant": r["tenant"], "user": r["user_id"],
            "key_id": r["key_id"], "role": r["role"], "action": r["action"],
            "memory_ids": json.loads(r["memory_ids"]), "trace_id": r["trace_id"]}

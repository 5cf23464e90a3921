"""PostgreSQL vectors (pgvector): a table per embedding model, and nearest-neighbour search.

One table per embedding model (`vec_<hash of model>`, listed in vector_models), created
the first time the model is seen: `vec vector(DIM)` so the dimension is enforced by the
column type, tenant/user_id copied from the memory for a scoped btree, and an HNSW cosine
index. A table per model rather than a partial expression index on one shared table
because creating an index on a shared table takes a SHARE lock that waits for (and can
deadlock with) every concurrent writer of other models, and a partial index is only used
when the planner can prove `model = '...'`; a new table locks nothing anyone else holds.
Small scopes (up to `exact_scan_limit` vectors for the tenant and user) are ranked exactly
through the btree, like SQLite; larger ones go through HNSW with pgvector's iterative scan
so the scope and liveness filters do not starve the result.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
from psycopg import sql

# pgvector's HNSW index takes vectors of at most 2000 dimensions; above, scans are exact.
MAX_HNSW_DIM = 2000


def has_iterative_scan(conn: Any) -> bool:
    """Whether pgvector is 0.8 or later: HNSW scans that keep going until enough rows
    pass the filters."""
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                       ).fetchone()
    return row is not None and tuple(
        int(p) for p in row["extversion"].split(".") if p.isdigit()) >= (0, 8)


def table_name(model: str) -> str:
    return "vec_" + hashlib.sha256(model.encode("utf-8")).hexdigest()[:16]


def _hnsw(tbl: str) -> sql.Composed:
    return sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw (vec vector_cosine_ops)"
                   ).format(sql.Identifier(tbl + "_hnsw"), sql.Identifier(tbl))


def create_table(conn: Any, tbl: str, dim: int, *, hnsw: bool) -> None:
    """A model's vector table and its scope index; its HNSW index too if `hnsw` (and the
    dimension allows one)."""
    t = sql.Identifier(tbl)
    conn.execute(sql.SQL(
        "CREATE TABLE {} (mrow BIGINT PRIMARY KEY, tenant TEXT COLLATE \"C\" "
        "NOT NULL, user_id TEXT COLLATE \"C\" NOT NULL, vec vector({}) NOT NULL)"
    ).format(t, sql.Literal(dim)))
    conn.execute(sql.SQL("CREATE INDEX {} ON {} (tenant, user_id)").format(
        sql.Identifier(tbl + "_scope"), t))
    if hnsw and dim <= MAX_HNSW_DIM:
        conn.execute(_hnsw(tbl))


def drop_hnsw(conn: Any, tbl: str) -> None:
    conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(tbl + "_hnsw")))


def build_hnsw(conn: Any, models: list[dict[str, Any]], maintenance_work_mem: str) -> None:
    """Create any missing HNSW index of these vector_models rows, on an autocommit
    connection."""
    conn.execute(sql.SQL("SET maintenance_work_mem = {}").format(
        sql.Literal(maintenance_work_mem)))
    for r in models:
        if r["dim"] <= MAX_HNSW_DIM:
            conn.execute(_hnsw(r["tbl"]))
    conn.execute("RESET maintenance_work_mem")


def upsert(conn: Any, tbl: str, mrow: int, vec: np.ndarray) -> None:
    # tenant/user_id copied from the memory row itself, so they cannot drift.
    conn.execute(sql.SQL(
        "INSERT INTO {} (mrow, tenant, user_id, vec) SELECT mrow, tenant, user_id, "
        "%(vec)s FROM memories WHERE mrow = %(mrow)s "
        "ON CONFLICT (mrow) DO UPDATE SET vec = excluded.vec").format(
        sql.Identifier(tbl)), {"vec": vec, "mrow": mrow})


def copy_rows(conn: Any, tbl: str, rows: list[tuple[int, str, str, np.ndarray]]) -> None:
    """(mrow, tenant, user_id, vec) rows into a model's table by binary COPY (bulk load)."""
    with conn.cursor() as cur, cur.copy(sql.SQL(
            "COPY {} (mrow, tenant, user_id, vec) FROM STDIN WITH (FORMAT BINARY)"
    ).format(sql.Identifier(tbl))) as copy:
        copy.set_types(["int8", "text", "text", "vector"])
        for row in rows:
            copy.write_row(row)


def delete_rows(conn: Any, tbl: str, mrows: list[int]) -> None:
    conn.execute(sql.SQL("DELETE FROM {} WHERE mrow = ANY(%s)").format(sql.Identifier(tbl)),
                 (mrows,))


def nearest_each(conn: Any, tbl: str, dim: int, where: str, p: dict[str, Any],
                 qs: np.ndarray, limit: int, *, exact_scan_limit: int,
                 iterative_scan: bool) -> list[list[tuple[str, float]]]:
    """(memory id, cosine similarity) of the live memories `m` that `where` selects (with
    `p`: the scope's s_tenant and s_user, now, limit), best first, for each query row.
    A small scope is scanned once for all queries in one statement; a large one takes one
    HNSW search per query."""
    t = sql.Identifier(tbl)
    n = conn.execute(
        sql.SQL("SELECT count(*) AS n FROM (SELECT 1 FROM {} v WHERE v.tenant = "
                "%(s_tenant)s AND v.user_id = %(s_user)s LIMIT %(cap)s) s").format(t),
        {**p, "cap": exact_scan_limit + 1}).fetchone()
    base = ("FROM {} v JOIN memories m ON m.mrow = v.mrow "
            "WHERE v.tenant = %(s_tenant)s AND v.user_id = %(s_user)s "
            f"AND {where}")
    if (n is not None and n["n"] <= exact_scan_limit) or dim > MAX_HNSW_DIM:
        return _exact_each(conn, t, base, p, qs)
    return _hnsw_each(conn, t, base, p, qs, limit, iterative_scan)


def _exact_each(conn: Any, t: sql.Identifier, base: str, p: dict[str, Any],
                qs: np.ndarray) -> list[list[tuple[str, float]]]:
    # Every vector of the scope via the btree, read once (the materialised CTE also
    # keeps the planner off the HNSW index); each query ranks them in a lateral join.
    stmt = sql.SQL(
        "WITH c AS MATERIALIZED (SELECT m.id, v.vec " + base + "), "
        "q AS (SELECT ord, qv FROM unnest(%(qs)s::vector[]) WITH ORDINALITY AS u(qv, ord)) "
        "SELECT q.ord, s.id, s.d FROM q CROSS JOIN LATERAL (SELECT c.id, c.vec <=> q.qv "
        "AS d FROM c ORDER BY d, c.id LIMIT %(limit)s) s ORDER BY q.ord, s.d, s.id"
    ).format(t)
    out: list[list[tuple[str, float]]] = [[] for _ in range(len(qs))]
    for r in conn.execute(stmt, {**p, "qs": list(qs)}).fetchall():
        out[int(r["ord"]) - 1].append((r["id"], 1.0 - float(r["d"])))
    return out


def _hnsw_each(conn: Any, t: sql.Identifier, base: str, p: dict[str, Any],
               qs: np.ndarray, limit: int, iterative_scan: bool
               ) -> list[list[tuple[str, float]]]:
    if iterative_scan:
        # Keep walking the graph until `limit` rows pass the scope and liveness
        # filters (bounded by hnsw.max_scan_tuples).
        conn.execute("SELECT set_config('hnsw.iterative_scan', 'strict_order', true), "
                     "set_config('hnsw.ef_search', %s, true)",
                     (str(min(1000, max(40, limit))),))
    query = sql.SQL("SELECT m.id, v.vec <=> %(q)s AS d " + base
                    + " ORDER BY v.vec <=> %(q)s LIMIT %(limit)s").format(t)
    return [[(r["id"], 1.0 - float(r["d"])) for r in conn.execute(query, {**p, "q": q})]
            for q in qs]

"""PostgreSQL full text: index terms as hashed lexemes, and the candidates of a query.

The index terms from memvault.textindex are stored verbatim (`terms`, the same
space-joined string SQLite's FTS5 gets; BM25 in the core reads them back) and turned into
a tsvector by a generated column with `array_to_tsvector` — no text-search parser or
dictionary touches them, so both backends match exactly the same terms. Each lexeme is the
first 64 bits of the term's SHA-256, not the term: GIN never deletes an entry key once
written (VACUUM only empties its posting list; measured, a purged word stays readable in
the index file until REINDEX), so plain-text lexemes would defeat purge; hashing also
sidesteps array_to_tsvector's silent corruption of lexemes over 2046 bytes. The query is
an OR of quoted lexemes, a tsquery, which the GIN index serves. tsquery rather than
`text[] && text[]` because the tsvector also gives per-term tests (`tsv @@ 'lexeme'`, a
binary search over the sorted, deduplicated lexemes) for the document frequencies and the
cheap candidate rank.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from ..bm25 import TextCandidates


def lexeme(term: str) -> str:
    """The tsvector lexeme of an index term; mirrors memvault_lexeme() in the schema."""
    return hashlib.sha256(term.encode("utf-8")).hexdigest()[:16]


def tsquery_literal(lex: str) -> str:
    """One lexeme as a quoted tsquery operand (lexemes are hex, quoting is belt and braces)."""
    return "'" + lex.replace("\\", "\\\\").replace("'", "''") + "'"


def split_terms(terms: str) -> list[str]:
    return [t for t in terms.split(" ") if t]


def text_candidates(q: Callable[[str, dict[str, Any]], list[dict[str, Any]]], where: str,
                    params: dict[str, Any], terms: list[str], limit: int) -> TextCandidates:
    """Store.text_candidates: `q` runs a query; `where` selects the scope's live memories
    `m` (with `params`)."""
    qterms = list(dict.fromkeys(t for t in terms if t))
    p: dict[str, Any] = dict(params)
    stats = (f"SELECT 0 AS part, NULL::bigint AS k, count(*) AS n, "
             f"avg(m.n_terms)::float8 AS avg_len, NULL::text AS id, NULL::text AS terms "
             f"FROM memories m WHERE {where}")
    if not qterms:
        row = q(stats, p)[0]
        return TextCandidates(n_docs=int(row["n"]), avg_len=float(row["avg_len"] or 0.0))
    lexemes = [tsquery_literal(lexeme(t)) for t in qterms]
    p.update({"any": " | ".join(lexemes), "each": lexemes, "limit": max(0, limit)})
    # One statement, so the statistics and the candidates come from one snapshot.
    # hits: live matching docs of the scope (GIN on tsv + scope btree); matched: which
    # query terms each contains (one binary search per term and doc); the candidates
    # are the docs matching most distinct query terms, then the most recent.
    query = f"""
WITH hits AS MATERIALIZED (
    SELECT m.mrow, m.id, m.updated_at, m.tsv FROM memories m
    WHERE {where} AND m.tsv @@ %(any)s::tsquery),
matched AS MATERIALIZED (
    SELECT h.mrow, q.i FROM hits h
    JOIN unnest(%(each)s::tsquery[]) WITH ORDINALITY AS q(tq, i) ON h.tsv @@ q.tq),
top AS (
    SELECT h.mrow, h.id,
           row_number() OVER (ORDER BY count(*) DESC, h.updated_at DESC, h.id) AS pos
    FROM hits h JOIN matched x ON x.mrow = h.mrow
    GROUP BY h.mrow, h.id, h.updated_at
    ORDER BY pos LIMIT %(limit)s)
{stats}
UNION ALL
SELECT 1, x.i, count(*), NULL, NULL, NULL FROM matched x GROUP BY x.i
UNION ALL
SELECT 2, t.pos, NULL, NULL, t.id, m.terms FROM top t JOIN memories m ON m.mrow = t.mrow
ORDER BY 1, 2"""
    out = TextCandidates(df=dict.fromkeys(qterms, 0))
    for r in q(query, p):
        if r["part"] == 0:
            out.n_docs = int(r["n"])
            out.avg_len = float(r["avg_len"] or 0.0)
        elif r["part"] == 1:
            out.df[qterms[int(r["k"]) - 1]] = int(r["n"])
        else:
            out.docs.append((r["id"], split_terms(r["terms"])))
    return out

"""The compact form a trace is stored in (issue 21): what `Vault.trace` returns, packed.

A trace's candidates are the bulk of it: some 50-70 of them, each a dict of ~16 score
parts with the same keys. Packed, a candidate names its memory by its index in the
trace's `memory_ids` (stored once, in its own column, where purge finds it); the fields
are columns (one array per field, an entry per candidate), the score parts one array per
part (in the order of a per-trace key list), a score equal to its `total` part is left
out, and every number is rounded to `DIGITS` decimals. `unpack` gives back the same dict
shape (`candidates` with `id`, `version`, `slot`, `topic`, `kind`, `score`, `parts`,
`outcome`, `rank`), so no reader changes. Both backends store the packed JSON
zlib-compressed (a BLOB on SQLite, bytea on PostgreSQL). A payload written before packing
(JSON text with `candidates`, or its bytes) reads as it always did.

Nothing is kept here that the plain trace did not hold: purge still finds a trace by its
`memory_ids` (every candidate and every injected memory) or by its query.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

FORMAT = 1
DIGITS = 4  # decimals kept of a score or a part
_CAND = ("version", "slot", "topic", "kind", "outcome", "rank")


def _num(x: Any) -> Any:
    return round(x, DIGITS) if x.__class__ is float else x


def pack(trace: dict[str, Any]) -> dict[str, Any]:
    """The packed form of a trace (a JSON-able dict)."""
    where = {m: i for i, m in enumerate(trace["memory_ids"])}
    cands = trace.get("candidates") or []
    keys: list[list[str | None]] = []  # [part, None] or [part, embedder] for a dict part
    seen: dict[tuple[str, str | None], int] = {}
    dict_parts: set[str] = set()
    # Column-major: a part's values side by side (runs of 0.0 and 1.0) compress best.
    cols: list[list[Any]] = []
    n = len(cands)
    for i, c in enumerate(cands):
        for k, val in c["parts"].items():
            if val.__class__ is dict:
                dict_parts.add(k)
                items: Any = val.items()
            else:
                items = ((None, val),)
            for sub, x in items:
                j = seen.get((k, sub))
                if j is None:
                    j = seen[(k, sub)] = len(keys)
                    keys.append([k, sub])
                    cols.append([None] * n)
                cols[j][i] = round(x, DIGITS) if x.__class__ is float else x
    total = cols[seen[("total", None)]] if ("total", None) in seen else None
    scores = [_num(c["score"]) for c in cands]
    fields = [[where[c["id"]] for c in cands], *([c[f] for c in cands] for f in _CAND),
              [None if total is not None and sc == total[i] else sc
               for i, sc in enumerate(scores)]]
    out = {k: val for k, val in trace.items() if k not in ("candidates", "memory_ids")}
    out.update({"format": FORMAT, "part_keys": keys, "dict_parts": sorted(dict_parts),
                "cands": fields if n else [], "parts": cols})
    return out


def unpack(packed: dict[str, Any], memory_ids: list[str]) -> dict[str, Any]:
    """The trace as written (numbers rounded to DIGITS decimals)."""
    if "format" not in packed:
        return packed  # written before packing: the plain trace
    out = {k: val for k, val in packed.items()
           if k not in ("format", "part_keys", "dict_parts", "cands", "parts")}
    keys = packed["part_keys"]
    cands = []
    total = next((i for i, (k, s) in enumerate(keys) if k == "total" and s is None), None)
    n = len(packed["cands"][0]) if packed["cands"] else 0
    cols = packed["cands"] or [[]] * (len(_CAND) + 2)
    pcols = packed["parts"] or [[]] * len(keys)
    for i in range(n):
        idx, *fields, score = (col[i] for col in cols)
        vals = [col[i] for col in pcols]
        parts: dict[str, Any] = {k: {} for k in packed["dict_parts"]}
        for (k, s), x in zip(keys, vals, strict=True):
            if s is None:
                if x is not None:
                    parts[k] = x
            elif x is not None:
                parts[k][s] = x
        parts = {k: dict(sorted(x.items())) if isinstance(x, dict) else x
                 for k, x in sorted(parts.items())}
        c = {"id": memory_ids[idx], **dict(zip(_CAND, fields, strict=True)),
             "score": score if score is not None else (vals[total] if total is not None
                                                       else None),
             "parts": parts}
        cands.append(dict(sorted(c.items())))
    out["candidates"] = cands
    out["memory_ids"] = list(memory_ids)
    return dict(sorted(out.items()))


def to_json(packed: dict[str, Any]) -> str:
    return json.dumps(packed, ensure_ascii=False, separators=(",", ":"))


def compress(packed: dict[str, Any]) -> bytes:
    return zlib.compress(to_json(packed).encode(), 6)


def pack_ids(ids: list[str]) -> bytes:
    """A trace's memory ids as SQLite's memory_ids column holds them: a zlib-compressed
    JSON array. Plain, the list was larger than the compressed payload (time-ordered ids
    share most of their characters)."""
    return zlib.compress(json.dumps(list(ids), separators=(",", ":")).encode(), 9)


def unpack_ids(column: str | bytes | memoryview) -> list[str]:
    """The memory_ids column read back: compressed (pack_ids) or the plain JSON text of
    a trace written before."""
    if isinstance(column, bytes | memoryview):
        column = zlib.decompress(bytes(column)).decode()
    return list(json.loads(column))


def names(column: str | bytes | memoryview | None, memory_id: str) -> bool:
    """Whether a memory_ids column lists `memory_id` (purge's test, as a SQL function)."""
    return column is not None and memory_id in unpack_ids(column)


def decode(payload: str | bytes | memoryview, memory_ids: list[str]) -> dict[str, Any]:
    """A stored payload (zlib bytes, or JSON text: packed or from before packing; as bytes
    where a migration changed the column's type)."""
    if isinstance(payload, bytes | memoryview):
        raw = bytes(payload)
        payload = (raw if raw[:1] == b"{" else zlib.decompress(raw)).decode()
    return unpack(json.loads(payload), memory_ids)

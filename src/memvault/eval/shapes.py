"""memvault's own retrieval set (benchmarks/shapes/shapes.jsonl): conversation shapes
LoCoMo lacks. Independent statements said hours apart, an exchange whose session crosses
midnight, friends' chat whose informative turns end with a question; English and Chinese.

Each turn is stored as `observe()` stores a message: its text as content, kind `turn`,
its speaker and role in metadata, and dated by its own time (`at`), not its session's.
A query's category is the shape of its conversation; its split is fixed in the file
(sha256 of the query id, first byte odd = holdout).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import ValidationError
from ..timeutil import to_ms
from .evalset import Dataset, Doc, Query

DEFAULT_SHAPES = Path("benchmarks") / "shapes" / "shapes.jsonl"


def resolve_shapes(path: Path | None) -> Path:
    if path is None:
        if not DEFAULT_SHAPES.is_file():
            raise ValidationError(f"no --data given and {DEFAULT_SHAPES} does not exist here")
        return DEFAULT_SHAPES
    if path.is_dir():
        path = path / "shapes.jsonl" if (path / "shapes.jsonl").is_file() else \
            path / "shapes" / "shapes.jsonl"
    if not path.is_file():
        raise ValidationError(f"shapes: {path} is not a file")
    return path


def load_shapes(path: Path | None) -> Dataset:
    src = resolve_shapes(path)
    docs: list[Doc] = []
    queries: list[Query] = []
    shapes: list[str] = []
    with src.open(encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                if r["type"] == "turn":
                    docs.append(Doc(id=r["id"], group=r["conv"], content=r["text"],
                                    kind="turn", session=r["session"],
                                    valid_from=to_ms(r["at"], field="at"),
                                    metadata={"speaker": r["speaker"], "role": r["role"]}))
                elif r["type"] == "query":
                    queries.append(Query(id=r["id"], group=r["conv"], text=r["text"],
                                         gold=frozenset(r["gold"]), split=r["split"],
                                         category=r["shape"]))
                    if r["shape"] not in shapes:
                        shapes.append(r["shape"])
                else:
                    raise ValueError(f"unknown type {r['type']!r}")
            except (ValueError, KeyError, TypeError) as e:
                raise ValidationError(f"{src}:{n}: {e}") from e
    known = {d.id for d in docs}
    for q in queries:
        if not q.gold <= known:
            raise ValidationError(f"{src}: query {q.id} names unknown turns "
                                  f"{sorted(q.gold - known)}")
    return Dataset(name="shapes", lang="en+zh", source=str(src), docs=docs, queries=queries,
                   categories=shapes)

"""Can an embedder tell which stored memory a change of mind replaces? (issue 18)

    python benchmarks/target_rank.py [--embedder use-m3|e5-small] [--distractors 30]

For every development-half case of the generalisation set (benchmarks/generalisation,
split by generalisation.half) that expects a memory to be updated or forgotten, the
case's first new line is compared with the case's given statements plus `--distractors`
given statements of other cases of the same language (a fixed seed), as a user's history.
Prints per language how often the expected memory is the closest (top-1) and how far it
leads the next one (the write path's `lead`, understand/relate.py). For e5, whose queries
carry a prefix, both ways are shown: the line as a query against the statements as
queries (qq) and as passages (qp). Held-out cases are never read.
"""

from __future__ import annotations

import argparse
import random
import statistics
from typing import Any

import numpy as np
from generalisation import ROOT, half, load


def _text(x: Any) -> str:
    return x if isinstance(x, str) else " ".join(m["content"] for m in x if m["role"] == "user")


def items(distractors: int, seed: int) -> list[tuple[str, str, str, list[str]]]:
    """(lang, new line, expected target, pool) per development case."""
    cases = [c for c in load(ROOT / "generalisation", ["en", "zh"]) if half(c["id"]) == "dev"]
    given: dict[str, list[str]] = {}
    for c in cases:
        given.setdefault(c["lang"], []).extend(
            _text(s.get("say") or s.get("remember")) for s in c.get("given", [])
            if "say" in s or "remember" in s)
    rng, out = random.Random(seed), []
    for c in cases:
        labels = {s["as"]: _text(s.get("say") or s.get("remember"))
                  for s in c.get("given", []) if "say" in s or "remember" in s}
        for label, spec in c["expect"].items():
            if isinstance(spec, dict) and spec.get("effect") in ("update", "forget") \
                    and label in labels:
                other = [t for t in rng.sample(given[c["lang"]], distractors + 10)
                         if t not in labels.values()][:distractors]
                out += [(c["lang"], _text(line), labels[label], [*labels.values(), *other])
                        for line in c["say"]]
                break
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--embedder", default="use-m3")
    ap.add_argument("--distractors", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    from memvault.embed import load_embedder

    emb = load_embedder(a.embedder)
    modes = ["qq", "qp"] if a.embedder.startswith("e5") else ["dd"]
    data = items(a.distractors, a.seed)
    print(f"{len(data)} lines, {a.distractors} distractors, embedder {a.embedder}\n")
    print("| mode | lang | lines | top-1 | median lead | lead ≥ 0.1 |")
    print("|---|---|---:|---:|---:|---:|")
    for mode in modes:
        rows: dict[str, list[tuple[bool, float]]] = {}
        for lang, line, target, pool in data:
            if mode == "dd":
                q, p = emb.embed_documents([line])[0], emb.embed_documents(pool)
            else:
                q = emb.embed_queries([line])[0]  # type: ignore[attr-defined]
                p = emb.embed_queries(pool) if mode == "qq" else emb.embed_documents(pool)  # type: ignore[attr-defined]
            s = np.asarray(p) @ np.asarray(q)
            t = pool.index(target)
            second = max(float(s[j]) for j in range(len(pool)) if j != t)
            rows.setdefault(lang, []).append((int(np.argmax(s)) == t, float(s[t]) - second))
        for lang, r in sorted(rows.items()):
            print(f"| {mode} | {lang} | {len(r)} | {np.mean([x for x, _ in r]):.3f} | "
                  f"{statistics.median(m for _, m in r):.3f} | "
                  f"{np.mean([m >= 0.1 for _, m in r]):.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Train the model that tells, by meaning, a lasting statement of the user about
themselves from a line that keeps nothing (issue 18; statementscore.py).

    python benchmarks/statement_model.py [--embedder use-m3] [--write]

Training lines, all written for memvault's write-path audits and none from a held-out
half: `benchmarks/statements/lines.jsonl` (five audits' lines, each marked store or skip
by the helper who wrote it before reading the extractor), and the *development* half of
the generalisation set (benchmarks/generalisation, split by generalisation.half): every
statement a case gives as a set-up line and every single test line that a case expects
to add a memory (store), and every single test line of a one-off, a what-if, a quote or
a remark about someone else that must add nothing (skip). The held-out half is never
read. The model is an L2-regularised logistic regression over the embedder's sentence
vectors, fitted by full-batch gradient descent (deterministic). Prints a 5-fold cross-
validated accuracy; with --write, stores the weights in
src/memvault/statementscore.json under the embedder's name.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from generalisation import ROOT, half, load

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "src" / "memvault" / "statementscore.json"
_SKIP = {"one_off", "hypothetical", "quote", "chitchat"}


def lines() -> list[tuple[str, bool]]:
    """(text, store) for every training line."""
    out = [(r["text"], bool(r["store"])) for r in map(json.loads, (
        HERE / "statements" / "lines.jsonl").read_text(encoding="utf-8").splitlines())]
    for c in load(ROOT / "generalisation", ["en", "zh"]):
        if half(c["id"]) != "dev":
            continue
        out += [(s["say"], True) for s in c.get("given", []) if "say" in s]
        said = c["say"]
        if len(said) != 1 or not isinstance(said[0], str):
            continue
        new = c["expect"].get("new")
        if (c["category"] in _SKIP and not new) or (c["category"] == "third_party" and new == []):
            out.append((said[0], False))
        elif new and c["category"] in ("new_fact", "compatible"):
            out.append((said[0], True))
    return list(dict.fromkeys(out))


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 3000,
        rate: float = 0.5) -> tuple[np.ndarray, float]:
    w, b, n = np.zeros(x.shape[1]), 0.0, len(y)
    for _ in range(steps):
        g = 1 / (1 + np.exp(-(x @ w + b))) - y
        w -= rate * (x.T @ g / n + l2 * w / n)
        b -= rate * float(g.mean())
    return w, b


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--embedder", default="use-m3")
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    from memvault.embed import load_embedder

    data = lines()
    emb = load_embedder(a.embedder)
    x = np.asarray(emb.embed_documents([t for t, _ in data]), dtype=np.float64)
    y = np.array([s for _, s in data], dtype=np.float64)
    folds = np.arange(len(y)) % 5
    right = 0
    for k in range(5):
        w, b = fit(x[folds != k], y[folds != k], a.l2)
        right += int(((x[folds == k] @ w + b >= 0) == (y[folds == k] == 1)).sum())
    print(f"{len(y)} lines ({int(y.sum())} store), embedder {a.embedder}: 5-fold accuracy "
          f"{right / len(y):.3f}")
    if a.write:
        w, b = fit(x, y, a.l2)
        models = json.loads(OUT.read_text())["models"] if OUT.exists() else {}
        models[emb.name] = {"bias": round(b, 6), "weights": [round(float(v), 6) for v in w],
                            "lines": len(y), "l2": a.l2}
        OUT.write_text(json.dumps({"models": models}) + "\n")
        print(f"wrote {OUT.relative_to(HERE.parent)} ({emb.name})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

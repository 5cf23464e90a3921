"""Is a sentence a lasting statement of the user about themselves? Judged by its meaning.

The rule extractor reads what its patterns can: a statement it recognises is kept, a
question, a task, a what-if, a quotation or someone else's remark is not. A sentence that
none of them reads either way ("gym is mon/wed/fri before work, non negotiable", "猫叫年
糕，十岁了") is left to this score: a logistic model over the sentence vector of the
embedder it was trained for, fitted on audit lines marked "store" or "skip" and on the
development half of the generalisation set (benchmarks/statement_model.py writes
statementscore.json). An embedder without a model gives no score: such sentences are then
not kept, as before.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import replace
from importlib import resources
from typing import Any

import numpy as np

# A tentative sentence reads as a change by its form; to stand on its own its meaning must
# be surer than an unread one's (`statement_score`): chosen on the generalisation set's
# development half (BENCHMARKS.md).
STANDS = 0.8


@functools.cache
def _model(name: str) -> tuple[np.ndarray, float] | None:
    data = json.loads(resources.files(__package__).joinpath("statementscore.json")
                      .read_text(encoding="utf-8"))
    m = data["models"].get(name)
    return None if m is None else (np.asarray(m["weights"], dtype=np.float64),
                                   float(m["bias"]))


def score(vectors: Mapping[str, Any]) -> float | None:
    """The probability (0..1) that the sentence whose vectors these are (embedder name ->
    vector) states something lasting about the user; None when no embedder has a model."""
    for name, vec in vectors.items():
        model = _model(name)
        if model is not None and vec is not None and len(vec) == len(model[0]):
            z = float(np.asarray(vec, dtype=np.float64) @ model[0]) + model[1]
            return 1 / (1 + math.exp(-max(-50.0, min(50.0, z))))
    return None


def judged(candidate: Any, vectors: Mapping[str, Any] | None, threshold: float) -> Any:
    """A candidate the rules left unread (flag "unread"): kept as a plain statement (flag
    "by_meaning") when its meaning scores at least `threshold`, else None. A tentative
    one that opens its message (flags "tentative", "opening") is returned flagged
    "stands" when it scores at least STANDS. Any other candidate is returned as it is."""
    flags = list(getattr(candidate, "flags", None) or [])
    if "unread" not in flags and not {"tentative", "opening"} <= set(flags):
        return candidate
    p = score(vectors) if vectors and threshold < 1 else None  # 1: none is kept
    if "unread" not in flags:
        # Kept only if it changes what it matches ("move my digest to Mondays"), unless
        # its meaning reads as a statement on its own (flag "stands": added when it
        # changes nothing, "简洁的回答最合我胃口").
        return candidate if p is None or p < max(threshold, STANDS) else replace(
            candidate, flags=[*flags, "stands"])
    if p is None or p < threshold:
        return None
    return replace(candidate, tentative=False,
                   flags=[f for f in flags if f != "unread"] + ["by_meaning"])

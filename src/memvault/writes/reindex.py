"""Re-embedding every memory after the embedder changed, crash-safe."""

from __future__ import annotations

import json
from collections.abc import Callable

from .. import turnctx
from ..core import Core
from . import turnkeys


def reindex(core: Core, *, batch: int,
            progress: Callable[[int, int], None] | None) -> int:
    """New vectors are written beside the old ones, the model record switches only when
    every memory has them, and only then are the old models' vectors dropped: a reindex
    killed halfway leaves a store that still opens with the old model."""
    store = core.store
    total = store.count()
    stored = store.get_meta("embedders")
    old = [m["name"] for m in json.loads(stored)] if stored else []
    keep = {e.name for e in core.embedders}
    done = 0
    for rows in store.iter_all_for_reindex(batch):
        vecs = core.vectors([text for _, text in rows])
        store.replace_vectors([(key, vec) for (key, _), vec in zip(rows, vecs, strict=True)],
                              drop_models=[], embedding_model=core.embedding_model)
        done += len(rows)
        if progress:
            progress(done, total)
    store.set_meta("embedders", json.dumps(core.model_record))
    store.drop_vector_models([m for m in old if m not in keep])
    if turnctx.enabled(core.strategy.retrieval.turn_context):
        # The loop above gave every turn its own vector; turns are keyed with context.
        for sc in store.scopes():
            turnkeys.relink(core, sc)
    return done

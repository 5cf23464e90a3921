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
    backfill_words(core, batch=batch)
    if turnctx.enabled(core.strategy.retrieval.turn_context):
        # The loop above gave every turn its own vector; turns are keyed with context.
        for sc in store.scopes():
            turnkeys.relink(core, sc)
    return done


def backfill_words(core: Core, *, batch: int) -> None:
    """The word vectors of every stored memory that its tenant's table lacks (a store
    written before the table, or another model's): each batch of memories one transaction
    and one embedding batch (Tx.say). Until then a recall embeds what is missing."""
    for rows in core.store.iter_contents(batch):
        with core.store.transaction() as tx:
            by_tenant: dict[str, list[str]] = {}
            for tenant, content in rows:
                by_tenant.setdefault(tenant, []).append(content)
            for tenant, texts in by_tenant.items():
                tx.say(tenant, texts)

"""What the write core and the read core share: the store, the embedders, the strategy,
the clock and the default principal.

One `Core` per open Vault. The cores (writes/, reads/), the write path, the layers and
the lifecycle job all hold the same object, so a change made through the Vault's
attributes (`vault.actor_role = "agent"`, a benchmark swapping the embedders) reaches
every one of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

from . import validate as v
from . import wordmatch
from .config import Strategy, Weights
from .embed import Embedder, model_record
from .errors import ModelMismatchError
from .recall import Reranker
from .store import Store

# The role of the call in progress (observe: the user's; propose: an agent's), for the
# revisions it writes; per thread and task, so concurrent calls never see each other's.
_CALL_ROLE: ContextVar[str | None] = ContextVar("memvault_call_role", default=None)


class Core:
    def __init__(self, store: Store, embedders: list[Embedder], strategy: Strategy, *,
                 actor: str, actor_role: str, on_expire: str,
                 reranker: Reranker | None, clock: Callable[[], int]) -> None:
        self.store = store
        self.embedders = embedders
        self.strategy = strategy
        self.actor = actor
        self.actor_role = actor_role
        self.on_expire = on_expire
        self.reranker = reranker
        self.clock = clock
        # A summariser object set on the Vault overrides the strategy's (layers/summarize).
        self.summarizer: Any = None
        self.model_record = model_record(embedders)
        caches = strategy.retrieval.caches
        wordmatch.configure(caches.memory_words, caches.word_vectors)
        # The store embeds the words of what it writes through this core (base.WordEmbedding).
        store.words = self

    @property
    def weights(self) -> Weights:
        return self.strategy.retrieval.weights

    @property
    def embedding_model(self) -> str:
        return "+".join(e.name for e in self.embedders)

    def vectors(self, texts: list[str]) -> list[dict[str, np.ndarray]]:
        """One vector per embedder for each text: what a write stores."""
        out: list[dict[str, np.ndarray]] = [{} for _ in texts]
        for emb in self.embedders:
            matrix = emb.embed_documents(texts)
            for i, row in enumerate(matrix):
                out[i][emb.name] = row
        return out

    def word_model(self) -> str | None:
        """The model of the word vectors a recall's coverage uses (wordmatch.py)."""
        emb = wordmatch.word_embedder(self.embedders)
        return emb.name if emb is not None else None

    def embed_words(self, words: list[str]) -> np.ndarray:
        emb = wordmatch.word_embedder(self.embedders)
        if emb is None:
            return np.zeros((len(words), 0), dtype=np.float16)
        return wordmatch.unit_vectors(emb, words)

    def actor_for(self, actor: str | None) -> str:
        """The principal a revision records: the call's own, else the Vault's."""
        if actor is None:
            return self.actor
        return v.actor(actor)

    def role(self) -> str:
        """The role a revision records: the call's own (acting_as), else the Vault's."""
        return _CALL_ROLE.get() or self.actor_role

    @contextmanager
    def acting_as(self, role: str) -> Iterator[None]:
        """Within the block, the revisions written record `role` (an already checked
        actor role) instead of the Vault's."""
        token = _CALL_ROLE.set(role)
        try:
            yield
        finally:
            _CALL_ROLE.reset(token)

    def check_models(self) -> None:
        """Refuse a store indexed with other embedders (vectors would not compare)."""
        stored = self.store.get_meta("embedders")
        if stored is None:
            self.store.set_meta("embedders", json.dumps(self.model_record))
            return
        if json.loads(stored) != self.model_record:
            old = "+".join(f"{m['name']} ({m['dim']}-d)" for m in json.loads(stored))
            new = "+".join(f"{m['name']} ({m['dim']}-d)" for m in self.model_record)
            raise ModelMismatchError(
                f"this store was indexed with {old}, but the configured embedder is {new}. "
                f"Vectors of different models cannot be compared. Run `memvault --embedder "
                f"{self.embedding_model} reindex` on this store (Python: "
                "Vault(..., check_models=False).reindex()) to re-embed every memory with "
                "the new model, or configure the old one.")

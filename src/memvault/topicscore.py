"""What a statement is about, whatever value it gives: a topic class judged by meaning.

"I bank with Barclays" and "moved all my accounts over to Monzo last week" share no word,
and their sentence vectors are hardly closer than two statements about unrelated things:
the values dominate them. A classifier over the same vectors, fitted on statements of
many values per topic (benchmarks/topic_model.py writes topicscore.json), learns the
part of the vector that says *what* is talked about, the user's bank here, and ignores the
value. Two statements in the same topic class, each confidently, are about the same thing.

The classes are a profile schema (where the user lives, works, banks; what they eat, use,
prefer to be called, how they want replies and notifications…). There is no "none"
class: every text gets its likeliest class with a probability ("what time is it?" is
timezone at .87), so a class is evidence only where the write path already has a change
or a take-back said in words (understand/relate.py), and only above the floors below. A
topic marked exclusive holds one value at a time (a home city, a bank); the others hold
several (cuisines liked, allergies, pets). An embedder without a model gives no class.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from .lrucache import LRUCache, text_digest

__all__ = ["FLOOR", "SAID_FLOOR", "Topic", "same_topic", "topics_of"]

# A stored memory's class counts from this probability; a new statement's, said in
# passing and with a story around it ("We're in Manchester now, finally closer to my
# sister"), from the lower one, when it is also the memory's class.
FLOOR = 0.5
SAID_FLOOR = 0.25
_CACHE_SIZE = 4096


@dataclass(frozen=True, slots=True)
class Topic:
    name: str
    p: float
    exclusive: bool


@dataclass(frozen=True, slots=True)
class _Model:
    topics: tuple[str, ...]
    exclusive: np.ndarray
    weights: np.ndarray  # (dim, topics)
    bias: np.ndarray


@functools.cache
def _model(name: str) -> _Model | None:
    data = json.loads(resources.files(__package__).joinpath("topicscore.json")
                      .read_text(encoding="utf-8"))
    m = data["models"].get(name)
    if m is None:
        return None
    k = len(m["topics"])
    w = np.frombuffer(base64.b64decode(m["weights"]), dtype="<f2").astype(np.float32)
    return _Model(tuple(m["topics"]), np.array([t in set(m["exclusive"]) for t in m["topics"]]),
                  w.reshape(-1, k), np.asarray(m["bias"], dtype=np.float32))


# text -> Topic, per embedder: a stored memory is classified once, not at every statement
# it is compared with.
_MEMO: LRUCache[tuple[str, bytes], Topic] = LRUCache(_CACHE_SIZE)


def _classify(model: _Model, vectors: np.ndarray) -> list[Topic]:
    z = np.asarray(vectors, dtype=np.float32) @ model.weights + model.bias
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    best = p.argmax(axis=1)
    return [Topic(model.topics[k], float(p[i, k]), bool(model.exclusive[k]))
            for i, k in enumerate(best)]


def topics_of(embedder: Any, texts: Sequence[str], vectors: Sequence[Any] | None = None
              ) -> list[Topic | None]:
    """The likeliest topic class of each text, with its probability (None: no model for
    this embedder). `vectors`: the texts' vectors by this embedder where the caller has them
    (None for one it has not); the rest are embedded, once per text."""
    model = _model(embedder.name)
    if model is None or not texts:
        return [None] * len(texts)
    out: list[Topic | None] = [None] * len(texts)
    todo: list[int] = []
    given: dict[int, Any] = {}
    keys = [(embedder.name, text_digest(t)) for t in texts]
    known = _MEMO.get_many(keys)
    for i, key in enumerate(keys):
        if key in known:
            out[i] = known[key]
        elif vectors is not None and vectors[i] is not None \
                and len(vectors[i]) == model.weights.shape[0]:
            given[i] = vectors[i]
        else:
            todo.append(i)
    if todo:
        made = embedder.embed_documents([texts[i] for i in todo])
        given.update(zip(todo, made, strict=True))
    if given:
        order = sorted(given)
        made_topics = _classify(model, np.stack([given[i] for i in order]))
        for i, topic in zip(order, made_topics, strict=True):
            out[i] = topic
        _MEMO.put_many((keys[i], t)
                       for i, t in zip(order, made_topics, strict=True))
    return out


def same_topic(said: Topic | None, stored: Topic | None) -> bool:
    """Are a new statement and a stored memory in the same topic class, each confidently
    enough for its part?"""
    return said is not None and stored is not None and said.name == stored.name \
        and said.p >= SAID_FLOOR and stored.p >= FLOOR

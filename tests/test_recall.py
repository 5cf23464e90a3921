"""Hybrid recall: full-text and dense scores fused inside the scope, only live memories
served, filters and top_k respected, Chinese and English alike."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from _util import ManualClock, fresh_target

from memvault import Op, Scope, Status, Vault

ME = Scope("acme", "alice")

CORPUS = [
    ("用户希望报表导出为 XLSX", {"slot": "report.format", "value": "XLSX", "tags": ["报表"]}),
    ("通知方式：邮件，不要短信", {"slot": "notify.channel", "value": "email"}),
    ("用户住在上海浦东", {"kind": "profile", "tags": ["地址"]}),
    ("The user has a cat named Miso", {"tags": ["pets"]}),
    ("The user prefers dark mode in every dashboard", {"kind": "preference", "tags": ["ui"]}),
    ("Meeting with the finance team every Tuesday at 10am", {"kind": "episode"}),
    ("The user is allergic to peanuts", {"tags": ["health"]}),
    ("用户对花生过敏", {"tags": ["health"]}),
]


def _load(vault: Vault, clock: ManualClock) -> None:
    for content, kw in CORPUS:
        vault.remember(ME, content, **kw)  # type: ignore[arg-type]
        clock.advance(10)
    # Near-duplicates in other scopes must never surface.
    vault.remember(Scope("acme", "bob"), "用户希望报表导出为 CSV", slot="report.format",
                   value="CSV")
    vault.remember(Scope("globex", "alice"), "The user has a dog named Rex")


@pytest.fixture
def loaded(make_vault: Callable[..., Vault]) -> tuple[Vault, ManualClock]:
    """A fresh loaded vault, for tests that change it."""
    clock = ManualClock()
    vault = make_vault(clock=clock)
    _load(vault, clock)
    return vault, clock


@pytest.fixture(scope="module")
def shared(backend: str, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[tuple[Vault, ManualClock]]:
    """One loaded vault per backend for the read-only tests of this module."""
    clock = ManualClock()
    with fresh_target(backend, tmp_path_factory.mktemp("recall")) as target:
        vault = Vault(target, embedder="use-m3", clock=clock)
        try:
            _load(vault, clock)
            yield vault, clock
        finally:
            vault.close()


@pytest.mark.parametrize(("q", "expected"), [
    ("导出格式", "用户希望报表导出为 XLSX"),
    ("报表用什么格式？", "用户希望报表导出为 XLSX"),
    ("which export format for reports?", "用户希望报表导出为 XLSX"),
    ("怎么通知用户", "通知方式：邮件，不要短信"),
    ("the user's cat", "The user has a cat named Miso"),
    ("cats", "The user has a cat named Miso"),
    ("dark mode", "The user prefers dark mode in every dashboard"),
    ("用户住在哪里", "用户住在上海浦东"),
    ("when is the finance meeting", "Meeting with the finance team every Tuesday at 10am"),
])
def test_top_hit_zh_and_en(shared: tuple[Vault, ManualClock], q: str, expected: str) -> None:
    vault, _ = shared
    hits = vault.recall(ME, q, top_k=3)
    assert hits[0].memory.content == expected
    assert all(h.memory.scope == ME for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_score_parts_are_reported(shared: tuple[Vault, ManualClock]) -> None:
    vault, _ = shared
    hits = vault.recall(ME, "peanut allergy 花生过敏", top_k=5)
    assert {h.memory.content for h in hits[:2]} == {"The user is allergic to peanuts",
                                                    "用户对花生过敏"}
    for h in hits:
        p = h.parts
        assert set(p.dense) == set(p.dense_norm) == {"use-m3"}
        assert 0.0 <= p.bm25_norm <= 1.0 and 0.0 <= p.dense_norm["use-m3"] <= 1.0
        assert -1.0 <= p.dense["use-m3"] <= 1.0
        assert h.score == pytest.approx(p.total)
        w = vault.weights
        assert 0.0 <= p.coverage <= 1.0 and 0.0 <= p.coverage_norm <= 1.0
        assert p.relevance == pytest.approx(w.text * p.bm25_norm + w.dense * p.dense_norm["use-m3"]
                                            + w.coverage * p.coverage_norm)
    assert p.total == pytest.approx(p.relevance + w.recency * p.recency
                                    + w.confidence * p.confidence + w.importance * p.importance)
    # A term match contributes a positive BM25; a memory without any query term has none.
    zh = next(h for h in hits if h.memory.content == "用户对花生过敏")
    en = next(h for h in hits if h.memory.content == "The user is allergic to peanuts")
    assert zh.parts.bm25 > 0 and en.parts.bm25 > 0
    assert all(h.parts.bm25 == 0 for h in hits
               if h.memory.content not in {zh.memory.content, en.memory.content})
    assert set(hits[0].to_dict()["parts"]) == {"bm25", "bm25_norm", "dense", "dense_norm",
                                               "lines", "lines_norm", "coverage",
                                               "coverage_norm", "coverage_distinct",
                                               "relevance", "recency",
                                               "confidence", "importance", "time_match",
                                               "speaker", "question", "answer", "total"}


def test_top_k_and_min_score(shared: tuple[Vault, ManualClock]) -> None:
    vault, _ = shared
    for k in (1, 2, 5):
        assert len(vault.recall(ME, "the user", top_k=k)) == k
    everything = vault.recall(ME, "the user", top_k=100)
    assert len({h.memory.id for h in everything}) == len(everything)
    # What is not served is what the relevance floor found unrelated ("the user" is
    # all stop words; the memories that do not say "user" have no evidence).
    outcomes = [c["outcome"] for c in vault.trace(ME, everything.trace_id)["candidates"]]
    assert len(outcomes) == len(CORPUS) and 5 <= len(everything) < len(CORPUS)
    assert sorted(set(outcomes)) == ["returned", "unrelated"]
    cut = everything[2].score
    assert [h.memory.id for h in vault.recall(ME, "the user", top_k=100, min_score=cut)] == [
        h.memory.id for h in everything if h.score >= cut]


def test_kind_and_tag_filters(shared: tuple[Vault, ManualClock]) -> None:
    vault, _ = shared
    hits = vault.recall(ME, "user", kind="preference", top_k=20)
    # The preferences that say "user" (用户); the third, "通知方式：邮件，不要短信", says
    # nothing of it: a filter narrows what is served, it does not make the rest related
    # (the relevance floor judges the whole pool).
    assert {h.memory.content for h in hits} == {
        "用户希望报表导出为 XLSX", "The user prefers dark mode in every dashboard"}
    outcomes = {vault.get(ME, c["id"]).content: c["outcome"]
                for c in vault.trace(ME, hits.trace_id)["candidates"]}
    assert outcomes["通知方式：邮件，不要短信"] == "unrelated"
    hits = vault.recall(ME, "过敏 allergy", tags=["health"], top_k=20)
    assert {h.memory.content for h in hits} == {"The user is allergic to peanuts", "用户对花生过敏"}
    assert vault.recall(ME, "cat", tags=["health", "pets"]) == []
    assert [h.memory.content for h in vault.recall(ME, "地址", kind="profile", tags=["地址"])
            ] == ["用户住在上海浦东"]


def test_ttl_expired_not_served_then_sweep_demotes(make_vault: Callable[..., Vault]) -> None:
    clock = ManualClock()
    vault = make_vault(clock=clock)
    temp = vault.remember(ME, "Temporary wifi password is hunter2", ttl="1h")
    lasting = vault.remember(ME, "The office wifi is called AcmeGuest")
    clock.advance(30 * 60_000)
    assert temp.id in {h.memory.id for h in vault.recall(ME, "wifi password")}
    clock.advance(31 * 60_000)
    # Past its expiry: not served, even though sweep has not run yet.
    assert vault.get(ME, temp.id).status == Status.ACTIVE.value
    served = [h.memory.id for h in vault.recall(ME, "wifi password", top_k=10)]
    assert served == [lasting.id]
    assert all(h.memory.id != temp.id for h in vault.recall(ME, "hunter2", top_k=10))

    assert vault.sweep() == 1
    m = vault.get(ME, temp.id)
    assert (m.status, m.version) == (Status.PENDING.value, 2)
    last = vault.history(ME, temp.id)[-1]
    assert (last.op, last.actor, last.reason) == (Op.EXPIRE.value, "system:sweep", "ttl lapsed")
    assert last.state is not None and last.state["status"] == Status.PENDING.value
    assert vault.sweep() == 0  # idempotent
    assert [h.memory.id for h in vault.recall(ME, "wifi password", top_k=10)] == [lasting.id]
    # Stating it again (no slot): a new active memory, served again.
    again = vault.remember(ME, "Temporary wifi password is hunter2")
    assert again.action == "added"
    assert again.id in {h.memory.id for h in vault.recall(ME, "wifi password")}


def test_expired_slot_is_reconfirmed_as_new_version(make_vault: Callable[..., Vault]) -> None:
    clock = ManualClock()
    vault = make_vault(clock=clock, on_expire="expire")
    r = vault.remember(ME, "Export reports as CSV", slot="report.format", value="CSV",
                       ttl="1d")
    clock.advance(2 * 86_400_000)
    assert vault.recall(ME, "export format") == []
    assert vault.sweep(ME) == 1
    assert vault.get(ME, r.id).status == Status.EXPIRED.value
    again = vault.remember(ME, "Export reports as CSV", slot="report.format", value="CSV")
    assert (again.action, again.id, again.version) == ("updated", r.id, 3)
    assert [h.memory.id for h in vault.recall(ME, "export format")] == [r.id]


def test_valid_to_in_the_past_not_served(loaded: tuple[Vault, ManualClock]) -> None:
    vault, clock = loaded
    old = vault.remember(ME, "The user worked at Initech", valid_from="2019-01-01",
                         valid_to="2021-06-30")
    future = vault.remember(ME, "The user will work at Globex",
                            valid_from=clock.now + 86_400_000)
    hits = {h.memory.id for h in vault.recall(ME, "where does the user work", top_k=20)}
    assert old.id not in hits and future.id not in hits
    # as_of is about what the store knew then (transaction time): in 2020 it knew nothing,
    # even though the Initech fact held in the world then.
    assert vault.recall(ME, "where does the user work", as_of="2020-03-01T00:00:00Z") == []
    clock.advance(2 * 86_400_000)
    assert future.id in {h.memory.id for h in vault.recall(ME, "work Globex", top_k=20)}


def test_forgotten_not_served(loaded: tuple[Vault, ManualClock]) -> None:
    vault, _ = loaded
    target = vault.recall(ME, "cat named Miso")[0].memory
    assert target.content == "The user has a cat named Miso"
    vault.forget(ME, target.id, reason="user asked")
    for q in ("cat named Miso", "Miso", "pets"):
        assert all(h.memory.id != target.id for h in vault.recall(ME, q, top_k=50))
    assert vault.get(ME, target.id).status == Status.DELETED.value
    assert target.id not in {m.id for m in vault.list(ME, status="active")}


def test_pending_and_other_scopes_never_served(shared: tuple[Vault, ManualClock]) -> None:
    vault, _ = shared
    hits = vault.recall(ME, "导出格式 CSV dog Rex", top_k=50)
    assert all(h.memory.scope == ME for h in hits)
    assert "CSV" not in {h.memory.value for h in hits}
    assert all("Rex" not in h.memory.content for h in hits)
    assert vault.recall(Scope("acme", "carol"), "导出格式") == []

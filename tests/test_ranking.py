"""Each score part and each filter of recall, on small hand-made stores (Chinese and
English): change one input, and the part — and the order it decides — must follow."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from _util import ManualClock

from memvault import Hit, Scope, Vault
from memvault.config import Strategy

ME = Scope("acme", "alice")
DAY = 86_400_000


def strategy(**weights: float) -> Strategy:
    base = Strategy().model_dump()
    base["retrieval"]["weights"].update(weights)
    return Strategy.model_validate(base)


def by_content(hits: list[Hit]) -> dict[str, Hit]:
    return {h.memory.content: h for h in hits}


def candidate_bm25(vault: Vault, query: str) -> dict[str, float]:
    """Each candidate's raw BM25 from the recall's trace, whatever its outcome."""
    t = vault.trace(ME, vault.recall(ME, query).trace_id)
    return {vault.get(ME, c["id"]).content: c["parts"]["bm25"] for c in t["candidates"]}


def test_recency_decays_with_age_and_breaks_ties(make_vault: Callable[..., Vault],
                                                 clock: ManualClock) -> None:
    # Dense only: the same words embed the same, so relevance ties exactly (the date words
    # indexed for full text differ with the date, and so would BM25's document length).
    v = make_vault(clock=clock, strategy=strategy(text=0.0, dense=1.0, recency=0.5))
    # The same words, told about two different days.
    old = v.remember(ME, "The user drank oolong tea", kind="episode",
                     valid_from=clock.now - 360 * DAY).memory
    new = v.remember(ME, "The user drank oolong tea", kind="fact",
                     valid_from=clock.now - 2 * DAY).memory
    hits = {h.memory.id: h for h in v.recall(ME, "tea")}
    half_life = v.strategy.retrieval.decay.half_life_days
    assert hits[old.id].parts.recency == pytest.approx(0.5 ** (360 / half_life), rel=1e-6)
    assert hits[new.id].parts.recency == pytest.approx(0.5 ** (2 / half_life), rel=1e-6)
    assert hits[old.id].parts.relevance == pytest.approx(hits[new.id].parts.relevance)
    assert [h.memory.id for h in v.recall(ME, "tea")] == [new.id, old.id]


def test_confidence_and_importance_count_with_their_weights(
        make_vault: Callable[..., Vault], clock: ManualClock) -> None:
    v = make_vault(clock=clock, strategy=strategy(confidence=0.3, importance=0.4, recency=0))
    v.remember(ME, "用户喜欢喝拿铁", confidence=0.4, source="system_inferred")
    v.remember(ME, "用户喜欢喝美式咖啡", confidence=1.0, metadata={"importance": 0.9})
    hits = by_content(v.recall(ME, "咖啡 拿铁 喜欢"))
    low, high = hits["用户喜欢喝拿铁"], hits["用户喜欢喝美式咖啡"]
    assert (low.parts.confidence, high.parts.confidence) == (0.4, 1.0)
    assert (low.parts.importance, high.parts.importance) == (0.0, 0.9)
    for h in (low, high):
        assert h.score == pytest.approx(h.parts.relevance + 0.3 * h.parts.confidence
                                        + 0.4 * h.parts.importance)


def test_text_and_dense_weights_decide_relevance(make_vault: Callable[..., Vault]) -> None:
    only_text = make_vault(strategy=strategy(text=1.0, dense=0.0, recency=0, confidence=0,
                                             coverage=0))
    only_text.remember(ME, "zebracorn quarterly report")
    only_text.remember(ME, "a striped horse with a horn")
    top = only_text.recall(ME, "zebracorn")[0]
    assert top.memory.content == "zebracorn quarterly report"
    assert top.score == pytest.approx(top.parts.bm25_norm)
    only_dense = make_vault(strategy=strategy(text=0.0, dense=1.0, recency=0, confidence=0,
                                              coverage=0))
    only_dense.remember(ME, "I adore my golden retriever puppy")
    only_dense.remember(ME, "The invoice is due on Friday")
    top = only_dense.recall(ME, "dog")[0]
    assert top.memory.content == "I adore my golden retriever puppy"
    assert top.parts.bm25 == 0.0 and top.score == pytest.approx(top.parts.dense_norm["use-m3"])


def test_min_score_and_top_k(vault: Vault) -> None:
    for i in range(8):
        vault.remember(ME, f"Meeting note {i} about the billing migration")
    hits = vault.recall(ME, "billing migration", top_k=3)
    assert len(hits) == 3 and [h.score for h in hits] == sorted(
        (h.score for h in hits), reverse=True)
    cut = hits[1].score
    kept = vault.recall(ME, "billing migration", top_k=10, min_score=cut)
    assert kept and all(h.score >= cut for h in kept)
    t = vault.trace(ME, kept.trace_id)
    assert any(c["outcome"] == "below_threshold" for c in t["candidates"])


def test_a_memory_sharing_no_word_must_be_similar_to_be_served(
        make_vault: Callable[..., Vault]) -> None:
    """With a floor set, unrelated memories stay out however few there are, and a related
    one in other words (or another language) still comes back. Off by default."""
    def fill(v: Vault) -> None:
        for t in ["I like green tea", "Export reports as CSV", "The user lives in Hangzhou",
                  "用户养了一只叫 Miso 的猫", "用户希望通过短信接收通知"]:
            v.remember(ME, t)

    def with_floor(floor: float) -> Strategy:
        base = Strategy().model_dump()
        base["retrieval"]["min_similarity"] = floor
        return Strategy.model_validate(base)

    v = make_vault(strategy=with_floor(0.2))
    fill(v)
    for query in ["What's the weather on Mars?", "火星上的天气怎么样"]:
        hits = v.recall(ME, query, top_k=5)
        assert list(hits) == [], query
        outcomes = {c["outcome"] for c in v.trace(ME, hits.trace_id)["candidates"]}
        assert outcomes == {"no_match"}
        assert v.context(ME, query).text == ""
    # No shared word, but the same meaning (cross-lingual): served.
    assert [h.memory.content for h in v.recall(ME, "what pets do I have", top_k=1)] == [
        "用户养了一只叫 Miso 的猫"]
    assert "用户希望通过短信接收通知" in {
        h.memory.content for h in v.recall(ME, "how should we notify the user", top_k=5)}
    assert Strategy().retrieval.min_similarity == 0.0  # off unless configured
    off = make_vault()
    fill(off)
    # Without it, the default relevance floor (retrieval.floor) drops them all the same.
    hits = off.recall(ME, "What's the weather on Mars?", top_k=5)
    assert list(hits) == []
    assert {c["outcome"] for c in off.trace(ME, hits.trace_id)["candidates"]} == {"unrelated"}


def test_kind_tag_and_date_filters(vault: Vault) -> None:
    vault.remember(ME, "Went to the Hangzhou tea museum", kind="episode", tags=["trip"],
                   valid_from="2023-05-08T10:00:00Z")
    vault.remember(ME, "Went to the Shanghai tea market", kind="episode", tags=["trip"],
                   valid_from="2024-03-02T10:00:00Z")
    vault.remember(ME, "Likes tea", kind="preference", tags=["taste"])
    contents = lambda hits: {h.memory.content for h in hits}  # noqa: E731
    assert contents(vault.recall(ME, "tea", kind="episode")) == {
        "Went to the Hangzhou tea museum", "Went to the Shanghai tea market"}
    assert contents(vault.recall(ME, "tea", tags=["taste"])) == {"Likes tea"}
    assert contents(vault.recall(ME, "tea", since="2024-01-01", until="2025-01-01")) == {
        "Went to the Shanghai tea market"}


@pytest.mark.parametrize("query", ["what did I do in May 2023", "2023年5月我去了哪里",
                                   "tea trip on 8 May, 2023"])
def test_explicit_date_in_query_narrows(vault: Vault, query: str) -> None:
    vault.remember(ME, "Went to the Hangzhou tea museum", valid_from="2023-05-08T10:00:00Z")
    vault.remember(ME, "Went to the Shanghai tea market", valid_from="2024-03-02T10:00:00Z")
    hits = vault.recall(ME, query)
    assert [h.memory.content for h in hits] == ["Went to the Hangzhou tea museum"]
    t = vault.trace(ME, hits.trace_id)
    assert t["time_range"] is not None
    assert [c["outcome"] for c in t["candidates"] if c["outcome"] != "returned"] == [
        "time_range"]


def test_date_named_with_nothing_inside_does_not_empty_recall(vault: Vault) -> None:
    vault.remember(ME, "Went to the Hangzhou tea museum", valid_from="2023-05-08T10:00:00Z")
    # (Not just "tea in March 2021": in a store of one memory, one word of two is no
    # evidence that it is about the query — the relevance floor, docs/retrieval.md.)
    hits = vault.recall(ME, "Hangzhou tea in March 2021")
    assert [h.memory.content for h in hits] == ["Went to the Hangzhou tea museum"]
    assert vault.trace(ME, hits.trace_id)["time_range_ignored"] is True


def test_relative_time_boosts_without_filtering(make_vault: Callable[..., Vault],
                                               clock: ManualClock) -> None:
    v = make_vault(clock=clock, strategy=strategy(time=0.5, recency=0))
    v.remember(ME, "Ate noodles for lunch", valid_from=clock.now - DAY)
    v.remember(ME, "Ate dumplings for lunch", valid_from=clock.now - 40 * DAY)
    hits = v.recall(ME, "what did I eat for lunch yesterday")
    assert hits[0].memory.content == "Ate noodles for lunch"
    assert {h.memory.content: h.parts.time_match for h in hits} == {
        "Ate noodles for lunch": 1.0, "Ate dumplings for lunch": 0.0}
    zh = v.recall(ME, "昨天午饭吃了什么")
    assert "Ate dumplings for lunch" in {h.memory.content for h in zh}  # not filtered out


def test_memory_date_words_match_by_full_text(vault: Vault) -> None:
    vault.remember(ME, "Ran a half marathon", valid_from="2025-05-18T08:00:00Z")
    vault.remember(ME, "Ran a 5k", valid_from="2025-09-01T08:00:00Z")
    # Every candidate's parts, served or not: with two memories that both say "ran", the
    # relevance floor may serve neither, but BM25 has seen the date words all the same.
    bm25 = candidate_bm25(vault, "running in May")
    assert bm25["Ran a half marathon"] > bm25["Ran a 5k"]
    assert candidate_bm25(vault, "五月跑步")["Ran a half marathon"] > 0


def test_reranker_hook_decides_the_final_order(make_vault: Callable[..., Vault]) -> None:
    seen: list[str] = []

    def shortest_first(query: str, hits: list[Hit]) -> list[Hit]:
        seen.append(query)
        return sorted(hits, key=lambda h: len(h.memory.content))

    v = make_vault(reranker=shortest_first)
    v.remember(ME, "The user likes green tea very much, especially Longjing")
    v.remember(ME, "Likes tea")
    hits = v.recall(ME, "green tea")
    assert seen == ["green tea"]
    assert hits[0].memory.content == "Likes tea"
    assert v.trace(ME, hits.trace_id)["reranked"] is True


def test_a_speaker_the_query_names_is_favoured(make_vault: Callable[..., Vault]) -> None:
    v = make_vault(strategy=strategy(speaker=0.3, question=0.0))
    chat = Scope("acme", "alice", session="group")
    for who, text in [("Nate", "I love action movies, the effects are great."),
                      ("Joanna", "I love action movies, the effects are great!"),
                      ("小明", "我最喜欢看科幻电影。"), ("小红", "我最喜欢看科幻电影！")]:
        v.remember(chat, text, kind="turn", metadata={"speaker": who})
    for query, who, other in [("What movies does Nate love?", "Nate", "Joanna"),
                              ("What movies does JOANNA love?", "Joanna", "Nate"),
                              ("小红最喜欢什么电影", "小红", "小明")]:
        hits = v.recall(chat, query, top_k=4)
        said = {h.memory.metadata["speaker"]: h for h in hits}
        assert hits[0].memory.metadata["speaker"] == who
        assert (said[who].parts.speaker, said[other].parts.speaker) == (1.0, 0.0)
        assert said[who].score == pytest.approx(said[who].parts.total)
        assert said[who].parts.total - said[other].parts.total == pytest.approx(
            0.3 + said[who].parts.relevance - said[other].parts.relevance
            + 0.05 * (said[who].parts.confidence - said[other].parts.confidence)
            + 0.05 * (said[who].parts.recency - said[other].parts.recency))
    # A whole-word match only: "Nately" does not name Nate; no name, no bonus.
    for query in ("Nately loves action movies", "who loves action movies"):
        assert all(h.parts.speaker == 0.0 for h in v.recall(chat, query, top_k=4))


def test_a_turn_that_only_asks_ranks_below_statements(
        make_vault: Callable[..., Vault]) -> None:
    v = make_vault(strategy=strategy(question=0.5, recency=0.0, confidence=0.0))
    chat = Scope("acme", "alice", session="s1")
    asked = v.remember(chat, "Which hiking trail near the lake do you like?", kind="turn",
                       metadata={"speaker": "Ann"}).memory
    v.remember(chat, "The weather was nice today.", kind="turn", metadata={"speaker": "Bo"})
    told = v.remember(chat, "我常走湖边的徒步小路。", kind="turn").memory
    asked_zh = v.remember(chat, "你喜欢湖边哪条徒步小路？", kind="turn").memory
    # The same question stored as a fact (not a turn) is not a conversational question.
    fact = v.remember(Scope("acme", "alice"), "Which trail is closed?", kind="fact").memory
    hits = {h.memory.id: h for h in v.recall(Scope("acme", "alice"),
                                              "hiking trail near the lake 湖边徒步小路",
                                              top_k=10)}
    assert hits[asked.id].parts.question == hits[asked_zh.id].parts.question == 1.0
    assert hits[told.id].parts.question == hits[fact.id].parts.question == 0.0
    for h in hits.values():
        assert h.score == pytest.approx(h.parts.relevance - 0.5 * h.parts.question)
    zh = [h.memory.id for h in v.recall(chat, "湖边徒步小路", top_k=10)]
    assert zh.index(told.id) < zh.index(asked_zh.id)


def test_each_line_of_a_conversation_query_votes(make_vault: Callable[..., Vault]) -> None:
    from memvault.embed import load_embedder
    from memvault.querylines import query_lines

    v = make_vault(strategy=strategy(lines=0.5))
    texts = ["Lisa won a chess game against her dad", "Lisa was anxious before her maths exam",
             "丽莎和妈妈一起拼拼图，很开心", "The user waters the garden on Sundays"]
    for t in texts:
        v.remember(ME, t, kind="episode")
    chat = ('<Lisa>: "I failed my exam today, I feel stupid."\n'
            '<Assistant>: "Oh no, which questions were hard?"\n'
            '<Lisa>: 我下棋赢了爸爸！')
    lines = query_lines(chat, 10)
    assert lines == ['"I failed my exam today, I feel stupid."',
                     '"Oh no, which questions were hard?"', "我下棋赢了爸爸！"]
    emb = load_embedder("use-m3")
    line_vecs = emb.embed_documents(lines)
    hits = by_content(v.recall(ME, chat, top_k=10))
    best = {t: float((line_vecs @ emb.embed_documents([t])[0]).max()) for t in texts}
    for t, h in hits.items():
        assert h.parts.lines["use-m3"] == pytest.approx(best[t], abs=1e-5)
        assert 0.0 <= h.parts.lines_norm["use-m3"] <= 1.0
        assert h.parts.relevance == pytest.approx(
            0.5 * h.parts.bm25_norm + 0.5 * h.parts.dense_norm["use-m3"]
            + 0.5 * h.parts.lines_norm["use-m3"])
    top = max(best, key=lambda t: best[t])
    assert hits[top].parts.lines_norm["use-m3"] == 1.0
    # The as-of path scores line votes the same way.
    past = by_content(v.recall(ME, chat, top_k=10, as_of=v.clock()))
    for t, h in past.items():
        assert h.parts.lines["use-m3"] == pytest.approx(best[t], abs=1e-5)
    # One line, or the weight at 0: no line votes.
    assert all(h.parts.lines == {} for h in v.recall(ME, "exam anxiety", top_k=10))
    off = make_vault(strategy=strategy(lines=0.0))
    off.remember(ME, texts[0], kind="episode")
    assert all(h.parts.lines == {} for h in off.recall(ME, chat, top_k=10))


@pytest.mark.parametrize(("query", "lines"), [
    ("just one line", []),
    ("Alice: hi\nBob Lee: hello there", ["hi", "hello there"]),
    ("[bot]: 你好\n小明：我今天很累\n\n  \n", ["你好", "我今天很累"]),
    ("a\nb\nc\nd", ["c", "d"]),
    ("10:30 the meeting\nNote: bring slides", ["10:30 the meeting", "bring slides"]),
])
def test_query_lines_drop_speaker_tags_and_keep_the_last(query: str, lines: list[str]) -> None:
    from memvault.querylines import query_lines

    assert query_lines(query, 2) == lines
    assert query_lines(query, 0) == []


def test_vector_search_for_several_lines_at_once_matches_one_by_one(vault: Vault) -> None:
    from memvault.embed import load_embedder

    other = Scope("acme", "bob")
    for i, t in enumerate(["tea in the morning", "coffee after lunch", "用户喜欢绿茶",
                           "the dog needs a walk", "chess club on Fridays"]):
        vault.remember(ME if i % 4 else other, t)
    emb = load_embedder("use-m3")
    lines = emb.embed_documents(["green tea", "a game of chess", "walking the dog"])
    now = vault.clock()
    each = vault.store.vector_candidates_each(ME, "use-m3", lines, now, 2)
    assert len(each) == 3
    for vec, got in zip(lines, each, strict=True):
        one = vault.store.vector_candidates(ME, "use-m3", vec, now, 2)
        assert [i for i, _ in got] == [i for i, _ in one] and len(got) == 2
        assert [s for _, s in got] == pytest.approx([s for _, s in one], abs=1e-6)
    mine = {m.id for m in vault.list(ME)}
    assert all(i in mine for rows in each for i, _ in rows)  # scoped like one search
    assert vault.store.vector_candidates_each(ME, "use-m3", lines, now, 0) == [[], [], []]


def test_embed_queries_batches_or_falls_back_to_one_by_one() -> None:
    import numpy as np

    from memvault.embed import embed_queries, load_embedder

    use = load_embedder("use-m3")
    texts = ["green tea", "国际象棋"]
    one_by_one = np.stack([use.embed_query(t) for t in texts])
    assert np.allclose(embed_queries(use, texts), one_by_one, atol=1e-6)

    class OnlyQuery:  # a custom embedder without the optional batch method
        name = "only-query"
        dim = 512

        def embed_documents(self, texts: list[str]) -> np.ndarray:
            raise AssertionError("queries must not be embedded as documents")

        def embed_query(self, text: str) -> np.ndarray:
            return use.embed_query(text)

    assert np.allclose(embed_queries(OnlyQuery(), texts), one_by_one, atol=1e-6)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "words"), [
    ("Which doctor did Anna visit?", ("doctor", "anna", "visit")),
    ("The user is up for it", ("user",)),  # stop words and words under 3 letters go
    ("Visit, VISIT and visit Paris in 2023", ("visit", "paris")),
    ("汽车保养在哪家店", ("汽车", "保养", "哪家")),
    ("Is AI big in the UK or in NY? ok", ("ai", "big", "uk", "ny")),  # two capitals: a word
    ("我的轿车上周去保养了", ("轿车", "上周", "保养")),
    ("저는 서울에 살고 있어요", ("저는", "서울에", "살고", "있어요")),  # Korean: as spaced
    ("私は東京に住んでいます、コーヒーが好き", ("東京", "コーヒー")),
])
def test_content_words(text: str, words: tuple[str, ...]) -> None:
    from memvault.wordmatch import content_words

    assert content_words(text) == words


def test_coverage_is_the_weighted_share_of_query_words_a_memory_says() -> None:
    from memvault.embed import load_embedder
    from memvault.model import Memory
    from memvault.wordmatch import coverage

    emb = load_embedder("use-m3")

    def mem(i: int, text: str) -> Memory:
        return Memory(id=f"m{i}", scope=ME, kind="fact", content=text)

    pool = {m.id: m for m in [mem(1, "Anna saw a physician on Monday"),
                              mem(2, "Anna visited the doctor on Monday"),
                              mem(3, "Anna watched a film"), mem(4, "The invoice is due")]}
    found = coverage("t", "Which doctor did Anna visit?", pool, emb, 0.7)
    # m2 says every word ("visited" is near "visit"); m1 a near word for "doctor" only;
    # m3 only the name, which most memories say and which weighs least; m4 nothing.
    assert found["m2"] > 0.9
    assert found["m2"] > found["m1"] > found["m3"] > found["m4"] == 0.0
    # A higher bar: "physician" no longer counts for "doctor", the name still does.
    strict = coverage("t", "Which doctor did Anna visit?", pool, emb, 0.95)
    assert strict["m1"] == pytest.approx(found["m3"]) and strict["m2"] < found["m2"]
    assert coverage("t", "汽车保养", {"z1": mem(5, "我的轿车上周去保养了"),
                                 "z2": mem(6, "今天天气很好")}, emb, 0.7) == pytest.approx(
        {"z1": 1.0, "z2": 0.0}, abs=0.2)
    # One id with other words (another store open in the same process) is not confused.
    other = {"m2": Memory(id="m2", scope=ME, kind="fact", content="The invoice is due")}
    assert coverage("t", "Which doctor did Anna visit?", other, emb, 0.7) == {"m2": 0.0}
    # The same word counts in full, whatever the bar.
    assert coverage("t", "Anna doctor", pool, emb, 1.0)["m2"] == 1.0
    assert coverage("t", "is it up to you?", pool, emb, 0.7) == {}  # no content word


def test_coverage_part_decides_between_otherwise_equal_memories(
        make_vault: Callable[..., Vault], clock: ManualClock) -> None:
    from memvault.wordmatch import coverage

    # Full text only: "visit" matches both, equally; "doctor" matches neither as a term.
    s = dict(text=1.0, dense=0.0, recency=0.0, confidence=0.0)
    v = make_vault(clock=clock, strategy=strategy(coverage=0.5, **s))
    off = make_vault(clock=clock, strategy=strategy(coverage=0.0, **s))
    for vault in (v, off):
        vault.remember(ME, "visit the physician")
        clock.advance(10)
        vault.remember(ME, "visit the museum")  # newer: wins a tie
    query = "doctor visit"
    hits = v.recall(ME, query)
    assert [h.memory.content for h in hits] == ["visit the physician", "visit the museum"]
    pool = {h.memory.id: h.memory for h in hits}
    expected = coverage(ME.tenant, query, pool, v.embedders[0],
                        v.strategy.retrieval.word_similarity)
    for h in hits:
        assert h.parts.coverage == pytest.approx(expected[h.memory.id])
        assert h.score == pytest.approx(h.parts.bm25_norm + 0.5 * h.parts.coverage_norm)
    assert (hits[0].parts.coverage_norm, hits[1].parts.coverage_norm) == (1.0, 0.0)
    assert hits[0].parts.bm25 == pytest.approx(hits[1].parts.bm25)
    # The as-of path adds the same part.
    past = v.recall(ME, query, as_of=clock.now)
    assert [(h.memory.id, round(h.parts.coverage, 6)) for h in past] == \
        [(h.memory.id, round(h.parts.coverage, 6)) for h in hits]
    # Weight 0: no part, and the tie goes to the newer memory.
    plain = off.recall(ME, query)
    assert [h.memory.content for h in plain] == ["visit the museum", "visit the physician"]
    # Measured all the same (the relevance floor reads it), but it weighs nothing.
    assert all(h.score == pytest.approx(h.parts.bm25_norm) for h in plain)
    # A conversation as the query (two lines or more) has line votes, not coverage.
    chat = "User: I need a doctor\nAssistant: Which visit do you mean?"
    assert all(h.parts.coverage == 0.0 for h in v.recall(ME, chat))


class _Words:
    """The real use-m3 model, with a fault on word batches (the calls coverage makes):
    it raises, or returns vectors that are not finite or not unit length."""

    def __init__(self, fault: str, reads_cjk: bool = True, name: str = "use-m3") -> None:
        from memvault.embed import load_embedder

        self.inner = load_embedder("use-m3")
        self.fault, self.reads_cjk, self.name, self.dim = fault, reads_cjk, name, 512
        self.calls = 0

    def embed_documents(self, texts: list[str]) -> Any:
        import numpy as np

        self.calls += 1
        out = self.inner.embed_documents(texts)
        if self.fault == "fail":
            raise RuntimeError("rate limited")
        if self.fault == "nan":
            out[0, :] = np.nan
        if self.fault == "scale":
            out = out * 1e6
        return out

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


def _pool() -> dict[str, Any]:
    from memvault.model import Memory

    texts = ["Anna saw a physician on Monday", "Anna visited the doctor on Monday",
             "Anna watched a film", "The invoice is due"]
    return {f"m{i}": Memory(id=f"m{i}", scope=ME, kind="fact", content=t)
            for i, t in enumerate(texts)}


def test_coverage_survives_a_failing_or_odd_embedder(caplog: pytest.LogCaptureFixture) -> None:
    from memvault.config import Retrieval
    from memvault.model import ScoreParts
    from memvault.recall import add_coverage
    from memvault.wordmatch import coverage

    pool = _pool()
    query = "Which doctor did Anna visit?"
    clean = coverage("t-clean", query, pool, _Words("none"), 0.7)
    # Vectors of any length are normalised: the same scores as the model's own.
    assert coverage("t-scale", query, pool, _Words("scale"), 0.7) == pytest.approx(clean,
                                                                                     abs=1e-3)
    # A word without a finite vector matches nothing, the others still count.
    odd = coverage("t-nan", query, pool, _Words("nan"), 0.7)
    assert all(0.0 <= x <= 1.0 for x in odd.values()) and odd["m1"] > 0.0
    # An embedder that fails on the words: the recall goes on without the part.
    parts = {mid: ScoreParts(relevance=0.5, total=0.5) for mid in pool}
    with caplog.at_level("WARNING", logger="memvault.recall"):
        add_coverage(parts, pool, query, [_Words("fail", name="flaky")], Retrieval(), "t-fail")
    assert all((p.coverage, p.relevance) == (0.0, 0.5) for p in parts.values())
    assert "coverage skipped: embedder flaky failed" in caplog.text


def test_coverage_bounds_and_its_embedder() -> None:
    from memvault.config import Retrieval
    from memvault.model import Memory, ScoreParts
    from memvault.recall import add_coverage
    from memvault.wordmatch import MAX_MEMORY_WORDS, MAX_QUERY_WORDS, _words_of, coverage

    pool = _pool()
    # A long one-line query is a passage, not a question: no coverage part.
    long_query = " ".join(f"doctor{chr(97 + i % 26)}{chr(97 + i // 26)}"
                          for i in range(MAX_QUERY_WORDS + 1))
    assert coverage("t", long_query, pool, _Words("none"), 0.7) == {}
    # A memory's first words only.
    big = Memory(id="big", scope=ME, kind="fact",
                 content=" ".join(f"w{chr(97 + i % 26)}{chr(97 + i // 26)}x" for i in range(200)))
    assert len(_words_of("t", big)) == MAX_MEMORY_WORDS
    # Word vectors come from a model that reads Chinese, even if an English-only one is
    # listed first (it would map 汽车 and 电脑 alike).
    english_only, multi = _Words("none", reads_cjk=False, name="en"), _Words("none")
    parts = {mid: ScoreParts() for mid in pool}
    add_coverage(parts, pool, "Did Anna see a 医生?", [english_only, multi], Retrieval(), "t-x")
    assert (english_only.calls, multi.calls > 0) == (0, True)
    assert parts["m1"].coverage > 0.0


def test_words_computed_across_a_purge_are_not_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    from memvault import wordmatch
    from memvault.model import Memory

    m = Memory(id="racing", scope=ME, kind="fact", content="zebracorn quartz")
    real = wordmatch.content_words

    def purge_meanwhile(text: str, limit: int | None = None) -> tuple[str, ...]:
        monkeypatch.setattr(wordmatch, "content_words", real)
        wordmatch.forget(ME.tenant)  # a purge commits while a recall reads the words
        return real(text, limit)

    monkeypatch.setattr(wordmatch, "content_words", purge_meanwhile)
    assert wordmatch._words_of(ME.tenant, m) == ("zebracorn", "quartz")
    assert (ME.tenant, "racing") not in wordmatch._memory_words.items
    wordmatch._words_of(ME.tenant, m)
    assert (ME.tenant, "racing") in wordmatch._memory_words.items


@pytest.mark.parametrize(("query", "conversation"), [
    ("doctor visit", False),
    ("Alice:\ndoctor visit", False),          # a line that is only a speaker tag is no line
    ("doctor visit\n\n   \n", False),
    ("<Alice>: doctor visit\n<Bob>: any news on that?", True),
    ("医生\n看病", True),
])
def test_a_query_gets_line_votes_or_coverage_never_both_nor_neither(
        make_vault: Callable[..., Vault], query: str, conversation: bool) -> None:
    from memvault.querylines import is_conversation

    v = make_vault(strategy=strategy(lines=0.5, coverage=0.5))
    for t in ("visit the physician", "visit the museum", "我去医院看病了"):
        v.remember(ME, t)
    hits = v.recall(ME, query, top_k=10)
    assert hits
    assert is_conversation(query) is conversation
    with_lines = any(h.parts.lines for h in hits)
    with_coverage = any(h.parts.coverage > 0 for h in hits)
    assert (with_lines, with_coverage) == (conversation, not conversation)


def test_a_reply_covers_the_query_as_the_question_it_answers(vault: Vault) -> None:
    """"What are your pets' names?" / "Luna and Oliver!": the reply holds the answer, the
    question the words; a reply to a turn that tells and asks back does not borrow."""
    vault.observe(ME, [
        {"role": "assistant", "content": "Aww, they're adorable! What are your pets' names?"},
        {"role": "user", "content": "Luna and Oliver!"},
        {"role": "assistant", "content": "We adopted two rescue pets from the shelter last "
                                         "spring and named them after old movie stars. "
                                         "What are your pets' names?"},
        {"role": "user", "content": "Haha no idea"},
    ])
    hits = {h.memory.content: h.parts for h in vault.recall(ME, "what are the pets' names?",
                                                            top_k=10)}
    asked = hits["Aww, they're adorable! What are your pets' names?"]
    assert asked.coverage > 0
    assert hits["Luna and Oliver!"].coverage == pytest.approx(asked.coverage)
    told = "We adopted two rescue pets from the shelter last spring and named them after " \
           "old movie stars. What are your pets' names?"
    assert hits[told].coverage > 0
    assert hits.get("Haha no idea") is None or hits["Haha no idea"].coverage < \
        hits[told].coverage


def test_a_one_line_query_has_its_own_dense_weight(make_vault: Callable[..., Vault]) -> None:
    texts = ["Lisa won a chess game against her dad", "The invoice is due on Friday",
             "丽莎和妈妈一起拼拼图，很开心"]
    one_line = "did Lisa beat her father at chess?"
    chat = "Lisa: I beat my dad at chess!\nAssistant: Well done, how did it go?"

    def relevance_of(h: Hit, dense: float, lines: float) -> float:
        return (0.5 * h.parts.bm25_norm + dense * h.parts.dense_norm["use-m3"]
                + lines * h.parts.lines_norm.get("use-m3", 0.0)
                + 0.2 * h.parts.coverage_norm)

    unset = make_vault(strategy=strategy(coverage=0.2, lines=0.5))
    set_ = make_vault(strategy=strategy(coverage=0.2, lines=0.5, dense_one_line=0.1))
    for v in (unset, set_):
        for t in texts:
            v.remember(ME, t, kind="episode")
    for v, dense in ((unset, 0.5), (set_, 0.1)):
        for hits in (v.recall(ME, one_line, top_k=10),
                     v.recall(ME, one_line, top_k=10, as_of=v.clock())):
            assert hits and any(h.parts.dense_norm["use-m3"] > 0 for h in hits)
            for h in hits:
                assert h.parts.relevance == pytest.approx(relevance_of(h, dense, 0.0))
        # A conversation keeps `dense`, beside its line votes.
        for h in v.recall(ME, chat, top_k=10):
            assert h.parts.relevance == pytest.approx(relevance_of(h, 0.5, 0.5))
    with pytest.raises(ValueError, match="dense_one_line"):
        strategy(dense_one_line=-0.1)

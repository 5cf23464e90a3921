"""Turn context: a turn memory is indexed with its neighbouring turns, the same way
whichever path stores the turns, and a turn that leaves takes its words with it."""

from __future__ import annotations

from collections.abc import Callable

from _util import ManualClock

from memvault import Scope, Vault, bm25
from memvault.bm25 import TextCandidates
from memvault.config import parse_strategy

SESSION = Scope("acme", "alice", session="s1")
TURNS = [
    ("user", "I went somewhere special last weekend."),
    ("assistant", "Oh nice, where did you go?"),
    ("user", "To the aquarium with my niece, she loved the octopus."),
    ("assistant", "Octopuses are clever animals."),
    ("user", "Yes! Next time we want to see the jellyfish show."),
    ("assistant", "That sounds like a lovely plan."),
    ("user", "Also I finally repaired my bicycle."),
]
QUERIES = ["where did alice go last weekend", "octopus", "jellyfish", "bicycle repair",
           "what did the niece love"]


def _ranking(vault: Vault, scope: Scope) -> list[list[tuple[str, float, float]]]:
    out = []
    for q in QUERIES:
        hits = vault.recall(scope, q, top_k=20)
        out.append([(h.memory.content, round(h.parts.bm25, 4),
                     round(next(iter(h.parts.dense.values())), 4)) for h in hits])
    return out


def test_context_terms_count_less_than_own_terms() -> None:
    tc = TextCandidates(n_docs=2, avg_len=4.0, df={"octopus": 2},
                        docs=[("own", ["octopus", "clever", "|", "aquarium"]),
                              ("ctx", ["lovely", "plan", "|", "octopus"])])
    full = dict(bm25.score(tc, ["octopus"]))
    half = dict(bm25.score(tc, ["octopus"], context_weight=0.5))
    assert full["own"] == full["ctx"]
    assert half["own"] == full["own"] and 0 < half["ctx"] < half["own"]
    assert [m for m, _ in bm25.score(tc, ["octopus"], context_weight=0.0)] == ["own"]


def test_a_turn_is_found_by_its_neighbours_words(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    vault.remember_many([{"scope": SESSION, "content": c, "kind": "turn",
                          "metadata": {"role": r}} for r, c in TURNS])
    hits = vault.recall(SESSION, "aquarium", top_k=10)
    by_text = {h.memory.content: h.parts.bm25 for h in hits}
    own, before, after = TURNS[2][1], TURNS[1][1], TURNS[3][1]
    assert by_text[own] > by_text[before] > 0 and by_text[after] > 0
    assert by_text.get(TURNS[6][1], 0.0) == 0.0  # three turns away: not in its key
    assert hits[0].memory.content == own


def test_same_keys_one_turn_at_a_time_or_all_at_once(
        make_vault: Callable[..., Vault]) -> None:
    bulk = make_vault(clock=ManualClock())
    bulk.remember_many([{"scope": SESSION, "content": c, "kind": "turn"} for _, c in TURNS])
    single = make_vault(clock=ManualClock())
    for _, c in TURNS:
        single.remember(SESSION, c, kind="turn")
    observed = make_vault(clock=ManualClock())
    for i in range(0, len(TURNS), 2):  # the product path: observe() an exchange at a time
        observed.observe(SESSION, [{"role": r, "content": c} for r, c in TURNS[i:i + 2]])
    expected = _ranking(bulk, SESSION)
    assert _ranking(single, SESSION) == expected
    # observe() also stores what its extractor found, which moves BM25's statistics: the
    # turns' vectors and which turns match each query must still be the same.
    turns = {c for _, c in TURNS}

    def keys(ranking: list[list[tuple[str, float, float]]]) -> list[dict[str, object]]:
        return [{c: (bm > 0, dense) for c, bm, dense in q if c in turns} for q in ranking]

    assert keys(_ranking(observed, SESSION)) == keys(expected)


def test_switched_off_is_the_plain_turn(make_vault: Callable[..., Vault]) -> None:
    off = parse_strategy({"retrieval": {"turn_context": {"before": 0, "after": 0}}})
    vault = make_vault(clock=ManualClock(), strategy=off)
    vault.remember_many([{"scope": SESSION, "content": c, "kind": "turn"} for _, c in TURNS])
    hits = vault.recall(SESSION, "aquarium", top_k=10)
    assert [h.memory.content for h in hits if h.parts.bm25 > 0] == [TURNS[2][1]]


def test_purged_and_forgotten_turns_leave_their_neighbours_keys(
        make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    ids = [r.memory.id for r in vault.remember_many(
        [{"scope": SESSION, "content": c, "kind": "turn"} for _, c in TURNS])]
    assert sum(h.parts.bm25 > 0 for h in vault.recall(SESSION, "aquarium", top_k=10)) == 5
    vault.purge(SESSION, ids[2])
    assert [h for h in vault.recall(SESSION, "aquarium", top_k=10) if h.parts.bm25 > 0] == []
    assert sum(h.parts.bm25 > 0 for h in vault.recall(SESSION, "bicycle", top_k=10)) == 3
    vault.forget(SESSION, ids[6])
    assert [h for h in vault.recall(SESSION, "bicycle", top_k=10) if h.parts.bm25 > 0] == []
    # The keys left are those of the remaining turns stored in one go.
    fresh = make_vault(clock=ManualClock())
    fresh.remember_many([{"scope": SESSION, "content": c, "kind": "turn"}
                         for i, (_, c) in enumerate(TURNS) if i not in (2, 6)])
    assert _ranking(vault, SESSION) == _ranking(fresh, SESSION)


def test_sessions_do_not_share_context(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    other = Scope("acme", "alice", session="s2")
    vault.remember_many([{"scope": SESSION, "content": TURNS[2][1], "kind": "turn"},
                         {"scope": other, "content": TURNS[6][1], "kind": "turn"}])
    hits = vault.recall(Scope("acme", "alice"), "aquarium", top_k=10)
    assert [h.memory.content for h in hits if h.parts.bm25 > 0] == [TURNS[2][1]]


def test_reindex_keeps_turn_context(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    vault.remember_many([{"scope": SESSION, "content": c, "kind": "turn"} for _, c in TURNS])
    vault.remember(Scope("acme", "alice"), "The user likes the aquarium", kind="fact")
    before = _ranking(vault, SESSION)
    vault.reindex()
    assert _ranking(vault, SESSION) == before


def test_a_reply_is_indexed_with_the_question_it_answers() -> None:
    from memvault import turnctx

    question, other = "Where did you go last weekend?", "That sounds lovely."
    assert turnctx.lead(1, [question, other]) == 0
    assert turnctx.lead(2, ["Hi there.", question, other]) == 1
    assert turnctx.lead(2, [question, "Hi there.", other]) is None  # not the one before
    assert turnctx.lead(0, [question, other]) is None  # nothing before the first turn
    assert turnctx.lead(1, ["你周末去哪儿了？", other]) == 0
    key = turnctx.key_terms("To the aquarium.", None, [question, other], asked=0)
    own, _, ctx = key.partition(f" {bm25.CONTEXT_MARK} ")
    assert "weekend" in own.split() and "aquarium" in own.split()
    assert "weekend" not in ctx.split() and "love" in ctx.split()
    own_vec = {"m": __import__("numpy").array([1.0, 0.0], dtype="float32")}
    q_vec = {"m": __import__("numpy").array([0.0, 1.0], dtype="float32")}
    full = turnctx.key_vectors(own_vec, [q_vec], 0.5, asked=0)["m"]
    half = turnctx.key_vectors(own_vec, [q_vec], 0.5)["m"]
    assert abs(full[0] - full[1]) < 1e-6 and half[1] < half[0]


def test_the_answer_carries_the_question_words_at_full_weight(
        make_vault: Callable[..., Vault]) -> None:
    def bm25_of_reply(turns: list[tuple[str, str]]) -> dict[str, float]:
        vault = make_vault(clock=ManualClock())
        vault.remember_many([{"scope": SESSION, "content": c, "kind": "turn"}
                             for _, c in turns])
        return {h.memory.content: h.parts.bm25
                for h in vault.recall(SESSION, "where did they go", top_k=7)}

    asked = bm25_of_reply(TURNS)
    # The same words said as a statement: the next turn holds them at half weight only.
    told = bm25_of_reply([(r, c.replace("?", ".")) for r, c in TURNS])
    reply, before = TURNS[2][1], TURNS[0][1]
    assert asked[reply] > told[reply] > 0
    # The turn before the question has it as an ordinary neighbour either way.
    assert asked[reply] > asked[before] > 0


def test_a_chinese_question_without_its_mark_still_leads_its_answer(
        make_vault: Callable[..., Vault]) -> None:
    def parts(asking: str) -> dict[str, tuple[float, float]]:
        vault = make_vault(clock=ManualClock())
        turns = ["我周末过得很充实。", asking, "去了海洋馆，小侄女最喜欢章鱼", "真不错"]
        vault.remember_many([{"scope": SESSION, "content": c, "kind": "turn"} for c in turns])
        return {h.memory.content: (h.parts.bm25, h.parts.question)
                for h in vault.recall(SESSION, "周末去哪儿", top_k=4)}

    asked = parts("你周末去哪儿了")
    told = parts("你周末去哪儿了。")  # a full stop: said, not asked
    reply = "去了海洋馆，小侄女最喜欢章鱼"
    assert asked["你周末去哪儿了"][1] == 1.0 and told["你周末去哪儿了。"][1] == 0.0
    assert asked[reply][1] == 0.0
    assert asked[reply][0] > told[reply][0] > 0


def test_an_edited_or_restored_turn_rekeys_itself_and_its_neighbours(
        make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    ids = [r.memory.id for r in vault.remember_many(
        [{"scope": SESSION, "content": c, "kind": "turn"} for _, c in TURNS])]
    original = _ranking(vault, SESSION)
    edited = "To the planetarium with my niece, she loved the stars."
    vault.edit(SESSION, ids[2], content=edited, reason="the user corrected it")
    # The old words are gone from every key, the new ones are in the neighbours' keys too.
    assert [h for h in vault.recall(SESSION, "aquarium", top_k=10) if h.parts.bm25 > 0] == []
    assert sum(h.parts.bm25 > 0 for h in vault.recall(SESSION, "planetarium", top_k=10)) == 5
    fresh = make_vault(clock=ManualClock())
    fresh.remember_many([{"scope": SESSION, "content": edited if i == 2 else c, "kind": "turn"}
                         for i, (_, c) in enumerate(TURNS)])
    assert _ranking(vault, SESSION) == _ranking(fresh, SESSION)
    # Rolled back to the first version, then forgotten and restored: the original keys.
    vault.rollback(SESSION, ids[2], 1)
    assert _ranking(vault, SESSION) == original
    vault.forget(SESSION, ids[4])
    assert vault.history(SESSION, ids[4])[-1].to_version == 2
    vault.rollback(SESSION, ids[4], 1)
    assert _ranking(vault, SESSION) == original
    # A turn that stops being served otherwise (its shelf life ended) leaves too.
    vault.expire(SESSION, ids[6])
    assert [h for h in vault.recall(SESSION, "bicycle", top_k=10) if h.parts.bm25 > 0] == []


def test_what_counts_as_a_question() -> None:
    from memvault.turncues import is_question

    for text in ["Where did you go?", "你周末去哪儿了？", "(are you sure?)",
                 "你吃饭了吗", "你吃饭了吗～", "明天来吗。", '"Ready?"',
                 # Chinese without a question mark: a final question word, asking back,
                 # an A-not-A pair.
                 "你周末去哪儿了", "你叫什么名字", "好的，那我们去哪里吃", "你几点下班",
                 "这个多少钱", "怎么办", "那你呢", "你们在干什么呢", "你是不是很累",
                 "明天有没有空"]:
        assert is_question(text), text
    for text in ["I went to the aquarium.", "What a day!", "我问他去哪儿了", "Why? Because.",
                 "ask me anything", "吗啡有副作用", "Really?!",
                 # Reported or indefinite question words, statements ending in 呢, a
                 # full stop after a question word.
                 "我不知道为什么", "什么都行", "没什么", "谁都可以", "他去哪儿都带着狗",
                 "多少有点累", "他还没来呢", "我也是呢", "我还在忙呢，等会儿再说",
                 "我在想明天去哪里玩。", "几个朋友一起去"]:
        assert not is_question(text), text

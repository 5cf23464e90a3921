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

"""The knowledge graph: facts from memories (English and Chinese), validity closed by a
contradicting fact on the same subject and relation only, as-of queries, entity
resolution across languages, and graph memories kept out of ordinary recall."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import pytest
from _util import ManualClock, check_consistent

from memvault import Scope, Vault
from memvault.layers.graphvocab import ALIASES, VOCAB

ME = Scope("acme", "alice")
DAY = 86_400_000

STORIES = {
    "en": ("I live in Shanghai", "I work at Acme", "I moved to Hangzhou",
           "Shanghai", "Hangzhou", "Acme"),
    "zh": ("我住在上海", "我在阿里巴巴工作", "我搬到了杭州", "上海", "杭州", "阿里巴巴"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_move_closes_the_old_place_and_nothing_else(clocked_vault: Vault, clock: ManualClock,
                                                    lang: str) -> None:
    vault = clocked_vault
    live, work, move, old_city, new_city, employer = STORIES[lang]
    vault.remember(ME, live)
    vault.remember(ME, work)
    t_before = clock.advance(30 * DAY)
    clock.advance(DAY)
    vault.remember(ME, move)
    t_move = clock.now
    t_after = clock.advance(DAY)
    rels = vault.graph_ingest(ME)
    assert len(rels) == 3
    assert vault.graph_ingest(ME) == []  # idempotent: nothing read twice

    def where(at: int) -> list[str]:
        return [f["object"] for f in vault.graph_facts(ME, "user", valid_at=at)
                if f["relation"] == "lives_in"]

    assert where(t_before) == [old_city]
    assert where(t_after) == [new_city]
    assert where(t_move) == [new_city]  # the move holds from its own moment
    hist = [f for f in vault.graph_facts(ME, "user", history=True)
            if f["relation"] == "lives_in"]
    assert [(f["object"], f["valid_to"]) for f in hist] == [(old_city, t_move),
                                                            (new_city, None)]
    # The old fact was closed by a revision, not deleted or overwritten.
    old = vault.get(ME, hist[0]["id"])
    revs = vault.history(ME, old.id)
    assert [r.op for r in revs] == ["create", "update"]
    assert revs[-1].reason.startswith("graph: superseded by") and revs[-1].actor == "system:graph"
    assert revs[0].state["valid_to"] is None and old.status == "active"
    # The unrelated fact about the same person is untouched.
    (job,) = [f for f in vault.graph_facts(ME, "user") if f["relation"] == "works_at"]
    assert job["object"] == employer and job["valid_to"] is None
    assert [r.op for r in vault.history(ME, job["id"])] == ["create"]
    # Neighbours, both directions.
    assert {(n["entity"], n["relation"], n["direction"])
            for n in vault.graph_neighbours(ME, "user")} == {
        (new_city, "lives_in", "out"), (employer, "works_at", "out")}
    assert [(n["entity"], n["direction"]) for n in vault.graph_neighbours(ME, new_city)] == [
        ("user", "in")]
    assert vault.graph_neighbours(ME, old_city) == []
    assert [n["entity"] for n in vault.graph_neighbours(ME, old_city, valid_at=t_before)] == [
        "user"]
    check_consistent(vault)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_replayed_conversation_is_dated_by_when_things_were_said(
        clocked_vault: Vault, clock: ManualClock, lang: str) -> None:
    """observe() of an old conversation: the move said later (but before now) updates the
    slot instead of being staged as older, and the graph dates both facts by the messages."""
    vault = clocked_vault
    live, _, move, old_city, new_city, _ = STORIES[lang]
    t_live, t_move = clock.now - 10 * DAY, clock.now - DAY
    vault.observe(ME, [{"role": "user", "content": live, "at": t_live}])
    res = vault.observe(ME, [{"role": "user", "content": move, "at": t_move}])
    assert [o.action for o in res.outcomes] == ["updated"]
    assert vault.review_list(ME) == []
    vault.graph_ingest(ME)

    def where(at: int) -> list[str]:
        return [f["object"] for f in vault.graph_facts(ME, "user", valid_at=at)
                if f["relation"] == "lives_in"]

    assert where(t_live + DAY) == [old_city]
    assert where(t_move) == [new_city]
    assert where(clock.now) == [new_city]
    # Said in the other order (the older statement arrives last), it is staged, not applied.
    late = vault.observe(ME, [{"role": "user", "content": live, "at": t_live + DAY}])
    assert [o.action for o in late.outcomes] == ["stage"]
    assert "conflict_older" in late.outcomes[0].reasons
    assert where(clock.now) == [new_city]


def test_other_subjects_and_multi_valued_relations_are_not_closed(
        clocked_vault: Vault, clock: ManualClock) -> None:
    vault = clocked_vault
    vault.remember(ME, "I live in Berlin and I like jazz")
    clock.advance(DAY)
    vault.remember(ME, "Caroline moved to Paris")  # someone else's move
    clock.advance(DAY)
    vault.remember(ME, "I also like hiking")  # likes is multi-valued
    vault.graph_ingest(ME)
    mine = {(f["relation"], f["object"]) for f in vault.graph_facts(ME, "user")}
    assert mine == {("lives_in", "Berlin"), ("likes", "jazz"), ("likes", "hiking")}
    assert [(f["subject"], f["object"]) for f in vault.graph_facts(ME, "Caroline")] == [
        ("Caroline", "Paris")]
    # Another user's graph is another graph.
    bob = Scope("acme", "bob")
    vault.remember(bob, "I moved to Munich")
    vault.graph_ingest(bob)
    assert [f["object"] for f in vault.graph_facts(ME, "user")
            if f["relation"] == "lives_in"] == ["Berlin"]
    assert [f["object"] for f in vault.graph_facts(bob, "user")] == ["Munich"]


def test_entity_resolution_across_languages_and_aliases(clocked_vault: Vault,
                                                        clock: ManualClock) -> None:
    vault = clocked_vault
    vault.remember(ME, "I live in Shanghai")
    clock.advance(DAY)
    vault.remember(ME, "我在上海市工作")  # 上海市 = 上海 = Shanghai
    vault.graph_ingest(ME)
    ents = vault.list(ME, kind="entity")
    assert sorted(e.content for e in ents) == ["Shanghai", "user"]
    city = vault.graph_entity(ME, "上海")
    assert city.id == vault.graph_entity(ME, "shanghai").id == vault.graph_entity(ME, "沪").id
    assert [r.op for r in vault.history(ME, city.id)] == ["create"]
    assert vault.graph_entity(ME, "我").id == vault.graph_entity(ME, "the user").id
    assert {f["relation"] for f in vault.graph_facts(ME, "上海")} == {"lives_in", "works_at"}
    # An alias learnt later: the entity gains the surface form as a revision.
    nick = f"modu{secrets.token_hex(4)}"  # the alias table is process-wide: a fresh name
    ALIASES.add("Shanghai", nick)
    clock.advance(DAY)
    vault.remember(ME, f"Alan likes {nick}")
    vault.graph_ingest(ME)
    city = vault.graph_entity(ME, nick)
    assert nick in city.metadata["aliases"] and city.content == "Shanghai"
    assert [r.op for r in vault.history(ME, city.id)] == ["create", "update"]


def test_a_late_older_fact_is_stored_closed(clocked_vault: Vault, clock: ManualClock) -> None:
    vault = clocked_vault
    start = clock.now
    vault.remember(ME, "I moved to Hangzhou", valid_from=start + 10 * DAY)
    vault.graph_ingest(ME)
    vault.remember(ME, "I live in Shanghai", valid_from=start + DAY)  # told later, older
    vault.graph_ingest(ME)
    hist = {f["object"]: f for f in vault.graph_facts(ME, "user", history=True)}
    assert hist["Shanghai"]["valid_to"] == start + 10 * DAY
    assert hist["Hangzhou"]["valid_to"] is None
    assert [f["object"] for f in vault.graph_facts(ME, "user", valid_at=start + 5 * DAY)] == [
        "Shanghai"]


def test_graph_memories_stay_out_of_default_recall(clocked_vault: Vault) -> None:
    vault = clocked_vault
    vault.remember(ME, "I live in Shanghai")
    vault.graph_ingest(ME)
    default = vault.recall(ME, "Shanghai user lives_in", top_k=20)
    assert default and all(h.memory.kind not in ("entity", "relation") for h in default)
    trace = vault.trace(ME, default.trace_id)
    assert any(c["outcome"] == "graph_kind" for c in trace["candidates"])
    asked = vault.recall(ME, "Shanghai user lives_in", kind="relation")
    assert [h.memory.kind for h in asked] == ["relation"]


def test_rollback_reopens_a_closed_fact(clocked_vault: Vault, clock: ManualClock) -> None:
    vault = clocked_vault
    vault.remember(ME, "我住在上海")
    clock.advance(DAY)
    vault.remember(ME, "我搬到了杭州")
    vault.graph_ingest(ME)
    (old,) = [f for f in vault.graph_facts(ME, "user", history=True) if f["object"] == "上海"]
    assert old["valid_to"] is not None
    vault.rollback(ME, old["id"], 1, reason="the move was a mistake")
    assert vault.get(ME, old["id"]).valid_to is None


def test_vocabulary_is_extensible() -> None:
    from memvault.layers.graphvocab import RelationSpec, Vocabulary

    voc = Vocabulary(list(VOCAB))
    voc.register(RelationSpec("owns", False, (r"(?P<subj>\bI\b) own an? (?P<obj>\w+)",)))
    found = [(m.relation, m.object) for m in voc.find("I own a kayak. I live in Oslo")]
    assert found == [("owns", "kayak"), ("lives_in", "Oslo")]
    with pytest.raises(ValueError):
        voc.register(RelationSpec("bad", False, (r"no object group",)))


def test_sweep_runs_graph_ingest(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault()
    vault.remember(ME, "I work at Initech")
    rep = vault.maintain(ME, steps=["graph"])
    assert len(rep.relations) == 1
    assert vault.graph_facts(ME, "Initech")[0]["relation"] == "works_at"


def test_a_narrower_scope_never_sees_past_itself(clocked_vault: Vault) -> None:
    from memvault import NotFoundError

    vault = clocked_vault
    vault.remember(ME, "I live in Shanghai")
    vault.graph_ingest(ME)
    s1, s2 = Scope("acme", "alice", session="s1"), Scope("acme", "alice", session="s2")
    with pytest.raises(NotFoundError):
        vault.graph_facts(s1, "user")  # the user's graph lives in the user scope
    r = vault.context(s1, "where do I live", budget=600)
    assert "lives_in" not in r.text
    # A summary whose metadata is edited to name another session's turn cannot reach it.
    other = vault.observe(s2, [{"role": "user", "content": "secret plan in s2"}]).turns[0]
    vault.observe(s1, [{"role": "user", "content": "hello from s1"}])
    (summary,) = vault.summarize(s1)
    vault.edit(s1, summary.id, metadata={**summary.metadata,
                                         "covers": [*summary.metadata["covers"], other]})
    assert [m.content for m in vault.expand(s1, summary.id)] == ["hello from s1"]
    assert other in [m.id for m in vault.expand(ME, summary.id)]

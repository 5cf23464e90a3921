"""Turn order (issue 21): a session's turns have a sequence number of their own, so turns
that share a timestamp (one remember_many batch, one millisecond) keep the order they
were written in — in turn context (each turn's neighbours), recent() and summaries."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable

from _util import ManualClock

from memvault import Scope, Vault, bm25
from memvault.store.turnorder import last_turns_sql
from memvault.textindex import index_text

SESSION = Scope("acme", "alice", session="s1")
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
         "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec",
         "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee",
         "zulu", "amber", "basil", "cedar", "dingo", "ember", "fjord", "gravel", "harbor",
         "igloo", "jasmine", "kettle", "lantern", "meadow", "nutmeg"]


def _turns(words: list[str]) -> list[dict[str, object]]:
    return [{"scope": SESSION, "content": f"The {w} turn.", "kind": "turn"} for w in words]


def _context_terms(vault: Vault, m_id: str, word: str) -> set[str]:
    """The neighbour (context) terms of the index key of memory `m_id`."""
    store = vault.core.store
    cands = store.text_candidates(SESSION, index_text(word).split(), vault.core.clock(), 1000)
    terms = dict(cands.docs)[m_id]
    mark = terms.index(bm25.CONTEXT_MARK) if bm25.CONTEXT_MARK in terms else len(terms)
    return set(terms[mark + 1:])


def _check_neighbours(vault: Vault, ids: list[str], words: list[str]) -> None:
    tc = vault.core.strategy.retrieval.turn_context
    for k, (mid, w) in enumerate(zip(ids, words, strict=True)):
        # Turns without speaker or own time: the key holds the `before` turns before it
        # and the `after` turns after it in the written order.
        window = range(max(0, k - tc.before), min(len(words), k + tc.after + 1))
        near = [f"The {words[j]} turn." for j in window if j != k]
        want = set(index_text(" ".join(near)).split())
        assert _context_terms(vault, mid, w) == want, (k, w)


def test_one_batch_one_timestamp_every_turn_has_its_neighbours(
        make_vault: Callable[..., Vault]) -> None:
    clock = ManualClock()  # never advances: every turn has one timestamp
    vault = make_vault(clock=clock)
    first, second = WORDS[:30], WORDS[30:]
    ids = [r.memory.id for r in vault.remember_many(_turns(first))]
    # A second batch in the same millisecond reads the last stored turns: the right ones.
    ids += [r.memory.id for r in vault.remember_many(_turns(second))]
    _check_neighbours(vault, ids, WORDS)
    assert [vault.get(SESSION, i).metadata["turn_seq"] for i in ids] == list(
        range(1, len(WORDS) + 1))
    vault.reindex()  # rebuilt from the stored order
    _check_neighbours(vault, ids, WORDS)


def test_recent_and_summaries_follow_the_written_order(
        make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    batch = [{"scope": SESSION, "content": f"Turn number {i}.", "kind": "turn"}
             for i in range(60)]
    ids = [r.memory.id for r in vault.remember_many(batch)]
    # More turns than recent() reads share the last timestamp: it serves the last ones.
    assert [m.id for m in vault.recent(SESSION, n=6)] == ids[-6:]
    summaries = vault.summarize(SESSION)
    covered = [i for s in summaries for i in s.metadata["covers"]]
    assert covered == ids
    assert [m.id for s in summaries for m in vault.expand(SESSION, s.id)] == ids


def _observe_in_one_millisecond(vault: Vault, scope: Scope) -> list[str]:
    """Four observe() calls of three turns each, one timestamp: the turns' ids in order."""
    ids: list[str] = []
    for i in range(0, 12, 3):
        ids += vault.observe(scope, [{"role": r, "content": f"The {w} turn."} for r, w in
                                     zip(["user", "assistant", "user"], WORDS[i:i + 3],
                                         strict=True)]).turns
    return ids


def test_a_summary_covers_observed_turns_in_order(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    ids = _observe_in_one_millisecond(vault, SESSION)
    summaries = vault.summarize(SESSION)
    assert [i for s in summaries for i in s.metadata["covers"]] == ids
    assert [m.id for s in summaries for m in vault.expand(SESSION, s.id)] == ids


def test_observe_twice_in_one_millisecond(make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    ids = _observe_in_one_millisecond(vault, SESSION)
    assert [m.id for m in vault.recent(SESSION, n=12)] == ids
    _check_neighbours(vault, ids, WORDS[:12])


def test_sessions_count_apart_and_an_edit_keeps_the_place(
        make_vault: Callable[..., Vault]) -> None:
    vault = make_vault(clock=ManualClock())
    other = Scope("acme", "alice", session="s2")
    vault.remember_many(_turns(WORDS[:3]))
    r = vault.remember(other, "The other turn.", kind="turn")
    assert r.memory.metadata["turn_seq"] == 1
    last = vault.remember(SESSION, "The last turn.", kind="turn").memory
    assert last.metadata["turn_seq"] == 4
    edited = vault.edit(SESSION, last.id, metadata={"note": "x"})
    assert edited.metadata["turn_seq"] == 4


def test_two_writers_of_one_session_never_share_a_number(
        make_vault: Callable[..., Vault], db: str) -> None:
    clock = ManualClock()
    a, b = make_vault(db, clock=clock), make_vault(db, clock=clock)

    def write(v: Vault, tag: str) -> None:
        for i in range(8):
            v.remember(SESSION, f"Writer {tag} says {i}.", kind="turn")

    threads = [threading.Thread(target=write, args=(v, t)) for v, t in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    turns = a.recent(SESSION, n=100)
    assert sorted(m.metadata["turn_seq"] for m in turns) == list(range(1, 17))
    for tag in "ab":  # each writer's turns in the order it wrote them
        mine = [m.content for m in turns if m.content.startswith(f"Writer {tag}")]
        assert mine == [f"Writer {tag} says {i}." for i in range(8)]


def _without_seq(line: str) -> str:
    """An export line as a store from before turn order wrote it: no turn_seq."""
    rec = json.loads(line)
    for state in [rec.get("memory"), *[r.get("state") for r in rec.get("revisions", [])]]:
        if isinstance(state, dict):
            state.get("metadata", {}).pop("turn_seq", None)
    return json.dumps(rec, ensure_ascii=False)


def test_turns_from_before_turn_order_come_first_in_their_old_order(
        make_vault: Callable[..., Vault]) -> None:
    clock = ManualClock()
    old = make_vault(clock=clock)
    old_ids = [r.memory.id for r in old.remember_many(_turns(WORDS[:5]))]
    out = io.StringIO()
    old.export_jsonl(Scope("acme", "alice"), out)
    lines = out.getvalue().splitlines()
    vault = make_vault(clock=clock)
    vault.import_jsonl([lines[0], *(_without_seq(x) for x in lines[1:])])
    assert all("turn_seq" not in vault.get(SESSION, i).metadata for i in old_ids)
    new_ids = [r.memory.id for r in vault.remember_many(_turns(WORDS[5:8]))]
    assert [vault.get(SESSION, i).metadata["turn_seq"] for i in new_ids] == [1, 2, 3]
    ids = old_ids + new_ids
    assert [m.id for m in vault.recent(SESSION, n=8)] == ids
    vault.reindex()
    _check_neighbours(vault, ids, WORDS[:8])


def test_a_clock_stepped_back_reorders_no_session(make_vault: Callable[..., Vault]) -> None:
    """The last turns are chosen by number, not as the newest rows (audit 21, bug 5): on
    both backends, for recent() and for a new turn's neighbours."""
    clock = ManualClock()
    vault = make_vault(clock=clock)
    ids = [r.memory.id for r in vault.remember_many(_turns(WORDS[:30]))]
    clock.advance(-60_000)
    ids.append(vault.remember(SESSION, "The walrus turn.", kind="turn").memory.id)
    last = vault.remember(SESSION, "The pelican turn.", kind="turn").memory
    assert last.metadata["turn_seq"] == 32
    assert [m.id for m in vault.recent(SESSION, n=3)] == [*ids[-2:], last.id]
    assert "walrus" in _context_terms(vault, last.id, "pelican")


def test_a_users_sessions_interleave_by_time_each_in_its_own_order(
        make_vault: Callable[..., Vault]) -> None:
    """recent() of a user (audit 21, bug 2): a session's turns keep their numbers' order,
    sessions interleave by time, a turn's time being the latest of its session so far."""
    clock = ManualClock()
    vault = make_vault(clock=clock)
    monday, friday = (Scope("acme", "alice", session=s) for s in ("monday", "friday"))

    def say(sc: Scope, text: str) -> str:
        return vault.remember(sc, text, kind="turn").memory.id

    m0, m1 = say(monday, "Monday zero."), say(monday, "Monday one.")
    clock.advance(10_000)
    f0 = say(friday, "Friday zero.")
    clock.advance(1000)
    f1 = say(friday, "Friday one.")
    clock.advance(-60_000)  # before everything above: the timestamp alone would put it first
    m2 = say(monday, "Monday two.")
    f2 = say(friday, "Friday two.")
    user = Scope("acme", "alice")
    # Monday two comes right after Monday one (monday's time so far); Friday two after
    # Friday one, last.
    assert [m.id for m in vault.recent(user, n=10)] == [m0, m1, m2, f0, f1, f2]
    assert [m.id for m in vault.recent(user, n=2)] == [f1, f2]
    assert [m.id for m in vault.recent(monday, n=10)] == [m0, m1, m2]


def _export(vault: Vault) -> list[str]:
    out = io.StringIO()
    vault.export_jsonl(Scope("acme", "alice"), out)
    return out.getvalue().splitlines()


def test_an_import_into_a_session_with_turns_numbers_after_them(
        make_vault: Callable[..., Vault]) -> None:
    """Audit 21, bug 6: the imported turns follow the session's own, in their order, and
    their history says the same number; the next turn comes after them all."""
    clock = ManualClock()
    laptop, phone = make_vault(clock=clock), make_vault(clock=clock)
    laptop_ids = [laptop.remember(SESSION, f"Laptop turn {i}.", kind="turn").memory.id
                  for i in range(3)]
    phone_ids = [phone.remember(SESSION, f"Phone turn {i}.", kind="turn").memory.id
                 for i in range(2)]
    phone.import_jsonl(_export(laptop))
    after = phone.remember(SESSION, "After the import.", kind="turn").memory
    turns = phone.recent(SESSION, n=10)
    assert [m.id for m in turns] == [*phone_ids, *laptop_ids, after.id]
    assert [m.metadata["turn_seq"] for m in turns] == [1, 2, 3, 4, 5, 6]
    for m in turns:
        states = [r.state for r in phone.history(SESSION, m.id) if r.state]
        assert states and all(s["metadata"]["turn_seq"] == m.metadata["turn_seq"]
                              for s in states)


def test_an_import_into_an_empty_session_keeps_its_numbers_gaps_included(
        make_vault: Callable[..., Vault]) -> None:
    clock = ManualClock()
    src = make_vault(clock=clock)
    ids = [r.memory.id for r in src.remember_many(_turns(WORDS[:4]))]
    src.purge(SESSION, ids[1], reason="test")  # a gap: 1, 3, 4
    lines = _export(src)
    for kw in ({}, {"atomic": False, "batch": 1}):  # one transaction, or one per memory
        dst = make_vault(clock=clock)
        dst.import_jsonl(lines, **kw)
        assert [m.metadata["turn_seq"] for m in dst.recent(SESSION, n=10)] == [1, 3, 4]
        assert _export(dst) == lines
        assert dst.remember(SESSION, "Next.", kind="turn").memory.metadata["turn_seq"] == 5


def test_a_sessions_turns_are_read_through_the_turn_index(
        make_vault: Callable[..., Vault]) -> None:
    """recent(), summaries and a new turn's neighbours (last_turns) and the next turn
    number read a session's turns through the partial index of turns, not every row of
    the user (whose facts and other sessions may be far more): the planner's own plan for
    the store's real queries, on both backends."""
    from _util import is_pg, query

    vault = make_vault()
    vault.remember_many([{"scope": {"tenant": "acme", "user": "alice"},
                          "content": f"fact number {i}"} for i in range(40)])
    vault.remember_many(_turns(WORDS[:5]))
    store = vault.core.store
    sql, params = last_turns_sql(SESSION, limit=5, now=vault.core.clock(), exact=True,
                                 ph=lambda n: f"%({n})s" if is_pg(vault) else f":{n}",
                                 json_int=type(store)._json_int)
    top = (f"SELECT MAX({type(store)._json_int('turn_seq')}) FROM memories m WHERE "
           "m.tenant = 'acme' AND m.user_id = 'alice' AND m.agent = '' AND "
           "m.session = 's1' AND m.kind = 'turn'")
    for q, p in ((sql, params), (top, {})):
        if is_pg(vault):
            # The table is small: forbid the sequential scan so the plan shows whether
            # the index can serve the query at all.
            import psycopg
            from _util import target_of
            with psycopg.connect(target_of(vault), autocommit=True) as c:
                c.execute("SET enable_seqscan = off")
                plan = "\n".join(r[0] for r in c.execute("EXPLAIN " + q, p).fetchall())
        else:
            plan = "\n".join(str(r[-1]) for r in query(vault, "EXPLAIN QUERY PLAN " + q, p))
        assert "memories_turns" in plan, plan
    assert [m.content for m in vault.recent(SESSION, n=2)] == ["The delta turn.",
                                                              "The echo turn."]

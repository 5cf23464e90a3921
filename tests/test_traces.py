"""Traces that cost little (issue 21): the packed format reads back as written, a trace is
readable right after its recall and after a clean close, retention by count and by age
is enforced (across scopes too), purge leaves no trace of the memory, and a realistic
recall's trace takes at most 5 KB as stored."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from _util import ManualClock, is_pg, query

from memvault import Scope, Vault
from memvault.config import Strategy
from memvault.errors import NotFoundError
from memvault.store.tracepack import DIGITS, compress, decode, pack

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from workload import make_queries, make_workload

ME = Scope("acme", "alice")
DAY = 86_400_000


def _strategy(**traces: object) -> Strategy:
    base = Strategy().model_dump()
    base["traces"].update(traces)
    return Strategy.model_validate(base)


def _same(a: object, b: object) -> bool:
    """Equal, floats to DIGITS decimals."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) \
            and abs(a - b) <= 10 ** -DIGITS
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def test_packed_trace_reads_back_as_written(make_vault: Callable[..., Vault]) -> None:
    v = make_vault()
    v.remember(ME, "Alice drinks oolong tea in the morning")
    v.remember(ME, "Alice's cat is called Mochi")
    v.remember(ME, "Alice runs on Sundays")
    captured: list[dict[str, object]] = []
    write = v.store.write_trace

    def keep(scope: Scope, trace: dict[str, object], **kw: int) -> None:
        captured.append(trace)
        write(scope, trace, **kw)

    v.store.write_trace = keep  # type: ignore[method-assign]
    tid = v.recall(ME, "what does alice drink").trace_id
    ctx = v.context(ME, "tell me about the cat", budget=200).trace_id
    assert tid and ctx
    for written, tr in zip(captured, (tid, ctx), strict=True):
        got = v.trace(ME, tr)
        assert _same(got, written)
        assert got["candidates"], "candidates with their parts and outcomes"
        assert {"parts", "outcome", "rank", "score", "id"} <= set(got["candidates"][0])
    # A payload in either encoding, and one from before packing.
    t = captured[0]
    ids = list(t["memory_ids"])  # type: ignore[call-overload]
    assert _same(decode(compress(pack(t)), ids), t)
    assert decode(json.dumps(t), ids) == t


def test_trace_readable_right_after_recall_and_after_clean_close(
        make_vault: Callable[..., Vault], db: str) -> None:
    v = make_vault(db)
    v.remember(ME, "Alice drinks oolong tea")
    ids = []
    for i in range(12):
        tid = v.recall(ME, f"tea {i}").trace_id
        assert tid is not None
        assert v.trace(ME, tid)["query"] == f"tea {i}"  # read your write
        ids.append(tid)
    v.close()
    again = make_vault(db)
    assert [again.trace(ME, t)["query"] for t in ids] == [f"tea {i}" for i in range(12)]
    assert len(again.traces(ME, limit=100)) == 12


def test_retention_by_count_keeps_the_newest(make_vault: Callable[..., Vault],
                                             clock: ManualClock) -> None:
    v = make_vault(clock=clock, strategy=_strategy(max_per_scope=3))
    v.remember(ME, "Alice drinks oolong tea")
    ids = []
    for i in range(5):
        clock.advance(1000)
        ids.append(v.recall(ME, f"tea {i}").trace_id)
    assert [t["trace_id"] for t in v.traces(ME, limit=10)] == ids[:1:-1]
    with pytest.raises(NotFoundError):
        v.trace(ME, ids[0])


def test_retention_by_age_in_the_scope_and_across_scopes(make_vault: Callable[..., Vault],
                                                         clock: ManualClock) -> None:
    v = make_vault(clock=clock, strategy=_strategy(retention_days=2))
    bob = Scope("acme", "bob")
    v.remember(ME, "Alice drinks oolong tea")
    v.remember(bob, "Bob drinks coffee")
    old_me = v.recall(ME, "tea").trace_id
    old_bob = v.recall(bob, "coffee").trace_id
    clock.advance(1 * DAY)
    kept = v.recall(ME, "tea again").trace_id
    assert v.trace(ME, old_me) and v.trace(bob, old_bob)  # within 2 days
    clock.advance(1 * DAY + 1000)
    v.recall(ME, "tea once more")
    # Alice's first trace is past its age; so is bob's, though bob has not recalled since.
    with pytest.raises(NotFoundError):
        v.trace(ME, old_me)
    with pytest.raises(NotFoundError):
        v.trace(bob, old_bob)
    assert v.trace(ME, kept)["query"] == "tea again"


def test_purge_leaves_no_trace_of_the_memory(make_vault: Callable[..., Vault]) -> None:
    v = make_vault()
    secret = v.remember(ME, "Alice's locker code is periwinkle 4471")
    v.remember(ME, "Alice drinks oolong tea")
    tid = v.recall(ME, "locker code").trace_id
    ctx = v.context(ME, "what is the locker code", budget=200).trace_id
    assert secret.id in v.trace(ME, tid)["memory_ids"]
    v.purge(ME, secret.id)
    for t in (tid, ctx):
        with pytest.raises(NotFoundError):
            v.trace(ME, t)
    left = v.traces(ME, limit=100)
    assert all(secret.id not in t["memory_ids"] and "periwinkle" not in str(t) for t in left)


def test_a_realistic_trace_takes_at_most_5_kb(make_vault: Callable[..., Vault]) -> None:
    v = make_vault()
    v.remember_many(make_workload(3, 300, 1))
    qs = make_queries(3, 10, 1)
    ncand = []
    for sc, q in qs:
        t = v.recall(sc, q, top_k=10).trace_id
        ncand.append(len(v.trace(sc, t)["candidates"]))
    assert max(ncand) >= 30  # a recall with many candidates, as in a real store
    size = ("pg_column_size(payload) + pg_column_size(memory_ids)" if is_pg(v)
            else "length(payload) + length(memory_ids)")
    rows = query(v, f"SELECT {size} FROM traces")
    per = sum(int(r[0]) for r in rows) / len(rows)
    assert per <= 5 * 1024, per


def test_a_trace_is_dropped_only_for_an_erasure_of_what_it_names_after_its_mark(
        make_vault: Callable[..., Vault]) -> None:
    """write_trace(erased_after=mark): the mark is taken before a retrieval reads. A memory
    the trace names, purged after the mark, drops the trace; another user's purge, or a
    purge of a memory it does not name, or one before the mark, does not."""
    v = make_vault()
    bob = Scope("acme", "bob")
    secret = v.remember(ME, "The locker code is 4471").memory
    tea = v.remember(ME, "Alice likes oolong tea").memory
    bobs = v.remember(bob, "Bob's locker code is 9920").memory
    early = v.remember(ME, "Alice once lived in Oslo").memory
    v.purge(ME, early.id)
    mark = v.store.erasure_mark(ME)
    v.purge(bob, bobs.id)
    v.purge(ME, secret.id)

    def write(tid: str, ids: list[str]) -> None:
        v.store.write_trace(ME, {"trace_id": tid, "kind": "recall", "at": 1,
                                 "strategy_hash": "h", "query": "q", "candidates": [],
                                 "memory_ids": ids},
                            keep_after=0, max_per_scope=100, erased_after=mark)

    write("names-the-secret", [tea.id, secret.id])
    write("names-tea", [tea.id])
    write("names-one-purged-before", [early.id, tea.id])
    assert v.store.get_trace(ME, "names-the-secret") is None
    assert v.store.get_trace(ME, "names-tea") is not None
    assert v.store.get_trace(ME, "names-one-purged-before") is not None
    # A mark taken after the purge: the retrieval could not have read the memory.
    later = v.store.erasure_mark(ME)
    v.store.write_trace(ME, {"trace_id": "after", "kind": "recall", "at": 1,
                             "strategy_hash": "h", "query": "q", "candidates": [],
                             "memory_ids": [tea.id]},
                        keep_after=0, max_per_scope=100, erased_after=later)
    assert v.store.get_trace(ME, "after") is not None

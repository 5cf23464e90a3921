"""Retrieval beyond LoCoMo's shape (issue 24 part 6): a day named without a year narrows
recall to that day, a turn is dated by its own time so a session that crosses midnight
is split by the calendar, an informative turn that asks back is not "only asking", and
turn context can be limited to real exchanges. Plus the loader of memvault's own set."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from _util import ManualClock

from memvault import Scope, Vault, bm25
from memvault.config import AsksBack, TurnContext, parse_strategy
from memvault.errors import ValidationError
from memvault.eval.shapes import load_shapes
from memvault.model import Memory
from memvault.timeexpr import named_range
from memvault.timeutil import to_ms
from memvault.turnctx import Said, joined, linked
from memvault.turncues import asking, words_told

NOW = to_ms("2026-04-17T09:00:00Z")
SHAPES = Path(__file__).resolve().parent.parent / "benchmarks" / "shapes" / "shapes.jsonl"


def _day(query: str, now: int = NOW) -> tuple[str, bool] | None:
    r = named_range(query, now)
    if r is None:
        return None
    return datetime.fromtimestamp(r[0] / 1000, UTC).date().isoformat(), r[2]


@pytest.mark.parametrize(("query", "day"), [
    ("On April 12, what deadline did I give?", "2026-04-12"),
    ("what did we say on apr 3rd", "2026-04-03"),
    ("the 3rd of May party", "2025-05-03"),       # not yet this year: last year's
    ("Dec 25th plans", "2025-12-25"),
    ("3月18号那天说了啥", "2026-03-18"),
    ("十二月二十一日的会", "2025-12-21"),
    ("四月十二日我说了什么", "2026-04-12"),
    ("I met her on 7 May 2023", "2023-05-07"),    # a year given still wins
])
def test_a_day_without_a_year_is_the_latest_such_day(query: str, day: str) -> None:
    assert _day(query) == (day, True)


@pytest.mark.parametrize("query", ["What may 2 people do", "meet at 5:30", "april showers",
                                   "Feb 30th", "我有3个月没见他"])
def test_no_day_is_read_where_none_is_named(query: str) -> None:
    assert _day(query) is None


def _turn(text: str) -> Memory:
    return Memory(id="t", scope=Scope("t", "u"), kind="turn", content=text, version=1,
                  created_at=0, updated_at=0)


@pytest.mark.parametrize(("text", "told"), [
    ("How was your weekend?", 0),
    ("Good. Do you want a pros and cons list?", 1),
    ("Went hiking at Mount Tam with my cousin Leo, did the 12-mile loop. How about you?", 14),
    # A transcript header tells nothing, nor do the turn's other questions.
    ("[2:33 pm on 5 February, 2023] Maria: That's great. Where? Who went with you?", 2),
    ("Anna Lee: It costs 3.5 dollars at 10:30. Ok?", 8),  # numbers count as words
    ("没事。你呢？", 1),
    ("小明：下周五去上海面试。你觉得呢？", 4),  # a Han character is half a word
])
def test_what_a_turn_tells_before_its_question(text: str, told: float) -> None:
    assert words_told(text) == told


@pytest.mark.parametrize(("text", "only"), [
    ("How was your weekend?", 1.0),
    ("Good. Do you want a pros and cons list?", 1.0),
    ("[5:07 pm on 16 June, 2022] James: Cool! Are there any book series you love?", 1.0),
    ("Went hiking at Mount Tam with my cousin Leo, did the 12-mile loop, saw a coyote near "
     "the summit and ate at the little cafe in Mill Valley afterwards. How about you?", 0.0),
    ("去了趟莫干山，住的民宿在半山腰，早上起来全是云海，还去竹林里骑了车，晚上老板做了土鸡煲，"
     "特别好吃。你去过莫干山吗？", 0.0),
    # 12 words told: halfway between ONLY_ASKS (6) and TELLS (18).
    ("My sister moved to Denver last week and she loves the flat. Have you been?", 0.5),
    ("I repainted the bathroom sage green.", 0.0),  # no question
])
def test_only_asking_is_judged_by_what_the_turn_tells(text: str, only: float) -> None:
    assert asking(_turn(text), AsksBack()) == pytest.approx(only)
    # Off (the default): every turn that ends with a question only asks.
    assert asking(_turn(text)) == (1.0 if text.endswith(("?", "？")) else 0.0)
    fact = Memory(id="f", scope=Scope("t", "u"), kind="fact", content=text, version=1,
                  created_at=0, updated_at=0)
    assert asking(fact, AsksBack()) == asking(fact) == 0.0  # only turns ask


def test_asks_back_bounds_are_checked() -> None:
    with pytest.raises(ValidationError, match="only_asks must be below tells"):
        parse_strategy({"retrieval": {"asks_back": {"only_asks": 18, "tells": 6}}})
    assert parse_strategy({}).retrieval.asks_back is None


def test_an_informative_turn_that_asks_back_is_not_penalised(
        make_vault: Callable[..., Vault]) -> None:
    strategy = parse_strategy({"retrieval": {"asks_back": {"only_asks": 6, "tells": 18},
                                             "weights": {"question": 0.5, "recency": 0.0,
                                                         "confidence": 0.0}}})
    v = make_vault(strategy=strategy)
    chat = Scope("acme", "alice", session="s1")
    told = v.remember(chat, "Went hiking at Mount Tam with my cousin Leo, did the 12-mile "
                      "loop, saw a coyote near the summit and ate at the cafe in Mill Valley "
                      "afterwards. How about you?", kind="turn").memory
    bare = v.remember(chat, "Did you see a coyote near the summit of Mount Tam?",
                      kind="turn").memory
    half = v.remember(chat, "My sister moved to Denver last week and she loves the flat. "
                      "Have you been to Mount Tam?", kind="turn").memory
    hits = {h.memory.id: h for h in v.recall(chat, "Mount Tam coyote", top_k=10)}
    assert hits[told.id].parts.question == 0.0
    assert hits[bare.id].parts.question == 1.0
    assert hits[half.id].parts.question == pytest.approx(0.5)
    for h in hits.values():
        assert h.score == pytest.approx(h.parts.relevance - 0.5 * h.parts.question)
    # Without asks_back (the default) the informative turn is penalised in full.
    off = make_vault()
    kept = off.remember(chat, told.content, kind="turn").memory
    assert {h.memory.id: h for h in off.recall(chat, "Mount Tam coyote", top_k=5)
            }[kept.id].parts.question == 1.0


def test_exchange_linking_follows_speaker_and_gap() -> None:
    tc = TurnContext(max_gap_minutes=60, burst_minutes=5)
    minute = 60_000
    a = Said("ann", 0)
    assert joined(a, Said("bob", 30 * minute), tc)          # a reply within the gap
    assert not joined(a, Said("bob", 61 * minute), tc)      # an hour later: not a reply
    assert joined(a, Said("ann", 4 * minute), tc)           # one speaker, a burst
    assert not joined(a, Said("ann", 6 * minute), tc)       # one speaker, a new statement
    assert joined(a, Said("ann", None), tc)                 # no time: as before
    assert joined(a, Said("bob", 10_000 * minute), TurnContext())  # off by default
    said = [Said("ann", 0), Said("bob", minute), Said("ann", 300 * minute),
            Said("bob", 301 * minute), Said("ann", 302 * minute)]
    assert linked(said, 2, tc) == ([], [3, 4])  # hours after turn 1: its exchange starts
    assert linked(said, 1, tc) == ([0], [])
    assert linked(said, 4, tc) == ([2, 3], [])


def test_without_a_gap_limit_every_turn_keeps_its_plain_window() -> None:
    """max_gap_minutes unset (the default): speakers and times change nothing, a turn
    holds the `before` turns before it and the `after` turns after it, as before."""
    tc = TurnContext(before=2, after=1)
    hour = 3_600_000
    for n in range(1, 8):
        said = [Said(("ann", "bob", None)[j % 3], j * 7 * hour if j % 2 else None)
                for j in range(n)]
        for k in range(n):
            back, ahead = linked(said, k, tc)
            assert back + ahead == [j for j in range(max(0, k - 2), min(n, k + 2)) if j != k]
            assert back == [j for j in range(max(0, k - 2), k)]


def _at(iso: str) -> int:
    return to_ms(iso)


def test_statements_hours_apart_do_not_lend_each_other_words(
        make_vault: Callable[..., Vault]) -> None:
    strategy = parse_strategy({"retrieval": {"turn_context": {"max_gap_minutes": 60}}})
    sc = Scope("acme", "maya", session="notes")
    lines = [("2026-03-02T08:10:00Z", "Priya is my cousin, she plays volleyball."),
             ("2026-03-02T12:40:00Z", "Tom from accounting wants weekly reports."),
             ("2026-03-02T12:42:00Z", "The reports go out on Thursday mornings.")]
    for strat in (None, strategy):
        vault = make_vault(clock=ManualClock(_at("2026-03-03T00:00:00Z")),
                           **({"strategy": strat} if strat else {}))
        vault.remember_many([{"scope": sc, "content": c, "kind": "turn", "valid_from": _at(t),
                              "metadata": {"speaker": "Maya", "role": "user"}}
                             for t, c in lines])
        by_text = {h.memory.content: h.parts.bm25 for h in vault.recall(sc, "volleyball",
                                                                        top_k=10)}
        tom = by_text.get(lines[1][1], 0.0)
        if strat is None:
            assert tom > 0  # linked: Tom's statement holds Priya's words
        else:
            assert tom == 0.0  # four hours later: a statement of its own
            # ... while a burst of one speaker two minutes apart still shares its words
            burst = {h.memory.content: h.parts.bm25
                     for h in vault.recall(sc, "accounting", top_k=10)}
            assert burst.get(lines[2][1], 0.0) > 0


def test_a_turn_after_midnight_is_found_by_its_own_day(make_vault: Callable[..., Vault]
                                                         ) -> None:
    vault = make_vault(clock=ManualClock(_at("2026-04-17T00:00:00Z")))
    sc = Scope("acme", "jon")
    msgs = [("user", "The Northwind offer is on my mind.", "2026-04-11T23:20:00Z"),
            ("assistant", "What is the deadline?", "2026-04-11T23:21:00Z"),
            ("user", "I told Northwind I would answer by Friday.", "2026-04-12T00:20:00Z"),
            ("user", "Northwind sent the contract for the offer.", "2026-04-14T10:00:00Z")]
    vault.observe(sc, [{"role": r, "content": c, "at": at} for r, c, at in msgs])
    user = Scope("acme", "jon")
    hits = vault.recall(user, "On April 12, what did I tell Northwind?", top_k=5)
    assert [h.memory.content for h in hits] == [msgs[2][1]]  # dated by itself, not 11th
    hits = vault.recall(user, "What did I say about Northwind on April 11?", top_k=5)
    assert msgs[2][1] not in [h.memory.content for h in hits]
    assert hits and hits[0].memory.content == msgs[0][1]


def test_the_shipped_set_loads_with_its_fixed_split() -> None:
    ds = load_shapes(SHAPES)
    assert {q.category for q in ds.queries} == {"independent", "crosses-midnight",
                                                 "asks-back"}
    for q in ds.queries:
        odd = hashlib.sha256(q.id.encode()).digest()[0] % 2
        assert q.split == ("holdout" if odd else "tune")
    docs = {d.id: d for d in ds.docs}
    after_midnight = docs["c3:9"]
    assert after_midnight.session == docs["c3:1"].session  # one session ...
    assert after_midnight.valid_from == _at("2026-04-12T00:20:00Z")  # ... its own time


def test_a_bad_set_is_a_typed_error_with_its_line(tmp_path: Path) -> None:
    good = {"type": "turn", "conv": "c", "session": "s", "id": "c:1", "at": "2026-01-01T00:00Z",
            "speaker": "a", "role": "user", "text": "hi"}
    f = tmp_path / "shapes.jsonl"
    f.write_text(json.dumps(good) + "\n" + '{"type": "turn"}\n', encoding="utf-8")
    with pytest.raises(ValidationError, match=r"shapes.jsonl:2"):
        load_shapes(f)
    f.write_text(json.dumps(good) + "\n" + json.dumps(
        {"type": "query", "conv": "c", "id": "q", "text": "x", "split": "tune",
         "shape": "s", "gold": ["c:9"]}) + "\n", encoding="utf-8")
    with pytest.raises(ValidationError, match=r"unknown turns \['c:9'\]"):
        load_shapes(f)
    with pytest.raises(ValidationError, match="is not a file"):
        load_shapes(tmp_path / "missing.jsonl")


_ = bm25  # the BM25F context weight these keys rely on is tested in test_turnctx.py


def test_cli_eval_shapes_on_a_small_set(tmp_path: Path) -> None:
    turns = [("c:1", "2026-03-02T08:10:00Z", "Priya is my cousin, she plays volleyball."),
             ("c:2", "2026-03-02T12:40:00Z", "Tom from accounting wants weekly reports."),
             ("c:3", "2026-03-03T09:00:00Z", "The dentist moved to Harbour Road.")]
    rows = [{"type": "turn", "conv": "c", "session": "s", "id": i, "at": at,
             "speaker": "Maya", "role": "user", "text": t} for i, at, t in turns]
    rows += [{"type": "query", "conv": "c", "id": q, "text": text, "split": split,
              "shape": "independent", "gold": [g]}
             for q, text, split, g in [("q1", "Which sport does Priya play?", "tune", "c:1"),
                                       ("q2", "Where is the dentist now?", "tune", "c:3"),
                                       ("q3", "Who wants weekly reports?", "holdout", "c:2")]]
    data = tmp_path / "set.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, "-m", "memvault.cli", "--json", "eval", "shapes",
                           "--data", str(data), "--split", "tune", "--out", str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    snap = json.loads(proc.stdout)
    assert (snap["dataset"], snap["split"], snap["n_queries"]) == ("shapes", "tune", 2)
    overall = snap["metrics"]["tune"]["overall"]
    assert overall["R@5"] == 1.0 and overall["MRR"] == 1.0  # each gold turn ranks first
    assert overall["P@5"] == pytest.approx(0.2)  # one gold among the five slots
    missing = subprocess.run([sys.executable, "-m", "memvault.cli", "eval", "shapes",
                              "--data", str(tmp_path / "none.jsonl")],
                             capture_output=True, text=True, env=env, timeout=300)
    assert missing.returncode == 1 and "is not a file" in missing.stderr

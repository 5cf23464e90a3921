"""The `answer` score part: a question that asks *when* favours a memory that names a
time (answertype.py), in English and Chinese, and nothing else changes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memvault import Scope, Vault
from memvault.answertype import asks_when, tells_time
from memvault.config import Strategy

ME = Scope("acme", "alice")


def strategy(**weights: float) -> Strategy:
    base = Strategy().model_dump()
    base["retrieval"]["weights"].update(weights)
    return Strategy.model_validate(base)


@pytest.mark.parametrize(("query", "asks"), [
    ("When did Calvin have a car incident?", True),
    ("when is my dentist appointment", True),
    ("Remind me, when was the last time I called mum?", True),
    ("What year did she graduate?", True),
    ("Which day is the pottery class?", True),
    ("How long has Nate been playing chess?", True),
    ("Do you remember when I moved?", True),
    ("Can you tell me when my dentist appointment is?", True),
    ("What's the date of the wedding?", True),
    ("牙医约在什么时候？", True),
    ("表哥的婚礼在哪天？", True),
    ("热水器几号来修", True),
    ("游泳课多久一次", True),
    ("What pets does Melanie have?", False),
    ("Whenever I travel, what do I pack?", False),
    ("What did I say when I was angry?", False),
    ("What time zone is Lisbon in?", False),
    ("Which day care does Mia go to?", False),
    ("Where did I park?", False),
    ("我喜欢什么电影？", False),
])
def test_what_asks_when(query: str, asks: bool) -> None:
    assert asks_when(query) is asks


@pytest.mark.parametrize(("text", "tells"), [
    ("I had a little car accident last Friday, kinda upset.", True),
    ("Dentist appointment Tuesday 3pm", True),
    ("The standup moved to 10:30.", True),
    ("We moved to Lisbon in 2021.", True),
    ("Been learning the cello for two years now.", True),
    ("牙医约在下周二下午三点", True),
    ("表哥的婚礼定在10月5号", True),
    ("三天前刚换了新工作", True),
    ("I was sick for three days.", True),
    ("The drive takes two hours.", True),
    ("Pick-up is at noon on the 5th.", True),
    ("我病了三天", True),
    ("会议开了两个小时", True),
    ("We met in May.", True),
    ("The launch is May 5.", True),
    # "may" and "march" as verbs, a flat number, a building, 一点 as "a bit": no time.
    ("I may switch dentists soon.", False),
    ("The band will march past the clinic.", False),
    ("The clinic is at 1234 Elm Street.", False),
    ("我住在3号楼", False),
    ("我一点也不喜欢牙医", False),
    ("我儿子上三年级", False),
    ("I love my car, it's super smooth.", False),
    ("我不喜欢看牙医，太贵了", False),
    # A transcript header dates every turn: only the turn's own words count.
    ("[1:14 pm on 25 May, 2023] Melanie: Nice car!", False),
    ("[1:14 pm on 25 May, 2023] Melanie: I ran a charity race last Saturday.", True),
])
def test_what_tells_a_time(text: str, tells: bool) -> None:
    assert tells_time(text) is tells


def test_a_when_question_favours_the_memory_that_names_a_time(
        make_vault: Callable[..., Vault]) -> None:
    stores = [  # (names a time, wins on words alone, a third)
        ("I crashed my car last Friday.", "My car crashed into a pole, the car got wrecked.",
         "I crashed my car into a pole, what a mess."),
        ("牙医约在下周二下午三点", "牙医约好了，就是那个牙医诊所",
         "我不喜欢看牙医，牙医约起来很麻烦"),
    ]
    queries = ["When did I crash my car?", "牙医约在什么时候？"]
    off = make_vault(strategy=strategy(answer=0.0))
    on = make_vault(strategy=strategy(answer=0.5))
    # One store for both languages: each set's words are rare in it, as in a real one.
    for v in (off, on):
        for texts in stores:
            for text in texts:
                v.remember(ME, text)
    for (timed, other, third), query in zip(stores, queries, strict=True):
        without = {h.memory.content: h for h in off.recall(ME, query, top_k=10)}
        hits = on.recall(ME, query, top_k=10)
        got = {h.memory.content: h for h in hits}
        # Without the part the wordier memory wins; with it, the one that says when.
        assert without[other].score > without[timed].score
        assert all(h.parts.answer == 0.0 for h in without.values())
        assert hits[0].memory.content == timed
        assert [c for c in (timed, other, third) if got[c].parts.answer == 1.0] == [timed]
        # The part adds its weight and nothing else changes.
        for c in (timed, other, third):
            assert got[c].parts.total == pytest.approx(
                without[c].parts.total + 0.5 * got[c].parts.answer)


def test_naming_a_time_does_not_make_a_memory_related(
        make_vault: Callable[..., Vault]) -> None:
    """The relevance floor compares scores without the answer part: memories about
    something else that merely name a time are not served for a when-question."""
    v = make_vault()
    for text in ["My dentist appointment is with Dr. Lee at the Main Street clinic.",
                 "Dr. Lee recommended an electric toothbrush.",
                 "I had a little car accident last Friday.",
                 "I need to renew my passport next month.",
                 "I prefer window seats on flights."]:
        v.remember(ME, text)
    served = [h.memory.content for h in v.recall(ME, "When is my dentist appointment?")]
    assert served[0].startswith("My dentist appointment")
    assert not {"I had a little car accident last Friday.",
                "I need to renew my passport next month."} & set(served)
    traced = v.trace(ME, v.recall(ME, "When is my dentist appointment?").trace_id)
    timed = [c for c in traced["candidates"] if c["parts"]["answer"] == 1.0]
    assert len(timed) == 2 and all(c["outcome"] == "unrelated" for c in timed)


def test_only_a_one_line_when_question_reads_an_answer_type(
        make_vault: Callable[..., Vault]) -> None:
    v = make_vault(strategy=strategy(answer=0.3))
    v.remember(ME, "I crashed my car last Friday.")
    v.remember(ME, "My car is red.")
    for query in ("Did I crash my car?",
                  # A conversation as the query: line votes, no answer type.
                  "A: When did you crash your car?\nB: I don't remember, my car is red."):
        hits = v.recall(ME, query, top_k=10)
        assert hits and all(h.parts.answer == 0.0 for h in hits)
    traced = v.trace(ME, v.recall(ME, "When did I crash my car?").trace_id)
    parts = {c["content"] if "content" in c else c["id"]: c["parts"]
             for c in traced["candidates"]}
    assert sorted(p["answer"] for p in parts.values()) == [0.0, 1.0]

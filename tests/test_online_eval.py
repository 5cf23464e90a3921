"""Online evaluation (issue 24 part 3, docs/evaluation.md): sampled context builds, the
answer the application reports, an LLM judge on the loopback OpenAI-compatible server
with recorded judgements, the rates over time windows, /metrics and the report route.
Vault-level tests run on both backends; the server tests on SQLite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from _openai_server import MODEL, ChatServer
from _server import Server, new_key
from _util import LoopbackJSONServer, ManualClock
from test_mcp import call, run, stdio_params, stdio_session

from memvault import Client, Vault
from memvault.config import Strategy
from memvault.errors import ConflictError, JudgementError, NotFoundError, ValidationError
from memvault.llmjudge import LLMJudge
from memvault.onlineeval import sampled

ME = {"tenant": "acme", "user": "alice"}
ON = Strategy.model_validate({"online_eval": {"enabled": True, "sample": 1.0,
                                              "judge": f"llm:{MODEL}"}})


@pytest.fixture
def chat(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    srv = ChatServer()
    monkeypatch.setenv("MEMVAULT_LLM_BASE_URL", srv.url)
    monkeypatch.setenv("MEMVAULT_LLM_API_KEY", "sk-test")
    yield srv
    srv.close()


def verdicts(ids: list[str], used: set[str], wrong: set[str]) -> str:
    """A recorded judgement: the JSON the judge answers with."""
    return json.dumps({"memories": [{"id": i, "used": i in used, "wrong": i in wrong,
                                     "reason": "recorded"} for i in ids]})


def seeded(make_vault: Callable[..., Vault], strategy: Strategy = ON) -> tuple[Vault, str, str]:
    v = make_vault(strategy=strategy)
    berlin = v.remember(ME, "The user lives in Berlin").id
    tea = v.remember(ME, "The user lives next to a tea shop in Berlin").id
    return v, berlin, tea


def test_off_by_default_nothing_is_sampled_or_judged(make_vault: Callable[..., Vault],
                                                      chat: ChatServer) -> None:
    assert Strategy().online_eval.enabled is False
    v, _, _ = seeded(make_vault, Strategy())
    r = v.context(ME, "where does the user live?")
    assert r.hits and r.trace_id
    assert v.record_answer(ME, r.trace_id, "In Berlin.") == {
        "trace_id": r.trace_id, "sampled": False, "status": None}
    with pytest.raises(NotFoundError):
        v.online_eval_sample(ME, r.trace_id)
    assert v.judge_online().to_dict() == {"judged": 0, "failed": 0, "deferred": 0,
                                          "dropped": 0, "errors": []}
    assert chat.requests == []
    total = v.online_eval_report("acme", since="1d", window="1d")["total"]
    assert total["samples"] == 0 and total["memory_use_rate"] is None


def test_sampling_is_a_stable_share_of_trace_ids() -> None:
    ids = [f"tr_{i}" for i in range(2000)]
    half = Strategy.model_validate({"online_eval": {"enabled": True, "sample": 0.5}})
    chosen = [i for i in ids if sampled(half, i)]
    assert 800 < len(chosen) < 1200
    assert chosen == [i for i in ids if sampled(half, i)]  # the same choice every time
    assert all(sampled(ON, i) for i in ids)
    none = Strategy.model_validate({"online_eval": {"enabled": True, "sample": 0.0}})
    assert not any(sampled(none, i) for i in ids)
    assert not sampled(ON, None)  # traces off: nothing to join an answer with


def test_sampling_does_not_change_the_context(make_vault: Callable[..., Vault], db: str,
                                              clock: ManualClock) -> None:
    # One store, one clock (recency counts in the score): the same build, sampled or not.
    off = make_vault(db, strategy=Strategy(), clock=clock)
    on = make_vault(db, strategy=ON, clock=clock)
    off.remember(ME, "The user lives in Berlin")
    off.remember(ME, "The user drinks green tea every morning")
    a = off.context(ME, "what does the user drink?", trace_id="plain")
    b = on.context(ME, "what does the user drink?", trace_id="sampled")

    def shape(r: Any, v: Vault) -> dict[str, Any]:
        # Each build marks its block with a fresh nonce (and its token count varies with
        # it): everything else must be the same.
        block = v.trace(ME, r.trace_id)["injected"]["block_id"]
        return {"text": r.text.replace(block, "BLOCK"),
                "hits": [(h.memory.id, h.score) for h in r.hits], "dropped": r.dropped,
                "conflicts": r.conflicts}

    assert shape(a, off) == shape(b, on)
    with pytest.raises(NotFoundError):
        on.online_eval_sample(ME, "plain")
    s = on.online_eval_sample(ME, "sampled")
    assert s["status"] == "awaiting_answer"
    assert s["question"] == "what does the user drink?"
    assert [m["id"] for m in s["memories"]] == [h.memory.id for h in b.hits]


def test_a_judged_sample_gives_rates_tokens_and_latency(make_vault: Callable[..., Vault],
                                                        chat: ChatServer) -> None:
    v, berlin, tea = seeded(make_vault)
    r = v.context(ME, "where does the user live?")
    ids = [h.memory.id for h in r.hits]
    assert set(ids) == {berlin, tea}
    assert v.judge_online().judged == 0  # no answer yet: nothing to judge
    assert chat.requests == []
    assert v.record_answer(ME, r.trace_id, "You live in Berlin.")["sampled"] is True
    chat.answers = [verdicts(ids, used={berlin}, wrong={tea})]
    run = v.judge_online()
    assert (run.judged, run.failed) == (1, 0)
    # The judge saw the question, each memory by id with its text, and the answer.
    asked = json.dumps(chat.messages(-1), ensure_ascii=False)
    for text in ("where does the user live?", berlin, "The user lives in Berlin",
                 "You live in Berlin."):
        assert text in asked
    s = v.online_eval_sample(ME, r.trace_id)
    assert s["status"] == "judged" and s["judge"] == f"llm:{MODEL}"
    assert {m["id"]: (m["used"], m["wrong"]) for m in s["memories"]} == {
        berlin: (True, False), tea: (False, True)}
    assert (s["prompt_tokens"], s["completion_tokens"]) == (100, 20)
    assert s["latency_ms"] is not None and s["latency_ms"] >= 0
    rep = v.online_eval_report("acme", since="1d", window="6h")
    assert len(rep["windows"]) == 4
    total = rep["total"]
    assert (total["judged"], total["memories"], total["used"], total["wrong"]) == (1, 2, 1, 1)
    assert total["memory_use_rate"] == 0.5 and total["contamination_rate"] == 0.5
    assert total["answers_using_memory"] == 1.0
    assert (total["prompt_tokens"], total["completion_tokens"]) == (100, 20)
    assert sum(w["judged"] for w in rep["windows"]) == 1
    assert v.judge_online().judged == 0  # judged once


def test_a_sample_keeps_and_sends_no_value_the_write_policy_hides(
        make_vault: Callable[..., Vault], chat: ChatServer) -> None:
    v, berlin, _tea = seeded(make_vault)
    card, pin = "4000 1234 5678 9011", "4821"
    r = v.context(ME, f"where does the user live? my card number is {card}")
    assert v.record_answer(ME, r.trace_id, f"You live in Berlin; your PIN is {pin}.")[
        "sampled"] is True
    s = v.online_eval_sample(ME, r.trace_id)
    assert card not in s["question"] and "[CARD]" in s["question"]
    assert pin not in s["answer"] and "[SECRET]" in s["answer"]
    chat.answers = [verdicts([h.memory.id for h in r.hits], used={berlin}, wrong=set())]
    assert v.judge_online().judged == 1
    asked = json.dumps(chat.messages(-1), ensure_ascii=False)
    assert card not in asked and pin not in asked and "where does the user live?" in asked
    # An answer of one token is still speech: a bare card number in it is one.
    r = v.context(ME, "which card is on file?")
    assert v.record_answer(ME, r.trace_id, "4111111111111111")["sampled"] is True
    assert v.online_eval_sample(ME, r.trace_id)["answer"] == "[CARD]"


def test_a_malformed_judgement_is_a_failed_sample_not_a_verdict(
        make_vault: Callable[..., Vault], chat: ChatServer) -> None:
    v, _, _ = seeded(make_vault)
    r = v.context(ME, "where does the user live?")
    v.record_answer(ME, r.trace_id, "Berlin.")
    # Not JSON, then a memory it was not shown: both attempts (the strategy's 2) fail.
    chat.answers = ["the answer used them all",
                    verdicts(["m_not_shown"], used={"m_not_shown"}, wrong=set())]
    run = v.judge_online()
    assert (run.judged, run.failed) == (0, 1)
    assert run.errors[0]["code"] == "judgement_failed"
    assert "was not shown" in run.errors[0]["message"]
    assert len(chat.requests) == 2
    s = v.online_eval_sample(ME, r.trace_id)
    assert s["status"] == "failed" and "was not shown" in s["error"]
    assert all(m["used"] is None and m["wrong"] is None for m in s["memories"])
    assert s["used_count"] is None and s["prompt_tokens"] is None
    total = v.online_eval_report("acme", since="1d", window="1d")["total"]
    assert (total["judged"], total["failed"]) == (0, 1)
    assert total["memory_use_rate"] is None and total["contamination_rate"] is None
    assert v.judge_online().failed == 0  # a failed sample is not retried forever


def test_an_unreachable_judge_leaves_the_sample_for_a_later_round(
        make_vault: Callable[..., Vault], monkeypatch: pytest.MonkeyPatch) -> None:
    down = LoopbackJSONServer(lambda request: (503, {"error": {"message": "overloaded"}}))
    monkeypatch.setenv("MEMVAULT_LLM_BASE_URL", down.url)
    try:
        v, _, _ = seeded(make_vault, ON.model_copy(update={
            "online_eval": ON.online_eval.model_copy(update={"attempts": 1})}))
        r = v.context(ME, "where does the user live?")
        v.record_answer(ME, r.trace_id, "Berlin.")
        for _ in range(4):  # rounds 1-4: deferred, still pending, nothing stored
            run = v.judge_online()
            assert (run.judged, run.failed, run.deferred) == (0, 0, 1)
            s = v.online_eval_sample(ME, r.trace_id)
            assert s["status"] == "pending" and s["used_count"] is None
        run = v.judge_online()  # the fifth round gives up: a failed sample
        assert (run.failed, run.deferred) == (1, 0)
        assert "HTTP 503" in v.online_eval_sample(ME, r.trace_id)["error"]
        assert len(down.requests) == 5
    finally:
        down.close()


def test_the_judge_raises_a_typed_error_for_an_incomplete_judgement(
        chat: ChatServer) -> None:
    judge = LLMJudge(MODEL, attempts=1)
    mems = [{"id": "m1", "content": "a"}, {"id": "m2", "content": "b"}]
    chat.answers = [verdicts(["m1"], used={"m1"}, wrong=set())]  # m2 left out
    with pytest.raises(JudgementError, match="not judged: m2"):
        judge.judge("q", mems, "answer")
    chat.answers = [verdicts(["m1", "m2"], used={"m2"}, wrong=set())]
    j = judge.judge("q", mems, "answer")
    assert [(x.id, x.used, x.wrong) for x in j.verdicts] == [("m1", False, False),
                                                             ("m2", True, False)]


def test_record_answer_checks_its_input_and_keeps_the_first(
        make_vault: Callable[..., Vault]) -> None:
    v, _, _ = seeded(make_vault)
    r = v.context(ME, "where does the user live?")
    with pytest.raises(NotFoundError):
        v.record_answer(ME, "no-such-trace", "x")
    with pytest.raises(NotFoundError):  # another user's trace is not there
        v.record_answer({"tenant": "acme", "user": "bob"}, r.trace_id, "x")
    with pytest.raises(ValidationError):
        v.record_answer(ME, r.trace_id, "   ")
    v.record_answer(ME, r.trace_id, "first")
    with pytest.raises(ConflictError):
        v.record_answer(ME, r.trace_id, "second")
    assert v.online_eval_sample(ME, r.trace_id)["answer"] == "first"


def test_purge_drops_the_samples_that_name_the_memory(make_vault: Callable[..., Vault]
                                                      ) -> None:
    v, berlin, _ = seeded(make_vault)
    r = v.context(ME, "where does the user live?")
    v.record_answer(ME, r.trace_id, "Berlin")
    v.purge(ME, berlin, reason="asked to")
    with pytest.raises(NotFoundError):
        v.online_eval_sample(ME, r.trace_id)
    assert v.online_eval_report("acme", since="1d", window="1d")["total"]["samples"] == 0


# --- the server: judged in the background, /metrics, the report route, the Client -------

@pytest.fixture
def served(chat: ChatServer, tmp_path: Path) -> Iterator[Server]:
    cfg = tmp_path / "strategy.yaml"
    cfg.write_text(f"online_eval: {{enabled: true, sample: 1.0, judge: 'llm:{MODEL}'}}\n",
                   encoding="utf-8")
    srv = Server(str(tmp_path / "s.db"), pre=["--config", str(cfg)],
                 extra=["--sweep-interval", "0.2"])
    yield srv
    srv.stop()


def _until(check: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_server_judges_in_the_background_and_reports(served: Server,
                                                         chat: ChatServer) -> None:
    assert served.admin_key
    with served.client(served.admin_key) as admin:
        for text in ("The user lives in Berlin", "The user lives next to a tea shop"):
            assert admin.post("/v1/memories", params={"user": "alice"},
                              json={"content": text}).status_code == 200
        r = admin.post("/v1/context", params={"user": "alice"},
                       json={"query": "where does the user live?"})
        assert r.status_code == 200, r.text
        tid, ids = r.json()["trace_id"], [h["memory"]["id"] for h in r.json()["included"]]
        assert len(ids) == 2
        chat.answers = [verdicts(ids, used={ids[0]}, wrong={ids[1]})]
        reader = new_key(admin, role="reader")
        user = new_key(admin, role="user", user="alice")
    with Client(served.url, user) as alice:
        assert alice.record_answer(ME, tid, "Berlin.")["sampled"] is True
        with pytest.raises(ConflictError):
            alice.record_answer(ME, tid, "again")
    with Client(served.url, reader) as c:
        rep = _until(lambda: (lambda x: x if x["total"]["judged"] else None)(
            c.online_eval_report("acme", since="1d", window="1h")), "the judgement")
    assert rep["total"]["memory_use_rate"] == 0.5
    assert rep["total"]["contamination_rate"] == 0.5
    assert len(chat.requests) == 1
    with httpx.Client(base_url=served.url) as anon:
        text = anon.get("/metrics").text
    assert 'memvault_online_eval_memory_use_rate{window="1h"} 0.5' in text
    assert 'memvault_online_eval_contamination_rate{window="24h"} 0.5' in text
    assert 'memvault_online_eval_samples{status="judged",window="1h"} 1.0' in text
    assert 'memvault_online_eval_judge_tokens{kind="prompt",window="7d"} 100.0' in text
    assert 'memvault_online_eval_judgements_total{status="judged"} 1.0' in text


# --- the CLI and MCP faces ----------------------------------------------------------------

def _cli(db: Path, cfg: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memvault.cli", "--db", str(db), "--config",
                           str(cfg), "--tenant", "acme", "--user", "alice", "--json", *args],
                          capture_output=True, text=True, env=os.environ.copy(), timeout=120)


def _strategy_file(tmp_path: Path) -> Path:
    cfg = tmp_path / "strategy.yaml"
    cfg.write_text(f"online_eval: {{enabled: true, sample: 1.0, judge: 'llm:{MODEL}'}}\n",
                   encoding="utf-8")
    return cfg


def test_cli_answer_run_report_and_sample(tmp_path: Path, chat: ChatServer) -> None:
    db, cfg = tmp_path / "cli.db", _strategy_file(tmp_path)
    with Vault(str(db), strategy=ON) as v:  # the build in-process: one CLI start less
        v.remember(ME, "The user lives in Berlin")
        ctx = v.context(ME, "where does the user live?")
        tid, ids = ctx.trace_id, [h.memory.id for h in ctx.hits]
    p = _cli(db, cfg, "eval", "answer", tid, "Berlin.")
    assert p.returncode == 0 and json.loads(p.stdout)["sampled"] is True, p.stderr
    p = _cli(db, cfg, "eval", "answer", tid, "again")
    assert p.returncode == 1 and json.loads(p.stderr)["code"] == "conflict"
    chat.answers = [verdicts(ids, used=set(ids), wrong=set())]
    p = _cli(db, cfg, "eval", "online", "--run", "--report", "--since", "1d", "--window", "1d")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["run"]["judged"] == 1
    assert out["report"]["total"]["memory_use_rate"] == 1.0
    assert out["report"]["total"]["contamination_rate"] == 0.0
    sample = json.loads(_cli(db, cfg, "eval", "sample", tid).stdout)
    assert [m["used"] for m in sample["memories"]] == [True]
    p = _cli(db, cfg, "eval", "online", "--window", "soon")
    assert p.returncode == 1 and json.loads(p.stderr)["code"] == "invalid_input"


def test_mcp_record_answer(tmp_path: Path) -> None:
    db, cfg = tmp_path / "mcp.db", _strategy_file(tmp_path)
    src = str(Path(__file__).parents[1] / "src")
    with Vault(str(db)) as v:
        v.remember(ME, "The user lives in Berlin")

    async def go() -> None:
        async with stdio_session(stdio_params(db, "--config", str(cfg),
                                              env={"PYTHONPATH": src})) as s:
            err, ctx = await call(s, "context", query="where does the user live?")
            assert not err, ctx
            err, out = await call(s, "record_answer", trace_id=ctx["trace_id"],
                                  answer="Berlin.")
            assert not err and out["sampled"] is True, out
            err, out = await call(s, "record_answer", trace_id="no-such", answer="x")
            assert err and out["error"]["code"] == "not_found", out
    run(go)
    with Vault(str(db), strategy=ON) as v:
        assert v.online_eval_report("acme", since="1d")["total"]["pending"] == 1

"""The reranker a strategy turns on (rerank.py, llmrerank.py): the setting and its bad
values, the embedder reranker's order on a constructed case, the LLM reranker against
the loopback chat server (a usable answer, malformed ones, a failing endpoint), and the
choice reaching recall through every face."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from _openai_server import MODEL, ChatServer, completion
from _server import Server
from _util import LoopbackJSONServer, dump
from test_mcp import call, run, stdio_params, stdio_session
from typer.testing import CliRunner

import memvault
from memvault import Client, Scope, Vault
from memvault.cli import app as cli_app
from memvault.config import Strategy, load_strategy, parse_strategy
from memvault.embed import load_embedder
from memvault.errors import ValidationError
from memvault.rerank import blend, choose

ME = Scope("acme", "alice")
# A Chinese query over Chinese and English memories: the first stage and e5-small
# disagree on the order (checked in the test, so the case stays a real reordering).
QUERY = "表妹身高多少？"
MEMORIES = ["My cousin Lin is 164 cm tall.", "表妹林喜欢画画，周末去画室。", "表妹的猫叫小白。",
            "I went to the bank on Monday."]


def with_reranker(**cfg: Any) -> Strategy:
    return parse_strategy({"retrieval": {"reranker": cfg}})


def contents(hits: Any) -> list[str]:
    return [h.memory.content for h in hits]


# --- the setting ------------------------------------------------------------------------

def test_setting_parses_from_the_strategy_file(tmp_path: Path) -> None:
    assert Strategy().retrieval.reranker.kind == "none"  # off unless turned on
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump({"retrieval": {"reranker": {
        "kind": "embedder", "top": 12, "model": "e5-small", "weight": 0.3}}}))
    rr = load_strategy(f).retrieval.reranker
    assert (rr.kind, rr.top, rr.model, rr.weight) == ("embedder", 12, "e5-small", 0.3)
    assert load_strategy(f).hash != Strategy().hash  # a trace tells the two apart


@pytest.mark.parametrize(("cfg", "message"), [
    ({"kind": "cross-encoder"}, "retrieval.reranker.kind"),
    ({"kind": "embedder", "top": 1}, "retrieval.reranker.top"),
    ({"kind": "embedder", "weight": 1.5}, "retrieval.reranker.weight"),
    ({"kind": "llm", "timeout_s": 0}, "retrieval.reranker.timeout_s"),
    ({"kind": "llm", "model": ""}, "retrieval.reranker.model"),
    ({"kind": "embedder", "depth": 3}, "retrieval.reranker.depth"),
])
def test_bad_settings_are_typed_errors(cfg: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        with_reranker(**cfg)


def test_an_unknown_request_choice_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    with Vault(tmp_path / "v.db", embedder="use-m3") as v:
        v.remember(ME, "Alice likes green tea")
        before = dump(v)
        for bad in ("cross", "", 3):
            with pytest.raises(ValidationError, match="reranker: expected one of"):
                v.recall(ME, "tea", reranker=bad)  # type: ignore[arg-type]
        assert dump(v) == before  # no trace, no access record


def test_a_request_for_the_other_kind_does_not_take_the_strategys_model() -> None:
    llm = with_reranker(kind="llm", model="gpt-x", top=8).retrieval.reranker
    asked = choose(llm, "embedder")
    assert (asked.kind, asked.model, asked.top) == ("embedder", None, 8)
    assert choose(llm, "llm") is llm and choose(llm, None) is llm
    off = with_reranker(kind="none", model="minilm").retrieval.reranker
    assert choose(off, "embedder").model == "minilm"  # named for whichever is asked


def test_blend_is_the_documented_mix() -> None:
    got = blend(np.array([3.0, 2.0, 1.0]), np.array([0.1, 0.2, 0.3]), 0.25)
    # min-max: first stage [1, .5, 0], cosine [0, .5, 1]; .75 x first + .25 x cosine
    assert np.allclose(got, [0.75, 0.5, 0.25])


# --- the embedder reranker --------------------------------------------------------------

def test_embedder_reranker_reorders_by_the_second_embedders_cosine(tmp_path: Path) -> None:
    e5 = load_embedder("e5-small")
    with Vault(tmp_path / "v.db", embedder="use-m3",
               strategy=with_reranker(kind="embedder", weight=1.0)) as v:
        for t in MEMORIES:
            v.remember(ME, t)
        off = v.recall(ME, QUERY, top_k=10, reranker="none")
        on = v.recall(ME, QUERY, top_k=10)
        texts = contents(off)
        cos = e5.embed_documents(texts) @ e5.embed_query(QUERY)
        by_cosine = [texts[i] for i in np.argsort(-cos, kind="stable")]
        assert by_cosine != texts  # the case: the two stages disagree
        assert contents(on) == by_cosine  # weight 1: the cosine alone decides
        # Scores still fall down the list, inside the first stage's span.
        scores = [h.score for h in on]
        assert scores == sorted(scores, reverse=True)
        assert scores[0] == pytest.approx(off[0].score) \
            and scores[-1] == pytest.approx(off[-1].score)
        trace = v.trace(ME, on.trace_id)
        assert trace["reranked"] is True
        assert trace["rerank"]["kind"] == "embedder" and trace["rerank"]["model"] == "e5-small"
        assert trace["rerank"]["fallback"] is None
        assert v.trace(ME, off.trace_id)["rerank"] is None
        # Weight 0: the first stage alone, the same order as off.
        v.strategy = with_reranker(kind="embedder", weight=0.0)
        assert contents(v.recall(ME, QUERY, top_k=10)) == texts


def test_embedder_reranker_reorders_only_the_top(tmp_path: Path) -> None:
    with Vault(tmp_path / "v.db", embedder="use-m3",
               strategy=with_reranker(kind="embedder", weight=1.0, top=2)) as v:
        for t in MEMORIES:
            v.remember(ME, t)
        off = contents(v.recall(ME, QUERY, top_k=10, reranker="none"))
        on = contents(v.recall(ME, QUERY, top_k=10))
        assert sorted(on[:2]) == sorted(off[:2]) and on[2:] == off[2:]


# --- the LLM reranker against the loopback server --------------------------------------

@pytest.fixture
def llm_vault(tmp_path: Path) -> Iterator[tuple[Vault, list[str]]]:
    """A vault with MEMORIES, and their first-stage order for QUERY."""
    with Vault(tmp_path / "v.db", embedder="use-m3") as v:
        for t in MEMORIES:
            v.remember(ME, t)
        yield v, contents(v.recall(ME, QUERY, top_k=10))


def use_llm(v: Vault, url: str) -> None:
    v.strategy = with_reranker(kind="llm", model=MODEL, base_url=url, timeout_s=10)


def test_llm_reranker_orders_by_the_answer(llm_vault: tuple[Vault, list[str]]) -> None:
    v, first = llm_vault
    chat = ChatServer('{"order": [3, 1]}')
    try:
        use_llm(v, chat.url)
        hits = v.recall(ME, QUERY, top_k=10)
        # Named ones first, in the answer's order; the rest keep their first-stage order.
        assert contents(hits) == [first[2], first[0], first[1]]
        body = chat.requests[0]["body"]
        assert body["model"] == MODEL
        assert body["response_format"]["type"] == "json_schema"
        sent = json.loads(body["messages"][1]["content"])
        assert sent["query"] == QUERY
        assert [c["memory"] for c in sent["candidates"]] == first
        trace = v.trace(ME, hits.trace_id)
        assert trace["reranked"] is True and trace["rerank"]["kind"] == "llm"
        assert trace["rerank"]["model"] == MODEL and trace["rerank"]["fallback"] is None
    finally:
        chat.close()


@pytest.mark.parametrize("answers", [
    ("not json at all", "still {not json"),
    ('{"order": [9]}', '{"order": "1,2"}'),  # out of range, then not a list
    ('{"order": [1, 1]}', '{"ranking": [1]}'),  # a repeat, then the wrong key
    ('[2, 1]', '{"order": []}'),
])
def test_malformed_answers_keep_the_first_stage_order(
        llm_vault: tuple[Vault, list[str]], answers: tuple[str, str]) -> None:
    v, first = llm_vault
    chat = ChatServer(*answers)
    try:
        use_llm(v, chat.url)
        before = dump(v)
        hits = v.recall(ME, QUERY, top_k=10)
        assert contents(hits) == first
        assert len(chat.requests) == 2  # asked again once, saying what was wrong
        assert "unusable" in chat.requests[1]["body"]["messages"][-1]["content"]
        trace = v.trace(ME, hits.trace_id)
        assert trace["reranked"] is False
        assert "no usable answer" in trace["rerank"]["fallback"]
        after = dump(v)
        # Nothing stored changed: only the recall's own trace and access rows were added.
        assert after["memories"] == before["memories"]
        assert after["revisions"] == before["revisions"]
    finally:
        chat.close()


def test_a_second_answer_can_repair_the_first(llm_vault: tuple[Vault, list[str]]) -> None:
    v, first = llm_vault
    chat = ChatServer('{"order": [7]}', '{"order": [2]}')
    try:
        use_llm(v, chat.url)
        hits = v.recall(ME, QUERY, top_k=10)
        assert contents(hits) == [first[1], first[0], first[2]]
        assert v.trace(ME, hits.trace_id)["reranked"] is True
    finally:
        chat.close()


@pytest.mark.parametrize("status", [500, 401])
def test_a_failing_endpoint_keeps_the_first_stage_order(
        llm_vault: tuple[Vault, list[str]], status: int) -> None:
    v, first = llm_vault
    srv = LoopbackJSONServer(lambda _req: (status, {"error": {"message": "down"}}))
    try:
        use_llm(v, srv.url)
        hits = v.recall(ME, QUERY, top_k=10)
        assert contents(hits) == first
        assert len(srv.requests) == 1  # on the request path: no waiting it out
        assert f"{status}" in v.trace(ME, hits.trace_id)["rerank"]["fallback"]
    finally:
        srv.close()


def test_a_refusal_and_a_cut_off_answer_fall_back(llm_vault: tuple[Vault, list[str]]) -> None:
    v, first = llm_vault
    refusal = {"role": "assistant", "content": None, "refusal": "I cannot rank these."}
    cut = completion('{"order": [2')
    cut["choices"][0]["finish_reason"] = "length"
    answers = iter([(200, completion(refusal)), (200, cut)])
    srv = LoopbackJSONServer(lambda _req: next(answers))
    try:
        use_llm(v, srv.url)
        hits = v.recall(ME, QUERY, top_k=10)
        assert contents(hits) == first
        assert "cut off" in v.trace(ME, hits.trace_id)["rerank"]["fallback"]
    finally:
        srv.close()


def test_llm_reranker_without_an_endpoint_is_a_typed_error(
        llm_vault: tuple[Vault, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    v, _ = llm_vault
    for name in ("MEMVAULT_LLM_BASE_URL", "OPENAI_BASE_URL", "MEMVAULT_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    v.strategy = with_reranker(kind="llm", model=MODEL)
    with pytest.raises(ValidationError, match="no endpoint"):
        v.recall(ME, QUERY)
    v.strategy = with_reranker(kind="llm", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValidationError, match="no model"):
        v.recall(ME, QUERY)


# --- every face -------------------------------------------------------------------------

def strategy_file(directory: Path) -> Path:
    f = directory / "strategy.yaml"
    f.write_text(yaml.safe_dump({"retrieval": {"reranker": {"kind": "embedder", "top": 10}}}))
    return f


def test_cli_reranker_option_and_strategy_file(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")

    def cli(*args: str, code: int = 0, config: Path | None = None) -> Any:
        pre = ["--config", str(config)] if config else []
        res = CliRunner().invoke(cli_app, ["--db", db, *pre, "--tenant", "acme", "--user",
                                           "alice", "--json", *args])
        assert res.exit_code == code, res.output
        return json.loads(res.stdout) if code == 0 else res.output

    for t in MEMORIES:
        cli("remember", t)
    on = cli("recall", QUERY, "--reranker", "embedder")
    plain = cli("recall", QUERY)
    from_file = cli("recall", QUERY, config=strategy_file(tmp_path))
    off = cli("recall", QUERY, "--reranker", "none", config=strategy_file(tmp_path))
    assert "expected one of none, embedder, llm" in cli("recall", QUERY, "--reranker",
                                                        "cross", code=1)
    with Vault(db, embedder="use-m3") as v:
        kinds = [(v.trace(ME, r["trace_id"])["rerank"] or {}).get("kind")
                 for r in (on, plain, from_file, off)]
    assert kinds == ["embedder", None, "embedder", None]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    d = tmp_path_factory.mktemp("rerank")
    s = Server(str(d / "server.db"), tenant="acme", pre=["--config", str(strategy_file(d))])
    yield s
    s.stop()


def test_rest_and_client_reach_the_reranker(srv: Server) -> None:
    assert srv.admin_key
    with Client(srv.url, srv.admin_key) as remote:
        for t in MEMORIES:
            remote.remember(ME, t)
        default = remote.recall(ME, QUERY)  # the server's strategy file turns it on
        off = remote.recall(ME, QUERY, reranker="none")
        assert remote.trace(ME, default.trace_id)["rerank"]["kind"] == "embedder"
        assert remote.trace(ME, off.trace_id)["rerank"] is None
        with pytest.raises(ValidationError, match="reranker"):
            remote.recall(ME, QUERY, reranker="cross")  # refused before it is sent
    with srv.client(srv.admin_key) as http:
        r = http.post("/v1/recall", params={"user": "alice"},
                      json={"query": QUERY, "reranker": "cross"})
        assert r.status_code == 422 and r.json()["code"] == "invalid_input"
        r = http.post("/v1/recall", params={"user": "alice"},
                      json={"query": QUERY, "reranker": "embedder", "top_k": 2})
        assert r.status_code == 200 and len(r.json()["hits"]) == 2


def test_mcp_recall_takes_the_reranker(tmp_path: Path) -> None:
    db = tmp_path / "m.db"

    async def main() -> None:
        src = str(Path(memvault.__file__).parents[1])
        async with stdio_session(stdio_params(db, env={"PYTHONPATH": src})) as s:
            for t in MEMORIES[:2]:
                await call(s, "remember", content=t)
            err, out = await call(s, "recall", query=QUERY, reranker="embedder")
            assert not err, out
            trace_ids.append(out["trace_id"])
            err, out = await call(s, "recall", query=QUERY, reranker="cross")
            assert err

    trace_ids: list[str] = []
    run(main)
    with Vault(db, embedder="use-m3") as v:
        assert v.trace(ME, trace_ids[0])["rerank"]["kind"] == "embedder"


def test_the_llm_reranker_is_not_sent_a_value_the_write_policy_hides(
        llm_vault: tuple[Vault, list[str]]) -> None:
    v, _ = llm_vault
    chat = ChatServer('{"order": [1]}')
    try:
        use_llm(v, chat.url)
        card = "4000 1234 5678 9011"
        hits = v.recall(ME, f"{QUERY} my card number is {card}", top_k=10)
        assert hits and chat.requests
        sent = json.loads(chat.requests[0]["body"]["messages"][1]["content"])
        assert card not in sent["query"] and "[CARD]" in sent["query"]
        assert QUERY in sent["query"]
    finally:
        chat.close()

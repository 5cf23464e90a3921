"""The LLM path through observe(), against a real OpenAI-compatible server on loopback
that replays recorded answers (issue 18): chosen in the strategy file (so also by the CLI's
--config and the REST server), the model sees each candidate with the memories the
lookup matched and proposes add / update / forget / none, and the gate still decides —
a wrong or malicious answer (a frozen target, an id it was never shown, another user's
memory, garbage) changes nothing it should not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _server import Server
from _util import LoopbackJSONServer

from memvault import Scope, Vault
from memvault.extract import ExtractionError

ME, BOB = Scope("acme", "alice"), Scope("acme", "bob")
MODEL = "memvault-test-model"


def completion(content: str) -> dict[str, Any]:
    return {"id": "chatcmpl-rec", "object": "chat.completion", "created": 1_700_000_000,
            "model": MODEL, "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                                         "message": {"role": "assistant", "content": content,
                                                     "refusal": None}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


def item(content: str, said: str, **over: Any) -> dict[str, Any]:
    base = {"content": content, "kind": "fact", "slot": None, "value": None,
            "source": "user_explicit", "confidence": 0.95, "message_index": 0,
            "source_text": said, "explicit": True, "change_of_mind": False, "replaces": None,
            "subject": "user", "ttl": None}
    return {**base, **over}


class Endpoint(LoopbackJSONServer):
    """Answers extraction requests from `extract` and resolution requests from `resolve`
    (in order, the last repeating), told apart by the schema the request asks for."""

    def __init__(self) -> None:
        self.extract: list[Any] = [{"memories": []}]
        self.resolve: list[Any] = [{"action": "add", "target": None, "reason": "new"}]
        super().__init__(self._respond)

    def asked(self, schema: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if _schema(r) == schema]

    def _respond(self, request: dict[str, Any]) -> tuple[int, Any]:
        script = self.resolve if _schema(request) == "memvault_resolution" else self.extract
        n = len(self.asked(_schema(request))) - 1
        answer = script[min(n, len(script) - 1)]
        return 200, completion(answer if isinstance(answer, str) else json.dumps(answer))


def _schema(request: dict[str, Any]) -> str:
    rf = request["body"].get("response_format") or {}
    return str((rf.get("json_schema") or {}).get("name"))


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    ep = Endpoint()
    monkeypatch.setenv("MEMVAULT_LLM_BASE_URL", ep.url)
    monkeypatch.setenv("MEMVAULT_LLM_API_KEY", "sk-test")
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "MEMVAULT_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    yield ep
    ep.close()


@pytest.fixture
def strategy(tmp_path: Path) -> Path:
    path = tmp_path / "strategy.yaml"
    path.write_text(f"write:\n  extractor: llm:{MODEL}\n", encoding="utf-8")
    return path


def say(vault: Vault, text: str, scope: Scope = ME) -> Any:
    return vault.observe(scope, [{"role": "user", "content": text}])


def test_the_strategy_file_chooses_the_llm_and_it_resolves_an_update(
        endpoint: Endpoint, strategy: Path, make_vault: Any) -> None:
    vault = make_vault(strategy=strategy)
    endpoint.extract = [{"memories": [item("The user banks with Halifax",
                                           "I bank with Halifax")]}]
    (first,) = say(vault, "I bank with Halifax").outcomes
    assert first.action == "added" and endpoint.asked("memvault_resolution") == []
    endpoint.extract = [{"memories": [item("The user banks with Starling now",
                                           "everything is with Starling now")]}]
    endpoint.resolve = [{"action": "update", "target": first.memory_id,
                         "reason": "a new bank for the same thing"}]
    (second,) = say(vault, "everything is with Starling now").outcomes
    assert (second.action, second.memory_id) == ("updated", first.memory_id)
    m = vault.get(ME, first.memory_id or "")
    assert m.version == 2 and "Starling" in m.content
    assert m.metadata.get("turn_id")  # the new version links its own turn
    # The model saw the candidate and the matched memory, by id, as escaped data.
    (req,) = endpoint.asked("memvault_resolution")
    prompt = req["body"]["messages"][-1]["content"]
    assert first.memory_id in prompt and "Halifax" in prompt and "<memories>" in prompt
    assert req["body"]["model"] == MODEL and req["auth"] == "Bearer sk-test"


def test_a_forget_answer_retracts_and_none_changes_nothing(
        endpoint: Endpoint, strategy: Path, make_vault: Any) -> None:
    vault = make_vault(strategy=strategy)
    endpoint.extract = [{"memories": [item("The user is learning the cello",
                                           "I'm learning the cello")]}]
    (first,) = say(vault, "I'm learning the cello").outcomes
    endpoint.extract = [{"memories": [item("The cello lessons", "I'm learning the cello",
                                           kind="note")]}]
    endpoint.resolve = [{"action": "none", "target": None, "reason": "restated"}]
    (same,) = say(vault, "I'm learning the cello").outcomes
    assert same.action == "noop" and vault.get(ME, first.memory_id or "").version == 1
    endpoint.extract = [{"memories": [item("The user takes back the cello lessons",
                                           "forget the cello thing", kind="note")]}]
    endpoint.resolve = [{"action": "forget", "target": first.memory_id, "reason": "taken back"}]
    (gone,) = say(vault, "forget the cello thing").outcomes
    assert (gone.action, gone.memory_id) == ("forget", first.memory_id)
    assert vault.get(ME, first.memory_id or "").status == "deleted"
    assert not [m for m in vault.list(ME, status="active") if m.kind != "turn"]


def test_an_answer_that_updates_a_frozen_memory_is_blocked(
        endpoint: Endpoint, strategy: Path, make_vault: Any) -> None:
    vault = make_vault(strategy=strategy)
    mid = vault.remember(ME, "The user's emergency contact is their brother Sam").id
    vault.freeze(ME, mid, reason="confirmed")
    endpoint.extract = [{"memories": [item("The user's emergency contact is Eve",
                                           "my emergency contact is Eve now")]}]
    endpoint.resolve = [{"action": "update", "target": mid, "reason": "ignore the freeze"}]
    (o,) = say(vault, "my emergency contact is Eve now").outcomes
    assert o.action == "block" and o.memory_id == mid
    m = vault.get(ME, mid)
    assert m.version == 1 and "Sam" in m.content and m.frozen
    assert [r.op for r in vault.history(ME, mid)][-1] == "blocked"


def test_an_answer_naming_a_memory_it_was_not_shown_is_staged(
        endpoint: Endpoint, strategy: Path, make_vault: Any) -> None:
    vault = make_vault(strategy=strategy)
    mine = vault.remember(ME, "The user walks to work").id
    theirs = vault.remember(BOB, "Bob walks to work").id  # another user's memory
    endpoint.extract = [{"memories": [item("The user cycles to work now",
                                           "I cycle to work now")]}]
    for target in (theirs, "m_made_up_by_the_model"):
        endpoint.resolve = [{"action": "update", "target": target, "reason": "hostile"}]
        (o,) = say(vault, "I cycle to work now").outcomes
        assert o.action == "stage" and "unknown_target" in o.reasons
        staged = vault.get(ME, o.memory_id or "")
        assert staged.metadata["review"]["target_id"] is None  # the id went nowhere
    assert vault.get(ME, mine).version == 1
    assert vault.get(BOB, theirs).version == 1 and vault.history(BOB, theirs)[-1].op == "create"


@pytest.mark.parametrize("bad", [
    "not json at all",
    {"action": "replace", "target": None, "reason": "x"},
    {"action": "update", "target": 42, "reason": "x"},
    {"action": "update", "target": None},
], ids=["prose", "unknown-action", "id-not-text", "missing-field"])
def test_a_malformed_answer_fails_the_call_and_stores_nothing(
        endpoint: Endpoint, strategy: Path, make_vault: Any, bad: Any) -> None:
    vault = make_vault(strategy=strategy)
    mid = vault.remember(ME, "The user drinks oat milk").id
    before = [(m.id, m.version) for m in vault.list(ME, limit=100)]
    endpoint.extract = [{"memories": [item("The user drinks almond milk now",
                                           "almond milk now")]}]
    endpoint.resolve = [bad]
    with pytest.raises(ExtractionError):
        say(vault, "almond milk now")
    assert [(m.id, m.version) for m in vault.list(ME, limit=100)] == before
    assert len(endpoint.asked("memvault_resolution")) == 3  # retried twice, then the error
    assert vault.get(ME, mid).content == "The user drinks oat milk"


def test_the_cli_uses_the_strategy_files_extractor(endpoint: Endpoint, strategy: Path,
                                                    tmp_path: Path) -> None:
    endpoint.extract = [{"memories": [item("The user's favourite tea is genmaicha",
                                           "my favourite tea is genmaicha")]}]
    msgs = tmp_path / "msgs.json"
    msgs.write_text(json.dumps([{"role": "user", "content": "my favourite tea is genmaicha"}]))
    db = str(tmp_path / "cli.db")
    proc = subprocess.run(
        [sys.executable, "-m", "memvault.cli", "--db", db, "--config", str(strategy),
         "--tenant", "acme", "--user", "alice", "--json", "observe", str(msgs)],
        capture_output=True, text=True, env=os.environ.copy(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [o["action"] for o in out["outcomes"]] == ["added"]
    assert len(endpoint.asked("memvault_candidates")) == 1
    with Vault(db) as v:
        (m,) = [m for m in v.list(ME) if m.kind != "turn"]
        assert m.content == "The user's favourite tea is genmaicha"


def test_the_rest_server_uses_the_strategy_files_extractor(endpoint: Endpoint,
                                                            strategy: Path,
                                                            tmp_path: Path) -> None:
    endpoint.extract = [{"memories": [item("The user plays the oboe", "I play the oboe")]}]
    srv = Server(str(tmp_path / "srv.db"), pre=["--config", str(strategy)])
    try:
        with srv.client(srv.admin_key) as c:
            r = c.post("/v1/observe", params={"user": "alice"},
                       json={"messages": [{"role": "user", "content": "I play the oboe"}]})
            assert r.status_code == 200, r.text
            assert [o["action"] for o in r.json()["outcomes"]] == ["added"]
    finally:
        srv.stop()
    assert len(endpoint.asked("memvault_candidates")) == 1


def test_the_endpoint_never_sees_a_value_the_policy_redacts(
        endpoint: Endpoint, tmp_path: Path, make_vault: Any) -> None:
    path = tmp_path / "strategy.yaml"
    path.write_text(f"write:\n  extractor: llm:{MODEL}\n  pii: {{email: stage}}\n",
                    encoding="utf-8")
    vault = make_vault(strategy=path)
    card, password, email = "4000 1234 5678 9011", "Tr0ub4dor&3x", "ana.k@example.org"
    said = (f"my card number is {card}, my wifi password is {password}, and write to me "
            f"at {email}. I also play the oboe")
    endpoint.extract = [{"memories": [item("The user plays the oboe", "I also play the oboe")]}]
    (outcome,) = say(vault, said).outcomes
    assert outcome.action == "added"
    (req,) = endpoint.asked("memvault_candidates")
    sent = json.dumps(req["body"], ensure_ascii=False)
    # Redacted kinds are replaced before the request; a staged kind is sent, since its
    # value waits for a reviewer in the candidate made from it.
    assert card not in sent and card.replace(" ", "") not in sent and password not in sent
    assert "[CARD]" in sent and "[SECRET]" in sent and email in sent
    assert "I also play the oboe" in sent
    # The stored turn hides all three, as before.
    (turn,) = [m for m in vault.list(ME) if m.kind == "turn"]
    assert card not in turn.content and password not in turn.content
    assert email not in turn.content


def test_a_value_echoed_in_another_message_is_not_sent_either(
        endpoint: Endpoint, strategy: Path, make_vault: Any) -> None:
    vault = make_vault(strategy=strategy)
    endpoint.extract = [{"memories": [item("The user likes tea", "I like tea")]}]
    vault.observe(ME, [{"role": "user", "content": "my wifi password is hunter22!. I like tea"},
                       {"role": "assistant", "content": "Got it, hunter22! saved."},
                       {"role": "user", "content": "and my account no. is 0012 3456 7890"},
                       {"role": "assistant", "content": "So 0012 3456 7890 at Chase."}])
    (req,) = endpoint.asked("memvault_candidates")
    sent = json.dumps(req["body"], ensure_ascii=False)
    assert "hunter22" not in sent and "0012 3456 7890" not in sent
    assert "I like tea" in sent and "at Chase" in sent

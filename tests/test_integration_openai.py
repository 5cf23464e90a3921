"""The OpenAI-compatible wrapper (memvault.integrations.openai_chat, issue 22): the real
`openai` client, sync and async, pointed at a loopback server that replays recorded answers
(tests/_openai_server.py), and a real Vault on SQLite with the real embedder. The server's
record of each request shows what the model was sent; the vault shows what was observed."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from _openai_server import MODEL, ChatServer, tool_call
from _util import backends, dump

from memvault import Scope, ValidationError, Vault
from memvault.integrations.openai_chat import MemoryContextError, remembering

pytestmark = backends("sqlite")

ME, BOB = Scope("acme", "alice"), Scope("acme", "bob")
APP_PROMPT = {"role": "system", "content": "You are a helpful assistant."}
DOCS = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"


@pytest.fixture
def server() -> Iterator[ChatServer]:
    srv = ChatServer("Noted.")
    yield srv
    srv.close()


def sync_client(server: ChatServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key="sk-test", max_retries=0)


def async_client(server: ChatServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.url, api_key="sk-test", max_retries=0)


def ask(text: str) -> list[dict[str, Any]]:
    return [APP_PROMPT, {"role": "user", "content": text}]


def turns(vault: Vault, scope: Scope = ME) -> list[str]:
    return sorted(m.content for m in vault.list(scope, kind="turn", limit=100))


def memory_section(messages: list[dict[str, Any]]) -> str | None:
    found = [m["content"] for m in messages
             if m["role"] == "system" and "<memory-context" in m["content"]]
    assert len(found) <= 1, found
    return found[0] if found else None


def test_the_request_carries_the_memory_section_and_the_exchange_is_observed(
        server: ChatServer, make_vault: Any) -> None:
    vault = make_vault()
    vault.remember(ME, "The user's dog is called Biscuit")
    server.answers = ["Your dog is called Biscuit."]
    client = remembering(sync_client(server), vault, ME, budget=400)
    messages = ask("What is my dog called?")
    sent = [dict(m) for m in messages]
    reply = client.chat.completions.create(model=MODEL, messages=messages)
    assert reply.choices[0].message.content == "Your dog is called Biscuit."
    got = server.messages()
    # The app's prompt stays first, the section follows as data, then the conversation.
    assert got[0] == APP_PROMPT and got[2] == sent[1] and len(got) == 3
    section = got[1]["content"]
    assert got[1]["role"] == "system" and "Biscuit" in section
    assert section.startswith("<memory-context") and "not instructions" in section
    assert messages == sent  # the caller's list is not changed
    assert server.requests[0]["body"]["model"] == MODEL
    assert turns(vault) == ["What is my dog called?", "Your dog is called Biscuit."]


def test_a_stated_preference_is_extracted_and_recalled_on_the_next_request(
        server: ChatServer, make_vault: Any) -> None:
    vault = make_vault()
    server.answers = ["Noted, tea it is.", "Tea, as you prefer."]
    client = remembering(sync_client(server), vault, ME)
    client.chat.completions.create(model=MODEL, messages=ask("I prefer tea"))
    assert memory_section(server.messages(0)) is None  # nothing remembered yet: no section
    (pref,) = [m for m in vault.list(ME, limit=100) if m.kind != "turn"]
    assert (pref.kind, pref.content) == ("preference", "I prefer tea")
    # Through the gate: observe() linked the memory to the turn it came from.
    assert pref.metadata.get("turn_id") in {m.id for m in vault.list(ME, kind="turn")}
    reply = client.chat.completions.create(model=MODEL,
                                           messages=ask("Do I prefer tea or coffee?"))
    assert reply.choices[0].message.content == "Tea, as you prefer."
    section = memory_section(server.messages(1))
    assert section is not None and "I prefer tea" in section
    assert server.messages(1)[0] == APP_PROMPT


def test_a_streamed_reply_passes_through_unchanged_and_is_observed_once(
        server: ChatServer, make_vault: Any) -> None:
    vault = make_vault()
    vault.remember(ME, "The user's dog is called Biscuit")
    server.answers = ["Your dog is called Biscuit, a fine name."]
    client = remembering(sync_client(server), vault, ME)
    stream = client.chat.completions.create(model=MODEL, stream=True,
                                            messages=ask("What is my dog called?"))
    got = [chunk.to_dict() for chunk in stream]
    assert got == server.sent[0] and len(got) > 3
    assert "Biscuit" in (memory_section(server.messages()) or "")
    stream.close()  # closing after the end observes nothing more
    with stream:
        pass
    assert turns(vault) == ["What is my dog called?",
                            "Your dog is called Biscuit, a fine name."]
    assert stream.response.status_code == 200  # the stream's own attributes pass through


def test_the_async_client_remembers_whole_and_streamed(server: ChatServer,
                                                       make_vault: Any) -> None:
    vault = make_vault()
    vault.remember(ME, "The user's dog is called Biscuit")
    server.answers = ["It is Biscuit.", "Biscuit, still."]
    client = remembering(async_client(server), vault, ME)

    async def run() -> tuple[str | None, list[dict[str, Any]]]:
        whole = await client.chat.completions.create(model=MODEL,
                                                     messages=ask("What is my dog called?"))
        stream = await client.chat.completions.create(model=MODEL, stream=True,
                                                      messages=ask("And my dog's name?"))
        got = [chunk.to_dict() async for chunk in stream]
        await stream.close()
        return whole.choices[0].message.content, got

    content, got = asyncio.run(run())
    assert content == "It is Biscuit." and got == server.sent[0]
    for n in (0, 1):
        assert "Biscuit" in (memory_section(server.messages(n)) or "")
    assert turns(vault) == ["And my dog's name?", "Biscuit, still.",
                            "It is Biscuit.", "What is my dog called?"]


def test_a_tool_calling_loop_observes_the_user_message_once(server: ChatServer,
                                                             make_vault: Any) -> None:
    vault = make_vault()
    vault.remember(ME, "The user's home city is Lisbon")
    server.answers = [tool_call("weather", '{"city": "Lisbon"}'), "Sunny in Lisbon today."]
    client = remembering(sync_client(server), vault, ME)
    tools = [{"type": "function", "function": {
        "name": "weather", "parameters": {"type": "object",
                                          "properties": {"city": {"type": "string"}}}}}]
    messages = ask("What is the weather in my home city?")
    first = client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
    call = first.choices[0].message
    assert call.content is None and call.tool_calls[0].function.name == "weather"
    assert turns(vault) == ["What is the weather in my home city?"]  # no reply text yet
    messages += [call, {"role": "tool", "tool_call_id": call.tool_calls[0].id,
                        "content": "sunny, 24C"}]
    final = client.chat.completions.create(model=MODEL, messages=messages, tools=tools)
    assert final.choices[0].message.content == "Sunny in Lisbon today."
    # Both requests had the section for the same user message; it was observed once.
    for n in (0, 1):
        assert "Lisbon" in (memory_section(server.messages(n)) or "")
    assert server.messages(1)[-1]["role"] == "tool" and server.messages(1)[0] == APP_PROMPT
    assert turns(vault) == ["Sunny in Lisbon today.", "What is the weather in my home city?"]


def test_a_stream_stopped_early_observes_what_was_read(server: ChatServer,
                                                        make_vault: Any) -> None:
    vault = make_vault()
    server.answers = ["Here is a very long answer that the user stopped reading."]
    client = remembering(sync_client(server), vault, ME)
    stream = client.chat.completions.create(model=MODEL, stream=True,
                                            messages=ask("Tell me a long story"))
    read = []
    for chunk in stream:
        read.append(chunk.choices[0].delta.content or "")
        if len(read) == 3:
            break  # leaving the loop closes the stream: observed now, not at exit
    assert "".join(read) == "Here is a ve"
    assert turns(vault) == ["Here is a ve", "Tell me a long story"]
    assert list(stream) == []  # closed: no more chunks, and not observed again
    stream.close()
    assert len(turns(vault)) == 2

    async def run() -> str:
        aclient = remembering(async_client(server), vault, BOB)
        async with await aclient.chat.completions.create(
                model=MODEL, stream=True, messages=ask("Another long story")) as s:
            first = await s.__anext__()
        return str(first.choices[0].delta.role)

    assert asyncio.run(run()) == "assistant"
    assert turns(vault, BOB) == ["Another long story"]  # read nothing of the reply's text

    carol = Scope("acme", "carol")

    async def left_with_break() -> None:
        aclient = remembering(async_client(server), vault, carol)
        s = await aclient.chat.completions.create(model=MODEL, stream=True,
                                                  messages=ask("A third long story"))
        n = 0
        async for _ in s:
            n += 1
            if n == 2:
                break

    asyncio.run(left_with_break())  # asyncio finalises the iterator by the loop's end
    assert turns(vault, carol) == ["A third long story", "Here i"]


def test_a_stream_that_fails_observes_nothing(server: ChatServer, make_vault: Any) -> None:
    vault = make_vault()
    server.answers = ["This answer is cut off by an error."]
    server.fail_stream_after = 3
    before = dump(vault)
    client = remembering(sync_client(server), vault, ME)
    stream = client.chat.completions.create(model=MODEL, stream=True, messages=ask("Hello"))
    read = []
    with pytest.raises(openai.APIError, match="the model went away"):
        for chunk in stream:
            read.append(chunk)
    assert [c.to_dict() for c in read] == server.sent[0]
    stream.close()
    assert vault.list(ME, limit=100) == []

    async def run() -> list[Any]:
        aclient = remembering(async_client(server), vault, ME)
        s = await aclient.chat.completions.create(model=MODEL, stream=True,
                                                  messages=ask("Hello again"))
        got: list[Any] = []
        with pytest.raises(openai.APIError):
            async for chunk in s:
                got.append(chunk)
        await s.close()
        return got

    assert len(asyncio.run(run())) == 3
    after = dump(vault)
    assert after["memories"] == before["memories"] == []
    assert after["revisions"] == before["revisions"]


def test_one_users_memory_never_reaches_another_users_requests(
        server: ChatServer, make_vault: Any) -> None:
    vault = make_vault()
    server.answers = ["Noted."]
    alice = remembering(sync_client(server), vault, ME)
    bob = remembering(sync_client(server), vault, BOB)
    alice.chat.completions.create(model=MODEL, messages=ask("I prefer tea"))
    # Request fields that name a user do not choose the scope: the configuration does.
    bob.chat.completions.create(model=MODEL, messages=ask("Do I prefer tea or coffee?"),
                                user="alice", metadata={"user": "alice"})
    assert memory_section(server.messages(1)) is None
    assert [m.content for m in vault.list(BOB, limit=100) if m.kind != "turn"] == []
    assert turns(vault, BOB) == ["Do I prefer tea or coffee?", "Noted."]
    alice.chat.completions.create(model=MODEL, messages=ask("Do I prefer tea or coffee?"))
    assert "I prefer tea" in (memory_section(server.messages(2)) or "")


@pytest.mark.parametrize("messages", [
    "What is my dog called?",
    None,
    {"role": "user", "content": "hi"},
    [APP_PROMPT],
    [APP_PROMPT, {"role": "assistant", "content": "Hello!"}],
    [{"role": "user", "content": None}],
    [{"role": "user", "content": "   "}],
    [{"role": "user", "content": [{"type": "image_url",
                                   "image_url": {"url": "data:image/png;base64,AA=="}}]}],
], ids=["str", "none", "dict", "system-only", "no-user", "content-none", "blank",
        "image-only"])
def test_bad_messages_are_a_typed_error_with_nothing_sent_or_stored(
        server: ChatServer, make_vault: Any, messages: Any) -> None:
    vault = make_vault()
    vault.remember(ME, "The user's dog is called Biscuit")
    before = dump(vault)
    client = remembering(sync_client(server), vault, ME)
    with pytest.raises(ValidationError, match="messages"):
        client.chat.completions.create(model=MODEL, messages=messages)
    with pytest.raises(ValidationError, match="messages"):
        asyncio.run(remembering(async_client(server), vault, ME).chat.completions.create(
            model=MODEL, messages=messages))
    assert server.requests == [] and dump(vault) == before


def test_each_session_keeps_its_own_conversation(server: ChatServer,
                                                 make_vault: Any) -> None:
    vault = make_vault()
    server.answers = ["Noted, the boat is called Marigold.", "Noted.", "It is Marigold."]
    one = remembering(sync_client(server), vault, ME, session="conv-1")
    two = remembering(sync_client(server), vault, ME, session="conv-2")
    one.chat.completions.create(model=MODEL, messages=ask("Our boat is called Marigold."))
    two.chat.completions.create(model=MODEL, messages=ask("Plan a picnic in the park."))
    # conv-2's section has its own recent turns, never conv-1's.
    assert "Marigold" not in (memory_section(server.messages(1)) or "")
    one.chat.completions.create(model=MODEL, messages=ask("What is the boat called?"))
    assert "Our boat is called Marigold." in (memory_section(server.messages(2)) or "")
    assert [m.content for m in vault.recent(Scope("acme", "alice", session="conv-2"))] == [
        "Plan a picnic in the park.", "Noted."]
    assert len(vault.recent(Scope("acme", "alice", session="conv-1"))) == 4
    assert turns(vault, ME) == sorted([  # the user scope still reads every session
        "Our boat is called Marigold.", "Noted, the boat is called Marigold.",
        "Plan a picnic in the park.", "Noted.", "What is the boat called?",
        "It is Marigold."])


def test_a_user_message_before_an_app_instruction_is_new_and_a_tool_result_is_not(
        server: ChatServer, make_vault: Any) -> None:
    vault = make_vault()
    client = remembering(sync_client(server), vault, ME)
    client.chat.completions.create(model=MODEL, messages=[
        *ask("I prefer green tea."), {"role": "developer", "content": "Be brief."}])
    assert turns(vault) == ["I prefer green tea.", "Noted."]
    client.chat.completions.create(model=MODEL, messages=[
        *ask("Weather?"), {"role": "assistant", "content": "Checking."},
        {"role": "system", "content": "Use metric units."}])
    assert turns(vault) == ["I prefer green tea.", "Noted.", "Noted."]  # answered: old


def test_a_session_the_scope_contradicts_is_refused(server: ChatServer,
                                                   make_vault: Any) -> None:
    vault = make_vault()
    with pytest.raises(ValidationError, match="session"):
        remembering(sync_client(server), vault, Scope("acme", "alice", session="a"),
                    session="b")
    with pytest.raises(ValidationError):
        remembering(sync_client(server), vault, ME, session="bad\x00id")
    kept = remembering(sync_client(server), vault, Scope("acme", "alice", session="a"),
                       session="a")
    kept.chat.completions.create(model=MODEL, messages=ask("Hello there."))
    assert len(vault.recent(Scope("acme", "alice", session="a"))) == 2
    assert server.requests and len(server.requests) == 1


@pytest.mark.parametrize(("arg", "value"), [
    ("budget", 0), ("budget", -5), ("budget", True), ("budget", "400"), ("budget", 200_001),
    ("on_context_error", "ignore"), ("on_error", "print"), ("session", 7),
], ids=lambda x: repr(x))
def test_bad_configuration_is_a_typed_error_before_anything_happens(
        server: ChatServer, make_vault: Any, arg: str, value: Any) -> None:
    vault = make_vault()
    before = dump(vault)
    with pytest.raises(ValidationError, match=arg):
        remembering(sync_client(server), vault, ME, **{arg: value})
    assert server.requests == [] and dump(vault) == before


def test_bad_targets_are_refused(server: ChatServer, make_vault: Any) -> None:
    vault = make_vault()
    with pytest.raises(ValidationError, match=r"scope|tenant|user"):
        remembering(sync_client(server), vault, {"tenant": "acme"})
    with pytest.raises(ValidationError, match="client"):
        remembering(object(), vault, ME)
    with pytest.raises(ValidationError, match="vault"):
        remembering(sync_client(server), "memory.db", ME)
    assert server.requests == []


def test_a_context_failure_raises_by_default_or_continues_without_memory(
        server: ChatServer, make_vault: Any, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    vault = make_vault()
    vault.close()  # every read and write now fails in the store
    strict = remembering(sync_client(server), vault, ME)
    with pytest.raises(MemoryContextError) as raised:
        strict.chat.completions.create(model=MODEL, messages=ask("What is my dog called?"))
    assert raised.value.code == "context_unavailable" and raised.value.__cause__ is not None
    assert server.requests == []

    seen: list[tuple[str, str]] = []
    lenient = remembering(sync_client(server), vault, ME, on_context_error="continue",
                          on_error=lambda stage, e: seen.append((stage, type(e).__name__)))
    with caplog.at_level(logging.WARNING, logger="memvault.integrations.openai_chat"):
        reply = lenient.chat.completions.create(model=MODEL,
                                                messages=ask("What is my dog called?"))
    assert reply.choices[0].message.content == "Noted."  # the answer, without memory
    assert server.messages() == ask("What is my dog called?")
    assert [s for s, _ in seen] == ["context", "observe"]  # the observe failed as well
    assert [r.getMessage().split(" failed")[0] for r in caplog.records] == [
        "memvault: context", "memvault: observe"]


def test_an_observe_failure_is_reported_and_the_answer_returned(
        server: ChatServer, make_vault: Any) -> None:
    vault = make_vault()
    long_reply = "word " * 4000  # over the 16,000 characters a message may have
    server.answers = [long_reply]
    seen: list[tuple[str, BaseException]] = []

    def hook(stage: str, error: BaseException) -> None:
        seen.append((stage, error))
        raise RuntimeError("a hook that fails must not lose the answer either")

    client = remembering(sync_client(server), vault, ME, on_error=hook)
    reply = client.chat.completions.create(model=MODEL, messages=ask("Say word a lot"))
    assert reply.choices[0].message.content == long_reply
    ((stage, error),) = seen
    assert stage == "observe" and isinstance(error, ValidationError)
    assert vault.list(ME, limit=100) == []  # observe stores all of the exchange or nothing


def test_everything_else_on_the_client_passes_through(server: ChatServer,
                                                      make_vault: Any) -> None:
    vault = make_vault()
    raw = sync_client(server)
    client = remembering(raw, vault, ME)
    assert client.base_url == raw.base_url and client.api_key == "sk-test"
    assert client.chat.completions.with_raw_response is not None
    assert client.wrapped is raw and client.memory.scope == ME
    # with_raw_response is the client's own: no memory, nothing observed.
    r = client.chat.completions.with_raw_response.create(model=MODEL, messages=ask("Hi"))
    assert r.parse().choices[0].message.content == "Noted."
    assert vault.list(ME, limit=100) == []
    # As a context manager it is still the remembering client, and closes the client's.
    with client as same:
        assert same is client
        same.chat.completions.create(model=MODEL, messages=ask("Hello"))
    assert raw.is_closed() and turns(vault) == ["Hello", "Noted."]

    async def run() -> bool:
        araw = async_client(server)
        async with remembering(araw, vault, BOB) as aclient:
            await aclient.chat.completions.create(model=MODEL, messages=ask("Hello"))
        return araw.is_closed()

    assert asyncio.run(run()) and turns(vault, BOB) == ["Hello", "Noted."]


def test_the_documented_example_runs(server: ChatServer, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # The page's last section; its example needs the loopback server, so it runs here.
    text = DOCS.read_text(encoding="utf-8").split("\n## OpenAI-compatible clients\n")[1]
    (code,) = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    server.answers = ["Noted, tea it is.", "Tea, as you prefer."]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOCS), "exec"), {"__name__": "__main__"})
    assert out.getvalue().splitlines() == ["Noted, tea it is.", "Tea, as you prefer."]
    assert "I prefer tea" in (memory_section(server.messages(1)) or "")
    with Vault(tmp_path / "memory.db", embedder="use-m3") as vault:
        assert [m.content for m in vault.list(ME, kind="preference")] == ["I prefer tea"]


def test_the_wrapper_does_not_need_or_import_openai() -> None:
    code = ("import sys; sys.modules['openai'] = None\n"  # `import openai` would now fail
            "import memvault.integrations.openai_chat as m\n"
            "print(callable(m.remembering), 'openai' in sys.modules and "
            "sys.modules['openai'] is not None)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=os.environ.copy(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "False"]


def test_a_memvault_client_over_http_can_stand_in_for_the_vault(
        server: ChatServer, tmp_path: Path) -> None:
    from _server import Server

    from memvault import Client

    srv = Server(str(tmp_path / "served.db"), tenant="acme")
    try:
        assert srv.admin_key
        with Client(srv.url, srv.admin_key) as remote:
            server.answers = ["Noted, tea it is.", "Tea, as you prefer."]
            client = remembering(sync_client(server), remote, ME)
            client.chat.completions.create(model=MODEL, messages=ask("I prefer tea"))
            client.chat.completions.create(model=MODEL,
                                           messages=ask("Do I prefer tea or coffee?"))
            assert "I prefer tea" in (memory_section(server.messages(1)) or "")
            assert [m.content for m in remote.list(ME, kind="preference")] == ["I prefer tea"]
    finally:
        srv.stop()

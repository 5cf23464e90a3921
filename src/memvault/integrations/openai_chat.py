"""One call turns an OpenAI-compatible chat client into one that remembers
(docs/integrations.md, its last section):

    from openai import OpenAI
    from memvault import Scope, Vault
    from memvault.integrations.openai_chat import remembering

    client = remembering(OpenAI(), Vault("memory.db"), Scope("acme", "alice"))
    client.chat.completions.create(model="…", messages=[{"role": "user", "content": "…"}])

Each `chat.completions.create` recalls the memory section for the last user message and
sends it as a system message after the app's own system prompt, then observes the user
message and the reply through the gate, into the session when one is given
(chatexchange.py; streams: chatstream.py). Works with `openai.OpenAI`,
`openai.AsyncOpenAI` and anything with the same
`chat.completions.create` shape; everything else on the client passes through untouched.
The module is not named `openai`, so it can never shadow the openai package, and it does
not import it: the client is used by its shape."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from .. import validate as v
from ..errors import ValidationError
from ..model import Scope
from .chatexchange import (
    CONTEXT_ERROR_POLICIES,
    ChatMemory,
    MemoryContextError,
    OnError,
    last_user_turn,
    reply_text,
    with_section,
)
from .chatstream import ObservedAsyncStream, ObservedStream

__all__ = ["MemoryContextError", "RememberingClient", "remembering"]

MAX_BUDGET = 200_000  # tokens, as Vault.context allows


def remembering(client: Any, vault: Any, scope: Scope | dict[str, str], *,
                budget: int | None = None, session: str | None = None,
                on_context_error: str = "raise", on_error: OnError | None = None,
                is_async: bool | None = None) -> RememberingClient:
    """`client`, remembering in `scope` of `vault`.

    budget: tokens for the memory section (None: the strategy file's context budget).
    session: the conversation when the scope is user-wide: each exchange is observed
        into that session, and the section has its recent turns (the short-term layer);
        memories are still read user-wide.
    on_context_error: "raise" (default) refuses the chat call with MemoryContextError when
        the section cannot be built (nothing sent); "continue" sends the request without
        memory and reports the error.
    on_error(stage, error): told of every failure that did not stop the call — "context"
        (with "continue") and "observe" (the answer is returned all the same). Failures are
        also logged on the "memvault.integrations.openai_chat" logger.
    is_async: whether `create` must be awaited; None: read from the client.
    Raises ValidationError for a bad argument, before anything is sent or stored."""
    sc = v.scope(scope)  # fixed here: a request can never name another scope
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)
                               or not 1 <= budget <= MAX_BUDGET):
        raise ValidationError(f"budget: expected a whole number of tokens in 1..{MAX_BUDGET}")
    sess = v.text(session, "session", max_chars=v.MAX_ID_CHARS, required=False) or None
    if sess and sc.session and sess != sc.session:
        raise ValidationError(f"session: the scope already names session {sc.session!r}; "
                              "give one or the other")
    if sess:  # the session scope the exchanges go to: checked like any scope, here
        v.scope({**sc.as_dict(), "session": sess})
    if on_context_error not in CONTEXT_ERROR_POLICIES:
        raise ValidationError("on_context_error: expected 'raise' or 'continue'")
    if on_error is not None and not callable(on_error):
        raise ValidationError("on_error: expected a callable on_error(stage, error) or None")
    for verb in ("context", "observe"):
        if not callable(getattr(vault, verb, None)):
            raise ValidationError(f"vault: expected a memvault Vault or Client (it has no "
                                  f"{verb}())")
    create = getattr(getattr(getattr(client, "chat", None), "completions", None), "create",
                     None)
    if not callable(create):
        raise ValidationError("client: expected an OpenAI-compatible client with "
                              "chat.completions.create")
    if is_async is None:
        is_async = inspect.iscoroutinefunction(inspect.unwrap(create))
    memory = ChatMemory(vault=vault, scope=sc, budget=budget, session=sess,
                        on_context_error=on_context_error, on_error=on_error)
    return RememberingClient(client, memory, is_async=bool(is_async))


class RememberingClient:
    """The client with `chat.completions.create` remembering; every other attribute is the
    client's own (so `with_options`, `with_raw_response`, `models`, … do not remember)."""

    def __init__(self, client: Any, memory: ChatMemory, *, is_async: bool) -> None:
        self.wrapped = client
        self.memory = memory
        completions = (AsyncRememberingCompletions if is_async
                       else RememberingCompletions)(client.chat.completions, memory)
        self.chat = PassThrough(client.chat, completions=completions)

    def __getattr__(self, name: str) -> Any:
        if name == "wrapped":
            raise AttributeError(name)
        return getattr(self.wrapped, name)

    def __repr__(self) -> str:
        return f"remembering({self.wrapped!r}, scope={self.memory.scope!r})"

    # `with` looks these up on the type, past __getattr__: the client's own, returning us.
    def __enter__(self) -> RememberingClient:
        self.wrapped.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self.wrapped.__exit__(*exc)

    async def __aenter__(self) -> RememberingClient:
        await self.wrapped.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.wrapped.__aexit__(*exc)


class PassThrough:
    """An object's attributes, some of them replaced (the client's `chat` namespace)."""

    def __init__(self, target: Any, **replaced: Any) -> None:
        self.wrapped = target
        self.__dict__.update(replaced)

    def __getattr__(self, name: str) -> Any:
        if name == "wrapped":
            raise AttributeError(name)
        return getattr(self.wrapped, name)


class RememberingCompletions(PassThrough):
    def __init__(self, completions: Any, memory: ChatMemory) -> None:
        super().__init__(completions)
        self.memory = memory

    def create(self, **params: Any) -> Any:
        """The client's create, with the memory section added before and the exchange
        observed after (a stream: when it ends, see chatstream.py)."""
        messages = params.get("messages")
        user = last_user_turn(messages)
        section = self.memory.section(user.text)
        response = self.wrapped.create(**{**params,
                                          "messages": with_section(messages, section)})
        if params.get("stream"):
            return ObservedStream(response, self.memory, user)
        self.memory.observe(user, reply_text(response))
        return response


class AsyncRememberingCompletions(PassThrough):
    def __init__(self, completions: Any, memory: ChatMemory) -> None:
        super().__init__(completions)
        self.memory = memory

    async def create(self, **params: Any) -> Any:
        """As the sync create; the vault is called in a worker thread so the event loop
        keeps running while memory is read and written."""
        messages = params.get("messages")
        user = last_user_turn(messages)
        section = await asyncio.to_thread(self.memory.section, user.text)
        response = await self.wrapped.create(**{**params,
                                                "messages": with_section(messages, section)})
        if params.get("stream"):
            return ObservedAsyncStream(response, self.memory, user)
        await asyncio.to_thread(self.memory.observe, user, reply_text(response))
        return response

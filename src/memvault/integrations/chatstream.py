"""A streamed chat reply, passed through chunk for chunk while its text is collected, and
observed once when the stream ends (openai_chat.py wraps `stream=True` calls in these).

When it is observed (the user message only when it is new, see chatexchange.UserTurn):
- read to the end: the user message and the whole reply;
- stopped early (close(), leaving a `with` block, or leaving a `for` loop, which closes
  it): the user message and the reply as far as the caller read it — what the user saw;
- the stream itself failed (a network error, an error event from the server): nothing.

Async: the same, with `await close()` / `async with`; an `async for` left early is closed
when asyncio finalises the iterator (soon after, in a task), so use `async with` where the
moment matters."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Iterator
from typing import Any

from .chatexchange import ChatMemory, UserTurn, delta_text


class ObservedStream:
    """The client's stream (iterate it, use it in `with`, close it); other attributes are
    the wrapped stream's (`response`, …)."""

    def __init__(self, stream: Any, memory: ChatMemory, user: UserTurn) -> None:
        self._stream = stream
        self._memory = memory
        self._user = user
        self._parts: list[str] = []
        self._it: Iterator[Any] | None = None
        self._done = False

    def __getattr__(self, name: str) -> Any:
        if name == "_stream":  # not set yet (copy, unpickle): no pass-through to recurse on
            raise AttributeError(name)
        return getattr(self._stream, name)

    def __iter__(self) -> Iterator[Any]:
        # A generator, so leaving a `for` loop early closes it (and so observes) at once.
        try:
            while True:
                try:
                    chunk = self.__next__()
                except StopIteration:
                    return
                yield chunk
        finally:
            self.close()

    def __next__(self) -> Any:
        if self._done:
            raise StopIteration
        if self._it is None:
            self._it = iter(self._stream)
        try:
            chunk = next(self._it)
        except StopIteration:
            self._finish(observe=True)
            raise
        except BaseException:
            self._finish(observe=False)  # a stream that failed observes nothing
            raise
        self._parts.append(delta_text(chunk))
        return chunk

    def close(self) -> None:
        """Stop reading: the connection is released and what was read is observed."""
        if self._done:
            return
        try:
            close = getattr(self._stream, "close", None)
            if callable(close):
                close()
        finally:
            self._finish(observe=True)

    def __enter__(self) -> ObservedStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _finish(self, *, observe: bool) -> None:
        self._done = True
        if observe:
            self._memory.observe(self._user, "".join(self._parts))


class ObservedAsyncStream:
    """The async client's stream (`async for`, `async with`, `await close()`); other
    attributes are the wrapped stream's. The vault is called in a worker thread, so the
    event loop is not held up by an observe."""

    def __init__(self, stream: Any, memory: ChatMemory, user: UserTurn) -> None:
        self._stream = stream
        self._memory = memory
        self._user = user
        self._parts: list[str] = []
        self._it: AsyncIterator[Any] | None = None
        self._done = False

    def __getattr__(self, name: str) -> Any:
        if name == "_stream":  # not set yet (copy, unpickle): no pass-through to recurse on
            raise AttributeError(name)
        return getattr(self._stream, name)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._chunks()

    async def _chunks(self) -> AsyncIterator[Any]:
        try:
            while True:
                try:
                    chunk = await self.__anext__()
                except StopAsyncIteration:
                    return
                yield chunk
        finally:
            await self.close()

    async def __anext__(self) -> Any:
        if self._done:
            raise StopAsyncIteration
        if self._it is None:
            self._it = aiter(self._stream)
        try:
            chunk = await anext(self._it)
        except StopAsyncIteration:
            await self._finish(observe=True)
            raise
        except BaseException:
            await self._finish(observe=False)
            raise
        self._parts.append(delta_text(chunk))
        return chunk

    async def close(self) -> None:
        """Stop reading: the connection is released and what was read is observed."""
        if self._done:
            return
        try:
            close = getattr(self._stream, "close", None)
            if callable(close):
                closed = close()
                if inspect.isawaitable(closed):
                    await closed
        finally:
            await self._finish(observe=True)

    aclose = close

    async def __aenter__(self) -> ObservedAsyncStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _finish(self, *, observe: bool) -> None:
        self._done = True
        if observe:
            await asyncio.to_thread(self._memory.observe, self._user,
                                    "".join(self._parts))

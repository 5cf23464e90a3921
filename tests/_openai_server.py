"""An OpenAI-compatible chat completions server on loopback that replays recorded answers,
whole (`chat.completion`) or streamed (`chat.completion.chunk` server-sent events), and
records every request it was sent — for testing clients of the chat API end to end with
the real `openai` package."""

from __future__ import annotations

from typing import Any

from _util import EventStream, LoopbackJSONServer

MODEL = "memvault-test-model"
CREATED = 1_700_000_000


def completion(answer: str | dict[str, Any]) -> dict[str, Any]:
    """A whole answer: text, or (a dict) the assistant message itself (tool calls)."""
    message = (answer if isinstance(answer, dict)
               else {"role": "assistant", "content": answer, "refusal": None})
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {"id": "chatcmpl-rec", "object": "chat.completion", "created": CREATED,
            "model": MODEL, "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                                         "message": message}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


def tool_call(name: str, arguments: str, call_id: str = "call_1") -> dict[str, Any]:
    """An assistant message that only calls a tool."""
    return {"role": "assistant", "content": None, "refusal": None,
            "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": name, "arguments": arguments}}]}


def chunks(content: str, *, size: int = 6) -> list[dict[str, Any]]:
    """`content` as the chunks a streaming server sends: the role first, the text in
    pieces of `size` characters, then the finish reason."""
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "chatcmpl-rec", "object": "chat.completion.chunk", "created": CREATED,
                "model": MODEL, "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                             "finish_reason": finish}]}

    pieces = [content[i:i + size] for i in range(0, len(content), size)]
    return ([chunk({"role": "assistant", "content": ""})]
            + [chunk({"content": p}) for p in pieces] + [chunk({}, "stop")])


class ChatServer(LoopbackJSONServer):
    """Answers each chat request with the next of `answers` (the last one repeats): whole,
    or in chunks when the request asks to stream. `fail_stream_after=n` sends n chunks of
    a streamed answer, then an error event (a stream that fails part-way)."""

    def __init__(self, *answers: str | dict[str, Any]) -> None:
        self.answers: list[str | dict[str, Any]] = list(answers) or ["OK."]
        self.fail_stream_after: int | None = None
        self.sent: list[list[dict[str, Any]]] = []  # the chunks of each streamed answer
        super().__init__(self._respond)

    def messages(self, n: int = -1) -> list[dict[str, Any]]:
        """The messages of the n-th request."""
        return list(self.requests[n]["body"]["messages"])

    def _respond(self, request: dict[str, Any]) -> tuple[int, Any]:
        answer = self.answers[min(len(self.requests) - 1, len(self.answers) - 1)]
        if not request["body"].get("stream"):
            return 200, completion(answer)
        assert isinstance(answer, str), "streamed answers are text"
        events = chunks(answer)
        if self.fail_stream_after is not None:
            events = events[:self.fail_stream_after]
            self.sent.append(events)
            return 200, EventStream([*events, {"error": {"message": "the model went away",
                                                         "type": "server_error"}}],
                                    done=False)
        self.sent.append(events)
        return 200, EventStream(events)

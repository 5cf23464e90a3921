"""Is a value a place? The location slot's patterns read "moved to X" and "搬到X", and X
is as often a thing the user switched to ("moved to Notion for my notes", "我们搬到飞书
了") as a town: "The user lives in Notion" is a wrong memory that reads as a fact.

Judged by meaning: the value's vector against the mean of a few short descriptions of
places ("a city", "一个区") and of things ("an app", "a bank", "一个软件"). A value clearly
nearer the things is not a place; nor is one not clearly nearer the places said in a line
the topic classes (topicscore.py) confidently put among the things one uses. The margin
is the embedder's own (measured in benchmarks/place_values.py); for an embedder with none
measured every value stays a place, as before.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .topicscore import topics_of

__all__ = ["LINE_FLOOR", "MARGIN", "THING_CLASSES", "PlaceJudge"]

PLACES = ("a city", "a town", "a country", "a neighbourhood", "a district of a city",
          "一个城市", "一个区", "一个国家")
THINGS = ("an app", "a software product", "a bank", "a brand", "a company",
          "a programming language", "一个软件", "一个应用", "一家公司")
# How much nearer the things a value must be to be judged not a place, per embedder: the
# smallest (of .00, .01, .02, .03, .05, .07) that keeps 45 of the 46 places of
# benchmarks/places/dev.jsonl. Losing a home to an open statement costs less than "The
# user lives in Notion".
MARGIN: dict[str, float] = {"use-m3": 0.05, "e5-small": 0.01, "minilm": 0.07}


@functools.lru_cache(maxsize=8)
def _prototypes(embedder: Any) -> tuple[np.ndarray, np.ndarray]:
    def mean(texts: tuple[str, ...]) -> np.ndarray:
        m = np.asarray(embedder.embed_documents(list(texts)), dtype=np.float32).mean(axis=0)
        return m / np.linalg.norm(m)
    return mean(PLACES), mean(THINGS)


# Topic classes (topicscore.py) of things one uses, not where one lives: a line confidently
# of one ("moved to Kotlin last sprint, way less boilerplate", "moved to Revolut bc my old
# bank kept charging fees") moved to a thing, whatever its name sounds like.
THING_CLASSES = frozenset({
    "bank", "code_editor", "coffee_tea_order", "computer_os", "file_format", "games_tv",
    "grocery_store", "music_taste", "notes_app", "notify_channel", "phone_device",
    "reading_genre", "social_media", "streaming_service", "work_chat_app", "work_language"})
LINE_FLOOR = 0.6


class PlaceJudge:
    """`judge(value, said)`: False when the value is clearly a thing, not a place, or the
    line it was said in is confidently about a thing one uses."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.margin = MARGIN.get(getattr(embedder, "name", ""))

    def nearer_things(self, value: str) -> float:
        """How much nearer the things than the places the value is (cosine)."""
        place, thing = _prototypes(self.embedder)
        v = np.asarray(self.embedder.embed_documents([value])[0], dtype=np.float32)
        return float(v @ thing - v @ place) / float(np.linalg.norm(v) or 1.0)

    def __call__(self, value: str, said: str = "") -> bool:
        if self.margin is None or not value.strip():
            return True
        nearer = self.nearer_things(value)
        if nearer >= self.margin:
            return False
        if nearer <= -self.margin:
            return True  # clearly a place, whatever else the line talks about ("…my bank…")
        topic = topics_of(self.embedder, [said])[0] if said.strip() else None
        return not (topic is not None and topic.name in THING_CLASSES
                    and topic.p >= LINE_FLOOR)

"""A write's arguments, validated into a request before anything is embedded or stored.

`prepare` checks every field as `remember()` documents it and returns the request the
commit takes (a plain dict: scope, content, slot, value, kind, source, source_text,
source_ref, confidence, tags, metadata, expires_at, valid_from, valid_to). A bad field
raises ValidationError here, so a failed call never reaches the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .. import validate as v
from ..errors import ValidationError
from ..ids import value_text
from ..model import Kind, Source
from ..timeutil import MAX_MS, duration_ms, to_ms
from ..understand.topics import topic_of

MAX_SOURCE_REF_CHARS = 512

# What one remember_many item may hold: remember's per-memory arguments and its scope.
ITEM_KEYS = frozenset({"scope", "content", "slot", "value", "kind", "source", "source_text",
                       "source_ref", "confidence", "tags", "metadata", "ttl", "expires_at",
                       "valid_from", "valid_to", "topic"})
# Kinds whose statements get a topic derived from their text when none is given: what
# the user prefers or is (turns, summaries and the graph are about many things at once).
TOPIC_KINDS = frozenset({Kind.PREFERENCE.value, Kind.FACT.value, Kind.PROFILE.value,
                         Kind.NOTE.value, Kind.EPISODE.value})

Request = dict[str, Any]


def prepare(clock: Callable[[], int], scope: Any, content: Any, *, slot: Any = None,
            value: Any = None, kind: Any = None, source: Any = Source.USER_EXPLICIT.value,
            source_text: Any = None, source_ref: Any = None, confidence: Any = 1.0,
            tags: Any = None, metadata: Any = None, ttl: Any = None,
            expires_at: Any = None, valid_from: Any = None, valid_to: Any = None,
            topic: Any = None) -> Request:
    """`clock`: read once, where a ttl starts counting. `topic`: what the statement is
    about; derived from the content (understand/topics.py) for a statement without a
    slot when not given."""
    sc = v.scope(scope)
    slot_ = v.slot(slot)
    value_ = None if value is None else v.json_value(value, "value")
    v.slot_value(slot_, value_)
    if content is None:
        if slot_ is None or value_ is None:
            raise ValidationError("content: required (or give slot and value)")
        content = f"{slot_}: {value_text(value_)}"
    content_ = v.text(content, "content", max_chars=v.MAX_CONTENT_CHARS)
    if ttl is not None and expires_at is not None:
        raise ValidationError("give ttl or expires_at, not both")
    now = clock()
    ttl_ms = duration_ms(ttl)
    exp = now + ttl_ms if ttl_ms is not None else to_ms(expires_at, field="expires_at")
    if exp is not None and exp > MAX_MS:
        raise ValidationError("ttl: the memory would expire after the year 9999")
    vf = to_ms(valid_from, field="valid_from", historic=True)
    vt = to_ms(valid_to, field="valid_to", historic=True)
    if vf is not None and vt is not None and vt <= vf:
        raise ValidationError("valid_to must be after valid_from")
    kind_ = v.kind(kind) if kind is not None else (
        Kind.PREFERENCE.value if slot_ else Kind.FACT.value)
    topic_ = v.topic(topic)
    if topic_ is None and slot_ is None and kind_ in TOPIC_KINDS:
        topic_ = topic_of(content_)
    return {
        "scope": sc, "content": content_, "slot": slot_, "value": value_, "kind": kind_,
        "topic": topic_,
        "source": v.source(source),
        "source_text": v.text(source_text, "source_text", max_chars=v.MAX_SOURCE_TEXT_CHARS,
                              required=False),
        "source_ref": v.text(source_ref, "source_ref", max_chars=MAX_SOURCE_REF_CHARS,
                             required=False),
        "confidence": v.confidence(confidence),
        "tags": None if tags is None else v.tags(tags),
        "metadata": None if metadata is None else v.metadata(metadata),
        "expires_at": exp, "valid_from": vf, "valid_to": vt,
    }


def prepare_items(clock: Callable[[], int], items: Any) -> list[Request]:
    """The items of a bulk write (each: remember's keyword arguments with `scope`), every
    one checked before any is stored."""
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        raise ValidationError("remember_many: expected a list of items (objects)")
    every = []
    for n, item in enumerate(items, start=1):
        if not isinstance(item, Mapping):
            raise ValidationError(f"remember_many: item {n} is not an object")
        item = dict(item)
        for key in ("actor", "reason", "expected_version", "trigger_text", "trace_id"):
            if key in item:
                raise ValidationError(f"remember_many: {key} is per batch, not per item")
        if unknown := sorted(set(item) - ITEM_KEYS):
            raise ValidationError(f"remember_many: item {n} has unknown fields "
                                  f"{', '.join(map(str, unknown))}")
        v.caller_metadata(item.get("metadata"))
        v.caller_value(item.get("slot"), item.get("value"))
        every.append(prepare(clock, item.pop("scope", None), item.pop("content", None),
                             **item))
    return every

"""Identifiers and content hashes: how a memory, a revision or a trace is named, and
how two statements are recognised as the same."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
import unicodedata
from typing import Any

from .timeutil import now_ms

_id_lock = threading.Lock()
_id_last = [0, 0]  # (ms, sequence within that ms) of this process's last id


def new_id(prefix: str) -> str:
    # Time-ordered, so ids sort by creation: within one millisecond a 16-bit sequence
    # keeps this process's ids in order (turn context relies on it, turnctx.py); 48
    # random bits keep concurrent writers apart.
    with _id_lock:
        ms = max(now_ms(), _id_last[0])
        seq = _id_last[1] + 1 if ms == _id_last[0] else 0
        if seq > 0xFFFF:
            ms, seq = ms + 1, 0
        _id_last[:] = [ms, seq]
    return f"{prefix}_{ms:012x}{seq:04x}{secrets.token_hex(6)}"


# What new_id makes: a prefix, then 28 hex digits (time, sequence, random).
_ID_SHAPE = re.compile(r"[a-z]{1,8}_[0-9a-f]{28}")


def is_id(text: str) -> bool:
    """Is `text` an identifier new_id made (it holds nothing anyone said)?"""
    return bool(_ID_SHAPE.fullmatch(text))


def content_hash(content: str, slot: str | None, value: Any) -> str:
    norm = " ".join(unicodedata.normalize("NFKC", content).casefold().split())
    payload = "\x1f".join((norm, slot or "", json.dumps(value, sort_keys=True,
                                                         ensure_ascii=False)))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def memory_hash(m: Any) -> str:
    """The content hash of a stored memory (what duplicate detection compares)."""
    return content_hash(m.content, m.slot, m.value)


def value_text(value: Any) -> str:
    """A slot value as the text of a memory that gives no content of its own."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

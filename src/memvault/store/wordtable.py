"""The word_vectors table (schema.py), the same on both SQL backends: a transaction
collects the words of the content it writes and, before it commits, stores the vectors of
those its tenant lacks (embedded in one batch); a purge deletes the words of what it
erases; a recall reads them (wordmatch.py). A backend supplies how a list travels as one
parameter (`any_of`) and how many rows are inserted at once (`insert_rows`)."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from ..wordmatch import MAX_MEMORY_WORDS, content_words

log = logging.getLogger("memvault")

# "column is one of the list in parameter `name`", and that list as the parameter holds it.
AnyOf = Callable[[str, str], str]
ListParam = Callable[[list[str]], Any]


def word_key(word: str) -> str:
    """What the table keys a word by: 128 bits of its BLAKE2b hash, in hex. The word itself
    is in no row and no index (schema.py)."""
    return hashlib.blake2b(word.encode("utf-8"), digest_size=16).hexdigest()


def said_words(texts: Iterable[str]) -> dict[str, None]:
    """The words of written content that get a vector: those a recall reads (the first
    MAX_MEMORY_WORDS of each text, as coverage reads a memory)."""
    out: dict[str, None] = {}
    for text in texts:
        out.update(dict.fromkeys(content_words(text, MAX_MEMORY_WORDS)))
    return out


def erased_words(texts: Iterable[str | None]) -> list[str]:
    """Every word of erased content (no limit: a word past the first MAX_MEMORY_WORDS
    may have been among them in another version)."""
    out: dict[str, None] = {}
    for text in texts:
        if text:
            out.update(dict.fromkeys(content_words(text)))
    return list(out)


def state_contents(rows: Iterable[Any]) -> list[str | None]:
    """The content of each revision state (JSON text) among `rows` (column "state")."""
    out: list[str | None] = []
    for r in rows:
        if r["state"] is not None:
            content = json.loads(r["state"]).get("content")
            out.append(content if isinstance(content, str) else None)
    return out


def missing(conn: Any, ph: Callable[[str], str], any_of: AnyOf, as_list: ListParam,
            tenant: str, model: str, words: list[str]) -> list[str]:
    """Those of `words` the tenant has no vector of (in this transaction's view)."""
    keys = {word_key(w): w for w in words}
    rows = conn.execute(
        f"SELECT word_key FROM word_vectors WHERE tenant = {ph('tenant')} AND "
        f"model = {ph('model')} AND {any_of('word_key', 'keys')}",
        {"tenant": tenant, "model": model, "keys": as_list(list(keys))}).fetchall()
    have = {keys[r["word_key"]] for r in rows}
    return [w for w in words if w not in have]


def insert_sql(ph: Callable[[str], str]) -> str:
    # Rows in key order and DO NOTHING: two writers of one word (PostgreSQL) wait, never
    # deadlock.
    return ("INSERT INTO word_vectors (tenant, model, word_key, vec) VALUES "
            f"({ph('tenant')}, {ph('model')}, {ph('key')}, {ph('vec')}) "
            "ON CONFLICT (tenant, model, word_key) DO NOTHING")


def delete_sql(ph: Callable[[str], str], any_of: AnyOf) -> str:
    # Every model's: a word an erased text said goes whatever embedded it.
    return (f"DELETE FROM word_vectors WHERE tenant = {ph('tenant')} AND "
            f"{any_of('word_key', 'keys')}")


def select_sql(ph: Callable[[str], str], any_of: AnyOf) -> str:
    return (f"SELECT word_key, vec FROM word_vectors WHERE tenant = {ph('tenant')} AND "
            f"model = {ph('model')} AND {any_of('word_key', 'keys')}")

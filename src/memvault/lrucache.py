"""A bounded, thread-safe cache that forgets what was used least recently: what the
write and read paths keep of text they will see again (a stored memory's topic class, a
candidate's vector from a second embedder), without growing with the store. Caches of
text key it by `text_digest`: they hold no text, so a purged memory's words do not stay in
a process's memory until they are evicted."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def text_digest(text: str) -> bytes:
    """A 128-bit key for `text` that does not hold it."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class LRUCache(Generic[K, V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[K, V] = OrderedDict()

    def get_many(self, keys: Iterable[K]) -> dict[K, V]:
        """The cached values of `keys` (those it holds), each now the most recent."""
        with self._lock:
            found = {k: self._items[k] for k in keys if k in self._items}
            for k in found:
                self._items.move_to_end(k)
        return found

    def put_many(self, items: Iterable[tuple[K, V]]) -> None:
        """Keep these, the most recent first to go last; forget the least recent beyond
        `size`."""
        with self._lock:
            for k, v in items:
                self._items[k] = v
                self._items.move_to_end(k)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

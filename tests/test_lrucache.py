"""The bounded cache the topic classes and the embedder reranker keep text in."""

from __future__ import annotations

from memvault.lrucache import LRUCache


def test_the_least_recently_used_goes_first_and_a_read_counts_as_a_use() -> None:
    c: LRUCache[str, int] = LRUCache(2)
    c.put_many([("a", 1), ("b", 2)])
    assert c.get_many(["a", "zz"]) == {"a": 1}  # "a" is now the most recent
    c.put_many([("c", 3)])
    assert c.get_many(["a", "b", "c"]) == {"a": 1, "c": 3} and len(c) == 2
    c.put_many([("a", 10)])  # a new value for a key it holds replaces it
    assert c.get_many(["a"]) == {"a": 10} and len(c) == 2


def test_a_text_digest_is_stable_distinct_and_holds_no_text() -> None:
    from memvault.lrucache import text_digest

    a, b = text_digest("my door code is 4821"), text_digest("my door code is 4822")
    assert a == text_digest("my door code is 4821") and a != b and len(a) == 16
    assert b"4821" not in a and b"door" not in a

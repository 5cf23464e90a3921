"""Bulk import speed, excluding embedding: memories/s through `Vault.import_jsonl`.

Usage (from the project root)::

    python benchmarks/import_speed.py [--memories 20000] [--users 200] [--batch 2000]
                                      [--json FILE] [--plain]

The workload is benchmarks/scale.py's (`build_records`: chat-like memories dealt out to
users, a turn, fact or preference each, with history), imported into a fresh SQLite
file with `atomic=False` in batches of `--batch`, as scale.py loads it. Every distinct
content and every word a write stores a vector of is embedded before the timer starts
and served from memory, so the figure is the import's own work. To compare two source
trees, interleaved: `python benchmarks/ab.py --script import_speed.py --a OLD/src --b src
--rounds 4`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from machine import src_hash  # noqa: E402
from scale import CachedEmbedder, build_records, stored_texts  # noqa: E402

FIGURE_SPECS = [("import_per_s", "bulk import /s (excluding embedding)", "/s", "higher")]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--memories", type=int, default=20_000)
    p.add_argument("--users", type=int, default=200)
    p.add_argument("--batch", type=int, default=2000)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--json", type=Path, help="the figures as JSON, for ab.py")
    p.add_argument("--plain", action="store_true", help="markdown only (no colour)")
    args = p.parse_args()

    import memvault
    from memvault import Vault
    from memvault.embed import load_embedder

    lines = build_records(args.memories, args.users, args.seed)
    texts = sorted(stored_texts(lines))
    emb = load_embedder("use-m3")
    cache = {}
    for i in range(0, len(texts), 1024):
        chunk = texts[i:i + 1024]
        cache.update(zip(chunk, emb.embed_documents(chunk), strict=True))
    with tempfile.TemporaryDirectory() as d:
        vault = Vault(str(Path(d) / "import.db"), embedder="use-m3", actor="bench:import")
        vault.embedders = [CachedEmbedder(vault.embedders[0], cache, queries_cached=True)]
        t = time.perf_counter()
        vault.import_jsonl(lines, batch=args.batch, atomic=False)
        elapsed = time.perf_counter() - t
        count = vault.store.count()
        vault.close()
    n = len(lines) - 1
    if count != n:
        raise SystemExit(f"imported {count} of {n} memories")
    figures = {"import_per_s": n / elapsed}
    print(f"| metric | value |\n|---|---:|\n| bulk import /s (excluding embedding) | "
          f"{figures['import_per_s']:,.0f} |\n\n{n:,} memories, {args.users:,} users, batches "
          f"of {args.batch:,}; memvault from {Path(memvault.__file__).parent}")
    if args.json:
        args.json.write_text(json.dumps({
            "figures": figures, "figure_specs": FIGURE_SPECS,
            "memvault": str(Path(memvault.__file__).parent), "sources": src_hash(),
            "machine": {"python": sys.version.split()[0]}}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Is "X" in "moved to X" / "搬到X" a place? (placevalue.py) Measured on two lists of
values, each with a chat line that uses it: `places/dev.jsonl` (the values the judge's
descriptions and margins were chosen on) and `places/heldout.jsonl` (written afterwards by
a helper who had not seen the code or the dev list, and measured once).

Usage (from the project root)::

    python benchmarks/place_values.py [--embedders use-m3,e5-small,minilm]

Prints, per embedder and list: places kept as places, things no longer read as places,
at the embedder's margin (placevalue.MARGIN; "-" when it has none: every value stays a
place, the behaviour before the judge), and the value of `nearer_things` at which the
two kinds are best told apart on that list. Then, on the default embedder, what
`observe()` stores for each list's lines: a location slot or not.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "src"))

from memvault import Scope, Vault  # noqa: E402
from memvault.embed import load_embedder  # noqa: E402
from memvault.placevalue import MARGIN, PlaceJudge  # noqa: E402


def load(name: str) -> list[dict]:
    return [json.loads(x) for x in (ROOT / "places" / name).read_text().splitlines() if x]


def best_cut(rows: list[tuple[float, str]]) -> tuple[float, float]:
    """The margin that tells the most rows apart on this list, and the share it does."""
    cuts = sorted({s for s, _ in rows})
    best = (0.0, 0.0)
    for c in cuts:
        right = sum((s > c) == (k == "thing") for s, k in rows) / len(rows)
        best = max(best, (right, c))
    return best[1], best[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedders", default="use-m3,e5-small,minilm")
    args = ap.parse_args()
    lists = {"dev": load("dev.jsonl"), "heldout": load("heldout.jsonl")}
    print("| embedder | list | places | things | margin | places kept | things caught "
          "| best margin on the list (right) |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for name in args.embedders.split(","):
        judge = PlaceJudge(load_embedder(name))
        for lst, rows in lists.items():
            scored = [(judge.nearer_things(r["value"]), r["kind"]) for r in rows]
            places = [s for s, k in scored if k == "place"]
            things = [s for s, k in scored if k == "thing"]
            m = MARGIN.get(name)
            kept = sum(s <= m for s in places) if m is not None else len(places)
            caught = sum(s > m for s in things) if m is not None else 0
            cut, right = best_cut(scored)
            print(f"| {name} | {lst} | {len(places)} | {len(things)} | "
                  f"{'-' if m is None else m} | {kept}/{len(places)} | {caught}/{len(things)} "
                  f"| {cut:+.3f} ({right:.0%}) |")
    print()
    print("observe() on the default embedder: lines stored with a location slot")
    print("| list | kind | lines | location slot |")
    print("|---|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        vault = Vault(Path(tmp) / "places.db")
        try:
            for lst, rows in lists.items():
                for kind in ("place", "thing"):
                    mine = [r for r in rows if r["kind"] == kind]
                    slotted = 0
                    for i, r in enumerate(mine):
                        sc = Scope("places", f"{lst}-{kind}-{i}")
                        vault.observe(sc, [{"role": "user", "content": r["line"]}])
                        slotted += any(m.slot == "user.location" and m.status == "active"
                                       for m in vault.list(sc))
                    print(f"| {lst} | {kind} | {len(mine)} | {slotted} |")
        finally:
            vault.close()


if __name__ == "__main__":
    main()

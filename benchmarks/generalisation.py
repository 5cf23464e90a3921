"""The generalisation set (benchmarks/generalisation/README.md): what fresh chat lines do
to stored memory, against what a careful human memory-keeper expects.

Usage (from the project root)::

    python benchmarks/generalisation.py [--data benchmarks/generalisation]
        [--lang en|zh] [--half dev|heldout] [--failures] [--json FILE]
        [--extractor rules] [--embedder use-m3] [--background N]

Prints, per language and half, how many cases are right, the silent overwrites and the
set-up failures; then the development half per category. `--failures` lists the
development half's failed cases with what went wrong; held-out failures are never
printed (tuning must not see them) unless `--reveal-heldout` is given for a final
report, which then prints only their ids and categories.

`--background N` stores N unrelated statements in each case's user scope first (the
`given` statements of other cases of the same language, none word for word one of the
case's own, chosen by a fixed seed), as a
user with a real history would have: a change or a retraction must still find its own
memory among them, and a background memory that changes is a silent overwrite.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
DAY = 86_400_000
START = 1_767_225_600_000  # 2026-01-01 UTC: each case's clock starts here


def half(case_id: str) -> str:
    """The fixed split: held-out when the first byte of sha256(id) is odd."""
    return "heldout" if hashlib.sha256(case_id.encode()).digest()[0] % 2 else "dev"


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> int:
        return self.now


@dataclass
class Result:
    case: dict[str, Any]
    right: bool = False
    setup_failed: bool = False
    overwrites: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _text(m: Any) -> str:
    value = "" if m.value is None else json.dumps(m.value, ensure_ascii=False)
    return f"{m.content} {value}".casefold()


def _has(m: Any, words: list[str]) -> bool:
    t = _text(m)
    return all(w.casefold() in t for w in words)


def _match(specs: list[dict[str, Any]], mems: list[Any]) -> list[dict[str, Any]]:
    """The specs no distinct memory satisfies (a small bipartite matching)."""
    def assign(i: int, used: frozenset[str]) -> list[dict[str, Any]] | None:
        if i == len(specs):
            return []
        best: list[dict[str, Any]] | None = None
        for m in mems:
            if m.id not in used and _has(m, specs[i].get("has", [])):
                rest = assign(i + 1, used | {m.id})
                if rest is not None and (best is None or len(rest) < len(best)):
                    best = rest
                    if not rest:
                        break
        skipped = assign(i + 1, used)
        skipped = None if skipped is None else [specs[i], *skipped]
        if best is None or (skipped is not None and len(skipped) < len(best)):
            return skipped
        return best
    return assign(0, frozenset()) or []


def _memories(vault: Any, scope: Any) -> list[Any]:
    return [m for m in vault.list(scope, limit=10_000) if m.kind != "turn"]


def _messages(item: Any) -> list[dict[str, str]]:
    if isinstance(item, str):
        return [{"role": "user", "content": item}]
    return [{"role": m["role"], "content": m["content"]} for m in item]


def _batch(case_id: str) -> str:
    """ "en-017" is of the first set, "zh2-101" of the second, "en4-005" of the fourth."""
    tag = case_id.split("-")[0]
    return tag[2:] or "1"


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def run_case(vault: Any, clock: Clock, case: dict[str, Any], extractor: str,
             background: list[str] | None = None) -> Result:
    from memvault import Scope
    from memvault.errors import MemvaultError

    res = Result(case)
    scope = Scope("gen", case["id"])
    clock.now = START
    labels: dict[str, list[str]] = {}
    if background:
        labels["(background)"] = [r.memory.id for r in vault.remember_many(
            [{"scope": scope, "content": text} for text in background])]
    t0 = time.perf_counter()
    for step in case.get("given", []):
        clock.now += DAY
        if "say" in step:
            out = vault.observe(scope, _messages(step["say"]), extractor=extractor)
            ids = [o.memory_id for o in out.outcomes
                   if o.action in ("added", "updated") and o.memory_id]
            if not ids:
                res.setup_failed = True
                res.problems.append(f"set-up stored nothing: {step['say']!r}")
                return res
            labels.setdefault(step["as"], [])
            labels[step["as"]] += [i for i in ids if i not in labels[step["as"]]]
        elif "remember" in step:
            labels[step["as"]] = [vault.remember(scope, step["remember"]).memory.id]
        elif "freeze" in step:
            for mid in labels[step["freeze"]]:
                vault.freeze(scope, mid, reason="generalisation set-up")
    if "(background)" in labels:
        # A set-up line that updated a background memory (a slot both hold) made it the
        # case's own: what the case expects of it is what counts, not "unchanged".
        mine = {i for k, ids in labels.items() if k != "(background)" for i in ids}
        labels["(background)"] = [i for i in labels["(background)"] if i not in mine]
    before = {m.id: m for m in _memories(vault, scope)}
    errors = []
    for item in case["say"]:
        clock.now += DAY
        try:
            vault.observe(scope, _messages(item), extractor=extractor)
        except MemvaultError as e:
            errors.append(f"{e.code}: {e.message}")
    res.seconds = time.perf_counter() - t0
    res.problems += [f"observe raised {e}" for e in errors]
    after = {m.id: m for m in _memories(vault, scope)}
    expect = case["expect"]

    def changed(mid: str) -> bool:
        a, b = before[mid], after[mid]
        return (a.content, a.value, a.status) != (b.content, b.value, b.status)

    for label, ids in labels.items():
        spec = expect.get(label) or {"effect": "same"}
        effect = spec.get("effect", "same")
        mems = [after[i] for i in ids]
        if effect in ("same", "block"):
            moved = [i for i in ids if changed(i)]
            if moved:
                res.overwrites.append(label)
                res.problems.append(f"{label}: expected unchanged, now "
                                    + "; ".join(f"{after[i].status} v{after[i].version} "
                                                f"{after[i].content!r}" for i in moved))
            if effect == "block" and not any(
                    r.op == "blocked" for i in ids for r in vault.history(scope, i)):
                res.problems.append(f"{label}: no blocked revision")
        elif effect == "update":
            ok = [m for m in mems if m.status == "active" and m.version > before[m.id].version
                  and changed(m.id) and _has(m, spec.get("has", []))]
            if not ok:
                res.problems.append(f"{label}: expected an update with {spec.get('has')}, "
                                    "now " + "; ".join(f"{m.status} v{m.version} "
                                                       f"{m.content!r}" for m in mems))
            if any(m.status != "active" for m in mems):
                res.problems.append(f"{label}: a memory of it is no longer active")
        elif effect == "forget":
            if any(m.status == "active" for m in mems):
                res.problems.append(f"{label}: expected forgotten, still active")
        else:
            res.problems.append(f"{label}: unknown effect {effect!r}")
    new = [m for m in after.values() if m.id not in before]
    added = [m for m in new if m.status == "active"]
    staged = [m for m in new if m.status == "pending"]
    for key, pool in (("new", added), ("staged", staged)):
        if key not in expect:
            continue
        specs = expect[key]
        if not specs and pool:
            res.problems.append(f"{key}: expected none, got "
                                + "; ".join(repr(m.content) for m in pool))
        for miss in _match(specs, pool):
            res.problems.append(f"{key}: nothing with {miss.get('has', [])}; got "
                                + ("; ".join(repr(m.content) for m in pool) or "none"))
    for word in expect.get("not_active", []):
        hit = [m for m in after.values() if m.status == "active"
               and word.casefold() in _text(m)]
        if hit:
            res.problems.append(f"not_active {word!r}: in {hit[0].content!r}")
    if expect.get("absent"):
        buf = io.StringIO()
        vault.export_jsonl(scope, buf)
        dump = buf.getvalue()
        for word in expect["absent"]:
            if word in dump:
                res.problems.append(f"absent {word!r}: stored")
    res.right = not res.problems
    return res


def load(data: Path, langs: list[str]) -> list[dict[str, Any]]:
    cases = []
    for lang in langs:
        for path in sorted(data.glob(f"{lang}*.jsonl")):  # en.jsonl, en2.jsonl, …
            cases += _read(path, lang)
    return cases


def _read(path: Path, lang: str) -> list[dict[str, Any]]:
    cases = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            case = json.loads(line)
            case.setdefault("lang", lang)
            case["_where"] = f"{path.name}:{n}"
            cases.append(case)
    return cases


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT / "generalisation")
    ap.add_argument("--lang", choices=["en", "zh"], action="append")
    ap.add_argument("--half", choices=["dev", "heldout"])
    ap.add_argument("--category", action="append")
    ap.add_argument("--batch", choices=[str(n) for n in range(1, 13)],
                    help="only one set: the first (en.jsonl, zh.jsonl), the second (en2, "
                    "zh2), … the eleventh (en11, zh11)")
    ap.add_argument("--failures", action="store_true",
                    help="print the development half's failures")
    ap.add_argument("--reveal-heldout", action="store_true",
                    help="final report only: list held-out failures by id and category")
    ap.add_argument("--extractor", default="rules")
    ap.add_argument("--embedder", default=None)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--background", type=int, default=0,
                    help="unrelated statements stored in each case's scope first")
    a = ap.parse_args(argv)
    from memvault import Vault

    cases = load(a.data, a.lang or ["en", "zh"])
    if a.half:
        cases = [c for c in cases if half(c["id"]) == a.half]
    if a.category:
        cases = [c for c in cases if c.get("category") in a.category]
    if a.batch:
        cases = [c for c in cases if _batch(c["id"]) == a.batch]
    clock = Clock()
    results: list[Result] = []
    t = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memvault-gen-") as tmp:
        vault = Vault(Path(tmp) / "gen.db", embedder=a.embedder, clock=clock,
                      actor="generalisation")
        try:
            pools: dict[str, list[tuple[str, str]]] = defaultdict(list)
            for c in load(a.data, ["en", "zh"]):
                pools[c["lang"]] += [(c["id"], g["say"]) for g in c.get("given", [])
                                     if "say" in g and isinstance(g["say"], str)]
            for case in cases:
                rng = random.Random(case["id"])
                # Another case's statement word for word the same as one of this case's
                # own is not unrelated history: it is this case's memory stored twice.
                own = {_key(g.get("say") or g.get("remember") or "")
                       for g in case.get("given", []) if isinstance(g.get("say", ""), str)}
                others = list(dict.fromkeys(t for cid, t in pools[case["lang"]]
                                            if cid != case["id"] and _key(t) not in own))
                back = rng.sample(others, min(a.background, len(others)))
                results.append(run_case(vault, clock, case, a.extractor, back))
        finally:
            vault.close()
    wall = time.perf_counter() - t
    table: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    cats: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for r in results:
        key = (r.case["lang"], half(r.case["id"]))
        table[key]["n"] += 1
        table[key]["right"] += r.right
        table[key]["overwrites"] += len(r.overwrites)
        table[key]["setup"] += r.setup_failed
        if key[1] == "dev":
            cats[(r.case["lang"], r.case.get("category", "?"))]["n"] += 1
            cats[(r.case["lang"], r.case.get("category", "?"))]["right"] += r.right
    print(f"generalisation set: {len(results)} cases, {wall:.0f} s, "
          f"extractor {a.extractor}, background {a.background}")
    print("| lang | half | cases | right | % right | silent overwrites | set-up failures |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for (lang, h), c in sorted(table.items()):
        print(f"| {lang} | {h} | {c['n']} | {c['right']} | {100 * c['right'] / c['n']:.1f} "
              f"| {c['overwrites']} | {c['setup']} |")
    sets: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    for r in results:
        key3 = (_batch(r.case["id"]), r.case["lang"], half(r.case["id"]))
        sets[key3]["n"] += 1
        sets[key3]["right"] += r.right
        sets[key3]["overwrites"] += len(r.overwrites)
    print("\nby set:")
    print("| set | lang | half | cases | % right | silent overwrites |")
    print("|---|---|---|---:|---:|---:|")
    for (b, lang, h), c in sorted(sets.items(), key=lambda kv: (int(kv[0][0]), kv[0][1:])):
        print(f"| {b} | {lang} | {h} | {c['n']} | {100 * c['right'] / c['n']:.1f} "
              f"| {c['overwrites']} |")
    print("\ndevelopment half by category:")
    print("| lang | category | cases | right |")
    print("|---|---|---:|---:|")
    for (lang, cat), c in sorted(cats.items()):
        print(f"| {lang} | {cat} | {c['n']} | {c['right']} |")
    if a.failures:
        print("\ndevelopment failures:")
        for r in results:
            if not r.right and half(r.case["id"]) == "dev":
                print(f"- {r.case['id']} [{r.case.get('category')}] "
                      f"{json.dumps(r.case['say'], ensure_ascii=False)}")
                for p in r.problems:
                    print(f"    {p}")
    if a.reveal_heldout:
        wrong = [r for r in results if not r.right and half(r.case["id"]) == "heldout"]
        print("\nheld-out failures (ids only): "
              + ", ".join(f"{r.case['id']} [{r.case.get('category')}]" for r in wrong))
    if a.json:
        a.json.write_text(json.dumps({
            "cases": len(results), "seconds": wall, "extractor": a.extractor,
            "table": {f"{k[0]}/{k[1]}": dict(v) for k, v in table.items()},
            "results": [{"id": r.case["id"], "half": half(r.case["id"]), "right": r.right,
                         "overwrites": r.overwrites} for r in results],
        }, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

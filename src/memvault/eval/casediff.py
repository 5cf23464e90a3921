"""What changed between two case snapshots (casereport.py), case by case, and the
styled cells of a comparison: Rich Text, rendered by any console, never markup that a
console with markup off would print raw."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

CASE_METRICS: tuple[str, ...] = ("R@1", "R@5", "R@10", "P@1", "P@5", "MRR", "nDCG@10")


def _violation_keys(e: dict[str, Any]) -> set[str]:
    return {f"{x['kind']}:{x['item'] or x['text']}" for x in e["violations"]}


def case_changes(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Per case in both snapshots: metric differences B − A, expected items that moved,
    violations that appeared or went, facts newly found or lost. Unchanged cases are
    left out."""
    ca = {e["id"]: e for e in a.get("cases", [])}
    cb = {e["id"]: e for e in b.get("cases", [])}
    changed: list[dict[str, Any]] = []
    for cid, ea in ca.items():
        eb = cb.get(cid)
        if eb is None:
            continue
        ma, mb = ea["metrics"] or {}, eb["metrics"] or {}
        diff = {k: mb[k] - ma[k] for k in CASE_METRICS if k in ma and k in mb}
        moved = {g: [ea["gold_ranks"].get(g), eb["gold_ranks"].get(g)]
                 for g in eb["gold_ranks"] if ea["gold_ranks"].get(g) != eb["gold_ranks"][g]}
        va, vb = _violation_keys(ea), _violation_keys(eb)
        fa, fb = set(ea["facts_found"]), set(eb["facts_found"])
        row = {"id": cid, "diff": diff, "moved": moved,
               "violations_new": sorted(vb - va), "violations_gone": sorted(va - vb),
               "facts_found": sorted(fb - fa), "facts_lost": sorted(fa - fb)}
        if any(abs(d) >= 5e-4 for d in diff.values()) or any(
                row[k] for k in ("moved", "violations_new", "violations_gone",
                                 "facts_found", "facts_lost")):
            changed.append(row)
    return {"changed": changed, "only_in_a": sorted(set(ca) - set(cb)),
            "only_in_b": sorted(set(cb) - set(ca)),
            "violations": [a.get("violations", 0), b.get("violations", 0)]}


def diff_text(d: float | None) -> Text:
    """A difference as styled text: Rich renders it (colour on a terminal, plain text in
    a pipe); it is never markup that a console with markup off would print raw."""
    if d is None:
        return Text("—")
    if abs(d) < 5e-4:
        return Text("0", style="dim")
    return Text(f"{d:+.3f}", style="green" if d > 0 else "red")


def case_change_table(changes: dict[str, Any]) -> Table:
    t = Table(title=Text(f"cases that changed (B − A); must-not-appear violations "
                         f"{changes['violations'][0]} → {changes['violations'][1]}"),
              title_justify="left", box=box.SIMPLE_HEAD)
    for col in ("case", "R@5", "MRR", "expected moved", "violations", "facts"):
        t.add_column(col)
    for row in changes["changed"]:
        moved = ", ".join(f"{g} {a or '—'}→{b or '—'}" for g, (a, b) in row["moved"].items())
        viol = Text()
        for v in row["violations_new"]:
            viol.append(f"+{v} ", style="red")
        for v in row["violations_gone"]:
            viol.append(f"-{v} ", style="green")
        facts = Text()
        for f in row["facts_found"]:
            facts.append(f"+{f} ", style="green")
        for f in row["facts_lost"]:
            facts.append(f"-{f} ", style="red")
        t.add_row(Text(row["id"]), diff_text(row["diff"].get("R@5")),
                  diff_text(row["diff"].get("MRR")), Text(moved), viol, facts)
    return t

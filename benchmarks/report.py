"""The core benchmark's report: the result table (rich, or markdown with --plain/--out),
the targets of the issue, the machine, and the key figures as JSON (--json, for ab.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
from measure_recall import CONVERSATION_LINES, STAGES, TOP_K, RecallStats
from measure_writes import WriteStats
from timing import mib, ms, pct

TARGET_RECALL_P95_MS = 25.0
TARGET_WRITES_PER_S = 500.0


def build_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(metric, value, note) rows of the result table."""
    b: WriteStats = r["build"]
    s: WriteStats | None = r.get("store")
    rc: RecallStats = r["recall"]
    sizes = r["sizes"]
    rows = [
        ("memories (rows after build)", f"{r['rows']:,}",
         f"{r['users']:,} users; {b.writes:,} writes: "
         + ", ".join(f"{k} {v:,}" for k, v in sorted(b.actions.items()))),
        ("revisions / FTS rows / vectors", f"{r['revisions']:,} / {r['fts_rows']:,} / "
         f"{r['vectors']:,}", ""),
        ("writes/s, with embedding (batch)", f"{b.writes / b.wall:,.0f}",
         f"remember_many batch={r['batch']}; {b.wall:,.1f} s for {b.writes:,} writes"),
        ("  of which embedding", f"{b.embed:,.1f} s ({b.embed / b.wall:.0%})",
         f"{b.embed / b.writes * 1000:.2f} ms/write; {b.writes / b.embed:,.0f} texts/s"),
        ("  of which store transactions", f"{b.tx:,.1f} s ({b.tx / b.wall:.0%})",
         f"{b.tx / b.writes * 1000:.2f} ms/write (rows, FTS, vectors, revisions, COMMIT)"),
        ("  of which other (_prepare, ...)", f"{b.other:,.1f} s ({b.other / b.wall:.0%})",
         f"{b.other / b.writes * 1000:.2f} ms/write"),
        ("writes/s, store only (in-run)", f"{b.writes / (b.wall - b.embed):,.0f}",
         "same build, embedding time subtracted"),
    ]
    if s is not None and s.writes:
        rows.append(("writes/s, store only (replay)", f"{s.writes / s.wall:,.0f}",
                     f"{s.writes:,} writes for {r['store_users']} new users, vectors "
                     f"precomputed; tx {s.tx / s.writes * 1000:.2f} ms/write"))
    if r["single"]:
        lat = r["single"]
        rows.append(("single remember() p50 / p95 / p99 ms",
                     f"{ms(pct(lat, 50))} / {ms(pct(lat, 95))} / {ms(pct(lat, 99))}",
                     f"{len(lat)} calls (" + ", ".join(
                         f"{k} {v}" for k, v in sorted(r["single_actions"].items()))
                     + "); embed 1 text + COMMIT (synchronous=FULL)"))
    rows += [
        ("recall p50 / p95 / p99 ms, with query embedding",
         f"{ms(pct(rc.e2e, 50))} / {ms(pct(rc.e2e, 95))} / {ms(pct(rc.e2e, 99))}",
         f"vault.recall top_k={TOP_K}, {len(rc.e2e)} queries, mean "
         f"{np.mean(rc.hits):.1f} hits"),
        ("recall p50 / p95 / p99 ms, without query embedding",
         f"{ms(pct(rc.no_embed, 50))} / {ms(pct(rc.no_embed, 95))} / "
         f"{ms(pct(rc.no_embed, 99))}",
         f"same queries, query vectors precomputed; top-10 identical to the run with "
         f"embedding for {len(rc.e2e) - rc.mismatches}/{len(rc.e2e)}"),
        (f"recall p50 / p95 / p99 ms, {CONVERSATION_LINES}-line conversation query",
         f"{ms(pct(rc.conversation, 50))} / {ms(pct(rc.conversation, 95))} / "
         f"{ms(pct(rc.conversation, 99))}",
         f"{len(rc.conversation)} queries of {CONVERSATION_LINES} of the queries above as "
         "User/Assistant lines: line votes embed and search each line"),
        ("  query embedding alone p50 / p95 / p99 ms",
         f"{ms(pct(rc.embed, 50))} / {ms(pct(rc.embed, 95))} / {ms(pct(rc.embed, 99))}",
         "embed_query of each embedder"),
    ]
    for name in STAGES:
        xs = rc.stages.get(name, [])
        rows.append((f"  {name} p50 / p95 ms", f"{ms(pct(xs, 50))} / {ms(pct(xs, 95))}",
                     "in the run without query embedding"))
    total = sum(sizes.values())
    rows += [
        ("db file size", mib(total),
         f"db {mib(sizes['db'])} + wal {mib(sizes['-wal'])} + shm {mib(sizes['-shm'])}; "
         f"{total / max(r['rows'], 1):,.0f} B/memory"),
    ]
    for name, size in r["tables"]:
        if size < total / 1000:  # schema, meta, ...
            continue
        rows.append((f"  {name}", mib(size), f"{size / max(r['rows'], 1):,.0f} B/memory"))
    rows += [
        ("peak RSS", f"{r['peak_rss']:,.0f} MiB",
         f"before build (model + workload): {r['rss_before_build']:,.0f} MiB; "
         f"after build {r['rss_after_build']:,.0f}; after recall "
         f"{r['rss_after_recall']:,.0f}"),
        ("total wall time", f"{r['wall']:,.1f} s",
         f"data gen {r['t_gen']:.1f} s, model load {r['t_load']:.1f} s"),
        ("load average (start -> end)", r["loadavg"], "other processes on the machine"),
    ]
    return rows


def target_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    b: WriteStats = r["build"]
    p95 = pct(r["recall"].e2e, 95) * 1000
    wps = b.writes / b.wall
    return [
        (f"TARGET recall p95 <= {TARGET_RECALL_P95_MS:g} ms incl. query embedding",
         f"{p95:.1f} ms", "PASS" if p95 <= TARGET_RECALL_P95_MS else "FAIL"),
        (f"TARGET >= {TARGET_WRITES_PER_S:g} writes/s incl. embedding, batch",
         f"{wps:,.0f}/s", "PASS" if wps >= TARGET_WRITES_PER_S else "FAIL"),
    ]


def markdown(r: dict[str, Any]) -> str:
    def esc(s: str) -> str:
        return s.replace("|", "\\|")

    lines = ["# memvault core benchmark", "",
             f"`{r['command']}`  ", f"{r['date']}", "",
             "| metric | value | note |", "|---|---:|---|"]
    lines += [f"| {esc(a)} | {esc(b)} | {esc(c)} |" for a, b, c in build_rows(r)]
    lines += ["", "| target | measured | result |", "|---|---:|---|"]
    lines += [f"| {esc(a)} | {esc(b)} | **{c}** |" for a, b, c in target_rows(r)]
    lines += ["", "| machine | |", "|---|---|"]
    lines += [f"| {esc(a)} | {esc(b)} |" for a, b in r["machine"]]
    return "\n".join(lines) + "\n"


def print_report(r: dict[str, Any], plain: bool) -> None:
    if plain:
        print(markdown(r))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console()
    t = Table(title=f"memvault core benchmark — {r['command']}", title_justify="left")
    t.add_column("metric")
    t.add_column("value", justify="right")
    t.add_column("note", overflow="fold")
    for a, b, c in build_rows(r):
        t.add_row(a, b, c)
    console.print(t)
    tt = Table(title="targets (issue)", title_justify="left")
    tt.add_column("target")
    tt.add_column("measured", justify="right")
    tt.add_column("result")
    for a, b, c in target_rows(r):
        tt.add_row(a, b, f"[bold {'green' if c == 'PASS' else 'red'}]{c}[/]")
    console.print(tt)
    mt = Table(title="machine", title_justify="left", show_header=False)
    mt.add_column()
    mt.add_column(overflow="fold")
    for a, b in r["machine"]:
        mt.add_row(a, b)
    console.print(mt)



def key_figures(r: dict[str, Any]) -> dict[str, float | None]:
    """The figures benchmarks/ab.py compares, unrounded: writes/s, latencies in ms."""
    b: WriteStats = r["build"]
    s: WriteStats | None = r.get("store")
    rc: RecallStats = r["recall"]

    def p_ms(xs: list[float], q: float) -> float | None:
        return pct(xs, q) * 1000 if xs else None

    return {
        "writes_per_s": b.writes / b.wall,
        "store_writes_per_s_in_run": b.writes / (b.wall - b.embed),
        "store_writes_per_s_replay": s.writes / s.wall if s is not None and s.writes else None,
        "recall_p50_ms": p_ms(rc.e2e, 50),
        "recall_p95_ms": p_ms(rc.e2e, 95),
        "recall_p50_no_embed_ms": p_ms(rc.no_embed, 50),
        "recall_p95_no_embed_ms": p_ms(rc.no_embed, 95),
        "single_remember_p95_ms": p_ms(r["single"], 95),
    }

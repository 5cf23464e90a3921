"""A case run's report as one self-contained HTML page: the figures, each case, the
must-not-appear violations and the score distribution drawn as an inline SVG histogram
(no matplotlib needed; the PNG beside it is drawn when matplotlib is installed).

Every text of a case (queries, memory text, ids) is data: escaped, never markup.
"""

from __future__ import annotations

from html import escape
from typing import Any

from .casediff import CASE_METRICS

SERIES = (("top1_hit", "top-1 expected", "#2e7d32"), ("top1_miss", "top-1 not expected",
                                                       "#c62828"),
          ("gold_topk", "expected in top 10", "#1565c0"),
          ("nongold_topk", "others in top 10", "#757575"))
W, H, PAD = 640, 220, 30


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def histogram_svg(dist: dict[str, Any]) -> str:
    """Counts per bin of each series as outlined bars over shared bins."""
    edges = dist["bin_edges"]
    counts = dist["counts"]
    top = max([1, *(c for k, _, _ in SERIES for c in counts.get(k, []))])
    bins = len(edges) - 1
    bw = (W - 2 * PAD) / bins
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H + 40}" '
             f'role="img" aria-label="score distribution">',
             f'<line x1="{PAD}" y1="{H}" x2="{W - PAD}" y2="{H}" stroke="#000"/>']
    for n, (key, label, colour) in enumerate(SERIES):
        for i, c in enumerate(counts.get(key, [])):
            if not c:
                continue
            h = (H - PAD) * c / top
            parts.append(f'<rect x="{PAD + i * bw + n * bw / 4:.1f}" y="{H - h:.1f}" '
                         f'width="{bw / 4:.1f}" height="{h:.1f}" fill="{colour}">'
                         f'<title>{escape(label)}: {c}</title></rect>')
        parts.append(f'<text x="{PAD + n * 150}" y="{H + 34}" fill="{colour}" '
                     f'font-size="12">■ {escape(label)} (n={sum(counts.get(key, []))})</text>')
    parts.append(f'<text x="{PAD}" y="{H + 16}" font-size="11">{edges[0]:.2f}</text>'
                 f'<text x="{W - PAD - 30}" y="{H + 16}" font-size="11">{edges[-1]:.2f}'
                 f'</text><text x="{W / 2 - 40}" y="{H + 16}" font-size="11">fused score'
                 '</text></svg>')
    return "".join(parts)


def _row(cells: list[str], tag: str = "td") -> str:
    return "<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>"


def case_html(snap: dict[str, Any]) -> str:
    overall = snap["metrics"].get("all", {}).get("overall", {})
    head = (f"{snap['n_queries']} cases · {snap['embedding_model']} · strategy "
            f"{str(snap['strategy_hash'])[:12]} · {snap['created_at']}"
            + (" · live, read-only" if snap.get("live") else ""))
    rows = [_row(["case", "line", *CASE_METRICS, "facts", "violations"], "th")]
    for e in snap["cases"]:
        m = e["metrics"] or {}
        n_facts = len(e["facts_found"]) + len(e["facts_missing"])
        rows.append(_row([escape(e["id"]), str(e["line"]), *(_f(m.get(k)) for k in
                                                             CASE_METRICS),
                          f"{len(e['facts_found'])}/{n_facts}" if n_facts else "—",
                          str(len(e["violations"]))]))
    if overall:
        rows.append(_row(["<b>mean</b>", "", *(_f(overall.get(k)) for k in CASE_METRICS),
                          "", ""]))
    viol = [_row(["case", "kind", "item", "where", "rank", "text"], "th")]
    for e in snap["cases"]:
        for x in e["violations"]:
            viol.append(_row([escape(e["id"]), x["kind"], escape(x["item"] or ""),
                              escape(", ".join(x["where"])), str(x["rank"] or "—"),
                              escape(x["text"])]))
    ranked = []
    for e in snap["cases"]:
        items = "".join(f"<li{' class=gold' if r['gold'] else ''}>{escape(r['item'])} "
                        f"({r['score']:.3f}): {escape(r['text'])}</li>" for r in e["ranked"])
        ranked.append(f"<h3>{escape(e['id'])}: {escape(e['query'])}</h3><ol>{items}</ol>")
    facts = snap["facts"]
    return (
        "<!doctype html><html><head><meta charset=utf-8><title>memvault eval cases</title>"
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
        "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;"
        "text-align:right}td:first-child,th:first-child{text-align:left}"
        ".gold{font-weight:bold;color:#2e7d32}</style></head><body>"
        f"<h1>memvault eval cases</h1><p>{escape(head)}</p>"
        f"<p>facts found in the context: {facts['found']}/{facts['expected']} · "
        f"must-not-appear violations: {snap['violations']}</p>"
        f"<table>{''.join(rows)}</table>"
        + (f"<h2>must-not-appear violations</h2><table>{''.join(viol)}</table>"
           if snap["violations"] else "")
        + f"<h2>score distribution</h2>{histogram_svg(snap['score_distribution'])}"
        f"<h2>rankings (top 10; expected in bold)</h2>{''.join(ranked)}</body></html>\n")

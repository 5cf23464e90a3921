"""Output of the command line: the consoles, and the tables and progress bars verbs print."""

from __future__ import annotations

import json

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from ..model import Hit, Memory, Revision
from ..timeutil import iso

# Stored text is data: never read as Rich markup ("[/]" in a memory must not crash a
# table, "[link=…]" must not hide words) nor as emoji codes (":x:" stays ":x:"). Errors
# go to stderr and escape what they quote.
out = Console(markup=False, emoji=False)
err = Console(stderr=True, emoji=False)


def short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def slot_or_topic(m: Memory) -> str:
    """The "slot/topic" column: the slot a memory holds, else what it is about."""
    return m.slot or m.topic or ""


def memory_table(mems: list[Memory]) -> Table:
    t = Table(show_lines=False)
    t.add_column("id", no_wrap=True)
    for col in ("kind", "slot/topic", "status", "v", "updated", "content"):
        t.add_column(col)
    for m in mems:
        t.add_row(m.id, m.kind, slot_or_topic(m), m.status + (" ❄" if m.frozen else ""),
                  str(m.version), iso(m.updated_at) or "", short(m.content))
    return t


def show_memory(m: Memory) -> None:
    t = Table(show_header=False, box=None)
    t.add_column(style="bold")
    t.add_column()
    d = m.to_dict()
    for k, val in d.items():
        if k in ("valid_from", "valid_to", "recorded_at", "expires_at", "created_at",
                 "updated_at") and val is not None:
            val = f"{iso(val)}  ({val})"
        t.add_row(k, json.dumps(val, ensure_ascii=False) if not isinstance(val, str) else val)
    out.print(t)


def revision_table(revs: list[Revision]) -> Table:
    t = Table()
    for col in ("at", "op", "version", "actor", "reason", "trigger", "content after"):
        t.add_column(col)
    for r in revs:
        ver = f"{r.from_version}→{r.to_version}" if r.from_version else str(r.to_version)
        after = (r.state or {}).get("content") if r.state else "(erased)"
        t.add_row(iso(r.at) or "", r.op, ver, f"{r.actor} ({r.actor_role})", r.reason or "",
                  short(r.trigger_text or "", 40), short(str(after or ""), 50))
    return t


def hits_table(hits: list[Hit]) -> Table:
    t = Table()
    for col in ("#", "score", "bm25", "dense", "id", "slot/topic", "content"):
        t.add_column(col)
    for i, h in enumerate(hits, 1):
        dense = ", ".join(f"{k}={val:.3f}" for k, val in h.parts.dense.items())
        t.add_row(str(i), f"{h.score:.3f}", f"{h.parts.bm25:.3f}", dense, h.memory.id,
                  slot_or_topic(h.memory), short(h.memory.content, 60))
    return t


def progress_bar() -> Progress:
    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), TimeElapsedColumn(), console=err)

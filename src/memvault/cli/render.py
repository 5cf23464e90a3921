"""Output of the command line: the consoles, and the tables and progress bars verbs print.

On a terminal, tables are Rich tables fitted to its width. When stdout is not a terminal
(a pipe, a file), output is for scripts: a table is a header line and one line per row,
cells separated by a tab, nothing cut (full ids, times and content, whitespace inside a
cell folded to one space), no wrapping, no markup or colour. Progress bars show only when
stderr is a terminal."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from ..model import Hit, Memory, Revision
from ..timeutil import iso

# Stored text is data: never read as Rich markup ("[/]" in a memory must not crash a
# table, "[link=…]" must not hide words) nor as emoji codes (":x:" stays ":x:"). Errors
# go to stderr and escape what they quote.
out = Console(markup=False, emoji=False)
err = Console(stderr=True, emoji=False)
# Off a terminal, Rich would wrap every line at COLUMNS (80 by default).
out.soft_wrap = not out.is_terminal
err.soft_wrap = not err.is_terminal


class _PipedStory(Console):
    """The demo off a terminal: wide enough that no table cell is cut, and a rule is its
    title on a line rather than a line of the whole (wide) width."""

    def rule(self, title: Any = "", *args: Any, **kwargs: Any) -> None:
        self.print(f"── {title} ──")


ID_WIDTH = len("m_01a232db7c1e0000a1b2c3d4e5f6")
TIME_WIDTH = len("2026-05-01T09:00:00.000Z")


def story_console() -> Console:
    """For `memvault demo`: its own markup rendered (colour on a terminal, plain text in a
    pipe, where Rich writes no styles)."""
    con = Console(emoji=False, highlight=False)
    if con.is_terminal:
        return con
    return _PipedStory(emoji=False, highlight=False, width=200, soft_wrap=True)


def short(text: str, n: int = 80) -> str:
    """Text for a table cell: on one line, and cut to `n` on a terminal only."""
    text = " ".join(text.split())
    return text if len(text) <= n or not out.is_terminal else text[: n - 1] + "…"


def _cell(val: object) -> str:
    return " ".join(str(val).split())


def show(*items: RenderableType) -> None:
    """Print tables and text: tables as Rich tables on a terminal, else as tab-separated
    lines (a header line unless the table has none, a title line when it has one)."""
    for item in items:
        if not isinstance(item, Table) or out.is_terminal:
            out.print(item)
            continue
        lines = [_cell(item.title)] if item.title else []
        if item.show_header:
            lines.append("\t".join(_cell(col.header) for col in item.columns))
        cols = [list(col.cells) for col in item.columns]
        lines += ["\t".join(_cell(c[i]) for c in cols) for i in range(item.row_count)]
        out.file.write("".join(f"{line}\n" for line in lines))
        out.file.flush()


def slot_or_topic(m: Memory) -> str:
    """The "slot/topic" column: the slot a memory holds, else what it is about."""
    return m.slot or m.topic or ""


def memory_table(mems: list[Memory]) -> Table:
    t = Table(show_lines=False)
    # An id stays whole on a narrow terminal too, to be pasted into the next verb.
    t.add_column("id", no_wrap=True, min_width=ID_WIDTH)
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
    show(t)


def revision_table(revs: list[Revision], *, memory_ids: bool = False) -> Table:
    """Revisions as rows; `memory_ids` adds which memory each one changed (the audit log
    spans memories, a history is of one)."""
    t = Table()
    t.add_column("at", no_wrap=True, min_width=TIME_WIDTH)
    if memory_ids:
        t.add_column("memory", no_wrap=True)
    for col in ("op", "version", "actor", "reason", "trigger", "content after"):
        t.add_column(col)
    for r in revs:
        ver = f"{r.from_version}→{r.to_version}" if r.from_version else str(r.to_version)
        after = (r.state or {}).get("content") if r.state else "(erased)"
        t.add_row(iso(r.at) or "", *([r.memory_id] if memory_ids else []), r.op, ver,
                  f"{r.actor} ({r.actor_role})", r.reason or "",
                  short(r.trigger_text or "", 40), short(str(after or ""), 50))
    return t


def hits_table(hits: list[Hit]) -> Table:
    t = Table()
    marked = any(h.scope_mark for h in hits)  # a read merged with teams (docs/teams.md)
    for col in ("#", "score", "bm25", "dense", "id", "slot/topic",
                *(("scope",) if marked else ()), "content"):
        t.add_column(col)
    for i, h in enumerate(hits, 1):
        dense = ", ".join(f"{k}={val:.3f}" for k, val in h.parts.dense.items())
        t.add_row(str(i), f"{h.score:.3f}", f"{h.parts.bm25:.3f}", dense, h.memory.id,
                  slot_or_topic(h.memory), *((scope_label(h.scope_mark),) if marked else ()),
                  short(h.memory.content, 60))
    return t


def scope_label(mark: dict[str, Any] | None) -> str:
    """personal, or team:<name>, and the precedence a hit won by."""
    if not mark:
        return ""
    label = "personal" if mark.get("scope") == "personal" else f"team:{mark.get('team')}"
    return label + (f" ({mark['precedence']})" if mark.get("precedence") else "")


def progress_bar() -> Progress:
    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                    disable=not err.is_terminal)

"""`memvault demo`: the seeds' stale-preference story, run against a real store.

A user changes two preferences (report format CSV → XLSX, notifications e-mail → SMS).
Plain vector memory keeps both values and may serve the stale one; memvault keeps one
current value per slot, a history of every version, as-of reads, rollback and freeze.
The demo clock starts on 2026-05-01 and jumps forward so the dates read like the story.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from .errors import FrozenError
from .model import Scope
from .timeutil import iso
from .vault import Vault

DAY = 86_400_000


class _StoryClock:
    def __init__(self, start: datetime) -> None:
        self.t = int(start.timestamp() * 1000)

    def __call__(self) -> int:
        self.t += 1  # strictly increasing, so every revision has its own instant
        return self.t

    def advance(self, days: float) -> None:
        self.t += int(days * DAY)


def run_demo(db: str | None = None, *, embedder: str | None = None,
             console: Console | None = None) -> dict[str, str]:
    con = console or Console()
    path = Path(db) if db else Path(tempfile.mkdtemp(prefix="memvault-demo-")) / "demo.db"
    clock = _StoryClock(datetime(2026, 5, 1, 9, 0, tzinfo=UTC))
    vault = Vault(path, embedder=embedder, clock=clock, actor="demo:assistant")
    alice = Scope(tenant="acme", user="alice")
    bob = Scope(tenant="acme", user="bob")

    def step(title: str) -> None:
        con.print()
        con.rule(f"[bold]{title}[/] [dim]{iso(clock.t)}[/]")

    def show_recall(query: str) -> str:
        hits = vault.recall(alice, query, top_k=3)
        t = Table(title=f"recall({query!r})", title_justify="left")
        for col in ("score", "slot", "v", "content"):
            t.add_column(col)
        for h in hits:
            t.add_row(f"{h.score:.2f}", h.memory.slot or "", str(h.memory.version),
                      h.memory.content)
        con.print(t)
        return hits[0].memory.content if hits else ""

    con.print(Panel.fit(escape(f"memvault demo — store: {path}\nembedder: {vault.embedding_model}"),
                        title="memvault"))

    step("Day 1: Alice states two preferences")
    fmt = vault.remember(alice, "用户希望报表导出为 CSV（Export reports as CSV）",
                         slot="report.format", value="CSV",
                         source_text="报表请导出成 CSV", reason="user stated a preference")
    notify = vault.remember(alice, "用户希望通过邮件接收进度通知（notify by e-mail）",
                            slot="notify.channel", value="email",
                            source_text="后续使用邮件接收进度通知",
                            reason="user stated a preference")
    vault.remember(bob, "Bob wants reports as PDF", slot="report.format", value="PDF")
    con.print(f"report.format → {fmt.action} v{fmt.version}; notify.channel → "
              f"{notify.action} v{notify.version}; (Bob, another user, wants PDF)")
    before_change = clock.t

    clock.advance(7)
    step("Day 8: Alice changes her mind")
    fmt2 = vault.remember(alice, "用户希望报表导出为 XLSX（Export reports as XLSX）",
                          slot="report.format", value="XLSX", source_text="以后报表都用 XLSX",
                          reason="user changed the preference")
    notify2 = vault.remember(alice, "用户希望通过短信接收进度通知（notify by SMS）",
                             slot="notify.channel", value="SMS",
                             source_text="不要发邮件了，改成短信通知",
                             reason="user changed the preference")
    con.print(f"report.format → {fmt2.action} v{fmt2.version} (same memory {fmt2.id}); "
              f"notify.channel → {notify2.action} v{notify2.version}")
    con.print("One current value per slot: the old ones are versions in history, "
              "never a second active memory.")
    show_recall("导出格式")
    show_recall("export format")
    show_recall("进度通知发到哪里？")

    step("What did we believe on day 1? (as-of read)")
    hits = vault.recall(alice, "export format", top_k=1, as_of=before_change)
    con.print(f"as of {iso(before_change)}: {hits[0].memory.content if hits else '(nothing)'}")

    clock.advance(1)
    step("Day 9: a chat line overwrites the notification preference")
    bad = vault.remember(alice, "用户不喜欢任何形式的推送通知", slot="notify.channel", value="none",
                         source_text="update: 用户不喜欢任何形式的推送通知",
                         actor="demo:chat-pipeline", reason="chat line said 'update:'")
    con.print(f"notify.channel → {bad.action} v{bad.version}: every notification would stop.")

    step("History of notify.channel: who changed it, why, from which words")
    t = Table()
    for col in ("at", "op", "version", "actor", "reason", "trigger text", "value after"):
        t.add_column(col)
    for r in vault.history(alice, notify.id):
        t.add_row(iso(r.at) or "", r.op, f"{r.from_version or '-'}→{r.to_version}", r.actor,
                  r.reason or "", r.trigger_text or "", str((r.state or {}).get("value")))
    con.print(t)

    step("Roll back to version 2 (a new revision; the bad one stays on record)")
    restored = vault.rollback(alice, notify.id, 2, actor="demo:admin",
                              reason="chat line is not a legitimate preference change")
    con.print(f"notify.channel is v{restored.version}: {restored.value}")
    d = vault.diff(alice, notify.id, 3, restored.version)
    con.print(f"diff v3 → v{restored.version}: "
              + ", ".join(f"{k}: {c['from']!r} → {c['to']!r}" for k, c in d.items()))
    current_notify = show_recall("进度通知发到哪里？")

    step("Freeze it: no automatic path may change it again")
    vault.freeze(alice, notify.id, actor="demo:admin", reason="confirmed with the user")
    try:
        vault.remember(alice, "用户不喜欢任何形式的推送通知", slot="notify.channel", value="none",
                       actor="demo:chat-pipeline", reason="another 'update:' line")
        con.print("[red]unexpected: the frozen memory was changed[/]")
    except FrozenError as e:
        con.print(f"[green]refused[/]: {escape(e.message)}")

    step("Bob's memory never leaked into Alice's recall")
    bob_hit = vault.recall(bob, "export format", top_k=1)
    con.print(f"Bob: {bob_hit[0].memory.content}")
    vault.close()
    con.print()
    con.print(escape(f"Inspect it yourself: memvault --db {path} --tenant acme --user "
                     "alice list"))
    con.print(escape(f"Or over REST and the admin page: memvault --db {path} --tenant acme "
                     "serve (its first admin key is for tenant acme, where this story "
                     "lives)"))
    return {"report.format": fmt2.id, "notify.channel": notify.id, "db": str(path),
            "current_notify": current_notify}

"""The `snapshot` group (docs/snapshots.md): named points in the revision time of the
--tenant (of the --user's memory, when given), their diff, and restore — one recorded,
undoable operation. A thin adapter over Vault.snapshot & co."""

from __future__ import annotations

import shlex
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..errors import ValidationError
from ..timeutil import iso
from ..validate import personal_user
from .render import out
from .session import Ctx, emit, run_verb

snapshot_app = typer.Typer(help="Named snapshots of a user's (or a tenant's) memory: "
                           "diff and restore.", no_args_is_help=True)

Reason = Annotated[str | None, typer.Option(help="Why (recorded).", show_default=False)]


def _tenant(c: Ctx) -> str:
    if not c.tenant:
        raise ValidationError("tenant: required (--tenant T)")
    return c.tenant


def _user(c: Ctx) -> str | None:
    """The --user whose snapshots these are (None: the tenant's). --team is refused rather
    than ignored: ignored, a restore meant for a team would rewind the member's own memory
    (a team's memories are in the tenant's snapshots)."""
    if c.team is not None:
        raise ValidationError("team: snapshots are of a user (--user) or of the whole "
                              "--tenant, whose snapshots hold its teams' memories; "
                              "drop --team")
    return personal_user(c.user) if c.user else None


def _table(snaps: list[dict[str, Any]]) -> Table:
    t = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), header_style="bold")
    for col in ("name", "user", "kind", "taken at", "by", "reason"):
        t.add_column(col, overflow="fold")
    for s in snaps:
        t.add_row(escape(s["name"]), escape(s["user"] or "*"), s["kind"],
                  (iso(s["taken_at"]) or "")[:19], escape(s["created_by"]),
                  escape(s["reason"] or ""))
    return t


@snapshot_app.command("create")
def snapshot_create(ctx: typer.Context, name: str, reason: Reason = None) -> None:
    """Name this moment of the --tenant's memory (the --user's only, when given)."""
    def go(c: Ctx) -> None:
        s = c.vault().snapshot(_tenant(c), name, user=_user(c), reason=reason)
        emit(c, s, lambda: out.print(f"snapshot {escape(s['name'])} taken"))
    run_verb(ctx, go)


@snapshot_app.command("list")
def snapshot_list(ctx: typer.Context) -> None:
    """The --tenant's snapshots, oldest first (the --user's only, when given)."""
    def go(c: Ctx) -> None:
        snaps = c.vault().snapshots(_tenant(c), user=_user(c))
        emit(c, snaps, lambda: out.print(_table(snaps) if snaps else "(no snapshots)"))
    run_verb(ctx, go)


@snapshot_app.command("diff")
def snapshot_diff(ctx: typer.Context, name: str,
                  to: Annotated[str | None, typer.Argument(
                      help="The later snapshot (default: now).", show_default=False)] = None
                  ) -> None:
    """What changed from snapshot NAME to snapshot TO (or now)."""
    def go(c: Ctx) -> None:
        d = c.vault().snapshot_diff(_tenant(c), name, to, user=_user(c))

        def human() -> None:
            lines = [f"+ {x['memory_id']}  {x['content']}" for x in d["added"]]
            lines += [f"- {x['memory_id']}  " + ("(purged)" if x.get("purged")
                                                  else x["content"]) for x in d["removed"]]
            lines += [f"~ {x['memory_id']}  v{x['from_version']}→v{x['to_version']}  "
                      + ", ".join(sorted(x["fields"])) for x in d["changed"]]
            out.print(escape("\n".join(lines)) if lines else "(no changes)", soft_wrap=True)
        emit(c, d, human)
    run_verb(ctx, go)


@snapshot_app.command("restore")
def snapshot_restore(ctx: typer.Context, name: str, reason: Reason = None) -> None:
    """Bring the memory back to snapshot NAME, as one operation; undo it by restoring
    the snapshot it prints."""
    def go(c: Ctx) -> None:
        op = c.vault().restore_snapshot(_tenant(c), name, user=_user(c), reason=reason)
        emit(c, op, lambda: out.print(escape(
            f"restored {name} ({op['operation']}): {len(op['restored'])} restored, "
            f"{len(op['forgotten'])} forgotten, {len(op['skipped'])} skipped"
            + "".join(f"\n  skipped {s['memory_id']}: {s['reason']}" for s in op["skipped"])
            + f"\nundo: memvault{_user_opt(op)} snapshot restore {op['undo']}"),
            soft_wrap=True))
    run_verb(ctx, go)


def _user_opt(op: dict[str, Any]) -> str:
    # The undo snapshot is in the restored scope: without --user it would be looked up
    # among the tenant's and not found.
    return f" --user {shlex.quote(op['user'])}" if op.get("user") else ""


@snapshot_app.command("drop")
def snapshot_drop(ctx: typer.Context, name: str) -> None:
    """Forget snapshot NAME (the memories stay as they are)."""
    def go(c: Ctx) -> None:
        s = c.vault().drop_snapshot(_tenant(c), name, user=_user(c))
        emit(c, s, lambda: out.print(f"dropped snapshot {escape(s['name'])}"))
    run_verb(ctx, go)

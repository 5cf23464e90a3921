"""The `events` and `webhook` groups (docs/events.md): read the change events of the store,
and manage webhook subscriptions on the store itself (delivery runs in `memvault serve`).
The rules are memvault.webhooks, the same the REST routes under /v1/webhooks use."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from .. import webhooks
from ..changes import Event
from ..errors import ValidationError
from ..timeutil import iso
from .render import out
from .session import Ctx, emit, run_verb

events_app = typer.Typer(help="Change events: every committed change, in commit order.",
                         no_args_is_help=True)
webhook_app = typer.Typer(help="Webhooks: signed POSTs of the change events to a URL.",
                          no_args_is_help=True)

Since = Annotated[int, typer.Option(help="Events after this event id (0: from the first).")]
Kinds = Annotated[list[str] | None, typer.Option(
    "--kind", help="Only this kind (repeat): add, update, forget, purge, rollback, ...",
    show_default=False)]


def _tenant(c: Ctx) -> str:
    if not c.tenant:
        raise ValidationError("tenant: required (--tenant T)")
    return c.tenant


def _line(e: Event) -> str:
    versions = f"v{e.from_version or '-'}→v{e.to_version}"
    why = f"  {e.reason}" if e.reason else ""
    return (f"{e.id:>6}  {(iso(e.at) or '')[:19]}  {e.kind:<9} {e.scope.user}  "
            f"{e.memory_id} {versions}  {e.actor}{why}")


@events_app.command("list")
def events_list(ctx: typer.Context, since: Since = 0, kind: Kinds = None,
                limit: Annotated[int, typer.Option(help="At most this many.")] = 100) -> None:
    """The tenant's events (the --user's only, when given) after --since, oldest first."""
    def go(c: Ctx) -> None:
        got = list(c.vault().events(_tenant(c), user=c.user, since=since, kinds=kind,
                                    limit=limit))
        emit(c, [e.to_dict() for e in got], lambda: out.print(
            "\n".join(escape(_line(e)) for e in got) if got else "(no events)",
            soft_wrap=True))
    run_verb(ctx, go)


@events_app.command("follow")
def events_follow(ctx: typer.Context, since: Since = 0, kind: Kinds = None,
                  poll: Annotated[float, typer.Option(help="Seconds between polls.")] = 0.5,
                  idle: Annotated[float | None, typer.Option(
                      help="Stop after this many seconds without a new event (default: "
                      "run until interrupted).", show_default=False)] = None) -> None:
    """Print the events after --since, then each new one as it commits (with --json: one
    JSON object a line). Keep the last id to resume with --since."""
    def go(c: Ctx) -> None:
        try:
            for e in c.vault().events(_tenant(c), user=c.user, since=since, kinds=kind,
                                      follow=True, poll_seconds=poll, idle_timeout=idle):
                if c.json:
                    print(json.dumps(e.to_dict(), ensure_ascii=False), flush=True)
                else:
                    out.print(escape(_line(e)), soft_wrap=True)
        except KeyboardInterrupt:
            return
    run_verb(ctx, go)


# --- webhooks -------------------------------------------------------------------------------
def _hooks_table(hooks: list[dict[str, Any]]) -> Table:
    t = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), header_style="bold")
    for col in ("webhook id", "tenant", "user", "kinds", "queued through", "url"):
        t.add_column(col, no_wrap=col != "url", overflow="fold")
    for h in hooks:
        t.add_row(h["webhook_id"], h["tenant"], h["user"] or "*",
                  ",".join(h["kinds"]) or "*", str(h["queued_through"]), h["url"])
    return t


@webhook_app.command("add")
def webhook_add(ctx: typer.Context, url: str, kind: Kinds = None,
                secret: Annotated[str | None, typer.Option(
                    help="The signing secret (default: a new one, printed once).",
                    show_default=False)] = None,
                since: Annotated[int | None, typer.Option(
                    help="Deliver events after this id (default: from now on).",
                    show_default=False)] = None) -> None:
    """Subscribe URL to the --tenant's events (the --user's only, when given)."""
    def go(c: Ctx) -> None:
        rec = webhooks.add(c.vault(check_models=False).store, tenant=_tenant(c), url=url,
                           secret=secret, kinds=kind, user=c.user, since=since,
                           created_by=c.actor)
        shown = {**webhooks.public(rec), "secret": rec["secret"]}
        emit(c, shown, lambda: out.print(
            f"added webhook {rec['webhook_id']} → {rec['url']} (events after "
            f"{rec['queued_through']}); signing secret (shown once):\n{rec['secret']}",
            soft_wrap=True))
    run_verb(ctx, go)


@webhook_app.command("list")
def webhook_list(ctx: typer.Context) -> None:
    """The live webhooks of the --tenant (of every tenant without one); never secrets."""
    def go(c: Ctx) -> None:
        hooks = webhooks.list_hooks(c.vault(check_models=False).store, c.tenant)
        emit(c, hooks, lambda: out.print(_hooks_table(hooks)))
    run_verb(ctx, go)


@webhook_app.command("remove")
def webhook_remove(ctx: typer.Context, webhook_id: str) -> None:
    """Stop a webhook: nothing more is sent to it; its delivery log stays."""
    def go(c: Ctx) -> None:
        h = webhooks.remove(c.vault(check_models=False).store, _tenant(c), webhook_id)
        emit(c, h, lambda: out.print(f"removed webhook {h['webhook_id']}"))
    run_verb(ctx, go)


@webhook_app.command("deliveries")
def webhook_deliveries(ctx: typer.Context, webhook_id: str,
                       status: Annotated[str | None, typer.Option(
                           help="pending, delivered or dead.", show_default=False)] = None,
                       limit: Annotated[int, typer.Option(help="At most this many.")] = 100
                       ) -> None:
    """The delivery log of a webhook, newest event first, with every attempt."""
    def go(c: Ctx) -> None:
        ds = webhooks.deliveries(c.vault(check_models=False).store, _tenant(c), webhook_id,
                                 status=status, limit=limit)

        def human() -> None:
            t = Table(box=None, pad_edge=False, padding=(0, 2, 0, 0), header_style="bold")
            for col in ("event", "status", "attempts", "last", "error"):
                t.add_column(col, overflow="fold")
            for d in ds:
                t.add_row(str(d["event_id"]), d["status"], str(d["attempts"]),
                          str(d["last_code"] or ""), d["last_error"] or "")
            out.print(t if ds else "(no deliveries)")
        emit(c, ds, human)
    run_verb(ctx, go)


@webhook_app.command("retry")
def webhook_retry(ctx: typer.Context, webhook_id: str, event_id: int) -> None:
    """Send a dead letter again (a running server picks it up at once)."""
    def go(c: Ctx) -> None:
        d = webhooks.retry(c.vault(check_models=False).store, _tenant(c), webhook_id,
                           event_id)
        emit(c, d, lambda: out.print(f"event {d['event_id']} to {webhook_id}: pending"))
    run_verb(ctx, go)

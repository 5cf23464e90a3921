"""`memvault` command line: the Vault's verbs, one command each, no logic of their own."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from . import validate
from .errors import MemvaultError, ValidationError
from .eval.datasets import Lang, Split
from .model import Hit, Memory, Revision, Scope
from .timeutil import iso
from .vault import Vault, default_db_path

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="memvault: governed long-term memory for LLM applications.")
# Stored text is data: never read as Rich markup ("[/]" in a memory must not crash a
# table, "[link=…]" must not hide words) nor as emoji codes (":x:" stays ":x:"). Errors
# go to stderr and escape what they quote.
out = Console(markup=False, emoji=False)
err = Console(stderr=True, emoji=False)


@dataclass
class Ctx:
    db: str
    tenant: str | None
    user: str | None
    agent: str | None
    session: str | None
    embedder: str | None
    actor: str
    json: bool
    config: str | None = None
    _vault: Vault | None = None

    def vault(self, *, check_models: bool = True) -> Vault:
        if self._vault is None:
            self._vault = Vault(self.db, embedder=self.embedder, actor=self.actor,
                                strategy=self.config, check_models=check_models)
        return self._vault

    def scope(self) -> Scope | dict[str, Any]:
        # validate.scope() turns a missing tenant/user into a typed ScopeError.
        return {k: val for k, val in (("tenant", self.tenant), ("user", self.user),
                                      ("agent", self.agent), ("session", self.session))
                if val}


def _fail(e: MemvaultError) -> NoReturn:
    err.print(f"[bold red]error[/] {escape(f'[{e.code}]')} {escape(e.message)}",
              highlight=False)
    raise typer.Exit(1)


def _run(ctx: typer.Context, fn: Callable[[Ctx], Any]) -> Any:
    c: Ctx = ctx.obj
    try:
        return fn(c)
    except MemvaultError as e:
        _fail(e)


def _emit(c: Ctx, data: Any, human: Callable[[], None]) -> None:
    if c.json:
        out.print_json(json.dumps(data, ensure_ascii=False, default=str))
    else:
        human()


def _short(text: str, n: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _memory_table(mems: list[Memory]) -> Table:
    t = Table(show_lines=False)
    t.add_column("id", no_wrap=True)
    for col in ("kind", "slot", "status", "v", "updated", "content"):
        t.add_column(col)
    for m in mems:
        t.add_row(m.id, m.kind, m.slot or "", m.status + (" ❄" if m.frozen else ""),
                  str(m.version), iso(m.updated_at) or "", _short(m.content))
    return t


def _show_memory(m: Memory) -> None:
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


def _revision_table(revs: list[Revision]) -> Table:
    t = Table()
    for col in ("at", "op", "version", "actor", "reason", "trigger", "content after"):
        t.add_column(col)
    for r in revs:
        ver = f"{r.from_version}→{r.to_version}" if r.from_version else str(r.to_version)
        after = (r.state or {}).get("content") if r.state else "(erased)"
        t.add_row(iso(r.at) or "", r.op, ver, f"{r.actor} ({r.actor_role})", r.reason or "",
                  _short(r.trigger_text or "", 40), _short(str(after or ""), 50))
    return t


def _hits_table(hits: list[Hit]) -> Table:
    t = Table()
    for col in ("#", "score", "bm25", "dense", "id", "slot", "content"):
        t.add_column(col)
    for i, h in enumerate(hits, 1):
        dense = ", ".join(f"{k}={val:.3f}" for k, val in h.parts.dense.items())
        t.add_row(str(i), f"{h.score:.3f}", f"{h.parts.bm25:.3f}", dense, h.memory.id,
                  h.memory.slot or "", _short(h.memory.content, 60))
    return t


def _parse_json_opt(raw: str | None, field: str) -> Any:
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as e:
        raise ValidationError(f"{field}: not valid JSON ({e.msg})") from None


def _value_opt(raw: str | None) -> Any:
    """A slot value on the command line: JSON when it parses (42, true, {"a": 1}), else
    the text itself (CSV)."""
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def _ttl(raw: str | None) -> int | str | None:
    """A bare number on the command line is seconds, as the core's int; the rest ("90d",
    "12h") goes to the core as text, which parses and checks it."""
    if raw is not None and re.fullmatch(r"[+-]?[0-9]+", raw.strip()):
        return int(raw.strip())
    return raw


@app.callback()
def main_options(
    ctx: typer.Context,
    db: Annotated[str | None, typer.Option(help="SQLite file or postgresql:// DSN (default: "
                                           "a file in the user data dir; env MEMVAULT_DB).")
                  ] = None,
    tenant: Annotated[str | None, typer.Option(envvar="MEMVAULT_TENANT")] = None,
    user: Annotated[str | None, typer.Option(envvar="MEMVAULT_USER")] = None,
    agent: Annotated[str | None, typer.Option()] = None,
    session: Annotated[str | None, typer.Option()] = None,
    embedder: Annotated[str | None, typer.Option(
        help="Embedder spec, e.g. use-m3 or use-m3+e5-small (env MEMVAULT_EMBEDDER).")] = None,
    actor: Annotated[str, typer.Option(help="Principal recorded in revisions.",
                                       envvar="MEMVAULT_ACTOR")] = "cli",
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    config: Annotated[str | None, typer.Option(
        help="Strategy YAML (env MEMVAULT_CONFIG; default: built-in).")] = None,
) -> None:
    # An empty --db is an error (open_store), not the default store.
    ctx.obj = Ctx(db=db if db is not None else str(default_db_path()), tenant=tenant,
                  user=user, agent=agent, session=session, embedder=embedder, actor=actor,
                  json=as_json, config=config)
    ctx.call_on_close(lambda: ctx.obj._vault.close() if ctx.obj._vault else None)


@app.command()
def remember(
    ctx: typer.Context,
    content: Annotated[str | None, typer.Argument(help="The statement to remember.")] = None,
    slot: Annotated[str | None, typer.Option(help="Business key, e.g. report.format.")] = None,
    value: Annotated[str | None, typer.Option(help="Structured value (JSON or text).")] = None,
    kind: Annotated[str | None, typer.Option()] = None,
    source: Annotated[str, typer.Option()] = "user_explicit",
    source_text: Annotated[str | None, typer.Option()] = None,
    source_ref: Annotated[str | None, typer.Option()] = None,
    confidence: Annotated[float, typer.Option()] = 1.0,
    tag: Annotated[list[str] | None, typer.Option(help="Repeatable.")] = None,
    metadata: Annotated[str | None, typer.Option(help="JSON object.")] = None,
    ttl: Annotated[str | None, typer.Option(
        help="Shelf life: seconds (3600) or e.g. 90d, 12h.")] = None,
    valid_from: Annotated[str | None, typer.Option(help="ISO time or epoch ms.")] = None,
    valid_to: Annotated[str | None, typer.Option(help="ISO time or epoch ms.")] = None,
    reason: Annotated[str | None, typer.Option()] = None,
    expected_version: Annotated[int | None, typer.Option()] = None,
) -> None:
    """Store a statement or a new slot value: prints added, updated or noop."""
    def go(c: Ctx) -> None:
        val = _value_opt(value)
        r = c.vault().remember(c.scope(), content, slot=slot, value=val, kind=kind,
                               source=source, source_text=source_text, source_ref=source_ref,
                               confidence=confidence, tags=tag,
                               metadata=_parse_json_opt(metadata, "metadata"), ttl=_ttl(ttl),
                               valid_from=valid_from, valid_to=valid_to, reason=reason,
                               expected_version=expected_version)
        _emit(c, r.to_dict(), lambda: out.print(
            f"{r.action} {r.id} v{r.version}" + (f" (was v{r.previous_version})"
                                                 if r.action == "updated" else "")))
    _run(ctx, go)


@app.command()
def propose(
    ctx: typer.Context,
    content: Annotated[str | None, typer.Argument(help="The statement an agent proposes.")
                       ] = None,
    slot: Annotated[str | None, typer.Option(help="Business key, e.g. report.format.")] = None,
    value: Annotated[str | None, typer.Option(help="Structured value (JSON or text).")] = None,
    kind: Annotated[str | None, typer.Option()] = None,
    source: Annotated[str, typer.Option()] = "user_explicit",
    source_text: Annotated[str | None, typer.Option(
        help="The user's own words; needed to change a stored value.")] = None,
    confidence: Annotated[float, typer.Option()] = 1.0,
    tag: Annotated[list[str] | None, typer.Option(help="Repeatable.")] = None,
    ttl: Annotated[str | None, typer.Option(
        help="Shelf life: seconds (3600) or e.g. 90d, 12h.")] = None,
    reason: Annotated[str | None, typer.Option()] = None,
) -> None:
    """A statement from an agent, through the write gate: prints added, updated, noop,
    stage (kept for review), block or reject, with the gate's reasons."""
    def go(c: Ctx) -> None:
        val = _value_opt(value)
        o = c.vault().propose(c.scope(), content, slot=slot, value=val, kind=kind,
                              source=source, source_text=source_text, confidence=confidence,
                              tags=tag, ttl=_ttl(ttl), reason=reason)
        _emit(c, o.to_dict(), lambda: out.print(
            f"{o.action} {o.memory_id or ''}".rstrip()
            + (f" ({', '.join(o.reasons)})" if o.reasons else "")))
    _run(ctx, go)


@app.command()
def get(ctx: typer.Context, memory_id: str,
        as_of: Annotated[str | None, typer.Option(help="ISO time or epoch ms.")] = None) -> None:
    """Show one memory (as it is now, or as it was believed at --as-of)."""
    def go(c: Ctx) -> None:
        m = c.vault().get(c.scope(), memory_id, as_of=as_of)
        _emit(c, m.to_dict(), lambda: _show_memory(m))
    _run(ctx, go)


@app.command("list")
def list_(ctx: typer.Context,
          kind: Annotated[str | None, typer.Option()] = None,
          status: Annotated[str | None, typer.Option()] = None,
          slot: Annotated[str | None, typer.Option()] = None,
          tag: Annotated[list[str] | None, typer.Option()] = None,
          since: Annotated[str | None, typer.Option()] = None,
          until: Annotated[str | None, typer.Option()] = None,
          as_of: Annotated[str | None, typer.Option()] = None,
          limit: Annotated[int, typer.Option()] = 100,
          offset: Annotated[int, typer.Option()] = 0,
          q: Annotated[str | None, typer.Option(
              "--q", help="Case-insensitive substring of the content.")] = None,
          source: Annotated[str | None, typer.Option(help="e.g. user_explicit.")] = None,
          frozen: Annotated[bool | None, typer.Option(
              "--frozen/--not-frozen", show_default=False,
              help="Only frozen (or only unfrozen) memories.")] = None,
          slotted: Annotated[bool | None, typer.Option(
              "--slotted/--not-slotted", show_default=False,
              help="Only memories that hold a slot (or that hold none).")] = None,
          expiring_before: Annotated[str | None, typer.Option(
              help="Only memories whose TTL ends before this time (ISO or epoch ms).")
              ] = None) -> None:
    """List memories of the scope, newest first, with filters."""
    _memories(ctx, lambda c: c.vault().list(
        c.scope(), kind=kind, status=status, slot=slot, tags=tag, since=since, until=until,
        as_of=as_of, limit=limit, offset=offset, source=source, frozen=frozen,
        expiring_before=expiring_before, q=q, slotted=slotted))


@app.command()
def recall(ctx: typer.Context, query: str,
           top_k: Annotated[int | None, typer.Option("--top-k", "-k")] = None,
           kind: Annotated[str | None, typer.Option()] = None,
           tag: Annotated[list[str] | None, typer.Option()] = None,
           as_of: Annotated[str | None, typer.Option()] = None,
           min_score: Annotated[float | None, typer.Option()] = None) -> None:
    """Ranked memories for a query, with their score parts."""
    def go(c: Ctx) -> None:
        hits = c.vault().recall(c.scope(), query, top_k=top_k, kind=kind, tags=tag,
                                as_of=as_of, min_score=min_score)

        def human() -> None:
            out.print(_hits_table(hits))
            if hits.trace_id:
                out.print(f"trace: {hits.trace_id}", style="dim")
        _emit(c, {"trace_id": hits.trace_id, "hits": [h.to_dict() for h in hits]}, human)
    _run(ctx, go)


@app.command()
def context(ctx: typer.Context, query: str,
            budget: Annotated[int | None, typer.Option(help="Token budget.")] = None,
            lang: Annotated[str | None, typer.Option(help="en or zh.")] = None,
            kind: Annotated[str | None, typer.Option(help="Recall only, of this kind.")
                            ] = None,
            tag: Annotated[list[str] | None, typer.Option(
                "--tag", "--tags", help="Recall only, with these tags (repeatable).")
                ] = None) -> None:
    """The prompt section for a query: memories as reference data, within a budget."""
    def go(c: Ctx) -> None:
        r = c.vault().context(c.scope(), query, budget=budget, lang=lang, kind=kind, tags=tag)

        def human() -> None:
            out.print(r.text or "(no memory section)", highlight=False, markup=False)
            out.print(f"{r.tokens} tokens; trace: {r.trace_id}", style="dim")
        _emit(c, r.to_dict(), human)
    _run(ctx, go)


@app.command()
def observe(ctx: typer.Context,
            path: Annotated[Path | None, typer.Argument(
                help="JSON list of {role, content[, id]} (default: stdin).")] = None,
            source_ref: Annotated[str | None, typer.Option()] = None) -> None:
    """Keep a conversation's turns and learn from it through the gate."""
    def go(c: Ctx) -> None:
        try:
            raw = path.read_text(encoding="utf-8") if path else sys.stdin.read()
            messages = json.loads(raw)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValidationError(f"observe: cannot read messages as JSON ({e})") from None
        r = c.vault().observe(c.scope(), messages, source_ref=source_ref)

        def human() -> None:
            out.print(f"kept {len(r.turns)} turns")
            for o in r.outcomes:
                out.print(f"{o.action:7} {', '.join(o.reasons) or '-':40} {o.content}",
                          highlight=False, markup=False)
        _emit(c, r.to_dict(), human)
    _run(ctx, go)


review_app = typer.Typer(help="The review queue: staged candidates waiting for a person.",
                         no_args_is_help=True)
app.add_typer(review_app, name="review")


@review_app.command("list")
def review_list(ctx: typer.Context,
                limit: Annotated[int, typer.Option()] = 100) -> None:
    """Pending candidates, newest first."""
    _memories(ctx, lambda c: c.vault().review_list(c.scope(), limit=limit))


@review_app.command("show")
def review_show(ctx: typer.Context, memory_id: str) -> None:
    """A candidate, why it was staged, and the memories it contradicts."""
    def go(c: Ctx) -> None:
        d = c.vault().review_show(c.scope(), memory_id)
        _emit(c, d, lambda: out.print_json(json.dumps(d, ensure_ascii=False)))
    _run(ctx, go)


@review_app.command("approve")
def review_approve(ctx: typer.Context, memory_id: str,
                   reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Apply a candidate through the normal commit path."""
    _mutation(ctx, lambda c: c.vault().review_approve(c.scope(), memory_id, reason=reason))


@review_app.command("reject")
def review_reject(ctx: typer.Context, memory_id: str,
                  reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Keep a candidate as rejected, with the reason."""
    _mutation(ctx, lambda c: c.vault().review_reject(c.scope(), memory_id, reason=reason))


@app.command()
def history(ctx: typer.Context, memory_id: str) -> None:
    """Every revision of a memory: op, versions, actor, reason, trigger text."""
    def go(c: Ctx) -> None:
        revs = c.vault().history(c.scope(), memory_id)
        _emit(c, [r.to_dict() for r in revs], lambda: out.print(_revision_table(revs)))
    _run(ctx, go)


@app.command()
def diff(ctx: typer.Context, memory_id: str, from_version: int, to_version: int) -> None:
    """Fields that differ between two versions."""
    def go(c: Ctx) -> None:
        d = c.vault().diff(c.scope(), memory_id, from_version, to_version)

        def human() -> None:
            t = Table()
            for col in ("field", f"v{from_version}", f"v{to_version}"):
                t.add_column(col)
            for f, ch in d.items():
                t.add_row(f, json.dumps(ch["from"], ensure_ascii=False),
                          json.dumps(ch["to"], ensure_ascii=False))
            out.print(t if d else "no differences")
        _emit(c, d, human)
    _run(ctx, go)


@app.command()
def rollback(ctx: typer.Context, memory_id: str, to_version: int,
             reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Restore version N's state as a new version."""
    _mutation(ctx, lambda c: c.vault().rollback(c.scope(), memory_id, to_version,
                                                reason=reason))


@app.command()
def edit(ctx: typer.Context, memory_id: str,
         content: Annotated[str | None, typer.Option()] = None,
         value: Annotated[str | None, typer.Option(
             help='Structured value as JSON (a string is quoted: \'"XLSX"\').')] = None,
         kind: Annotated[str | None, typer.Option()] = None,
         tag: Annotated[list[str] | None, typer.Option()] = None,
         metadata: Annotated[str | None, typer.Option(help="JSON object.")] = None,
         confidence: Annotated[float | None, typer.Option()] = None,
         expires_at: Annotated[str | None, typer.Option(help="ISO time or epoch ms.")] = None,
         reason: Annotated[str | None, typer.Option()] = None,
         expected_version: Annotated[int | None, typer.Option()] = None) -> None:
    """Change a memory by hand (a new version with the reason)."""
    _mutation(ctx, lambda c: c.vault().edit(
        c.scope(), memory_id, content=content, value=_parse_json_opt(value, "value"),
        kind=kind, tags=tag, metadata=_parse_json_opt(metadata, "metadata"),
        confidence=confidence, expires_at=expires_at, reason=reason,
        expected_version=expected_version))


@app.command()
def freeze(ctx: typer.Context, memory_id: str,
           reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Lock a memory against every change but unfreeze."""
    _mutation(ctx, lambda c: c.vault().freeze(c.scope(), memory_id, reason=reason))


@app.command()
def unfreeze(ctx: typer.Context, memory_id: str,
             reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Unlock a frozen memory."""
    _mutation(ctx, lambda c: c.vault().unfreeze(c.scope(), memory_id, reason=reason))


@app.command()
def forget(ctx: typer.Context, memory_id: str,
           reason: Annotated[str | None, typer.Option()] = None) -> None:
    """Soft delete (kept in history; rollback restores it)."""
    _mutation(ctx, lambda c: c.vault().forget(c.scope(), memory_id, reason=reason))


@app.command()
def expire(ctx: typer.Context, memory_id: str,
           reason: Annotated[str | None, typer.Option()] = None) -> None:
    """End a memory's shelf life now (demoted to a candidate by default)."""
    _mutation(ctx, lambda c: c.vault().expire(c.scope(), memory_id, reason=reason))


def _memories(ctx: typer.Context, fn: Callable[[Ctx], list[Memory]]) -> None:
    """Run a verb that returns memories; print them as JSON or as a table."""
    def go(c: Ctx) -> None:
        mems = fn(c)
        _emit(c, [m.to_dict() for m in mems], lambda: out.print(_memory_table(mems)))
    _run(ctx, go)


def _mutation(ctx: typer.Context, fn: Callable[[Ctx], Memory]) -> None:
    def go(c: Ctx) -> None:
        m = fn(c)
        _emit(c, m.to_dict(), lambda: out.print(
            f"{m.id} v{m.version} {m.status}{' frozen' if m.frozen else ''}"))
    _run(ctx, go)


@app.command()
def purge(ctx: typer.Context, memory_id: str,
          reason: Annotated[str | None, typer.Option()] = None,
          yes: Annotated[bool, typer.Option("--yes", help="Do not ask.")] = False) -> None:
    """Erase a memory's content from every revision and index (irreversible)."""
    if not yes and sys.stdin.isatty() and not typer.confirm(
            f"Erase {memory_id} permanently?"):
        raise typer.Exit(1)

    def go(c: Ctx) -> None:
        tomb = c.vault().purge(c.scope(), memory_id, reason=reason)
        _emit(c, tomb.to_dict(), lambda: out.print(f"purged {memory_id} ({tomb.op_id})"))
    _run(ctx, go)


@app.command()
def sweep(ctx: typer.Context,
          all_scopes: Annotated[bool, typer.Option("--all", help="Every scope.")] = False,
          step: Annotated[list[str] | None, typer.Option(
              "--step", help="Only these steps: expire, summarize, graph, caps "
              "(repeatable; default all).")] = None) -> None:
    """The lifecycle job: expire lapsed memories, run summary triggers, read new facts
    into the graph, enforce per-user caps (docs/layers.md)."""
    def go(c: Ctx) -> None:
        rep = c.vault().maintain(None if all_scopes else c.scope(), steps=step or None)
        d = rep.to_dict()
        _emit(c, d, lambda: out.print(
            f"expired {d['expired']}, summaries {len(d['summaries'])}, relations "
            f"{len(d['relations'])}, evicted {len(d['evicted'])}"
            + "".join(f"\nerror {escape(e)}" for e in d["errors"])))
    _run(ctx, go)


@app.command()
def recent(ctx: typer.Context,
           n: Annotated[int | None, typer.Option("--n", help="How many turns.")] = None,
           max_tokens: Annotated[int | None, typer.Option()] = None) -> None:
    """The session's last turns, verbatim (short-term layer)."""
    _memories(ctx, lambda c: c.vault().recent(c.scope(), n=n, max_tokens=max_tokens))


@app.command()
def summarize(ctx: typer.Context,
              due_only: Annotated[bool, typer.Option(
                  "--due-only", help="Only what the triggers call for.")] = False) -> None:
    """Summarise the session's (or every session's) uncovered turns."""
    _memories(ctx, lambda c: c.vault().summarize(c.scope(), force=not due_only))


@app.command()
def expand(ctx: typer.Context, summary_id: str) -> None:
    """The raw turns a summary covers."""
    _memories(ctx, lambda c: c.vault().expand(c.scope(), summary_id))


graph_app = typer.Typer(no_args_is_help=True, help="The knowledge graph: entities and "
                        "relations with validity (docs/layers.md).")
app.add_typer(graph_app, name="graph")


@graph_app.command("ingest")
def graph_ingest(ctx: typer.Context) -> None:
    """Read facts from memories not read yet."""
    _memories(ctx, lambda c: c.vault().graph_ingest(c.scope()))


def _facts_table(rows: list[dict[str, Any]]) -> Table:
    t = Table()
    for col in ("subject", "relation", "object", "valid_from", "valid_to"):
        t.add_column(col)
    for f in rows:
        t.add_row(str(f.get("subject", f.get("entity"))), str(f["relation"]),
                  str(f.get("object", f.get("direction"))), iso(f["valid_from"]) or "",
                  iso(f["valid_to"]) or "")
    return t


GraphAsOf = Annotated[str | None, typer.Option("--as-of", help="A time (ISO 8601).")]
GraphHistory = Annotated[bool, typer.Option("--history", help="Closed facts too.")]


@graph_app.command("entity")
def graph_entity(ctx: typer.Context, name: str) -> None:
    """The entity a name, alias or id resolves to."""
    def go(c: Ctx) -> None:
        m = c.vault().graph_entity(c.scope(), name)
        _emit(c, m.to_dict(), lambda: _show_memory(m))
    _run(ctx, go)


@graph_app.command("facts")
def graph_facts(ctx: typer.Context, entity: str, as_of: GraphAsOf = None,
                history: GraphHistory = False) -> None:
    """Facts about an entity that held at a time (default now)."""
    def go(c: Ctx) -> None:
        rows = c.vault().graph_facts(c.scope(), entity, as_of=as_of, history=history)
        _emit(c, rows, lambda: out.print(_facts_table(rows)))
    _run(ctx, go)


@graph_app.command("neighbours")
def graph_neighbours(ctx: typer.Context, entity: str, as_of: GraphAsOf = None,
                     history: GraphHistory = False) -> None:
    """Entities one relation away."""
    def go(c: Ctx) -> None:
        rows = c.vault().graph_neighbours(c.scope(), entity, as_of=as_of, history=history)
        _emit(c, rows, lambda: out.print(_facts_table(rows)))
    _run(ctx, go)


@app.command("export")
def export_(ctx: typer.Context,
            path: Annotated[Path | None, typer.Argument(help="Output file (default stdout).")]
            = None) -> None:
    """Export the scope's memories with full history as JSONL."""
    def go(c: Ctx) -> None:
        vault, scope = c.vault(), validate.scope(c.scope())  # fail before touching a file
        if path is None:
            n = vault.export_jsonl(scope, sys.stdout)
        else:
            n = _write_file(path, lambda f: vault.export_jsonl(scope, f), c.db)
        err.print(f"exported {n} memories")
    _run(ctx, go)


def _write_file(path: Path, write: Callable[[Any], int], db: str) -> int:
    """Write through a temporary file beside `path`, renamed over it only when complete:
    a failed export leaves an existing file as it was. The store's own files are refused."""
    target = path.expanduser().resolve()
    store = Path(db).expanduser().resolve() if db and "://" not in db else None
    if store is not None and target in {store, *(Path(f"{store}{x}") for x in
                                                 ("-wal", "-shm", "-journal"))}:
        raise ValidationError(f"export: {path} is the store itself; choose another file")
    if target.is_dir():
        raise ValidationError(f"export: {path} is a directory")
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as e:
        raise ValidationError(f"export: cannot write {path} ({e.strerror or e})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            n = write(f)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise
    return n


@app.command("import")
def import_(ctx: typer.Context, path: Path) -> None:
    """Import a JSONL export into the scope (--tenant, --user), all or nothing: a memory
    or revision of another scope fails the lot."""
    def go(c: Ctx) -> None:
        scope = c.scope()  # like every other verb: named, and nothing outside it is written
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise ValidationError(f"import: cannot read {path} ({e})") from None
        with _progress() as p:
            task = p.add_task("importing", total=max(len(lines) - 1, 0))
            n = c.vault().import_jsonl(lines, progress=lambda k: p.advance(task, k),
                                       scope=scope)
        _emit(c, {"imported": n}, lambda: out.print(f"imported {n} memories"))
    _run(ctx, go)


def _progress() -> Progress:
    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), TimeElapsedColumn(), console=err)


@app.command()
def reindex(ctx: typer.Context) -> None:
    """Re-embed every memory with the configured embedder and record it in the store."""
    def go(c: Ctx) -> None:
        v = c.vault(check_models=False)
        with _progress() as p:
            task = p.add_task(f"embedding with {v.embedding_model}", total=v.store.count())
            n = v.reindex(progress=lambda done, total: p.update(task, completed=done))
        _emit(c, {"reindexed": n, "embedder": v.embedding_model},
              lambda: out.print(f"reindexed {n} memories with {v.embedding_model}"))
    _run(ctx, go)


config_app = typer.Typer(help="The strategy: show the one in force, or check a file.",
                         no_args_is_help=True)
app.add_typer(config_app, name="config")


@config_app.command("show")
def config_show(ctx: typer.Context) -> None:
    """Print the strategy in force (YAML) and its hash."""
    from .config import load_strategy

    def go(c: Ctx) -> None:
        s = load_strategy(c.config)
        _emit(c, {"hash": s.hash, "strategy": s.model_dump(mode="json")},
              lambda: out.print(f"# strategy hash {s.hash}\n{s.to_yaml()}", highlight=False,
                                markup=False))
    _run(ctx, go)


@config_app.command("check")
def config_check(ctx: typer.Context, path: Path) -> None:
    """Validate a strategy file; exit non-zero with the problems if it is invalid."""
    from .config import load_strategy

    def go(c: Ctx) -> None:
        s = load_strategy(path)
        _emit(c, {"ok": True, "hash": s.hash}, lambda: out.print(f"ok: {path} (hash {s.hash})"))
    _run(ctx, go)


@app.command()
def trace(ctx: typer.Context, trace_id: str) -> None:
    """Why a recall returned what it did: candidates, score parts, filters."""
    def go(c: Ctx) -> None:
        t = c.vault().trace(c.scope(), trace_id)

        def human() -> None:
            out.print(f"trace {t['trace_id']} ({t['kind']}) at {iso(t['at'])}, "
                      f"strategy {t['strategy_hash']}", highlight=False)
            out.print(f"query: {t['query']!r}", highlight=False, markup=False)
            if t.get("time_range"):
                lo, hi = t["time_range"]
                out.print(f"time range: {iso(lo)} .. {iso(hi)}")
            out.print(f"applied in the store: {', '.join(t['store_filters'])}")
            tab = Table()
            for col in ("rank", "outcome", "score", "relevance", "bm25", "dense", "coverage",
                        "recency", "id", "slot"):
                tab.add_column(col)
            for cand in t["candidates"]:
                p = cand["parts"]
                dense = ", ".join(f"{val:.3f}" for val in p["dense"].values())
                tab.add_row(str(cand["rank"] or ""), cand["outcome"], f"{cand['score']:.3f}",
                            f"{p['relevance']:.3f}", f"{p['bm25']:.3f}", dense,
                            # traces written before coverage existed have no such part
                            f"{p.get('coverage', 0.0):.3f}", f"{p['recency']:.3f}",
                            cand["id"], cand["slot"] or "")
            out.print(tab)
            if t.get("injected"):
                out.print(t["injected"].get("text", ""), highlight=False, markup=False)
        _emit(c, t, human)
    _run(ctx, go)


@app.command()
def traces(ctx: typer.Context,
           limit: Annotated[int, typer.Option(help="How many, newest first.")] = 20) -> None:
    """The user's recent recall and context traces, newest first."""
    def go(c: Ctx) -> None:
        rows = c.vault().traces(c.scope(), limit=limit)

        def human() -> None:
            t = Table()
            for col in ("at", "trace", "kind", "returned", "query"):
                t.add_column(col)
            for tr in rows:
                returned = sum(1 for cand in tr.get("candidates", [])
                               if cand.get("outcome") == "returned")
                t.add_row(iso(tr.get("at")) or "", tr["trace_id"], str(tr.get("kind", "")),
                          str(returned), _short(str(tr.get("query", "")), 60))
            out.print(t)
        _emit(c, rows, human)
    _run(ctx, go)


@app.command()
def profile(ctx: typer.Context,
            as_of: Annotated[str | None, typer.Option(help="ISO time or epoch ms.")] = None
            ) -> None:
    """The user's active slots as a profile: slot, value, version, source."""
    def go(c: Ctx) -> None:
        prof = c.vault().profile(c.scope(), as_of=as_of)

        def human() -> None:
            t = Table()
            for col in ("slot", "value", "v", "since", "source", "id"):
                t.add_column(col)
            for slot_, p in prof.items():
                val = p["value"]
                t.add_row(slot_, _short(val if isinstance(val, str)
                                        else json.dumps(val, ensure_ascii=False), 60),
                          str(p["version"]) + (" ❄" if p["frozen"] else ""),
                          iso(p["since"]) or "", p["source"], p["memory_id"])
            out.print(t if prof else "(no profile slots)")
        _emit(c, prof, human)
    _run(ctx, go)


@app.command()
def users(ctx: typer.Context) -> None:
    """The user ids of the tenant (--tenant) that have any recorded change."""
    def go(c: Ctx) -> None:
        ids = c.vault().users(c.tenant or "")
        _emit(c, ids, lambda: out.print("\n".join(ids) if ids else "(no users)",
                                        highlight=False, markup=False))
    _run(ctx, go)


@app.command()
def migrate(ctx: typer.Context) -> None:
    """Bring the store's schema up to date (SQLite file or postgresql:// DSN)."""
    from .store import open_store

    def go(c: Ctx) -> None:
        store = open_store(c.db)  # opening applies pending migrations, under a lock
        try:
            version = store.schema_version()
        finally:
            store.close()
        _emit(c, {"schema_version": version},
              lambda: out.print(f"schema at version {version}: up to date"))
    _run(ctx, go)


@app.command()
def demo(ctx: typer.Context) -> None:
    """Walk through the stale-preference story: CSV→XLSX, email→SMS, history, rollback."""
    from .demo import run_demo

    c: Ctx = ctx.obj
    try:
        run_demo(c.db if c.db != str(default_db_path()) else None, embedder=c.embedder,
                 console=out)
    except MemvaultError as e:
        _fail(e)


@app.command()
def mcp(ctx: typer.Context,
        transport: Annotated[str, typer.Option(
            help="stdio, or http (streamable HTTP at /mcp).")] = "stdio",
        host: Annotated[str, typer.Option(help="http: address to bind.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="http: port.")] = 8765) -> None:
    """Serve the verbs to MCP clients, in the one scope given by --tenant/--user
    (docs/mcp.md)."""
    from .mcpserver import serve, server_scope  # the MCP SDK loads only for this command

    def go(c: Ctx) -> None:
        scope = server_scope(c.scope())  # checked before the store is opened
        if c.actor == "cli":  # the global default; revisions should say who wrote
            c.actor = "mcp"
        serve(c.vault, scope, transport=transport, host=host, port=port)
    _run(ctx, go)


@app.command("serve")
def serve_rest(ctx: typer.Context,
               host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
               port: Annotated[int, typer.Option(help="Port.")] = 8765,
               sweep_interval: Annotated[float, typer.Option(
                   help="Seconds between TTL sweeps; 0 disables the timer.")] = 60.0,
               max_body: Annotated[int, typer.Option(
                   help="Largest request body in bytes (413 above).")] = 1024 * 1024,
               no_worker: Annotated[bool, typer.Option(
                   "--no-worker", help="Queue async writes but do not run them here.")
                   ] = False,
               metrics_token: Annotated[str | None, typer.Option(
                   envvar="MEMVAULT_METRICS_TOKEN", show_default=False,
                   help="Require this bearer token on GET /metrics (prefer the env "
                   "var: a command line is visible to other users).")] = None) -> None:
    """The REST API on the store (--db); OpenAPI docs at /docs (docs/server.md). On a
    store without API keys, creates an admin key for --tenant (default: "default") and
    prints it once."""
    from .server import Settings, serve  # FastAPI and uvicorn load only for this command

    def go(c: Ctx) -> None:
        serve(c.db, host=host, port=port, embedder=c.embedder, config=c.config,
              bootstrap_tenant=c.tenant or "default",
              settings=Settings(max_body_bytes=max_body, sweep_interval=sweep_interval,
                                worker=not no_worker, metrics_token=metrics_token or None))
    _run(ctx, go)


# --- eval: retrieval benchmarks; the logic lives in memvault.eval --------------------------

eval_app = typer.Typer(no_args_is_help=True, help="Retrieval evaluation on LoCoMo and "
                       "MADial-Bench in a fresh temporary store (docs/evaluation.md).")
app.add_typer(eval_app, name="eval")

EvalData = Annotated[Path | None, typer.Option(
    "--data", help="Datasets folder (holding locomo/ and madial-bench/), or the dataset's "
    "own folder or file. Default: ../shared/datasets relative to the current directory, "
    "if it exists.")]
EvalSplit = Annotated[Split, typer.Option(help="Queries to run: tune (LoCoMo conversations "
                                          "1-5, MADial even dialogues), holdout, or all "
                                          "(reports tune, holdout and all).")]
EvalOut = Annotated[Path, typer.Option("--out", help="Folder for the snapshot JSON and the "
                                       "score histogram PNG.")]


def _eval_run(ctx: typer.Context, name: str, data: Path | None, lang: str | None,
              split: Split, out_dir: Path) -> None:
    from .eval import report, runner

    def go(c: Ctx) -> None:
        with _progress() as p:
            tasks: dict[str, Any] = {}

            def step(phase: str, done: int, total: int) -> None:
                if phase not in tasks:
                    tasks[phase] = p.add_task(phase, total=total)
                p.update(tasks[phase], completed=done)
            # The strategy in force (--config / MEMVAULT_CONFIG), as for every other verb.
            run = runner.evaluate(name, data, lang=lang, split=split, embedder=c.embedder,
                                  vault_kwargs={"strategy": c.config}, progress=step)
        snap = report.build_snapshot(run)
        path, png = report.write_snapshot(snap, out_dir)
        _emit(c, snap, lambda: out.print(*report.metrics_tables(snap)))
        err.print(escape(f"snapshot {path}" + (f", histogram {png}" if png else
                                               f" ({snap['score_distribution']['note']})")))
    _run(ctx, go)


@eval_app.command("locomo")
def eval_locomo(ctx: typer.Context, data: EvalData = None, split: EvalSplit = Split.ALL,
                out_dir: EvalOut = Path("eval-results"),
                mode: Annotated[str, typer.Option(
                    help="recall: rank turns (metrics per category); layered: evidence in "
                    "the context section, turn-only vs layered memory at one budget "
                    "(docs/evaluation.md).")] = "recall",
                budget: Annotated[int, typer.Option(help="layered: context budget in "
                                                    "tokens.")] = 800,
                conversations: Annotated[int | None, typer.Option(
                    help="layered: only the first N conversations.")] = None) -> None:
    """LoCoMo: a memory per turn, a user per conversation; metrics per category."""
    if mode == "layered":
        _eval_layered(ctx, data, split, out_dir, budget, conversations)
    elif mode == "recall":
        _eval_run(ctx, "locomo", data, None, split, out_dir)
    else:
        _fail(ValidationError(f"--mode: expected recall or layered, got {mode!r}"))


def _eval_layered(ctx: typer.Context, data: Path | None, split: Split, out_dir: Path,
                  budget: int, conversations: int | None) -> None:
    from .eval import layered
    from .eval.datasets import load_dataset

    def go(c: Ctx) -> None:
        ds = load_dataset("locomo", data).select(split)
        with _progress() as p:
            tasks: dict[str, Any] = {}

            def step(phase: str, done: int, total: int) -> None:
                if phase not in tasks:
                    tasks[phase] = p.add_task(phase, total=total)
                p.update(tasks[phase], completed=done)
            res = layered.run_context_eval(ds, budget=budget, groups=conversations,
                                           embedder=c.embedder,
                                           vault_kwargs={"strategy": c.config},
                                           progress=step)
        res["split"] = split.value
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"locomo-layered-{split.value}-b{budget}.json"
        path.write_text(json.dumps(res, indent=1, ensure_ascii=False), encoding="utf-8")

        def human() -> None:
            t = Table(title=f"LoCoMo evidence in context ({split.value}, budget {budget}, "
                      f"{len(res['conversations'])} conversations)")
            for col in layered.COLUMNS:
                t.add_column(col)
            for row in layered.rows(res):
                t.add_row(*row)
            out.print(t)
        _emit(c, res, human)
        err.print(escape(f"snapshot {path}"))
    _run(ctx, go)


@eval_app.command("madial")
def eval_madial(ctx: typer.Context,
                lang: Annotated[Lang, typer.Option(help="Which half of MADial-Bench.")],
                data: EvalData = None, split: EvalSplit = Split.ALL,
                out_dir: EvalOut = Path("eval-results")) -> None:
    """MADial-Bench: a memory per event, a user per user-id, the dialogue as query."""
    _eval_run(ctx, "madial", data, lang.value, split, out_dir)


@eval_app.command("compare")
def eval_compare(ctx: typer.Context, a: Path, b: Path) -> None:
    """Metric differences B − A of two snapshots, per split and category."""
    from .eval import report

    def go(c: Ctx) -> None:
        cmp = report.compare(report.load_snapshot(a), report.load_snapshot(b))

        def human() -> None:
            for w in cmp["warnings"]:
                err.print(f"note: {escape(w)}")
            out.print(*report.compare_tables(cmp, str(a), str(b)))
        _emit(c, cmp, human)
    _run(ctx, go)


def main() -> None:
    app()


if __name__ == "__main__":
    main()

"""Verbs that read: get, list, recall, context, history, audit, diff, trace(s), profile,
users."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from ..timeutil import iso
from .options import ListValidSince, ListValidUntil, ValidAt, ValidSince, ValidUntil
from .render import hits_table, out, revision_table, short, show, show_memory
from .session import Ctx, emit, emit_memories, run_verb


def get(ctx: typer.Context, memory_id: str,
        as_of: Annotated[str | None, typer.Option(help="ISO time or epoch ms.")] = None) -> None:
    """Show one memory (as it is now, or as it was believed at --as-of)."""
    def go(c: Ctx) -> None:
        m = c.vault().get(c.scope(), memory_id, as_of=as_of)
        emit(c, m.to_dict(), lambda: show_memory(m))
    run_verb(ctx, go)


def list_(ctx: typer.Context,
          kind: Annotated[str | None, typer.Option()] = None,
          status: Annotated[str | None, typer.Option()] = None,
          slot: Annotated[str | None, typer.Option()] = None,
          topic: Annotated[str | None, typer.Option(
              help="Only memories with exactly this topic, e.g. 'quiet cafes'.")] = None,
          tag: Annotated[list[str] | None, typer.Option()] = None,
          since: Annotated[str | None, typer.Option(
              help="Only memories changed at or after this time.")] = None,
          until: Annotated[str | None, typer.Option(
              help="Only memories changed before this time.")] = None,
          as_of: Annotated[str | None, typer.Option(
              help="System time: the memories as the store knew them then.")] = None,
          valid_at: ValidAt = None, valid_since: ListValidSince = None,
          valid_until: ListValidUntil = None,
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
    emit_memories(ctx, lambda c: c.vault().list(
        c.scope(), kind=kind, status=status, slot=slot, tags=tag, since=since, until=until,
        as_of=as_of, limit=limit, offset=offset, source=source, frozen=frozen,
        expiring_before=expiring_before, q=q, slotted=slotted, topic=topic,
        valid_at=valid_at, valid_since=valid_since, valid_until=valid_until))


Teams = Annotated[bool, typer.Option(
    "--teams/--no-teams", help="Read the user's teams beside the user's own memories "
    "(docs/teams.md).")]


def recall(ctx: typer.Context, query: str,
           top_k: Annotated[int | None, typer.Option("--top-k", "-k")] = None,
           kind: Annotated[str | None, typer.Option()] = None,
           tag: Annotated[list[str] | None, typer.Option()] = None,
           as_of: Annotated[str | None, typer.Option(
               help="System time: what the store knew then.")] = None,
           min_score: Annotated[float | None, typer.Option()] = None,
           valid_at: ValidAt = None, since: ValidSince = None,
           until: ValidUntil = None, teams: Teams = True,
           reranker: Annotated[str | None, typer.Option(
               help="none, embedder or llm: in place of the strategy's "
                    "retrieval.reranker.")] = None) -> None:
    """Ranked memories for a query, with their score parts. --valid-at or
    --since/--until: what held in the world then ("where did Gina work in 2022").
    The user's teams are read too (--no-teams: not), each hit marked with its scope."""
    def go(c: Ctx) -> None:
        hits = c.vault().recall(c.scope(), query, top_k=top_k, kind=kind, tags=tag,
                                as_of=as_of, min_score=min_score, valid_at=valid_at,
                                valid_since=since, valid_until=until, teams=teams,
                                reranker=reranker)

        def human() -> None:
            show(hits_table(hits))
            if hits.trace_id:
                out.print(f"trace: {hits.trace_id}", style="dim")
        emit(c, {"trace_id": hits.trace_id, "hits": [h.to_dict() for h in hits]}, human)
    run_verb(ctx, go)


def context(ctx: typer.Context, query: str,
            budget: Annotated[int | None, typer.Option(help="Token budget.")] = None,
            lang: Annotated[str | None, typer.Option(help="en or zh.")] = None,
            kind: Annotated[str | None, typer.Option(help="Recall only, of this kind.")
                            ] = None,
            tag: Annotated[list[str] | None, typer.Option(
                "--tag", "--tags", help="Recall only, with these tags (repeatable).")
                ] = None,
            as_of: Annotated[str | None, typer.Option(
                help="Recall only, as the store knew it then (system time).")] = None,
            valid_at: ValidAt = None, since: ValidSince = None,
            until: ValidUntil = None, teams: Teams = True) -> None:
    """The prompt section for a query: memories as reference data, within a budget.
    --as-of, --valid-at or --since/--until: recall only (no layers); an item that held
    for a while shows its range."""
    def go(c: Ctx) -> None:
        r = c.vault().context(c.scope(), query, budget=budget, lang=lang, kind=kind, tags=tag,
                              as_of=as_of, valid_at=valid_at, valid_since=since,
                              valid_until=until, teams=teams)

        def human() -> None:
            out.print(r.text or "(no memory section)", highlight=False, markup=False)
            out.print(f"{r.tokens} tokens; trace: {r.trace_id}", style="dim")
        emit(c, r.to_dict(), human)
    run_verb(ctx, go)


def history(ctx: typer.Context, memory_id: str) -> None:
    """Every revision of a memory: op, versions, actor, reason, trigger text."""
    def go(c: Ctx) -> None:
        revs = c.vault().history(c.scope(), memory_id)
        emit(c, [r.to_dict() for r in revs], lambda: show(revision_table(revs)))
    run_verb(ctx, go)


def audit(ctx: typer.Context,
          since: Annotated[str | None, typer.Option(help="ISO time or epoch ms.")] = None,
          limit: Annotated[int, typer.Option(help="At most this many changes.")] = 100
          ) -> None:
    """Every recorded change in the scope, newest first: memory, op, actor, reason."""
    def go(c: Ctx) -> None:
        revs = c.vault().audit(c.scope(), since=since, limit=limit)
        emit(c, [r.to_dict() for r in revs],
             lambda: show(revision_table(revs, memory_ids=True) if revs
                          else "(no recorded changes)"))
    run_verb(ctx, go)


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
            show(t if d else "no differences")
        emit(c, d, human)
    run_verb(ctx, go)


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
            show(tab)
            if t.get("injected"):
                out.print(t["injected"].get("text", ""), highlight=False, markup=False)
        emit(c, t, human)
    run_verb(ctx, go)


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
                          str(returned), short(str(tr.get("query", "")), 60))
            show(t)
        emit(c, rows, human)
    run_verb(ctx, go)


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
                t.add_row(slot_, short(val if isinstance(val, str)
                                       else json.dumps(val, ensure_ascii=False), 60),
                          str(p["version"]) + (" ❄" if p["frozen"] else ""),
                          iso(p["since"]) or "", p["source"], p["memory_id"])
            show(t if prof else "(no profile slots)")
        emit(c, prof, human)
    run_verb(ctx, go)


def users(ctx: typer.Context) -> None:
    """The user ids of the tenant (--tenant) that have any recorded change."""
    def go(c: Ctx) -> None:
        ids = c.vault().users(c.tenant or "")
        emit(c, ids, lambda: out.print("\n".join(ids) if ids else "(no users)",
                                       highlight=False, markup=False))
    run_verb(ctx, go)

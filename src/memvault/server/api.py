"""The REST routes: one per core verb, each a thin call of the Vault with the caller's
scope. Reads that return memory content are written to the access log."""

# No `from __future__ import annotations`: FastAPI reads these annotations at runtime,
# and some close over local variables (the action of a dependency).
import io
import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from .. import agentpolicy
from .. import vault as vault_mod
from ..errors import NotFoundError, ValidationError
from ..reads import records
from ..timeutil import now_ms, to_ms
from ..wording import a_or_an
from . import schemas as s
from .auth import Principal
from .deps import Caller, caller_for, named_user, principal_for, server
from .errors import ERROR_RESPONSES, ApiError
from .jobs import check_args, queued_args, run_verb
from .permissions import KIND_ACTIONS, allowed, edit_actions
from .teamaccess import read_teams

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)  # type: ignore[arg-type]

MemoryId = Annotated[str, Path(min_length=1, max_length=128)]
Async = Annotated[bool, Query(alias="async", description="queue the write and return a job "
                              "id (202) instead of waiting for it")]


# Valid time (validtime.py): when a memory held in the world, apart from as_of (system time).
ValidAt = Annotated[str | None, Query(description="valid time: only what held then "
                                      "(ISO-8601 or epoch ms)")]
ValidSince = Annotated[str | None, Query(description="valid-time range start: only what "
                                         "held at some point from then")]
ValidUntil = Annotated[str | None, Query(description="valid-time range end (exclusive)")]


def _c(action: str) -> Any:
    return Depends(caller_for(action))


def _write(request: Request, c: Caller, kind: str, args: dict[str, Any], run_async: bool
           ) -> Any:
    st = server(request)
    p = c.principal
    if run_async:
        check_args(st.vault, kind, c.scope, args)
        args = queued_args(st.vault, kind, args)
        job = {"job_id": vault_mod.new_id("job"), "tenant": c.scope.tenant,
               "user": c.scope.user, "kind": kind, "key_id": p.key_id,
               "created_at": now_ms(),
               "payload": {"args": args, "agent": c.scope.agent, "session": c.scope.session,
                           "actor": p.actor, "role": p.role}}
        st.vault.store.enqueue_job(job)
        st.worker_notify()
        request.state.job_id = job["job_id"]
        return JSONResponse(status_code=202, content={
            "job_id": job["job_id"], "kind": kind, "status": "queued", "user": c.scope.user,
            "created_at": job["created_at"], "finished_at": None, "result": None,
            "error": None}, headers={"Location": f"/v1/jobs/{job['job_id']}"})
    result = run_verb(st.vault, kind, c.scope, args, actor=p.actor, role=p.role)
    st.metrics.gate_outcomes(kind, result)
    return result


def _write_args(c: Caller, body: s.ProposeIn) -> dict[str, Any]:
    """The fields given, once the key may claim the source: only an admin key may write
    as `admin_manual` (the gate ranks it above the user's own words)."""
    args = body.model_dump(exclude_unset=True)
    if args.get("source") == "admin_manual" and c.principal.role != "admin":
        raise ApiError(403, "forbidden", f"{a_or_an(c.principal.role)} key may not write with "
                       "source admin_manual")
    # An agent kind written through the plain verbs needs the permission of its own verb.
    action = KIND_ACTIONS.get(str(args.get("kind")))
    if action is not None and not allowed(c.principal.role, action):
        raise ApiError(403, "forbidden", f"{a_or_an(c.principal.role)} key may not write "
                       f"{args['kind']} memories")
    return args


@router.post("/memories", response_model=s.RememberOut, tags=["write"],
             responses={202: {"model": s.JobOut, "description": "queued (async=true)"}})
def remember(request: Request, c: Annotated[Caller, _c("remember")], body: s.RememberIn,
             run_async: Async = False) -> Any:
    """Store a statement or a new slot value: added, updated or noop. Only an admin key
    may claim the source `admin_manual` (the gate ranks it above the user's own words)."""
    return _write(request, c, "remember", _write_args(c, body), run_async)


@router.post("/propose", response_model=s.ProposeOut, tags=["write"],
             responses={202: {"model": s.JobOut, "description": "queued (async=true)"}})
def propose(request: Request, c: Annotated[Caller, _c("propose")], body: s.ProposeIn,
            run_async: Async = False) -> Any:
    """A statement from an agent or a model, through the write gate (Vault.propose):
    added, updated, noop, stage (kept for review), block or reject, with reason codes. A
    change to a stored value needs the user's own words in `source_text`."""
    return _write(request, c, "propose", _write_args(c, body), run_async)


@router.post("/observe", response_model=s.ObserveOut, tags=["write"],
             responses={202: {"model": s.JobOut, "description": "queued (async=true)"}})
def observe(request: Request, c: Annotated[Caller, _c("observe")], body: s.ObserveIn,
            run_async: Async = False) -> Any:
    """Keep a conversation's turns and pass extracted candidates through the gate."""
    args = {"messages": [m.model_dump(exclude_none=True) for m in body.messages],
            "source_ref": body.source_ref}
    return _write(request, c, "observe", args, run_async)


@router.get("/memories", response_model=s.MemoryList, tags=["read"])
def list_memories(
    request: Request, c: Annotated[Caller, _c("list")],
    kind: str | None = None, status: str | None = None, slot: str | None = None,
    topic: Annotated[str | None, Query(description="exactly this topic, e.g. 'quiet "
                                       "cafes'")] = None,
    source: str | None = None, frozen: bool | None = None,
    expiring_before: Annotated[str | None, Query(description="has a TTL ending before this "
                                                 "time (ISO-8601 or epoch ms)")] = None,
    tags: Annotated[list[str] | None, Query(description="all of these tags")] = None,
    q: Annotated[str | None, Query(description="case-insensitive text in the content")
                 ] = None,
    since: str | None = None, until: str | None = None, as_of: str | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
    valid_at: ValidAt = None, valid_since: ValidSince = None,
    valid_until: ValidUntil = None,
) -> Any:
    """Memories of the scope, newest first, filtered and paginated (since/until: when it
    last changed; valid_*: when it held in the world)."""
    mems = server(request).vault.list(
        c.scope, kind=kind, status=status, slot=slot, topic=topic, source=source,
        frozen=frozen, expiring_before=expiring_before, tags=tags, q=q, since=since,
        until=until, as_of=as_of, limit=limit, offset=offset, valid_at=valid_at,
        valid_since=valid_since, valid_until=valid_until)
    return {"items": [m.to_dict() for m in mems], "limit": limit, "offset": offset}


@router.patch("/memories/{memory_id:path}", response_model=s.MemoryOut, tags=["govern"])
def edit(request: Request, c: Annotated[Caller, _c("edit")], memory_id: MemoryId,
         body: s.EditIn) -> Any:
    """Change fields by hand: a new version, source admin_manual, with the reason. An
    edit of an agent kind also needs its verb's permission (a user key may not edit a
    tool result), and `promote`'s when it moves the expiry later."""
    vault = server(request).vault
    args = body.model_dump(exclude_unset=True)
    try:
        old = records.get(vault.core, c.scope, memory_id)
    except NotFoundError:
        # Nothing to decide on: the core verb reports bad input first, then the 404 (ids
        # are the server's, so no memory appears under this one in between).
        return vault.edit(c.scope, memory_id, **args, actor=c.principal.actor).to_dict()
    promotes = ("expires_at" in args and args["expires_at"] is not None and
                agentpolicy.lengthens_expiry(old, to_ms(args["expires_at"],
                                                        field="expires_at")))
    for action in edit_actions(old.kind, promotes):
        if not allowed(c.principal.role, action):
            raise ApiError(403, "forbidden", f"{a_or_an(c.principal.role)} key may not "
                           f"{'promote' if action == 'promote' else 'edit'} "
                           f"{old.kind} memories")
    # The decision holds for the version it read: a concurrent change is a 409.
    if args.get("expected_version") is None:
        args["expected_version"] = old.version
    return vault.edit(c.scope, memory_id, **args, actor=c.principal.actor).to_dict()


@router.get("/memories/{memory_id:path}/history", response_model=list[s.RevisionOut],
            tags=["read"])
def history(request: Request, c: Annotated[Caller, _c("history")], memory_id: MemoryId
            ) -> Any:
    revs = server(request).vault.history(c.scope, memory_id)
    return [r.to_dict() for r in revs]


@router.get("/memories/{memory_id:path}/diff", response_model=dict[str, dict[str, Any]],
            tags=["read"])
def diff(request: Request, c: Annotated[Caller, _c("diff")], memory_id: MemoryId,
         from_version: int, to_version: int) -> Any:
    """{field: {from, to}} for the fields that differ between two versions."""
    out = server(request).vault.diff(c.scope, memory_id, from_version, to_version)
    return out


def _govern(action: str, verb: str) -> None:
    """POST /v1/memories/{id}/{action} with {reason}: forget, freeze, unfreeze, expire."""
    def route(request: Request, c: Annotated[Caller, _c(action)], memory_id: MemoryId,
              body: s.ReasonIn | None = None) -> Any:
        reason = body.reason if body is not None else None
        return getattr(server(request).vault, verb)(c.scope, memory_id, reason=reason,
                                                    actor=c.principal.actor).to_dict()
    route.__name__ = verb
    router.add_api_route(f"/memories/{{memory_id:path}}/{action}", route, methods=["POST"],
                         response_model=s.MemoryOut, tags=["govern"], name=verb,
                         summary=action)


for _action in ("forget", "freeze", "unfreeze", "expire"):
    _govern(_action, _action)


@router.post("/memories/{memory_id:path}/rollback", response_model=s.MemoryOut,
             tags=["govern"])
def rollback(request: Request, c: Annotated[Caller, _c("rollback")], memory_id: MemoryId,
             body: s.RollbackIn) -> Any:
    """Restore version N as a new version (undo it by rolling back again)."""
    return server(request).vault.rollback(c.scope, memory_id, body.to_version,
                                          reason=body.reason, actor=c.principal.actor).to_dict()


@router.post("/memories/{memory_id:path}/purge", response_model=s.PurgeOut, tags=["govern"])
def purge(request: Request, c: Annotated[Caller, _c("purge")], memory_id: MemoryId,
          body: s.ReasonIn | None = None) -> Any:
    """Erase: the content leaves every revision, the indexes and the files. `erasure`
    is "done" when the bytes are gone from the files, "pending" while another
    connection's read snapshot holds them (poll GET on this path)."""
    return server(request).vault.purge(c.scope, memory_id, actor=c.principal.actor,
                                       reason=body.reason if body else None).to_dict()


@router.get("/memories/{memory_id:path}/purge", response_model=s.PurgeStatusOut,
            tags=["govern"])
def purge_status(request: Request, c: Annotated[Caller, _c("purge")],
                 memory_id: MemoryId) -> Any:
    """Whether a purged memory's erased bytes are gone from the files ("done") or still
    held by a reader's snapshot ("pending"; retried on each call). 404 if never purged."""
    return {"memory_id": memory_id,
            "erasure": server(request).vault.purge_status(c.scope, memory_id)}


@router.post("/recall", response_model=s.RecallOut, tags=["read"])
def recall(request: Request, c: Annotated[Caller, _c("recall")], body: s.RecallIn) -> Any:
    """Ranked live memories for a query, with score parts and a trace id."""
    st = server(request)
    t0 = time.perf_counter()
    args = body.model_dump(exclude_unset=True)
    args["teams"] = read_teams(st.vault.store, c.principal, c.scope, body.teams)
    hits = st.vault.recall(c.scope, **args)
    st.metrics.recall.labels("recall").observe(time.perf_counter() - t0)
    request.state.trace_id = hits.trace_id
    return {"trace_id": hits.trace_id, "hits": [h.to_dict() for h in hits]}


@router.post("/context", response_model=s.ContextOut, tags=["read"])
def context(request: Request, c: Annotated[Caller, _c("context")], body: s.ContextIn) -> Any:
    """The prompt section for a query: memories as reference data, within a budget."""
    st = server(request)
    t0 = time.perf_counter()
    args = body.model_dump(exclude_unset=True)
    args["teams"] = read_teams(st.vault.store, c.principal, c.scope, body.teams)
    r = st.vault.context(c.scope, **args)
    st.metrics.recall.labels("context").observe(time.perf_counter() - t0)
    request.state.trace_id = r.trace_id
    return r.to_dict()


@router.get("/review", response_model=list[s.MemoryOut], tags=["review"])
def review_list(request: Request, c: Annotated[Caller, _c("review.list")],
                limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> Any:
    mems = server(request).vault.review_list(c.scope, limit=limit)
    return [m.to_dict() for m in mems]


@router.get("/review/{memory_id:path}", response_model=s.ReviewOut, tags=["review"])
def review_show(request: Request, c: Annotated[Caller, _c("review.show")],
                memory_id: MemoryId) -> Any:
    out = server(request).vault.review_show(c.scope, memory_id)
    return out


@router.post("/review/{memory_id:path}/approve", response_model=s.MemoryOut, tags=["review"])
def review_approve(request: Request, c: Annotated[Caller, _c("review.approve")],
                   memory_id: MemoryId, body: s.ReasonIn | None = None) -> Any:
    return server(request).vault.review_approve(
        c.scope, memory_id, actor=c.principal.actor,
        reason=body.reason if body else None).to_dict()


@router.post("/review/{memory_id:path}/reject", response_model=s.MemoryOut, tags=["review"])
def review_reject(request: Request, c: Annotated[Caller, _c("review.reject")],
                  memory_id: MemoryId, body: s.ReasonIn | None = None) -> Any:
    return server(request).vault.review_reject(
        c.scope, memory_id, actor=c.principal.actor,
        reason=body.reason if body else None).to_dict()


@router.get("/profile", response_model=dict[str, dict[str, Any]], tags=["read"])
def profile(request: Request, c: Annotated[Caller, _c("profile")], as_of: str | None = None) -> Any:
    """The user's active slots: {slot: {value, content, since, source, memory_id, ...}}."""
    out = server(request).vault.profile(c.scope, as_of=as_of)
    return out


@router.get("/traces", response_model=list[dict[str, Any]], tags=["traces"])
def traces(request: Request, c: Annotated[Caller, _c("traces")],
           limit: Annotated[int, Query(ge=1, le=1000)] = 20) -> Any:
    out = server(request).vault.traces(c.scope, limit=limit)
    return out


@router.get("/traces/{trace_id:path}", response_model=dict[str, Any], tags=["traces"])
def trace(request: Request, c: Annotated[Caller, _c("trace")],
          trace_id: Annotated[str, Path(min_length=1, max_length=128)]) -> Any:
    """Why a recall/context returned what it did: candidates, score parts, filters."""
    t = server(request).vault.trace(c.scope, trace_id)
    return t


@router.get("/users", response_model=s.UsersOut, tags=["read"])
def users(request: Request, p: Annotated[Principal, Depends(principal_for("users"))],
          user: Annotated[str | None, Query(description="a bound key may name only its "
                                            "own user")] = None) -> Any:
    """The tenant's user ids (any recorded change), for a console's user picker, and the
    caller's role. A key bound to a user sees only that user: the list must not leak the
    tenant's other users."""
    named_user(p, user)  # a bound key naming another user: 403, as everywhere
    names = [p.user] if p.user is not None else server(request).vault.users(p.tenant)
    return {"users": names, "bound": p.user is not None, "role": p.role, "key_id": p.key_id}


@router.get("/audit", response_model=list[s.RevisionOut], tags=["read"])
def audit(request: Request, c: Annotated[Caller, _c("audit")], since: str | None = None,
          limit: Annotated[int, Query(ge=1, le=10_000)] = 100) -> Any:
    """Every recorded change in the scope (who, what, why), newest first."""
    revs = server(request).vault.audit(c.scope, since=since, limit=limit)
    return [r.to_dict() for r in revs]


@router.post("/sweep", response_model=s.SweepOut, tags=["govern"])
def sweep(request: Request, c: Annotated[Caller, _c("sweep")],
          body: s.EmptyIn | None = None) -> Any:
    """The lifecycle job on the scope: `count` is how many lapsed TTLs it demoted, `report`
    all it did (merges proposed or applied among it). The server also sweeps on a timer."""
    rep = server(request).vault.maintain(c.scope, actor=c.principal.actor)
    return {"count": rep.expired, "report": rep.to_dict()}


# --- memory layers (docs/layers.md) -----------------------------------------------------
Entity = Annotated[str, Query(min_length=1, max_length=128,
                              description="an entity id, name or alias ('user' is the user)")]
GraphAsOf = Annotated[str | None, Query(description="system time: the graph as the store "
                                        "knew it then (ISO-8601 or epoch ms); default now")]
GraphHistory = Annotated[bool, Query(description="every fact, closed ones too")]


@router.get("/recent", response_model=list[s.MemoryOut], tags=["layers"])
def recent(request: Request, c: Annotated[Caller, _c("recent")],
           n: Annotated[int | None, Query(ge=0, le=1000, description="how many turns "
                                          "(default layers.short_term.turns)")] = None,
           max_tokens: Annotated[int | None, Query(ge=0, le=200_000)] = None,
           exact: Annotated[bool, Query(description="turns of exactly this scope: an "
                                        "empty agent or session is a value, not any")] = False
           ) -> Any:
    """The last turns of the scope's session (`session` query parameter; the user's, when
    none is named), verbatim, oldest first."""
    mems = server(request).vault.recent(c.scope, n=n, max_tokens=max_tokens, exact=exact)
    return [m.to_dict() for m in mems]


@router.post("/summarize", response_model=list[s.MemoryOut], tags=["layers"])
def summarize(request: Request, c: Annotated[Caller, _c("summarize")],
              body: s.SummarizeIn | None = None) -> Any:
    """Summarise the scope's uncovered turns (a user scope: every session, then the user
    roll-up); the new summaries. Written by the core's own actor (system:summarize)."""
    force = body.force if body is not None else True
    return [m.to_dict() for m in server(request).vault.summarize(c.scope, force=force)]


@router.get("/memories/{memory_id:path}/expand", response_model=list[s.MemoryOut],
            tags=["layers"])
def expand(request: Request, c: Annotated[Caller, _c("expand")], memory_id: MemoryId
           ) -> Any:
    """The raw turns a summary covers, oldest first."""
    mems = server(request).vault.expand(c.scope, memory_id)
    return [m.to_dict() for m in mems]


# After every GET /memories/{id}/<suffix> route (history, diff, purge, expand): an id
# may hold "/" (an imported one, "notes/2024-01"), so the id is a path parameter and
# this route, which would also match "<id>/history", must come last.
@router.get("/memories/{memory_id:path}", response_model=s.MemoryOut, tags=["read"])
def get_memory(request: Request, c: Annotated[Caller, _c("get")], memory_id: MemoryId,
               as_of: str | None = None) -> Any:
    m = server(request).vault.get(c.scope, memory_id, as_of=as_of)
    return m.to_dict()


@router.get("/graph/entities/{name:path}", response_model=s.MemoryOut, tags=["layers"])
def graph_entity(request: Request, c: Annotated[Caller, _c("graph.entity")],
                 name: Annotated[str, Path(min_length=1, max_length=128)]) -> Any:
    """The entity an id, name or alias resolves to (across languages: 上海 = Shanghai)."""
    m = server(request).vault.graph_entity(c.scope, name)
    return m.to_dict()


@router.get("/graph/facts", response_model=list[s.FactOut], tags=["layers"])
def graph_facts(request: Request, c: Annotated[Caller, _c("graph.facts")], entity: Entity,
                as_of: GraphAsOf = None, history: GraphHistory = False,
                valid_at: ValidAt = None, valid_since: ValidSince = None,
                valid_until: ValidUntil = None) -> Any:
    """Facts about an entity (subject or object) that held at `valid_at` or during
    valid_since..valid_until (default: at `as_of`, else now), oldest first."""
    out = server(request).vault.graph_facts(c.scope, entity, as_of=as_of, history=history,
                                            valid_at=valid_at, valid_since=valid_since,
                                            valid_until=valid_until)
    return out


@router.get("/graph/neighbours", response_model=list[s.NeighbourOut], tags=["layers"])
def graph_neighbours(request: Request, c: Annotated[Caller, _c("graph.neighbours")],
                     entity: Entity, as_of: GraphAsOf = None,
                     history: GraphHistory = False, valid_at: ValidAt = None,
                     valid_since: ValidSince = None, valid_until: ValidUntil = None) -> Any:
    """Entities one relation away from `entity`, with the direction; times as in
    /v1/graph/facts."""
    out = server(request).vault.graph_neighbours(c.scope, entity, as_of=as_of,
                                                 history=history, valid_at=valid_at,
                                                 valid_since=valid_since,
                                                 valid_until=valid_until)
    return out


@router.post("/maintain", response_model=s.SweepReportOut, tags=["govern"])
def maintain(request: Request, c: Annotated[Caller, _c("maintain")],
             body: s.MaintainIn | None = None) -> Any:
    """The lifecycle job on the scope (expire, summarize, graph, caps, consolidate) with its
    report."""
    steps = body.steps if body is not None else None
    return server(request).vault.maintain(c.scope, steps=steps,
                                          actor=c.principal.actor).to_dict()


@router.get("/export", tags=["portability"], response_class=Response,
            responses={200: {"content": {"application/x-ndjson": {}},
                             "description": "a header line, then one line per memory"}})
def export(request: Request, c: Annotated[Caller, _c("export")]) -> Response:
    buf = io.StringIO()
    server(request).vault.export_jsonl(c.scope, buf)
    text = buf.getvalue()
    return Response(text, media_type="application/x-ndjson")


@router.post("/import", response_model=s.ImportOut, response_model_exclude_none=True,
             tags=["portability"],
             openapi_extra={"requestBody": {"required": True, "content": {
                 "application/x-ndjson": {"schema": {"type": "string"}}}}})
async def import_(request: Request, c: Annotated[Caller, _c("import")],
                  review: Annotated[bool, Query(description="scan first; load the clean "
                                                "lines, stage the rest for review")] = False,
                  dry_run: Annotated[bool, Query(description="scan and report only")] = False
                  ) -> Any:
    """Load an export (all or nothing); every line must lie inside the caller's scope.
    With review or dry_run: the conflict scan's report (docs/import.md)."""
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationError("import: the body is not valid UTF-8") from None
    vault = server(request).vault
    if review or dry_run:
        report = await run_in_threadpool(vault.import_review, text.split("\n"),
                                         scope=c.scope, dry_run=dry_run,
                                         actor=c.principal.actor)
        # `count` is what was loaded: nothing on a dry run (`imported`: what would be).
        return {"count": 0 if dry_run else report.imported, **report.to_dict()}
    n = await run_in_threadpool(vault.import_jsonl, text.split("\n"), scope=c.scope)
    return {"count": n}

"""Client: the Vault's verbs over a memvault REST server (`memvault serve`).

    vault = Vault("memory.db")                             # embedded
    vault = Client("http://127.0.0.1:8765", "mvk_...")     # the same verbs, on a server

Same method names, arguments and return types as `Vault` for every verb the REST API has,
and the same typed errors: a FrozenError on the server is a FrozenError here (clientwire.py
maps each error body back by its code). The tenant always comes from the key: a scope of
another tenant is refused with ScopeError before anything is sent. What the client lacks,
and why: docs/client.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import IO, Any
from urllib.parse import quote

import httpx

from . import clientwire as wire
from . import validate as v
from .agentmemory import TaskState
from .changes import Event
from .clientimports import ImportCalls
from .clientmerge import ClientMergeVerbs
from .clientonlineeval import OnlineEvalCalls
from .clientreplay import ClientReplayVerbs
from .clientsnapshots import SnapshotCalls
from .clientstrategies import StrategyCalls
from .clientteams import TeamCalls
from .config import RERANK_KINDS
from .errors import ConnectionFailedError, MemvaultError, ScopeError, ValidationError
from .extract import as_message
from .layers.section import ContextResult
from .lifecycle import SweepReport
from .model import Hits, Memory, PurgeResult, RememberResult, Revision, Scope, Source
from .timeutil import TimeLike
from .writepath import ObserveResult, Outcome

__all__ = ["Client"]

DEFAULT_TIMEOUT = 60.0
LIST_PAGE = 1000  # GET /v1/memories answers at most this many a request


def _body(**fields: Any) -> dict[str, Any]:
    """A request body of the fields given: None means "not given", as in the Vault."""
    return {k: val for k, val in fields.items() if val is not None}


def _tags(tags: Iterable[str] | None) -> list[str] | None:
    """Checked as the Vault checks them (a bare string is refused, not split)."""
    return None if tags is None else v.tags(tags)


def _statement(*, value: Any, metadata: Any, confidence: Any, source: Any, ttl: Any,
               expected_version: Any) -> dict[str, Any]:
    """The fields of remember/propose the wire would change or fail on, checked as the
    Vault checks them: JSON the encoder refuses (an object, NaN) or bends (a key 1 sent
    as "1"), None where the Vault wants a value, a ttl of fractional seconds or a
    timedelta, a version as numeric text."""
    return {"value": None if value is None else v.json_value(value, "value"),
            "metadata": None if metadata is None else v.metadata(metadata),
            "confidence": v.confidence(confidence), "source": v.source(source),
            "ttl": wire.as_duration(ttl),
            "expected_version": _version(expected_version, "expected_version")}


def _version(value: Any, field: str) -> int | None:
    return None if value is None else v.version(value, field)


def _segment(text: str | None) -> str:
    """An id or a name as one URL path segment: "/" escaped (the server takes it as a path
    parameter) and "." too, so "." or ".." is sent as itself, not removed as a dot
    segment of the URL."""
    return quote(text or "", safe="").replace(".", "%2E")


# `scope` not given: a request about the key, not about a scope (whoami, users).
_UNSCOPED: Any = object()


def _message(m: Any) -> dict[str, Any]:
    """One message as the Vault reads it (extract.as_message: a Message or an OpenAI-style
    mapping, content parts joined, `at` as text or a datetime in epoch ms, keys it does
    not read left out), then as the server's {role, content, id, at, name}."""
    return _body(**dataclasses.asdict(as_message(m)))


class Client(SnapshotCalls, ClientMergeVerbs, StrategyCalls, OnlineEvalCalls,
             ClientReplayVerbs, ImportCalls, TeamCalls):
    """The Vault's verbs on a memvault server at `url`, as the key `key` allows.

    `timeout`: seconds per request. `transport`: an httpx transport (tests, proxies)."""

    def __init__(self, url: str, key: str, *, timeout: float = DEFAULT_TIMEOUT,
                 transport: httpx.BaseTransport | None = None) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValidationError("url: expected the server's http:// or https:// address")
        if not isinstance(key, str) or not key.strip():
            raise ValidationError("key: expected an API key (mvk_...)")
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, timeout=timeout, transport=transport,
                                  headers={"Authorization": f"Bearer {key.strip()}"})
        self._me: dict[str, Any] | None = None

    # --- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the wire -------------------------------------------------------------------------
    def _send(self, method: str, path: str, *, params: dict[str, Any] | None = None,
              json: Any = None, content: str | None = None,
              headers: dict[str, str] | None = None) -> httpx.Response:
        if self._http.is_closed:
            raise ConnectionFailedError(f"memvault client for {self.url} is closed "
                                        "(close() was called, or its with block ended)")
        try:
            r = self._http.request(method, path, params=params, json=json,
                                   content=content.encode("utf-8") if content is not None
                                   else None, headers=headers)
        except httpx.TransportError as e:
            raise ConnectionFailedError(f"memvault server at {self.url}: {type(e).__name__}"
                                        f"{': ' + str(e) if str(e) else ''}") from e
        if r.is_success:
            return r
        try:
            payload = r.json()
        except ValueError:
            payload = None
        raise wire.error_from(r.status_code, payload, r.text)

    def _json(self, method: str, path: str, scope: Any = _UNSCOPED, *,
              params: dict[str, Any] | None = None, json: Any = None) -> Any:
        q = {} if scope is _UNSCOPED else self._scope_params(scope)
        q.update({k: val for k, val in (params or {}).items() if val is not None})
        r = self._send(method, path, params=q, json=json)
        try:
            return r.json()
        except ValueError:
            err = MemvaultError(f"{method} {path}: the server at {self.url} answered "
                                f"HTTP {r.status_code} without JSON (is it memvault?)")
            err.status = r.status_code
            raise err from None

    def whoami(self) -> dict[str, Any]:
        """The key's {key_id, tenant, role, user} (user: None when unbound), read once."""
        if self._me is None:
            self._me = dict(self._json("GET", "/v1/whoami"))
        return dict(self._me)

    def _scope_params(self, scope: Scope | dict[str, str]) -> dict[str, str]:
        """The scope as query parameters, once it is valid and in the key's tenant."""
        sc = v.scope(scope)
        tenant = self.whoami()["tenant"]
        if sc.tenant != tenant:
            raise ScopeError(f"scope: tenant {sc.tenant!r} is not this key's tenant "
                             f"{tenant!r} (the server takes the tenant from the key)")
        team = v.team_of(sc.user)
        if team is not None:  # a team's scope (clientteams.py): the server checks the role
            return _body(team=team, agent=sc.agent or None, session=sc.session or None)
        return _body(user=sc.user, agent=sc.agent or None, session=sc.session or None)

    @staticmethod
    def _mid(memory_id: str) -> str:
        return _segment(v.memory_id(memory_id))

    # --- write ----------------------------------------------------------------------------
    def remember(self, scope: Scope | dict[str, str], content: str | None = None, *,
                 slot: str | None = None, value: Any = None, kind: str | None = None,
                 source: str = Source.USER_EXPLICIT.value, source_text: str | None = None,
                 source_ref: str | None = None, confidence: float = 1.0,
                 tags: Iterable[str] | None = None, metadata: dict[str, Any] | None = None,
                 ttl: int | float | str | None = None, expires_at: TimeLike = None,
                 valid_from: TimeLike = None, valid_to: TimeLike = None,
                 reason: str | None = None, trigger_text: str | None = None,
                 expected_version: int | None = None,
                 topic: str | None = None) -> RememberResult:
        """Store a statement, or a new value of a slot: added, updated or noop."""
        checked = _statement(value=value, metadata=metadata, confidence=confidence,
                             source=source, ttl=ttl, expected_version=expected_version)
        body = _body(content=content, slot=slot, kind=kind, source_text=source_text,
                     source_ref=source_ref, tags=_tags(tags),
                     expires_at=wire.as_time(expires_at, "expires_at"),
                     valid_from=wire.as_time(valid_from, "valid_from"),
                     valid_to=wire.as_time(valid_to, "valid_to"), reason=reason,
                     trigger_text=trigger_text, topic=topic, **checked)
        d = self._json("POST", "/v1/memories", scope, json=body)
        return RememberResult(d["action"], Memory.from_dict(d["memory"]),
                              d.get("previous_version"))

    def observe(self, scope: Scope | dict[str, str], messages: list[Any], *,
                source_ref: str | None = None) -> ObserveResult:
        """Keep the turns, extract candidates, pass each through the server's gate."""
        if not isinstance(messages, list | tuple):
            raise ValidationError("messages: expected a list of messages")
        body = _body(messages=[_message(m) for m in messages], source_ref=source_ref)
        return wire.observe_result(self._json("POST", "/v1/observe", scope, json=body))

    def propose(self, scope: Scope | dict[str, str], content: str | None = None, *,
                slot: str | None = None, value: Any = None, kind: str | None = None,
                source: str = Source.USER_EXPLICIT.value, source_text: str | None = None,
                source_ref: str | None = None, confidence: float = 1.0,
                tags: Iterable[str] | None = None, metadata: dict[str, Any] | None = None,
                ttl: int | float | str | None = None, reason: str | None = None,
                expected_version: int | None = None, topic: str | None = None) -> Outcome:
        """A statement the caller cannot vouch for, through the gate (the key's role is
        the writer's role). Returns the Outcome."""
        checked = _statement(value=value, metadata=metadata, confidence=confidence,
                             source=source, ttl=ttl, expected_version=expected_version)
        body = _body(content=content, slot=slot, kind=kind, source_text=source_text,
                     source_ref=source_ref, tags=_tags(tags), reason=reason, topic=topic,
                     **checked)
        return wire.outcome(self._json("POST", "/v1/propose", scope, json=body))

    def review_list(self, scope: Scope | dict[str, str], *, limit: int = 100) -> list[Memory]:
        d = self._json("GET", "/v1/review", scope,
                       params={"limit": wire.whole(limit, "limit", 1, 10_000)})
        return [Memory.from_dict(m) for m in d]

    def review_show(self, scope: Scope | dict[str, str], memory_id: str) -> dict[str, Any]:
        return dict(self._json("GET", f"/v1/review/{self._mid(memory_id)}", scope))

    def review_approve(self, scope: Scope | dict[str, str], memory_id: str, *,
                       reason: str | None = None) -> Memory:
        return self._memory("POST", f"/v1/review/{self._mid(memory_id)}/approve", scope,
                            _body(reason=reason))

    def review_reject(self, scope: Scope | dict[str, str], memory_id: str, *,
                      reason: str | None = None) -> Memory:
        return self._memory("POST", f"/v1/review/{self._mid(memory_id)}/reject", scope,
                            _body(reason=reason))

    def _memory(self, method: str, path: str, scope: Any, body: Any = None,
                params: dict[str, Any] | None = None) -> Memory:
        return Memory.from_dict(self._json(method, path, scope, params=params, json=body))

    def _memories(self, path: str, scope: Any, params: dict[str, Any] | None = None,
                  method: str = "GET", body: Any = None) -> list[Memory]:
        d = self._json(method, path, scope, params=params, json=body)
        return [Memory.from_dict(m) for m in d]

    # --- agent memory (docs/agents.md) -----------------------------------------------------
    def _written(self, path: str, scope: Any, body: dict[str, Any]) -> RememberResult:
        d = self._json("POST", path, scope, json=body)
        return RememberResult(d["action"], Memory.from_dict(d["memory"]),
                              d.get("previous_version"))

    @staticmethod
    def _task(task_id: str) -> str:
        if not isinstance(task_id, str) or not task_id:
            raise ValidationError("task_id: required")
        return quote(task_id, safe="")

    def tool_result(self, scope: Scope | dict[str, str], tool: str, output: str, *,
                    args: dict[str, Any] | None = None, task_id: str | None = None,
                    ttl: int | float | str | None = None, tags: Iterable[str] | None = None,
                    reason: str | None = None) -> RememberResult:
        """Keep what a tool returned (Vault.tool_result)."""
        return self._written("/v1/tool-results", scope, _body(
            tool=tool, output=output, args=args, task_id=task_id, ttl=ttl, tags=_tags(tags),
            reason=reason))

    def record_step(self, scope: Scope | dict[str, str], task_id: str, step: str, *,
                    status: str = "pending", seq: int | None = None, inputs: Any = None,
                    outputs: Any = None, source: str = "tool",
                    reason: str | None = None) -> RememberResult:
        """A step of a task, or its new state (Vault.record_step)."""
        return self._written(f"/v1/tasks/{self._task(task_id)}/steps", scope, _body(
            step=step, status=status, seq=seq, inputs=inputs, outputs=outputs, source=source,
            reason=reason))

    def task_steps(self, scope: Scope | dict[str, str], task_id: str) -> list[Memory]:
        return self._memories(f"/v1/tasks/{self._task(task_id)}/steps", scope)

    def resume(self, scope: Scope | dict[str, str], task_id: str) -> TaskState:
        d = self._json("GET", f"/v1/tasks/{self._task(task_id)}/resume", scope)
        return TaskState(d["task_id"], [Memory.from_dict(m) for m in d["steps"]],
                         Memory.from_dict(d["current"]) if d["current"] else None)

    def close_task(self, scope: Scope | dict[str, str], task_id: str, *,
                   reason: str | None = None) -> list[Memory]:
        return self._memories(f"/v1/tasks/{self._task(task_id)}/close", scope,
                              method="POST", body=_body(reason=reason))

    def learn(self, scope: Scope | dict[str, str], content: str, *,
              outcome: str | None = None, task_id: str | None = None,
              source: str = Source.SYSTEM_INFERRED.value, tags: Iterable[str] | None = None,
              reason: str | None = None) -> RememberResult:
        """Keep a lesson (Vault.learn): `staged` when the policy stages its source."""
        return self._written("/v1/lessons", scope, _body(
            content=content, outcome=outcome, task_id=task_id, source=source,
            tags=_tags(tags), reason=reason))

    def promote(self, scope: Scope | dict[str, str], memory_id: str, *,
                reason: str | None = None) -> Memory:
        """Keep a memory past its shelf life."""
        return self._govern("promote", scope, memory_id, reason)

    # --- governance -----------------------------------------------------------------------
    def edit(self, scope: Scope | dict[str, str], memory_id: str, *,
             content: str | None = None, value: Any = None, kind: str | None = None,
             tags: Iterable[str] | None = None, metadata: dict[str, Any] | None = None,
             confidence: float | None = None, expires_at: TimeLike = None,
             reason: str | None = None, expected_version: int | None = None,
             topic: str | None = None, valid_from: TimeLike = None,
             valid_to: TimeLike = None) -> Memory:
        """Change fields of a memory by hand: a new version, with the reason recorded."""
        body = _body(content=content, kind=kind, tags=_tags(tags),
                     valid_from=wire.as_time(valid_from, "valid_from"),
                     valid_to=wire.as_time(valid_to, "valid_to"),
                     value=None if value is None else v.json_value(value, "value"),
                     metadata=None if metadata is None else v.metadata(metadata),
                     confidence=None if confidence is None else v.confidence(confidence),
                     expires_at=wire.as_time(expires_at, "expires_at"), reason=reason,
                     expected_version=_version(expected_version, "expected_version"),
                     topic=topic)
        return self._memory("PATCH", f"/v1/memories/{self._mid(memory_id)}", scope, body)

    def _govern(self, action: str, scope: Any, memory_id: str, reason: str | None) -> Memory:
        return self._memory("POST", f"/v1/memories/{self._mid(memory_id)}/{action}", scope,
                            _body(reason=reason))

    def forget(self, scope: Scope | dict[str, str], memory_id: str, *,
               reason: str | None = None) -> Memory:
        """Soft delete: the memory stops being served; history keeps it."""
        return self._govern("forget", scope, memory_id, reason)

    def freeze(self, scope: Scope | dict[str, str], memory_id: str, *,
               reason: str | None = None) -> Memory:
        """Lock a memory: no verb but unfreeze may change it."""
        return self._govern("freeze", scope, memory_id, reason)

    def unfreeze(self, scope: Scope | dict[str, str], memory_id: str, *,
                 reason: str | None = None) -> Memory:
        return self._govern("unfreeze", scope, memory_id, reason)

    def expire(self, scope: Scope | dict[str, str], memory_id: str, *,
               reason: str | None = None) -> Memory:
        return self._govern("expire", scope, memory_id, reason)

    def rollback(self, scope: Scope | dict[str, str], memory_id: str, to_version: int, *,
                 reason: str | None = None) -> Memory:
        """Restore the state of version `to_version` as a new version."""
        return self._memory("POST", f"/v1/memories/{self._mid(memory_id)}/rollback", scope,
                            _body(to_version=v.version(to_version, "to_version"),
                                  reason=reason))

    def purge(self, scope: Scope | dict[str, str], memory_id: str, *,
              reason: str | None = None) -> PurgeResult:
        """Erase the content everywhere (admin keys only); a tombstone records it."""
        d = self._json("POST", f"/v1/memories/{self._mid(memory_id)}/purge", scope,
                       json=_body(reason=reason))
        return PurgeResult(Revision.from_dict(d["tombstone"]), d["erasure"])

    def purge_status(self, scope: Scope | dict[str, str], memory_id: str) -> str:
        """"done" or "pending": whether a purged memory's bytes are gone from the files."""
        d = self._json("GET", f"/v1/memories/{self._mid(memory_id)}/purge", scope)
        return str(d["erasure"])

    def sweep(self, scope: Scope | dict[str, str]) -> int:
        """Expire the scope's lapsed memories (the server also sweeps on a timer)."""
        return int(self._json("POST", "/v1/sweep", scope, json={})["count"])

    def maintain(self, scope: Scope | dict[str, str], *,
                 steps: tuple[str, ...] | list[str] | None = None) -> SweepReport:
        """The lifecycle job on the scope with its report."""
        body = _body(steps=list(steps) if isinstance(steps, tuple) else steps)
        return wire.sweep_report(self._json("POST", "/v1/maintain", scope, json=body))

    # --- read -----------------------------------------------------------------------------
    def get(self, scope: Scope | dict[str, str], memory_id: str, *,
            as_of: TimeLike = None) -> Memory:
        return self._memory("GET", f"/v1/memories/{self._mid(memory_id)}", scope,
                            params={"as_of": wire.as_time(as_of, "as_of")})

    def list(self, scope: Scope | dict[str, str], *, kind: str | None = None,
             status: str | None = None, slot: str | None = None,
             tags: Iterable[str] | None = None, since: TimeLike = None,
             until: TimeLike = None, as_of: TimeLike = None, limit: int = 100,
             offset: int = 0, source: str | None = None, frozen: bool | None = None,
             expiring_before: TimeLike = None, q: str | None = None,
             topic: str | None = None, valid_at: TimeLike = None,
             valid_since: TimeLike = None, valid_until: TimeLike = None) -> list[Memory]:
        """Newest first, filtered like Vault.list."""
        params = {"kind": kind, "status": status, "slot": slot, "tags": _tags(tags),
                  **wire.valid_time(valid_at, valid_since, valid_until),
                  "since": wire.as_time(since, "since"), "until": wire.as_time(until, "until"),
                  "as_of": wire.as_time(as_of, "as_of"),
                  "source": source, "frozen": wire.flag(frozen, "frozen"),
                  "expiring_before": wire.as_time(expiring_before, "expiring_before"),
                  "q": q, "topic": topic}
        want = wire.whole(limit, "limit", 1, 10_000)
        at = wire.whole(offset, "offset", 0, 1_000_000_000)
        out: list[Memory] = []
        while True:  # the server answers at most LIST_PAGE a request; the Vault 10000
            page = min(LIST_PAGE, want - len(out))
            d = self._json("GET", "/v1/memories", scope,
                           params={**params, "limit": page, "offset": at})
            out += (Memory.from_dict(m) for m in d["items"])
            at += len(d["items"])
            if len(d["items"]) < page or len(out) >= want:
                return out

    def recall(self, scope: Scope | dict[str, str], query: str, *, top_k: int | None = None,
               kind: str | None = None, tags: Iterable[str] | None = None,
               since: TimeLike = None, until: TimeLike = None, as_of: TimeLike = None,
               min_score: float | None = None, valid_at: TimeLike = None,
               valid_since: TimeLike = None, valid_until: TimeLike = None,
               reranker: str | None = None,
               teams: bool | list[str] | None = None) -> Hits:
        """Ranked live memories of the scope (and its user's teams) for `query`; `trace_id`
        names the trace. `reranker`: none, embedder or llm in place of the server's strategy."""
        if reranker is not None and reranker not in RERANK_KINDS:
            raise ValidationError(f"reranker: expected one of {', '.join(RERANK_KINDS)}")
        body = _body(query=query, top_k=top_k, kind=kind, tags=_tags(tags), teams=teams,
                     **wire.valid_time(valid_at, valid_since, valid_until),
                     since=wire.as_time(since, "since"), until=wire.as_time(until, "until"),
                     as_of=wire.as_time(as_of, "as_of"),
                     min_score=wire.finite(min_score, "min_score"), reranker=reranker)
        return wire.hits(self._json("POST", "/v1/recall", scope, json=body))

    def context(self, scope: Scope | dict[str, str], query: str, *,
                budget: int | None = None, lang: str | None = None,
                kind: str | None = None, tags: Iterable[str] | None = None,
                as_of: TimeLike = None, session: str | None = None,
                valid_at: TimeLike = None, valid_since: TimeLike = None,
                valid_until: TimeLike = None,
                teams: bool | list[str] | None = None) -> ContextResult:
        """The prompt section for `query`, within `budget` tokens."""
        body = _body(query=query, budget=budget, lang=lang, kind=kind, tags=_tags(tags),
                     teams=teams,
                     **wire.valid_time(valid_at, valid_since, valid_until),
                     as_of=wire.as_time(as_of, "as_of"), session=session)
        return wire.context_result(self._json("POST", "/v1/context", scope, json=body))

    def trace(self, scope: Scope | dict[str, str], trace_id: str) -> dict[str, Any]:
        tid = _segment(v.text(trace_id, "trace_id", max_chars=v.MAX_ID_CHARS))
        return dict(self._json("GET", f"/v1/traces/{tid}", scope))

    def traces(self, scope: Scope | dict[str, str], *, limit: int = 20) -> list[dict[str, Any]]:
        return [dict(t) for t in self._json("GET", "/v1/traces", scope,
                                            params={"limit": wire.whole(
                                                limit, "limit", 1, 1000)})]

    def users(self, tenant: str) -> list[str]:
        """The user ids of the key's tenant (a bound key: its own user only)."""
        mine = self.whoami()["tenant"]
        if tenant != mine:
            raise ScopeError(f"tenant {tenant!r} is not this key's tenant {mine!r}")
        return [str(u) for u in self._json("GET", "/v1/users")["users"]]

    def profile(self, scope: Scope | dict[str, str], *,
                as_of: TimeLike = None) -> dict[str, dict[str, Any]]:
        return dict(self._json("GET", "/v1/profile", scope,
                               params={"as_of": wire.as_time(as_of, "as_of")}))

    def audit(self, scope: Scope | dict[str, str], *, since: TimeLike = None,
              limit: int = 100) -> list[Revision]:
        d = self._json("GET", "/v1/audit", scope,
                       params={"since": wire.as_time(since, "since"),
                               "limit": wire.whole(limit, "limit", 1, 10_000)})
        return [Revision.from_dict(r) for r in d]

    def history(self, scope: Scope | dict[str, str], memory_id: str) -> list[Revision]:
        d = self._json("GET", f"/v1/memories/{self._mid(memory_id)}/history", scope)
        return [Revision.from_dict(r) for r in d]

    def diff(self, scope: Scope | dict[str, str], memory_id: str, from_version: int,
             to_version: int) -> dict[str, dict[str, Any]]:
        """Fields that differ between two versions: {field: {"from": a, "to": b}}."""
        return dict(self._json("GET", f"/v1/memories/{self._mid(memory_id)}/diff", scope,
                               params={"from_version": v.version(from_version,
                                                                 "from_version"),
                                       "to_version": v.version(to_version, "to_version")}))

    # --- layers ---------------------------------------------------------------------------
    def recent(self, scope: Scope | dict[str, str], *, n: int | None = None,
               max_tokens: int | None = None, exact: bool = False) -> list[Memory]:
        if not isinstance(exact, bool):
            raise ValidationError("exact: expected true or false")
        return self._memories("/v1/recent", scope, {
            "n": None if n is None else wire.whole(n, "n", 0, 1000),
            "max_tokens": None if max_tokens is None else wire.whole(max_tokens, "max_tokens",
                                                                     0, 200_000),
            "exact": "true" if exact else None})

    def summarize(self, scope: Scope | dict[str, str], *, force: bool = True) -> list[Memory]:
        return self._memories("/v1/summarize", scope, method="POST", body={"force": force})

    def expand(self, scope: Scope | dict[str, str], summary_id: str) -> list[Memory]:
        return self._memories(f"/v1/memories/{self._mid(summary_id)}/expand", scope)

    def graph_entity(self, scope: Scope | dict[str, str], name: str) -> Memory:
        entity = _segment(v.text(name, "name", max_chars=v.MAX_ID_CHARS))
        return self._memory("GET", f"/v1/graph/entities/{entity}", scope)

    def graph_facts(self, scope: Scope | dict[str, str], entity: str, *,
                    as_of: TimeLike = None, history: bool = False, valid_at: TimeLike = None,
                    valid_since: TimeLike = None,
                    valid_until: TimeLike = None) -> list[dict[str, Any]]:
        return [dict(f) for f in self._json(
            "GET", "/v1/graph/facts", scope, params={
                "entity": v.text(entity, "entity", max_chars=v.MAX_ID_CHARS),
                **wire.valid_time(valid_at, valid_since, valid_until),
                "as_of": wire.as_time(as_of, "as_of"), "history": wire.flag(history, "history")})]

    def graph_neighbours(self, scope: Scope | dict[str, str], entity: str, *,
                         as_of: TimeLike = None, history: bool = False,
                         valid_at: TimeLike = None, valid_since: TimeLike = None,
                         valid_until: TimeLike = None) -> list[dict[str, Any]]:
        return [dict(n) for n in self._json(
            "GET", "/v1/graph/neighbours", scope, params={
                "entity": v.text(entity, "entity", max_chars=v.MAX_ID_CHARS),
                **wire.valid_time(valid_at, valid_since, valid_until),
                "as_of": wire.as_time(as_of, "as_of"), "history": wire.flag(history, "history")})]

    # --- portability ----------------------------------------------------------------------
    def export_jsonl(self, scope: Scope | dict[str, str], out: IO[str]) -> int:
        """Write the server's export (the bytes Vault.export_jsonl writes); the count of
        memories, as the Vault returns."""
        if not callable(getattr(out, "write", None)):
            raise ValidationError("out: expected a text stream to write the export to")
        text = self._send("GET", "/v1/export", params=self._scope_params(scope)).text
        out.write(text)
        return max(0, text.count("\n") - 1)  # the lines after the header

    # --- change events and webhooks (docs/events.md) ---------------------------------------
    def events(self, tenant: str, *, user: str | None = None, since: int = 0,
               kinds: list[str] | None = None, follow: bool = False, limit: int = 100,
               poll_seconds: float = 0.5, stop: Any = None,
               idle_timeout: float | None = None) -> Iterator[Event]:
        """Vault.events over GET /v1/events (follow: that page, polled)."""
        mine = self.whoami()["tenant"]
        if tenant != mine:
            raise ScopeError(f"tenant {tenant!r} is not this key's tenant {mine!r}")
        first = self._events_page(user, since, limit, kinds)
        if not follow:
            return iter(first)
        return wire.follow(lambda after: self._events_page(user, after, 100, kinds), first,
                           since, poll_seconds=poll_seconds, stop=stop,
                           idle_timeout=idle_timeout)

    def _events_page(self, user: str | None, since: int, limit: int,
                     kinds: list[str] | None) -> list[Event]:
        d = self._json("GET", "/v1/events", params={
            "user": user, "since": wire.whole(since, "since", 0, v.MAX_EVENT_ID),
            "limit": wire.whole(limit, "limit", 1, 1000), "kinds": kinds})
        return [Event.from_dict(e) for e in d["items"]]

    def webhook_add(self, url: str, *, secret: str | None = None,
                    kinds: list[str] | None = None, user: str | None = None,
                    since: int | None = None) -> dict[str, Any]:
        """Subscribe `url` (an admin key): the record, with its signing secret (once)."""
        return dict(self._json("POST", "/v1/webhooks", json=_body(
            url=url, secret=secret, kinds=kinds, user=user, since=since)))

    def webhooks(self) -> list[dict[str, Any]]:
        return [dict(h) for h in self._json("GET", "/v1/webhooks")]

    def webhook_remove(self, webhook_id: str) -> dict[str, Any]:
        return dict(self._json("DELETE", f"/v1/webhooks/{_segment(webhook_id)}"))

    def webhook_deliveries(self, webhook_id: str, *, status: str | None = None,
                           limit: int = 100) -> list[dict[str, Any]]:
        return [dict(d) for d in self._json(
            "GET", f"/v1/webhooks/{_segment(webhook_id)}/deliveries",
            params={"status": status, "limit": wire.whole(limit, "limit", 1, 1000)})]

    def webhook_retry(self, webhook_id: str, event_id: int) -> dict[str, Any]:
        eid = wire.whole(event_id, "event_id", 1, v.MAX_EVENT_ID)
        return dict(self._json(
            "POST", f"/v1/webhooks/{_segment(webhook_id)}/deliveries/{eid}/retry"))

"""The agent kinds' policies (strategy section `agents`, config.py) applied to a write.

A `tool_result`, `step` or `lesson` request passes `admit` before anything is embedded or
stored: the source must be one the policy lets write the kind, its agent fields must be
there and well formed, it is placed in the scope the policy keeps it in, gets the policy's
shelf life and the task's tag, and is marked for review when its source is one the policy
stages. The rest of this module answers the read side: which kinds recall leaves out and
what share of a context budget a kind may take.

The task id lives in metadata (`task_id`), and a tag `task:<id>` makes it a lookup key:
the stores already filter on kind and tags inside a scope, both backends alike, so listing
a task's steps needs no new column, index or schema upgrade. The step's order is its
explicit `seq` (metadata), never a timestamp: steps written in one millisecond, or by two
processes, keep the order the agent gave them.
"""

from __future__ import annotations

from typing import Any

from . import validate as v
from .config import Agents, KindPolicy
from .errors import PolicyError, ValidationError
from .model import AGENT_KINDS, Kind, Memory, Scope
from .timeutil import MAX_MS, duration_ms
from .wording import a_or_an

TASK_ID = "task_id"
SEQ = "seq"
# A task id is one line of at most this many characters: its tag ("task:" + id) must fit
# a tag's 64.
MAX_TASK_ID_CHARS = v.MAX_TAG_CHARS - len("task:")
MAX_SEQ = 1_000_000_000
STEP_STATUSES = ("pending", "running", "done", "failed", "skipped")
OPEN_STATUSES = frozenset({"pending", "running"})
OUTCOMES = ("worked", "failed")


def task_tag(task_id: str) -> str:
    return "task:" + task_id


def task_id(value: Any) -> str:
    if value is None:
        raise ValidationError(f"task_id: required (at most {MAX_TASK_ID_CHARS} characters)")
    out = v.label(value, "task_id", max_chars=MAX_TASK_ID_CHARS)
    if not v.visible(out) or out != out.strip():
        raise ValidationError("task_id: must show (no surrounding spaces)")
    return out


def seq(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEQ:
        raise ValidationError(f"seq: expected a whole number in 0..{MAX_SEQ}")
    return value


def step_status(value: Any) -> str:
    if value not in STEP_STATUSES:
        raise ValidationError(f"status: {value!r} is not one of {', '.join(STEP_STATUSES)}")
    return str(value)


def check_fields(kind: str, meta: dict[str, Any]) -> None:
    """The agent fields a kind's metadata must hold (the verbs in agentmemory.py write
    them; a plain remember or edit must bring them too)."""
    if kind == Kind.STEP:
        task_id(meta.get(TASK_ID))
        seq(meta.get(SEQ))
        step_status(meta.get("status"))
        v.label(meta.get("step"), "step", max_chars=200)
    elif kind == Kind.TOOL_RESULT:
        v.label(meta.get("tool"), "tool", max_chars=v.MAX_ID_CHARS)
        if meta.get("args") is not None and not isinstance(meta["args"], dict):
            raise ValidationError("args: expected an object (the tool's arguments)")
        if meta.get(TASK_ID) is not None:
            task_id(meta[TASK_ID])
    elif kind == Kind.LESSON:
        if meta.get("outcome") is not None and meta["outcome"] not in OUTCOMES:
            raise ValidationError(f"outcome: {meta['outcome']!r} is not one of "
                                  f"{', '.join(OUTCOMES)}")
        if meta.get(TASK_ID) is not None:
            task_id(meta[TASK_ID])


def placed(pol: KindPolicy, kind: str, sc: Scope, meta: dict[str, Any]) -> Scope:
    """The scope the policy keeps the kind in."""
    if pol.scope == "user":
        return Scope(sc.tenant, sc.user)
    if pol.scope == "agent":
        if not sc.agent:
            raise PolicyError(f"{kind}: the policy keeps it per agent; give scope.agent")
        return Scope(sc.tenant, sc.user, sc.agent)
    if pol.scope == "session" and not sc.session:
        raise PolicyError(f"{kind}: the policy keeps it per session; give scope.session")
    if pol.scope == "task" and meta.get(TASK_ID) is None:
        raise PolicyError(f"{kind}: the policy keeps it per task; give a task id")
    return sc


def admit(agents: Agents, req: dict[str, Any], now: int) -> dict[str, Any]:
    """A prepared request (writes/prepare.py) as its kind's policy has it; `stage` is set
    when it must wait for review. Other kinds pass unchanged. PolicyError or
    ValidationError before anything is stored."""
    kind = req["kind"]
    pol = agents.of(kind)
    if pol is None:
        return req
    if req["source"] not in pol.writers:
        raise PolicyError(f"{kind}: source {req['source']} may not write it (the policy "
                          f"allows {', '.join(pol.writers) or 'none'})")
    if req["slot"] is not None:
        raise PolicyError(f"{kind}: holds no slot (slots are the user's profile)")
    meta = dict(req["metadata"] or {})
    check_fields(kind, meta)
    sc = placed(pol, kind, req["scope"], meta)
    tags = list(req["tags"] or [])
    if meta.get(TASK_ID) is not None and task_tag(meta[TASK_ID]) not in tags:
        tags = v.tags([*tags, task_tag(meta[TASK_ID])])
    expires = req["expires_at"]
    if expires is None and pol.ttl is not None:
        expires = min(now + (duration_ms(pol.ttl) or 0), MAX_MS)
    return {**req, "scope": sc, "metadata": meta, "tags": tags, "expires_at": expires,
            "stage": req["source"] in pol.review}


def gate_check(agents: Agents, kind: str | None, source: str,
               sc: Scope) -> tuple[str | None, Scope, bool]:
    """For the gate (observe's extraction, propose): the reason code when the kind's
    policy refuses the candidate (else None), the scope it is kept in, and whether the
    policy stages it for review whatever the gate would decide."""
    pol = agents.of(kind or "")
    if pol is None or kind is None:
        return None, sc, False
    if not pol.via_gate or source not in pol.writers:
        return "kind_policy", sc, False
    if pol.scope == "task":
        return "kind_policy_task", sc, False  # a task id is the agent verbs' to give
    try:
        out = placed(pol, kind, sc, {})
    except PolicyError:
        return "kind_policy_scope", sc, False
    return None, out, source in pol.review


def proposed_source(agents: Agents, kind: str | None, source: str) -> str:
    """The source a proposed agent kind is kept as. propose() is a model's path (MCP
    remember, the Agents SDK tools): a lesson it brings is inferred whatever source it
    claims, so the policy's review applies to it."""
    pol = agents.of(kind or "")
    return "system_inferred" if pol is not None and pol.via_gate else source


# The fields an edit of an agent memory may not change unless the edit's own source
# (admin_manual) is one of the kind's writers: what the writer wrote.
_WRITTEN = ("content", "value", "metadata")


def check_edit(agents: Agents, old: Memory, updates: dict[str, Any]) -> bool:
    """An edit keeps an agent memory an agent memory (and an ordinary one ordinary), its
    agent fields whole and its task: the kind's verbs and policies read them. An edit is
    a write by `admin_manual`: where the kind's policy does not list that source (a tool
    result: only the tool path writes one), it may not change what was written, and the
    memory keeps its source (True: keep it)."""
    old_kind, old_meta = old.kind, old.metadata
    pol = agents.of(old_kind)
    if pol is not None and "admin_manual" not in pol.writers:
        changed = [f for f in _WRITTEN if f in updates and updates[f] != getattr(old, f)]
        if changed:
            raise PolicyError(f"{old_kind}: an edit (source admin_manual) may not change its "
                              f"{', '.join(changed)}; the policy lets only "
                              f"{', '.join(pol.writers) or 'none'} write it (forget it, roll "
                              "it back or write a new one)")
    _check_agent_fields(old_kind, old_meta, updates)
    return pol is not None and "admin_manual" not in pol.writers


def lengthens_expiry(old: Memory, expires_at: int | None) -> bool:
    """Whether an edit setting `expires_at` keeps an agent memory longer than its shelf
    life: that is a promote, and needs promote's permission."""
    return (old.kind in AGENT_KINDS and old.expires_at is not None
            and (expires_at is None or expires_at > old.expires_at))


def _check_agent_fields(old_kind: str, old_meta: dict[str, Any],
                        updates: dict[str, Any]) -> None:
    new_kind = updates.get("kind", old_kind)
    if new_kind != old_kind and (new_kind in AGENT_KINDS or old_kind in AGENT_KINDS):
        raise PolicyError(f"kind: {a_or_an(old_kind)} memory cannot become "
                          f"{a_or_an(new_kind)} one; write a new memory instead")
    if old_kind in AGENT_KINDS and "metadata" in updates:
        meta = updates["metadata"]
        check_fields(old_kind, meta)
        if meta.get(TASK_ID) != old_meta.get(TASK_ID):
            raise PolicyError(f"{TASK_ID}: an agent memory stays with its task")


def unrecalled(agents: Agents) -> frozenset[str]:
    """Kinds recall and context leave out unless a kind filter asks for them."""
    return frozenset(k for k in AGENT_KINDS if (pol := agents.of(k)) is not None
                     and not pol.recall)


def budget_shares(agents: Agents) -> dict[str, float]:
    """The kinds whose recalled items may take only part of a context budget."""
    out: dict[str, float] = {}
    for k in AGENT_KINDS:
        pol = agents.of(k)
        if pol is not None and pol.budget_share < 1:
            out[k] = pol.budget_share
    return out

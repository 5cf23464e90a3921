"""Online evaluation: an LLM judges sampled context builds against the answers the
application gave (docs/evaluation.md, "Online evaluation").

1. sample   a context build whose trace id falls in the strategy's `online_eval.sample`
            share is kept (question, the recalled memories as injected), awaiting its
            answer. Only a row is written: the context's output is not touched.
2. answer   the application reports the answer it produced with that trace id
            (`record_answer`); the sample is then pending.
3. judge    in the background (the server's sweep timer, or `memvault eval online
            --run`), never on a request: each pending sample goes to the judge
            (llmjudge.py), and its verdicts (used, wrong per memory), tokens and latency
            are stored; a judge that gives no usable answer leaves a failed sample with
            its error and no verdict.

The rates are evalreport.py's.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from . import validate as v
from .config import Strategy
from .core import Core
from .errors import ConflictError, MemvaultError, NotFoundError, StoreError, ValidationError
from .ids import new_id
from .llmjudge import Judgement, LLMJudge
from .model import Hit, Scope
from .safety.pii import hidden_kinds, redact

log = logging.getLogger("memvault.onlineeval")

MAX_ANSWER_CHARS = 32_000
HOUR_MS, DAY_MS = 3_600_000, 86_400_000
# A claim this old belongs to a judge that died: another may take the sample.
STALE_CLAIM_MS = 10 * 60_000
# Rounds a sample may wait out an unreachable judge before it is recorded as failed.
MAX_ROUNDS = 5


class Judge(Protocol):
    name: str

    def judge(self, question: str, memories: list[dict[str, Any]], answer: str
              ) -> Judgement: ...


def sampled(strategy: Strategy, trace_id: str | None) -> bool:
    """Whether the context build of `trace_id` is a sample: by a hash of the id, so the
    choice is the same in every process and needs no random state."""
    cfg = strategy.online_eval
    if not cfg.enabled or not trace_id or cfg.sample <= 0:
        return False
    digest = hashlib.sha256(trace_id.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < cfg.sample


def sample(core: Core, scope: Any, question: str, trace_id: str | None,
           hits: list[Hit]) -> bool:
    """Keep this context build as a sample if the strategy samples it. A build without a
    trace (traces off) cannot be joined with its answer and is never sampled."""
    if not sampled(core.strategy, trace_id):
        return False
    assert trace_id is not None
    sc = v.scope(scope)
    memories = [{"id": h.memory.id, "version": h.memory.version,
                 "content": h.memory.content} for h in hits]
    row = {
        "eval_id": new_id("ev"), "tenant": sc.tenant, "user": sc.user,
        "trace_id": trace_id, "strategy_hash": core.strategy.hash,
        "sampled_at": core.clock(), "question": _kept(core, question), "memories": memories,
        "memory_count": len(memories), "answer": None, "answered_at": None,
        "status": "awaiting_answer"}
    try:
        return core.store.add_eval_sample(row)
    except StoreError:  # a lost sample must not cost the caller its context
        log.exception("online evaluation: sample of trace %s not stored", trace_id)
        return False


def _kept(core: Core, text: str) -> str:
    """`text` as a sample keeps it (and the judge reads it): without the values of the
    kinds the write policy hides, as a turn and a traced query are kept."""
    kinds = hidden_kinds(dict(core.strategy.write.pii))
    return redact(text, kinds)[0] if kinds and isinstance(text, str) else text


def record_answer(core: Core, scope: Any, trace_id: Any, answer: Any) -> dict[str, Any]:
    """The answer the application gave for the context build `trace_id`. For a sample it
    is kept for the judge ({"sampled": true, "status": "pending"}); for a build that was
    not sampled nothing is stored ({"sampled": false}). A second answer for one sample is
    a ConflictError; the first stays."""
    sc = v.scope(scope)
    tid = v.text(trace_id, "trace_id", max_chars=v.MAX_ID_CHARS)
    text = v.text(answer, "answer", max_chars=MAX_ANSWER_CHARS)
    assert tid is not None and text is not None
    if not text.strip():
        raise ValidationError("answer: empty")
    row = core.store.get_eval_sample(sc.tenant, sc.user, tid)
    if row is None:
        if core.store.get_trace(Scope(sc.tenant, sc.user), tid) is None:
            raise NotFoundError(f"no trace {tid} in scope {sc}")
        return {"trace_id": tid, "sampled": False, "status": None}
    if not core.store.answer_eval_sample(row["eval_id"], _kept(core, text), core.clock()):
        raise ConflictError(f"trace {tid}: its answer was recorded already")
    return {"trace_id": tid, "sampled": True, "status": "pending"}


@dataclass(slots=True)
class JudgeRun:
    """What one background round did."""

    judged: int = 0
    failed: int = 0
    deferred: int = 0  # the judge was unreachable: pending again, for a later round
    dropped: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def judge_for(strategy: Strategy) -> LLMJudge:
    cfg = strategy.online_eval
    return LLMJudge.from_spec(cfg.judge, cfg.attempts)


def judge_pending(core: Core, judge: Judge | None = None, *,
                  limit: int | None = None) -> JudgeRun:
    """Judge up to `limit` (default: the strategy's batch) answered samples, and drop
    those past retention. With online evaluation off it does nothing; a judge that
    cannot be made (no endpoint configured) is a ValidationError before any claim."""
    cfg = core.strategy.online_eval
    run = JudgeRun()
    if not cfg.enabled:
        return run
    n = cfg.batch if limit is None else limit
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 10_000:
        raise ValidationError("limit: expected a whole number in 1..10000")
    now = core.clock()
    run.dropped = core.store.drop_eval_samples(
        unanswered_before=now - round(cfg.answer_within_hours * HOUR_MS),
        before=now - round(cfg.retention_days * DAY_MS))
    the_judge = judge if judge is not None else judge_for(core.strategy)
    for row in core.store.claim_eval_samples(now, now - STALE_CLAIM_MS, n):
        try:
            j = the_judge.judge(row["question"], row["memories"], row["answer"])
        except MemvaultError as e:
            if getattr(e, "transient", False) and row["attempts"] + 1 < MAX_ROUNDS:
                # The endpoint is down: the sample waits for a later round.
                core.store.release_eval_sample(row["eval_id"])
                run.deferred += 1
                continue
            # A malformed or refused judgement: recorded as failed, no verdict stored.
            if core.store.finish_eval_failed(row["eval_id"], judge=the_judge.name,
                                             at=core.clock(), error=e.message):
                run.failed += 1
                run.errors.append({"trace_id": row["trace_id"], "code": e.code,
                                   "message": e.message})
            continue
        verdicts = [(x.id, x.used, x.wrong) for x in j.verdicts]
        if core.store.finish_eval_judged(
                row["eval_id"], verdicts, judge=j.judge, at=core.clock(),
                prompt_tokens=j.prompt_tokens, completion_tokens=j.completion_tokens,
                latency_ms=j.latency_ms):
            run.judged += 1
    return run


def sample_of(core: Core, scope: Any, trace_id: Any) -> dict[str, Any]:
    """One sample with its verdicts (the judged memories, in the order injected)."""
    sc = v.scope(scope)
    tid = v.text(trace_id, "trace_id", max_chars=v.MAX_ID_CHARS)
    assert tid is not None
    row = core.store.get_eval_sample(sc.tenant, sc.user, tid)
    if row is None:
        raise NotFoundError(f"no online-evaluation sample for trace {tid} in scope {sc}")
    verdicts = {i["id"]: i for i in core.store.eval_items(row["eval_id"])}
    row["memories"] = [{**m, "used": verdicts.get(m["id"], {}).get("used"),
                        "wrong": verdicts.get(m["id"], {}).get("wrong")}
                       for m in row["memories"]]
    row.pop("claimed_at", None)
    return row

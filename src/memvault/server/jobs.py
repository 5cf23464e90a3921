"""Async writes: a queue in the store and one worker thread per server.

Exactly once, even across SIGKILL: the worker applies a job inside ONE store transaction
that first claims the job (queued -> running), then runs the verb (whose own transactions
nest as savepoints), then marks it done. A crash anywhere before COMMIT rolls back the
write and the claim together, so the job is queued again after a restart; after COMMIT it
is done and never picked again. A second worker (another process on the same store) finds
the claim taken and skips. Jobs run in queue order, which keeps each scope's writes in the
order they were accepted.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from .. import agentpolicy
from .. import validate as v
from ..errors import MemvaultError, StoreError, ValidationError
from ..model import Scope
from ..observecheck import check_observe
from ..safety.pii import redact, redacted_kinds, scrub, sensitive_values
from ..timeutil import now_ms
from ..vault import Vault
from ..writes.prepare import ITEM_KEYS, prepare
from .metrics import Metrics

log = logging.getLogger("memvault.server.jobs")


def run_verb(vault: Vault, kind: str, scope: Scope, args: dict[str, Any], *, actor: str,
             role: str) -> dict[str, Any]:
    """The one place a queued or a direct remember/propose/observe calls the core."""
    if kind == "remember":
        return vault.remember(scope, **args, actor=actor).to_dict()
    if kind == "propose":
        return vault.propose(scope, **args, actor=actor, actor_role=role).to_dict()
    if kind == "observe":
        return vault.observe(scope, args["messages"], source_ref=args.get("source_ref"),
                             actor=actor, actor_role=role).to_dict()
    raise ValidationError(f"unknown job kind {kind!r}")


def check_args(vault: Vault, kind: str, scope: Scope, args: dict[str, Any]) -> None:
    """The checks the verb makes before it stores anything, made before an async write is
    queued: bad input is a 422 now, not a 202 and a failed job later."""
    if kind in ("remember", "propose"):
        v.caller_metadata(args.get("metadata"))
        v.caller_value(args.get("slot"), args.get("value"))
        fields = {k: args[k] for k in ITEM_KEYS - {"scope"} if k in args}
        req = prepare(vault.clock, scope, fields.pop("content", None), **fields)
        if kind == "remember":  # an agent kind's policy (propose: the gate rejects)
            agentpolicy.admit(vault.strategy.agents, req, vault.clock())
    elif kind == "observe":
        check_observe(args.get("messages"), args.get("source_ref"))


def queued_args(vault: Vault, kind: str, args: dict[str, Any]) -> dict[str, Any]:
    """What a queued observe or propose keeps until it runs: its text without the values of
    the kinds the write policy redacts (a value said in one message is found in all), which
    the verb would redact anyway; a queue row must hold no value the store never does.
    remember() stores what it is given, queued or not."""
    if kind not in ("observe", "propose"):
        return args
    kinds = redacted_kinds(vault.strategy.write.pii.model_dump())
    said = [m["content"] for m in args.get("messages") or ()
            if isinstance(m, dict) and isinstance(m.get("content"), str)]
    known = sensitive_values(said, kinds)
    out = scrub(args, kinds, known)  # its fields: a one-token id stays as it is
    # What is said (a message, a statement) is speech: a bare number in it is read as one.
    for m in out.get("messages") or ():
        if isinstance(m, dict) and isinstance(m.get("content"), str):
            m["content"] = redact(m["content"], kinds, known)[0]
    for key in ("content", "source_text"):
        if isinstance(out.get(key), str):
            out[key] = redact(out[key], kinds, known)[0]
    return out


def summary(kind: str, result: dict[str, Any]) -> dict[str, Any]:
    """What a finished job keeps: ids and decisions, no content (purge must be able to
    erase a memory's text everywhere, and a job row is not a memory)."""
    if kind == "remember":
        return {k: result[k] for k in ("action", "id", "version", "previous_version")}
    if kind == "propose":
        return {k: result[k] for k in ("action", "reasons", "memory_id", "version")}
    return {"turns": result["turns"],
            "outcomes": [{k: o[k] for k in ("action", "reasons", "memory_id", "version")}
                         for o in result["outcomes"]]}


class Worker:
    def __init__(self, vault: Vault, metrics: Metrics, *, poll_seconds: float = 0.5,
                 on_result: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        self.vault, self.metrics, self.poll = vault, metrics, poll_seconds
        self.on_result = on_result
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="memvault-jobs", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def notify(self) -> None:
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                done = self.run_pending()
            except Exception:  # the store is down: wait and retry, the jobs are kept
                log.exception("job queue unavailable")
                done = 0
            if not done:
                self._wake.wait(self.poll)
                self._wake.clear()

    def run_pending(self, batch: int = 32) -> int:
        n = 0
        for job in self.vault.store.queued_jobs(batch):
            if self._stop.is_set():
                break
            self.apply(job)
            n += 1
        return n

    def apply(self, job: dict[str, Any]) -> None:
        store, p = self.vault.store, job["payload"]
        tenant, jid = job["tenant"], job["job_id"]
        scope = Scope(tenant, job["user"], p.get("agent", ""), p.get("session", ""))
        try:
            with store.transaction():
                if not store.claim_job(tenant, jid):
                    return  # another worker has it
                result = run_verb(self.vault, job["kind"], scope, p["args"],
                                  actor=p["actor"], role=p["role"])
                store.finish_job(tenant, jid, status="done", result=summary(job["kind"], result),
                                 error=None, at=now_ms())
        except StoreError:
            raise  # the store failed, not the job: it stays queued
        except MemvaultError as e:
            store.finish_job(tenant, jid, status="failed", result=None, error=e.to_dict(),
                             at=now_ms())
            self.metrics.jobs.labels(job["kind"], "failed").inc()
            return
        except Exception as e:  # a bug must not wedge the queue behind one job
            log.exception("job %s failed", jid)
            store.finish_job(tenant, jid, status="failed", result=None,
                             error={"code": "internal", "message": type(e).__name__},
                             at=now_ms())
            self.metrics.jobs.labels(job["kind"], "failed").inc()
            return
        self.metrics.jobs.labels(job["kind"], "done").inc()
        if self.on_result is not None:
            self.on_result(job["kind"], result)


class Sweeper:
    """vault.maintain() every `interval` seconds: lapsed TTLs are demoted and
    near-duplicates proposed for merging (consolidate.on_sweep) without a caller, and a
    round that did either logs "sweep" with its counts; then, with online evaluation on,
    the answered samples are judged (judge_online).
    Several servers on one store sweep one at a time: a round runs only under the store's
    "sweep" lease (store/leadership.py), which a sweeper keeps while it lives and another
    takes over when its holder stops or dies."""

    def __init__(self, vault: Vault, metrics: Metrics, interval: float) -> None:
        self.vault, self.metrics, self.interval = vault, metrics, interval
        self.rounds = 0  # sweeps this sweeper ran (not those it left to the lease holder)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="memvault-sweep", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10.0)

    def judge(self) -> None:
        """Online evaluation's background step (onlineeval.py): judge the answered
        samples, here and never on a request. Off in the strategy: nothing to do."""
        if not self.vault.strategy.online_eval.enabled:
            return
        try:
            run = self.vault.judge_online()
        except Exception:  # no endpoint configured, the store down: the samples wait
            log.exception("online evaluation failed")
            return
        self.metrics.judgements.labels("judged").inc(run.judged)
        self.metrics.judgements.labels("failed").inc(run.failed)
        if run.judged or run.failed:
            log.info("online eval", extra={"fields": {"judged": run.judged,
                                                       "failed": run.failed}})

    def _loop(self) -> None:
        lease = None
        try:
            while not self._stop.wait(self.interval):
                try:
                    if lease is not None and not lease.alive():
                        lease.release()  # its connection is gone: ask again
                        lease = None
                    if lease is None:
                        lease = self.vault.store.try_lead("sweep")
                        if lease is None:
                            continue  # another server sweeps this store
                    rep = self.vault.maintain()
                    self.rounds += 1
                    self.metrics.swept.inc(rep.expired)
                    counts = {"expired": rep.expired,
                              "merges_proposed": len(rep.merges_proposed),
                              "merges_applied": len(rep.merges_applied)}
                    if any(counts.values()):
                        log.info("sweep", extra={"fields": counts})
                except Exception:
                    log.exception("sweep failed")
                if lease is not None:
                    self.judge()
        finally:
            if lease is not None:
                lease.release()

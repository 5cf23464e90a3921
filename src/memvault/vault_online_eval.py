"""The Vault's online-evaluation verbs (docs/evaluation.md, "Online evaluation"), mixed
into Vault: report an answer for a context build, judge the pending samples, read the
figures. Thin: the rules are in onlineeval.py, the rates in evalreport.py."""

from __future__ import annotations

from typing import Any

from . import evalreport, onlineeval
from .engine import Engine


class OnlineEvalVerbs:
    engine: Engine

    def record_answer(self, scope: Any, trace_id: str, answer: str) -> dict[str, Any]:
        """The answer the application produced with the context build `trace_id`. Kept
        for the judge if that build was sampled ({"sampled": true}); else nothing is
        stored. NotFoundError for a trace the scope does not have; ConflictError for a
        second answer to one sample."""
        return onlineeval.record_answer(self.engine.core, scope, trace_id, answer)

    def judge_online(self, *, limit: int | None = None,
                     judge: onlineeval.Judge | None = None) -> onlineeval.JudgeRun:
        """Judge the answered samples (every tenant's) with the strategy's judge (or
        `judge`); the server's sweep timer runs this, and `memvault eval online --run`.
        A malformed judgement leaves a failed sample, never a verdict."""
        return onlineeval.judge_pending(self.engine.core, judge, limit=limit)

    def online_eval_report(self, tenant: str, *, since: str = "7d",
                           window: str = "1d") -> dict[str, Any]:
        """Memory-use and contamination rates, tokens and latency of the judge, in total
        and per window over the last `since`."""
        return evalreport.report(self.engine.core, tenant, since=since, window=window)

    def online_eval_sample(self, scope: Any, trace_id: str) -> dict[str, Any]:
        """One sample: question, injected memories with their verdicts, answer, status."""
        return onlineeval.sample_of(self.engine.core, scope, trace_id)

"""Evidence in the context section: turn-only memory vs the layered memory, one budget.

Both modes answer every LoCoMo question with `Vault.context(user scope, question,
budget=B)` and score the rendered section, not a ranking:

    turns    one memory per turn (remember_many, as `eval locomo`), context = recall
    layered  each session through `observe` (raw turns + extracted memories, the gate),
             then the lifecycle job (summary triggers, graph) and a final summary of
             every session's remaining turns; context = the router's layers

An evidence turn counts as found if the section contains it, or a memory derived from
it: an extracted memory whose `message_id` is that turn, a summary that covers it
(`expand`), a graph relation read from either. Reported per mode: evidence recall (mean
over questions of found / gold), strict recall (found through the raw turn or an
extracted memory only: a summary covering a turn need not keep its detail), hit rate
(any gold found), and the tokens injected per question (cl100k, the real count of the
rendered text). Adversarial questions are left out of these means, as in `eval locomo`.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ValidationError
from ..model import Kind, Scope, Source
from ..vault import Vault
from .evalset import EXCLUDED_FROM_OVERALL, Dataset, Doc
from .runner import EvalClock, group_times

Progress = Callable[[str, int, int], None]
MODES = ("turns", "layered")


@dataclass(slots=True)
class ModeResult:
    mode: str
    recall: list[float] = field(default_factory=list)
    strict: list[float] = field(default_factory=list)  # raw turn or extracted memory only
    hit: list[float] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    memories: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        keep = [i for i, c in enumerate(self.categories) if c not in EXCLUDED_FROM_OVERALL]
        by_cat: dict[str, list[float]] = defaultdict(list)
        for i, c in enumerate(self.categories):
            by_cat[c].append(self.recall[i])
        toks = sorted(self.tokens)
        return {
            "mode": self.mode, "questions": len(keep),
            "evidence_recall": statistics.fmean(self.recall[i] for i in keep) if keep else 0,
            "hit_rate": statistics.fmean(self.hit[i] for i in keep) if keep else 0,
            "strict_recall": statistics.fmean(self.strict[i] for i in keep) if keep else 0,
            "tokens_mean": statistics.fmean(self.tokens) if self.tokens else 0,
            "tokens_p95": toks[int(0.95 * (len(toks) - 1))] if toks else 0,
            "by_category": {c: statistics.fmean(v) for c, v in sorted(by_cat.items())},
            "memories": self.memories, "seconds": self.seconds,
        }


class _Lineage:
    """memory id -> the doc ids (turns) it stands for."""

    def __init__(self) -> None:
        self.docs: dict[str, set[str]] = defaultdict(set)

    def of(self, vault: Vault, scope: Scope, mid: str) -> set[str]:
        if mid in self.docs:
            return self.docs[mid]
        m = vault.store.get(scope, mid)
        out: set[str] = set()
        if m is not None:
            md = m.metadata
            if m.kind == Kind.SUMMARY.value:
                for t in vault.expand(scope, mid):
                    out |= self.docs.get(t.id, set())
            elif isinstance(md.get("message_id"), str):
                out.add(md["message_id"])
            elif m.kind == Kind.RELATION.value and isinstance(md.get("source_memory"), str):
                out |= self.of(vault, scope, md["source_memory"])
        self.docs[mid] = out
        return out


def _index_turns(vault: Vault, docs: list[Doc], tenant: str, lineage: _Lineage) -> None:
    items = [{"scope": Scope(tenant, d.group, session=d.session), "content": d.content,
              "kind": "turn", "source": Source.IMPORT.value, "source_ref": d.id,
              "valid_from": d.valid_from, "metadata": {"role": "user"}} for d in docs]
    for d, r in zip(docs, vault.remember_many(items, reason="eval layered"), strict=True):
        lineage.docs[r.id].add(d.id)


def _index_layered(vault: Vault, docs: list[Doc], tenant: str, lineage: _Lineage) -> None:
    by_session: dict[str, list[Doc]] = defaultdict(list)
    for d in docs:
        by_session[d.session].append(d)
    group = docs[0].group
    for session, sdocs in by_session.items():
        scope = Scope(tenant, group, session=session)
        res = vault.observe(scope, [{"role": "user", "content": d.content, "id": d.id,
                                     **({"at": d.valid_from} if d.valid_from else {})}
                                    for d in sdocs])
        for d, tid in zip(sdocs, res.turns, strict=True):
            lineage.docs[tid].add(d.id)
    user = Scope(tenant, group)
    vault.maintain(user, steps=["summarize", "graph"])
    vault.summarize(user, force=True)  # the conversation is over: summarise what is left


def run_context_eval(dataset: Dataset, *, budget: int = 800, groups: int | None = None,
                     modes: tuple[str, ...] = MODES, embedder: str | None = None,
                     vault_kwargs: dict[str, Any] | None = None,
                     progress: Progress | None = None) -> dict[str, Any]:
    if dataset.name != "locomo":
        raise ValidationError("the context evaluation runs on LoCoMo (it needs turns)")
    if any(m not in MODES for m in modes):
        raise ValidationError(f"modes: expected some of {', '.join(MODES)}")
    names = list(dict.fromkeys(d.group for d in dataset.docs))[:groups]
    docs = [d for d in dataset.docs if d.group in names]
    queries = [q for q in dataset.queries if q.group in names]
    times = group_times(docs)
    out: dict[str, Any] = {"dataset": dataset.name, "budget": budget,
                           "conversations": names, "modes": {}}
    for mode in modes:
        res = ModeResult(mode)
        clock = EvalClock(min(times.values()))
        with tempfile.TemporaryDirectory(prefix="memvault-ctx-") as tmp:
            vault = Vault(Path(tmp) / "eval.db", embedder=embedder, actor="eval",
                          clock=clock, **(vault_kwargs or {}))
            try:
                lineage = _Lineage()
                t = time.perf_counter()
                for n, g in enumerate(names, 1):
                    clock.now = times[g]
                    gdocs = [d for d in docs if d.group == g]
                    (_index_layered if mode == "layered" else _index_turns)(
                        vault, gdocs, f"eval-{mode}", lineage)
                    if progress:
                        progress(f"index {mode}", n, len(names))
                res.seconds["index_s"] = time.perf_counter() - t
                res.memories = vault.store.count()
                t = time.perf_counter()
                for i, q in enumerate(queries, 1):
                    clock.now = times[q.group]
                    scope = Scope(f"eval-{mode}", q.group)
                    ctx = vault.context(scope, q.text, budget=budget)
                    found: set[str] = set()
                    strict: set[str] = set()
                    for h in ctx.hits:
                        found |= lineage.of(vault, scope, h.memory.id)
                        if h.memory.kind not in (Kind.SUMMARY.value, Kind.RELATION.value):
                            strict |= lineage.of(vault, scope, h.memory.id)
                    got = len(found & q.gold)
                    res.recall.append(got / len(q.gold))
                    res.strict.append(len(strict & q.gold) / len(q.gold))
                    res.hit.append(1.0 if got else 0.0)
                    res.tokens.append(ctx.tokens)
                    res.categories.append(q.category)
                    if progress:
                        progress(f"query {mode}", i, len(queries))
                res.seconds["query_s"] = time.perf_counter() - t
            finally:
                vault.close()
        out["modes"][mode] = res.summary()
    return out


def rows(result: dict[str, Any]) -> list[list[str]]:
    """Table rows: mode, questions, evidence recall, strict recall, hit rate, tokens mean
    / p95, memories stored."""
    return [[m["mode"], str(m["questions"]), f"{m['evidence_recall']:.3f}",
             f"{m['strict_recall']:.3f}", f"{m['hit_rate']:.3f}", f"{m['tokens_mean']:.0f}",
             str(m["tokens_p95"]), str(m["memories"])] for m in result["modes"].values()]


COLUMNS = ("mode", "questions", "evidence recall", "strict recall", "hit rate",
           "tokens/query", "tokens p95", "memories")

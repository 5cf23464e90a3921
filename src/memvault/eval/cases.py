"""Run an application's own cases (casefile.py): recall and context per case, scored.

Throwaway (default): each case gets a user of its own in a fresh temporary Vault; its
history goes through `observe()`, its memories through `remember()`, then the query is
recalled and a context is built. Live (`--live`): the cases ask a scope of an existing
store, which is only read: traces and the read log are switched off for the run, so
nothing at all is written.

A hit counts for the case item it came from: a remembered memory is its item; a turn
or a memory extracted from a message names the message (metadata ``message_id``). Two
memories from one item count once, at the better rank (as the benchmark runner does).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..config import Strategy
from ..errors import ValidationError
from ..model import Hit, Memory, Scope, Source
from ..vault import Vault
from .casefile import Case
from .metrics import query_metrics
from .runner import DEPTH, FALLBACK_NOW, EvalClock
from .strategy import strategy_info

TENANT = "eval-cases"
TOP_SHOWN = 10  # ranked items kept per case in the snapshot

Progress = Callable[[int, int], None]


@dataclass(slots=True)
class CaseResult:
    case: Case
    ranked: list[str]  # item ids (live: memory ids), best first
    scores: list[float]
    texts: dict[str, str]  # item id -> text, for what the report shows
    gold: frozenset[str]
    in_context: list[str]  # item ids the context section included
    context_text: str
    missing_expected: list[str] = field(default_factory=list)  # live: not in the scope

    def metrics(self) -> dict[str, float] | None:
        return query_metrics(self.ranked, self.gold) if self.gold else None

    def facts(self) -> tuple[list[str], list[str]]:
        """(expected facts found in the context, those missing)."""
        found = [f for f in self.case.expected_facts if _says(self.context_text, f)]
        return found, [f for f in self.case.expected_facts if f not in found]

    def violations(self) -> list[dict[str, Any]]:
        """Every must-not item in the recall top k or the context, every must-not fact in
        the context, each named as such."""
        out: list[dict[str, Any]] = []
        k = self.case.k
        for iid in self.case.must_not:
            where = [w for w, hit in ((f"recall@{k}", iid in self.ranked[:k]),
                                      ("context", iid in self.in_context)) if hit]
            if where:
                out.append({"kind": "must_not_appear", "item": iid,
                            "text": self.texts.get(iid, ""), "where": where,
                            "rank": self.ranked.index(iid) + 1 if iid in self.ranked
                            else None})
        out += [{"kind": "must_not_appear_fact", "item": None, "text": f,
                 "where": ["context"], "rank": None}
                for f in self.case.must_not_facts if _says(self.context_text, f)]
        return out


@dataclass(slots=True)
class CaseRun:
    source: str
    live: bool
    results: list[CaseResult]
    strategy: dict[str, Any]
    started_at: str
    scope: dict[str, str] | None = None  # live: the scope read
    timings: dict[str, float] = field(default_factory=dict)


def _says(text: str, fact: str) -> bool:
    return fact.casefold() in text.casefold()


def _item_of(m: Memory, by_memory: dict[str, str], items: set[str]) -> str:
    if m.id in by_memory:
        return by_memory[m.id]
    mid = (m.metadata or {}).get("message_id")
    return mid if isinstance(mid, str) and mid in items else m.id


def _ranked(hits: list[Hit], item_of: Callable[[Memory], str]) -> tuple[list[str],
                                                                      list[float],
                                                                      dict[str, str]]:
    best: dict[str, float] = {}
    texts: dict[str, str] = {}
    for h in hits:
        iid = item_of(h.memory)
        if iid not in best:
            best[iid] = float(h.score)
            texts[iid] = h.memory.content
    return list(best), list(best.values()), texts


def _ask(vault: Vault, scope: Any, case: Case, item_of: Callable[[Memory], str],
         gold: frozenset[str], texts: dict[str, str]) -> CaseResult:
    hits = vault.recall(scope, case.query, top_k=DEPTH)
    ranked, scores, seen = _ranked(list(hits), item_of)
    ctx = vault.context(scope, case.query, budget=case.budget)
    in_ctx = list(dict.fromkeys(item_of(h.memory) for h in ctx.hits))
    # The facts are looked for in what the section says: its text (memory text is
    # escaped there) and the included memories' own text.
    said = "\n".join([ctx.text, *(h.memory.content for h in ctx.hits)])
    return CaseResult(case, ranked, scores, {**seen, **texts}, gold, in_ctx, said)


def _index_case(vault: Vault, scope: Scope, case: Case) -> dict[str, str]:
    """Write the case's world; memory id -> item id for remembered memories."""
    by_memory: dict[str, str] = {}
    messages = [i.message for i in case.items if i.message is not None]
    if messages:
        vault.observe(scope, messages, source_ref=f"case:{case.id}")
    for i in case.items:
        if i.message is None:
            r = vault.remember(scope, i.content, source=Source.IMPORT.value,
                               source_ref=i.id, reason=f"eval case {case.id}", **i.fields)
            by_memory.setdefault(r.id, i.id)
    return by_memory


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def run_cases(cases: list[Case], *, source: str = "", embedder: str | None = None,
              vault_kwargs: dict[str, Any] | None = None,
              progress: Progress | None = None) -> CaseRun:
    """Every case in its own user of a fresh temporary Vault (deleted afterwards)."""
    if not cases:
        raise ValidationError("no cases to run")
    started, t0 = _now(), time.perf_counter()
    results: list[CaseResult] = []
    # A fixed clock: runs do not depend on the day they are run.
    clock = EvalClock(FALLBACK_NOW)
    with tempfile.TemporaryDirectory(prefix="memvault-cases-") as tmp:
        vault = Vault(Path(tmp) / "cases.db", embedder=embedder, actor="eval", clock=clock,
                      **(vault_kwargs or {}))
        try:
            for n, case in enumerate(cases, start=1):
                scope = Scope(TENANT, f"case-{n}")
                try:
                    by_memory = _index_case(vault, scope, case)
                except ValidationError as e:  # a message or memory the verbs refuse
                    raise ValidationError(f"case file line {case.line} (case {case.id}): "
                                          f"{e.message}") from None
                items = {i.id for i in case.items}
                texts = {i.id: i.content for i in case.items}
                results.append(_ask(vault, scope, case,
                                    lambda m, bm=by_memory, it=items: _item_of(m, bm, it),
                                    frozenset(case.expected), texts))
                if progress:
                    progress(n, len(cases))
            strategy = strategy_info(vault)
        finally:
            vault.close()
    return CaseRun(source, False, results, strategy, started,
                   timings={"wall_s": time.perf_counter() - t0})


@contextmanager
def read_only(vault: Vault) -> Iterator[None]:
    """The vault's strategy with traces and the read log off, for the block's reads."""
    saved = vault.strategy
    data = saved.model_dump(mode="json")
    data["traces"]["enabled"] = False
    data["audit"]["log_reads"] = False
    vault.strategy = Strategy.model_validate(data)
    try:
        yield
    finally:
        vault.strategy = saved


def _live_names(vault: Vault, scope: Any, names: tuple[str, ...]
                ) -> tuple[list[str], list[str], dict[str, str]]:
    """(memory ids, names matching no live memory, id -> text) for ids or exact texts."""
    mems = vault.list(scope, limit=10_000)
    by_id = {m.id: m for m in mems}
    by_text = {m.content.strip(): m for m in mems}
    ids, missing, texts = [], [], {}
    for name in names:
        m = by_id.get(name) or by_text.get(name.strip())
        if m is None:
            missing.append(name)
        else:
            ids.append(m.id)
            texts[m.id] = m.content
    return ids, missing, texts


def run_live(vault: Vault, scope: Any, cases: list[Case], *, source: str = "",
             progress: Progress | None = None) -> CaseRun:
    """Ask `scope` of an open store; nothing is written (no trace, no read log row)."""
    if not cases:
        raise ValidationError("no cases to run")
    started, t0 = _now(), time.perf_counter()
    info = strategy_info(vault)  # the strategy the store serves with, not the quiet copy
    results: list[CaseResult] = []
    with read_only(vault):
        for n, case in enumerate(cases, start=1):
            gold, missing, texts = _live_names(vault, scope, case.expected)
            bad, missing_bad, bad_texts = _live_names(vault, scope, case.must_not)
            live_case = replace(case, expected=tuple(gold), must_not=tuple(bad))
            r = _ask(vault, scope, live_case, lambda m: m.id, frozenset(gold),
                     {**texts, **bad_texts})
            r.missing_expected = missing + missing_bad
            results.append(r)
            if progress:
                progress(n, len(cases))
    scope_dict = scope.as_dict() if isinstance(scope, Scope) else dict(scope)
    return CaseRun(source, True, results, info, started, scope=scope_dict,
                   timings={"wall_s": time.perf_counter() - t0})

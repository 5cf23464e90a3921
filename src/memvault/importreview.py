"""import --review (docs/import.md): scan a whole export before anything of it is active,
then load the clean lines as they were exported and stage the rest for review.

The scan (importscan.py) reads the store and the batch and reports every line. Unless it
is a dry run, one transaction then loads the clean lines (portability.load_chunk, the
plain import's loader: ids, histories and timestamps kept) and stages each flagged
statement as a pending candidate of the review queue (review.py), whose
`metadata.review` says why: the finding kinds as `reasons`, the memories concerned as
`links`, what approving it changes as `target_id`, and the line it came from under
`import`. A staged candidate keeps the line's id when the store has no memory of that
id; it is the line's current statement, not its history (the export keeps that). A line
that changed in the store between the scan and the commit fails the whole import with
ConflictError, and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import validate as v
from .engine import Engine
from .errors import ValidationError
from .importscan import ImportReport, Planned, scan
from .portability import Loading, line_of, load_chunk, parse_numbered
from .safety.pii import scrub_around

BATCH = 512
REVIEW_KEYS = ("review", "reviewed")  # a line's own review record is not carried over


def import_review(eng: Engine, lines: Iterable[str], *, scope: Any = None,
                  dry_run: bool = False, actor: str | None = None) -> ImportReport:
    """Scan the export and report it line by line; unless `dry_run`, load the clean lines
    and stage the flagged ones, all in one transaction. `scope`: as in import_jsonl, every
    line must lie inside it."""
    if not isinstance(dry_run, bool):
        raise ValidationError("dry_run: expected true or false")
    if isinstance(lines, str | bytes) or not isinstance(lines, Iterable):
        raise ValidationError("import: expected the lines of an export (an iterable of "
                              "text)")
    who = v.actor(actor) if actor is not None else None
    within = v.scope(scope) if scope is not None else None
    numbered = [(n, line_of(rec)) for n, rec in parse_numbered(lines, within)]
    report, plans = scan(eng, numbered, dry_run=dry_run)
    if dry_run:
        return report
    clean = [p.line for p in plans if p.report.action == "import"]
    flagged = [p for p in plans if p.report.action == "stage"]
    vectors = eng.core.vectors([_content(p) for p in flagged])
    loading = Loading()
    with eng.core.store.transaction() as tx:
        for start in range(0, len(clean), BATCH):
            load_chunk(eng, tx, clean[start:start + BATCH], loading)
        for plan, vec in zip(flagged, vectors, strict=True):
            _stage(eng, tx, plan, vec, loading, who)
    return report


def _content(plan: Planned) -> str:
    m = plan.line[0]
    assert m is not None
    return plan.screened.content if plan.screened is not None else m.content


def _stage(eng: Engine, tx: Any, plan: Planned, vectors: Any, loading: Loading,
           actor: str | None) -> None:
    m = plan.line[0]
    assert m is not None
    rep = plan.report
    screened = plan.screened
    kinds = list(dict.fromkeys(f.kind for f in rep.findings))
    review = {"reasons": kinds, "links": plan.links, "target_id": rep.target_id,
              "message": "; ".join(f.message for f in rep.findings)[:2000],
              "import": {"line": rep.line, "id": m.id, "version": m.version,
                         "created_at": m.created_at, "updated_at": m.updated_at,
                         "findings": [f.to_dict() for f in rep.findings]}}
    # The text around the statement keeps no value the policy hides, as the gate's does.
    meta, tags, topic, ref = scrub_around(
        ({k: x for k, x in m.metadata.items() if k not in REVIEW_KEYS}, m.tags, m.topic,
         m.source_ref), eng.core.strategy.write.pii.model_dump(), [m.content, m.source_text or ""])
    meta["review"] = review
    req = {"scope": m.scope, "content": _content(plan), "slot": m.slot,
           "value": screened.value if screened is not None else m.value, "kind": m.kind,
           "topic": topic, "source": m.source,
           "source_text": screened.source_text if screened is not None else m.source_text,
           "source_ref": ref, "confidence": m.confidence, "tags": tags,
           "metadata": meta, "expires_at": m.expires_at, "valid_from": m.valid_from,
           "valid_to": m.valid_to}
    eng.writes.check_sources(tx, m.scope, meta, skip=loading.brought)
    keep = m.id not in loading.brought and not tx.id_in_use(m.id)
    staged = eng.writes.pending_in(
        tx, req, vectors, actor=actor, reason=f"import line {rep.line}: staged for review "
        f"({', '.join(kinds)})", trigger_text=None, sources_checked=True,
        memory_id=m.id if keep else None)
    loading.brought.add(staged.id)
    rep.staged_id = staged.id

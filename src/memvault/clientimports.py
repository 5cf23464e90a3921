"""The Client's import verbs, mixed into Client: Vault.import_jsonl and
Vault.import_review over POST /v1/import, with the same arguments and return values
(docs/import.md). One request: at most the server's --max-body (1 MiB by default), else
ValidationError body_too_large."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import httpx

from .errors import ValidationError
from .importscan import Finding, ImportReport, LineReport
from .model import Scope


class ImportCalls:
    def _send(self, method: str, path: str, *, params: dict[str, Any] | None = None,
              json: Any = None, content: str | None = None,
              headers: dict[str, str] | None = None) -> httpx.Response:
        raise NotImplementedError

    def _scope_params(self, scope: Scope | dict[str, str]) -> dict[str, str]:
        raise NotImplementedError

    def _post_export(self, lines: Iterable[str], scope: Scope | dict[str, str] | None,
                     **flags: bool) -> dict[str, Any]:
        if isinstance(lines, str | bytes):
            raise ValidationError("lines: expected an iterable of lines, not one string")
        parts = []
        for i, ln in enumerate(lines, 1):
            if not isinstance(ln, str):
                raise ValidationError(f"import: line {i} is not text "
                                      f"({type(ln).__name__})")
            parts.append(ln if ln.endswith("\n") else ln + "\n")
        params: dict[str, Any] = self._scope_params(scope) if scope is not None else {}
        params.update({k: "true" for k, on in flags.items() if on})
        r = self._send("POST", "/v1/import", params=params, content="".join(parts),
                       headers={"Content-Type": "application/x-ndjson"})
        return dict(r.json())

    def import_jsonl(self, lines: Iterable[str], *,
                     scope: Scope | dict[str, str] | None = None) -> int:
        """Load an export, all or nothing; every line must lie inside `scope` (without
        one: the key's bound user). Returns how many memories."""
        return int(self._post_export(lines, scope)["count"])

    def import_review(self, lines: Iterable[str], *,
                      scope: Scope | dict[str, str] | None = None, dry_run: bool = False,
                      actor: str | None = None) -> ImportReport:
        """Vault.import_review (`actor`: the key's, whatever is given)."""
        if not isinstance(dry_run, bool):
            raise ValidationError("dry_run: expected true or false")
        body = self._post_export(lines, scope, review=True, dry_run=dry_run)
        return report_of(body)


def report_of(body: dict[str, Any]) -> ImportReport:
    """An ImportReport from its JSON (ImportReport.to_dict)."""
    return ImportReport(dry_run=bool(body["dry_run"]), lines=[
        LineReport(line=int(r["line"]), id=str(r["id"]), action=str(r["action"]),
                   findings=[Finding(f["kind"], f["message"], f.get("memory_id"),
                                     f.get("line")) for f in r["findings"]],
                   content=r.get("content"), target_id=r.get("target_id"),
                   staged_id=r.get("staged_id"))
        for r in body["lines"]])

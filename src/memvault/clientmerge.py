"""The Client's merge, split and consolidation verbs (REST: server/mergeroutes.py), kept
apart from client.py so it stays small; Client inherits them. Arguments are checked as
the Vault checks them, before anything is sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import validate as v
from .errors import ValidationError
from .model import Memory, Scope


def _body(**fields: Any) -> dict[str, Any]:
    return {k: val for k, val in fields.items() if val is not None}


class ClientMergeVerbs:
    # Provided by Client (client.py): one JSON request in a scope, and an id as a path part.
    _json: Callable[..., Any]
    _mid: Callable[[str], str]

    def _one(self, path: str, scope: Any, body: dict[str, Any]) -> Memory:
        return Memory.from_dict(self._json("POST", path, scope, json=body))

    def _many(self, path: str, scope: Any, body: dict[str, Any]) -> list[Memory]:
        return [Memory.from_dict(m) for m in self._json("POST", path, scope, json=body)]

    def merge(self, scope: Scope | dict[str, str], ids: list[str], *,
              content: str | None = None, reason: str | None = None) -> Memory:
        """Merge memories into a new one (`merged_from`); each source is forgotten."""
        return self._one("/v1/merge", scope, _body(
            ids=v.memory_ids(ids),
            content=v.text(content, "content", max_chars=v.MAX_CONTENT_CHARS,
                           required=False), reason=reason))

    def split(self, scope: Scope | dict[str, str], memory_id: str, parts: list[str], *,
              reason: str | None = None) -> list[Memory]:
        """One new memory per statement (`split_from`); the source is forgotten."""
        return self._many(f"/v1/memories/{self._mid(memory_id)}/split", scope,
                          _body(parts=v.statements(parts), reason=reason))

    def unmerge(self, scope: Scope | dict[str, str], memory_id: str, *,
                reason: str | None = None) -> list[Memory]:
        """Undo a merge: the merged memory is forgotten, its sources restored."""
        return self._many(f"/v1/memories/{self._mid(memory_id)}/unmerge", scope,
                          _body(reason=reason))

    def unsplit(self, scope: Scope | dict[str, str], memory_id: str, *,
                reason: str | None = None) -> Memory:
        """Undo a split (the source's id or a part's)."""
        return self._one(f"/v1/memories/{self._mid(memory_id)}/unsplit", scope,
                         _body(reason=reason))

    def consolidate(self, scope: Scope | dict[str, str], *,
                    apply: bool | None = None) -> list[dict[str, Any]]:
        """Near-duplicate groups, staged for review or (apply) merged."""
        if apply is not None and not isinstance(apply, bool):
            raise ValidationError("apply: expected true or false")
        out: list[dict[str, Any]] = self._json("POST", "/v1/consolidate", scope,
                                               json=_body(apply=apply))
        return out

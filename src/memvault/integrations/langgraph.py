"""LangGraph's `BaseStore` over a Vault: `MemvaultStore(vault, tenant=..., user=...)`.

Pass it as `store=` to `StateGraph.compile` or `create_react_agent`; every write then has
memvault's history, rollback and audit behind it. The mapping (docs/integrations.md):

- The tenant and user (and an optional agent) are fixed by the constructor. A namespace
  never widens them: labels `tenant:X` and `user:X` are allowed only when X is the
  configured one (NamespaceRefusedError otherwise); `agent:X` narrows the memory's scope
  to that agent (refused when a different agent is configured) and `session:X` to that
  session. Every other label is the app's own folder name.
- An item is one memory of kind `note` in that scope. Its identity is a slot derived from
  (namespace, key), so a second put of the same key is version 2 of the same memory. The
  value dict is the memory's value; its text leaves (or the fields `index` names) are the
  content that recall searches. Every prefix of the namespace is a tag (`ns:a.b`), which is
  how searches under a prefix filter.
- delete is `forget`: the memory stops being served, its history stays (rollback undoes).
- search with a query is memvault's hybrid recall; without one, newest first.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import operator
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
)

from .. import validate as v
from ..errors import ScopeError, ValidationError
from ..model import Kind, Memory, Scope, Source, Status
from ..vault import Vault

__all__ = ["MAX_DEPTH", "MAX_LABEL_CHARS", "BadNamespaceError", "MemvaultStore",
           "NamespaceRefusedError", "ValueRefusedError"]

MAX_DEPTH = 8  # labels in a namespace: each prefix is a tag, and a memory has at most 32
MAX_LABEL_CHARS = 64
TAG = "langgraph"  # every item carries it: the store's own memories among the user's
SCAN_LIMIT = 10_000  # memories read per page when listing namespaces or filtering
_SCOPE_LABELS = ("tenant", "user", "agent", "session")


class BadNamespaceError(ValidationError, InvalidNamespaceError):
    """A namespace LangGraph or memvault cannot hold: not a tuple of text labels, empty,
    deeper than MAX_DEPTH, a label too long, with a period or a control character."""

    code = "invalid_namespace"


class NamespaceRefusedError(ScopeError, InvalidNamespaceError):
    """A namespace naming a tenant, user or agent other than the store's configured one."""

    code = "scope_refused"


class ValueRefusedError(ValidationError, ValueError):
    """A key or value memvault would not store: not a mapping, oversized, not JSON."""


def _when(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def _text_leaves(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        if v.visible(value):
            out.append(value)
    elif isinstance(value, Mapping):
        for x in value.values():
            _text_leaves(x, out)
    elif isinstance(value, list | tuple):
        for x in value:
            _text_leaves(x, out)


def content_of(value: Mapping[str, Any], index: list[str] | None) -> str:
    """The text recall searches: the fields `index` names (LangGraph's path syntax), else
    every text leaf of the value; the value as JSON when it has no text."""
    texts: list[str] = []
    if index:
        for path in index:
            texts += [t for t in get_text_at_path(value, path) if v.visible(t)]
    else:
        _text_leaves(value, texts)
    return "\n".join(texts) if texts else json.dumps(value, sort_keys=True)


def prefix_tag(labels: tuple[str, ...]) -> str:
    """The tag of a namespace prefix: readable when it fits a tag, else its digest."""
    joined = ".".join(labels)  # periods are refused in labels, so this is unambiguous
    tag = f"ns:{joined}"
    if len(tag) <= v.MAX_TAG_CHARS:
        return tag
    return "ns#" + hashlib.sha256(joined.encode()).hexdigest()[:40]


def slot_of(labels: tuple[str, ...], key: str) -> str:
    """The item's identity: one slot per (namespace, key)."""
    digest = hashlib.sha256(json.dumps([list(labels), key]).encode()).hexdigest()
    return f"langgraph.{digest[:40]}"


def _matches(path: tuple[str, ...], labels: tuple[str, ...], *, suffix: bool) -> bool:
    if len(path) > len(labels):
        return False
    part = labels[len(labels) - len(path):] if suffix else labels[:len(path)]
    return all(p in ("*", x) for p, x in zip(path, part, strict=True))


_OPS = {"$eq": operator.eq, "$ne": operator.ne, "$gt": operator.gt, "$gte": operator.ge,
        "$lt": operator.lt, "$lte": operator.le}


def _check_filter(flt: Any) -> None:
    if flt is None:
        return
    if not isinstance(flt, Mapping):
        raise ValueRefusedError(f"filter: expected a dict, got {type(flt).__name__}")
    for want in flt.values():
        for op in (want if isinstance(want, Mapping) else {}):
            if op not in _OPS:
                raise ValueRefusedError(f"filter: unknown operator {op!r}")


def _passes(value: Mapping[str, Any], flt: Mapping[str, Any] | None) -> bool:
    """LangGraph's filter on top-level fields: equality, or {"$eq"|"$ne"|"$gt"|"$gte"|
    "$lt"|"$lte": x}."""
    for field, want in (flt or {}).items():
        have = value.get(field)
        conds = want.items() if isinstance(want, Mapping) else [("$eq", want)]
        for op, x in conds:
            try:
                ok = bool(_OPS[op](have, x))
            except TypeError:  # None or another type: not comparable, so no match
                ok = False
            if not ok:
                return False
    return True


class MemvaultStore(BaseStore):
    """A LangGraph store whose items are memories of one tenant and user (see the module
    docstring for the namespace mapping). `actor` is recorded in every revision."""

    def __init__(self, vault: Vault, *, tenant: str, user: str, agent: str | None = None,
                 actor: str = "langgraph") -> None:
        if not isinstance(vault, Vault):
            raise TypeError(f"vault: expected a memvault Vault, got {type(vault).__name__}")
        self.vault = vault
        self.scope = v.scope({"tenant": tenant, "user": user, "agent": agent or ""})
        self.actor = v.actor(actor)

    # --- namespaces -----------------------------------------------------------------
    def labels(self, namespace: Any, *, prefix: bool = False) -> tuple[str, ...]:
        """The namespace checked: a tuple of 1..MAX_DEPTH text labels (0 for a prefix)."""
        if not isinstance(namespace, tuple | list):
            raise BadNamespaceError(f"namespace: expected a tuple of text labels, got "
                                    f"{type(namespace).__name__}")
        labels = tuple(namespace)
        if not labels and not prefix:
            raise BadNamespaceError("namespace: must not be empty")
        if len(labels) > MAX_DEPTH:
            raise BadNamespaceError(f"namespace: {len(labels)} labels, at most {MAX_DEPTH}")
        for label in labels:
            if not isinstance(label, str):
                raise BadNamespaceError(f"namespace: label {label!r} is a "
                                        f"{type(label).__name__}, not text")
            if not label or "." in label:
                raise BadNamespaceError(f"namespace: label {label!r} is empty or holds a "
                                        "period")
            try:
                v.label(label, "namespace label", max_chars=MAX_LABEL_CHARS)
            except ValidationError as e:
                raise BadNamespaceError(e.message) from None
        return labels

    def scope_of(self, labels: tuple[str, ...]) -> Scope:
        """The scope a namespace's items live in: the configured one, narrowed by its
        `agent:` / `session:` labels; `tenant:` / `user:` labels must name the configured
        tenant and user."""
        fields = self.scope.as_dict()
        seen: set[str] = set()
        for label in labels:
            name, sep, val = label.partition(":")
            if not sep or name not in _SCOPE_LABELS:
                continue
            if name in seen or not val:
                raise BadNamespaceError(f"namespace: {label!r} names no {name}, or a "
                                        "second one")
            seen.add(name)
            fixed = getattr(self.scope, name)
            if (name in ("tenant", "user") or fixed) and val != fixed:
                raise NamespaceRefusedError(
                    f"namespace: {label!r} names another {name} than this store's; a "
                    "store reaches only its configured tenant and user")
            fields[name] = val
        try:
            return v.scope(fields)
        except ScopeError as e:
            raise BadNamespaceError(e.message) from None

    # --- the batch ------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        # Every op is checked before any runs: a bad op fails the batch with nothing
        # stored, not after the puts before it.
        runs = [self._plan(op) for op in list(ops)]
        return [run() for run in runs]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # The vault is thread-safe; a worker thread keeps the event loop free.
        return await asyncio.to_thread(self.batch, list(ops))

    def _plan(self, op: Op) -> Callable[[], Result]:
        """The op checked, as the call that runs it."""
        if isinstance(op, GetOp):
            labels = self.labels(op.namespace)
            key = self._key(op.key)
            return lambda: self._get(labels, key)
        if isinstance(op, PutOp):
            return self._plan_put(op)
        if isinstance(op, SearchOp):
            return self._plan_search(op)
        if isinstance(op, ListNamespacesOp):
            return self._plan_namespaces(op)
        raise TypeError(f"unknown store operation {type(op).__name__}")

    def _key(self, key: Any) -> str:
        try:
            return v.label(key, "key")
        except ValidationError as e:
            raise ValueRefusedError(e.message) from None

    def _current(self, labels: tuple[str, ...], key: str) -> Memory | None:
        found = self.vault.list(self.scope_of(labels), slot=slot_of(labels, key),
                                status=Status.ACTIVE.value, limit=1)
        return found[0] if found else None

    def _get(self, labels: tuple[str, ...], key: str) -> Item | None:
        m = self._current(labels, key)
        return None if m is None else self._item(m)

    def _plan_put(self, op: PutOp) -> Callable[[], None]:
        labels = self.labels(op.namespace)
        key = self._key(op.key)
        sc = self.scope_of(labels)
        if op.value is None:
            return lambda: self._delete(sc, labels, key)
        if op.ttl is not None:
            raise NotImplementedError("MemvaultStore has no TTL on items; memvault's "
                                      "lifecycle (strategy file) decides what expires")
        if not isinstance(op.value, Mapping):
            raise ValueRefusedError(f"value: expected a dict, got {type(op.value).__name__}")
        if op.index is not None and op.index is not False and (
                not isinstance(op.index, list) or not all(isinstance(p, str)
                                                          for p in op.index)):
            raise ValueRefusedError("index: expected False or a list of field paths")
        try:
            value = v.json_value(dict(op.value), "value")
            content = str(v.text(content_of(value, op.index or None), "content",
                                 max_chars=v.MAX_CONTENT_CHARS))
        except ValidationError as e:
            raise ValueRefusedError(e.message) from None
        tags = [TAG, *(prefix_tag(labels[:n]) for n in range(1, len(labels) + 1))]
        meta = {"langgraph": {"namespace": list(labels), "key": key}}

        def put() -> None:
            self.vault.remember(sc, content, slot=slot_of(labels, key), value=value,
                                kind=Kind.NOTE.value, source=Source.TOOL.value, tags=tags,
                                metadata=meta, actor=self.actor, reason="langgraph store put")
        return put

    def _delete(self, sc: Scope, labels: tuple[str, ...], key: str) -> None:
        m = self._current(labels, key)
        if m is not None:
            self.vault.forget(sc, m.id, actor=self.actor, reason="langgraph store delete")

    def _item(self, m: Memory, score: float | None = None,
              search: bool = False) -> Item:
        meta = m.metadata.get("langgraph", {})
        value = m.value if isinstance(m.value, dict) else {}
        fields = {"namespace": tuple(meta.get("namespace", ())), "key": meta.get("key", ""),
                  "value": value, "created_at": _when(m.created_at),
                  "updated_at": _when(m.updated_at)}
        return SearchItem(score=score, **fields) if search else Item(**fields)

    def _plan_search(self, op: SearchOp) -> Callable[[], list[SearchItem]]:
        labels = self.labels(op.namespace_prefix, prefix=True)
        limit, offset = op.limit, op.offset
        for name, n in (("limit", limit), ("offset", offset)):
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise ValueRefusedError(f"{name}: expected a whole number >= 0")
        _check_filter(op.filter)
        sc = self.scope_of(labels)
        tags = [TAG, prefix_tag(labels) if labels else TAG]
        query = None
        if op.query is not None:
            try:
                query = str(v.text(op.query, "query", max_chars=v.MAX_CONTENT_CHARS))
            except ValidationError as e:
                raise ValueRefusedError(e.message) from None
        want = limit + offset

        def search() -> list[SearchItem]:
            if limit == 0:
                return []
            if query is not None:
                # Recall returns at most top_k; a filter may drop some, so ask for more.
                top = min(max(want * 4, 20) if op.filter else want, 1000)
                hits = self.vault.recall(sc, query, top_k=top, kind=Kind.NOTE.value,
                                         tags=tags)
                found = [self._item(h.memory, h.score, search=True) for h in hits
                         if _passes(h.memory.value or {}, op.filter)]
            else:
                mems = self.vault.list(sc, kind=Kind.NOTE.value, status=Status.ACTIVE.value,
                                       tags=tags, limit=SCAN_LIMIT if op.filter else
                                       min(want, SCAN_LIMIT))
                found = [self._item(m, search=True) for m in mems
                         if _passes(m.value or {}, op.filter)]
            return found[offset:want]  # type: ignore[return-value]
        return search

    def _plan_namespaces(self, op: ListNamespacesOp) -> Callable[[], list[tuple[str, ...]]]:
        conds = []
        for c in op.match_conditions or ():
            if c.match_type not in ("prefix", "suffix"):
                raise ValueRefusedError(f"match_type: {c.match_type!r} is not prefix or "
                                        "suffix")
            conds.append((self.labels(c.path, prefix=True), c.match_type == "suffix"))
        for name, n in (("limit", op.limit), ("offset", op.offset),
                        ("max_depth", op.max_depth or 0)):
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise ValueRefusedError(f"{name}: expected a whole number >= 0")
        return lambda: self._namespaces(op, conds)

    def _namespaces(self, op: ListNamespacesOp,
                    conds: list[tuple[tuple[str, ...], bool]]) -> list[tuple[str, ...]]:
        spaces: set[tuple[str, ...]] = set()
        offset = 0
        while True:
            page = self.vault.list(self.scope, kind=Kind.NOTE.value,
                                   status=Status.ACTIVE.value, tags=[TAG], limit=SCAN_LIMIT,
                                   offset=offset)
            for m in page:
                ns = tuple(m.metadata.get("langgraph", {}).get("namespace", ()))
                if ns and all(_matches(p, ns, suffix=s) for p, s in conds):
                    spaces.add(ns[:op.max_depth] if op.max_depth else ns)
            if len(page) < SCAN_LIMIT:
                break
            offset += SCAN_LIMIT
        return sorted(spaces)[op.offset:op.offset + op.limit]

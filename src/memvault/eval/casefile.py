"""An application's own evaluation cases, read from JSONL or YAML (`memvault eval cases`).

A case is a small world and a question about it:

- ``history``: messages (``{"role", "content", "id"?, "at"?}``) that go through
  `observe()` as a conversation would, and/or ``memories``: statements (a string, or
  ``{"content", "id"?, "kind"?, "tags"?, "slot"?, "value"?, "valid_from"?}``) remembered
  directly. Each item has a case-local id (its ``id``, else ``#1``, ``#2``… in order).
- ``query``: what is asked (recall, then context).
- ``expected``: the items recall should find (by case-local id, or by the item's exact
  text); ``must_not``: items that must not reach the recall top k or the context.
- ``expected_facts`` / ``must_not_facts``: words that must (not) appear in the context.
- ``k`` (default 5): the depth at which a must-not item counts as recalled; ``budget``:
  the context's token budget (default: the strategy's).

With ``--live`` there is no history: ``expected`` and ``must_not`` name memories of the
live scope by id or exact text. Every error names the line of the case it is about.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import ValidationError

CASE_KEYS = frozenset({"id", "history", "memories", "query", "expected", "must_not",
                       "expected_facts", "must_not_facts", "k", "budget"})
MESSAGE_KEYS = frozenset({"id", "role", "content", "at", "name"})
MEMORY_KEYS = frozenset({"id", "content", "kind", "tags", "slot", "value", "valid_from"})
DEFAULT_K = 5


@dataclass(frozen=True, slots=True)
class Item:
    """One history message or memory of a case, under its case-local id."""

    id: str
    content: str
    message: dict[str, Any] | None = None  # for observe(); None: a memory to remember
    fields: dict[str, Any] = field(default_factory=dict)  # remember()'s extra arguments


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    line: int
    query: str
    items: tuple[Item, ...] = ()
    expected: tuple[str, ...] = ()  # item ids (or, live, memory ids / texts)
    must_not: tuple[str, ...] = ()
    expected_facts: tuple[str, ...] = ()
    must_not_facts: tuple[str, ...] = ()
    k: int = DEFAULT_K
    budget: int | None = None


def _fail(line: int, msg: str) -> ValidationError:
    return ValidationError(f"case file line {line}: {msg}")


def _text(val: Any, what: str, line: int) -> str:
    if not isinstance(val, str) or not val.strip():
        raise _fail(line, f"{what}: expected non-empty text")
    return val


def _texts(raw: dict[str, Any], key: str, line: int) -> tuple[str, ...]:
    val = raw.get(key, [])
    if isinstance(val, str):
        val = [val]
    if not isinstance(val, list):
        raise _fail(line, f"{key}: expected a list of texts")
    return tuple(_text(x, key, line) for x in val)


def _int(raw: dict[str, Any], key: str, line: int, lo: int, hi: int) -> int | None:
    val = raw.get(key)
    if val is None:
        return None
    if isinstance(val, bool) or not isinstance(val, int) or not lo <= val <= hi:
        raise _fail(line, f"{key}: expected a whole number in {lo}..{hi}")
    return val


def _items(raw: dict[str, Any], line: int) -> tuple[Item, ...]:
    out: list[Item] = []
    for key, allowed in (("history", MESSAGE_KEYS), ("memories", MEMORY_KEYS)):
        seq = raw.get(key, [])
        if not isinstance(seq, list):
            raise _fail(line, f"{key}: expected a list")
        for x in seq:
            n = len(out) + 1
            if isinstance(x, str) and key == "memories":
                x = {"content": x}
            if not isinstance(x, dict):
                raise _fail(line, f"{key} item {n}: expected an object")
            unknown = sorted(set(x) - allowed)
            if unknown:
                raise _fail(line, f"{key} item {n}: unknown field(s) {', '.join(unknown)}")
            iid = str(x["id"]) if x.get("id") is not None else f"#{n}"
            content = _text(x.get("content"), f"{key} item {n} content", line)
            if key == "history":
                msg = {"role": x.get("role", "user"), "content": content, "id": iid,
                       **{k: x[k] for k in ("at", "name") if k in x}}
                out.append(Item(iid, content, message=msg))
            else:
                extra = {k: x[k] for k in ("kind", "tags", "slot", "value", "valid_from")
                         if k in x}
                out.append(Item(iid, content, fields=extra))
    ids = [i.id for i in out]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise _fail(line, f"item id(s) used twice: {', '.join(dup)}")
    return tuple(out)


def _resolve(names: tuple[str, ...], items: tuple[Item, ...], key: str,
             line: int) -> tuple[str, ...]:
    """Item ids for names given as an id or as an item's exact text."""
    by_id = {i.id for i in items}
    by_text = {i.content.strip(): i.id for i in items}
    out = []
    for name in names:
        iid = name if name in by_id else by_text.get(name.strip())
        if iid is None:
            raise _fail(line, f"{key}: {name!r} is neither the id nor the text of an item "
                        "of the case's history or memories")
        out.append(iid)
    return tuple(dict.fromkeys(out))


def parse_case(raw: Any, line: int, *, live: bool = False) -> Case:
    if not isinstance(raw, dict):
        raise _fail(line, "expected an object (a case)")
    unknown = sorted(set(raw) - CASE_KEYS)
    if unknown:
        raise _fail(line, f"unknown field(s) {', '.join(unknown)} (known: "
                    f"{', '.join(sorted(CASE_KEYS))})")
    items = _items(raw, line)
    if live and items:
        raise _fail(line, "history/memories: --live reads the store as it is; a case "
                    "with its own history needs a throwaway store (leave out --live)")
    if not live and not items:
        raise _fail(line, "no history or memories: nothing to recall from")
    expected, must_not = _texts(raw, "expected", line), _texts(raw, "must_not", line)
    if not live:
        expected = _resolve(expected, items, "expected", line)
        must_not = _resolve(must_not, items, "must_not", line)
        both = set(expected) & set(must_not)
        if both:
            raise _fail(line, f"expected and must_not both name {', '.join(sorted(both))}")
    facts, bad_facts = _texts(raw, "expected_facts", line), _texts(raw, "must_not_facts", line)
    if not (expected or must_not or facts or bad_facts):
        raise _fail(line, "nothing to check: give expected, must_not, expected_facts or "
                    "must_not_facts")
    cid = raw.get("id", f"line-{line}")
    return Case(id=_text(str(cid) if isinstance(cid, int) else cid, "id", line), line=line,
                query=_text(raw.get("query"), "query", line), items=items,
                expected=expected, must_not=must_not, expected_facts=facts,
                must_not_facts=bad_facts, k=_int(raw, "k", line, 1, 100) or DEFAULT_K,
                budget=_int(raw, "budget", line, 1, 200_000))


def _jsonl(text: str) -> list[tuple[int, Any]]:
    out = []
    for n, row in enumerate(text.splitlines(), start=1):
        if not row.strip() or row.lstrip().startswith("#"):
            continue
        try:
            out.append((n, json.loads(row)))
        except json.JSONDecodeError as e:
            raise _fail(n, f"not JSON ({e.msg})") from None
    return out


def _yaml(text: str) -> list[tuple[int, Any]]:
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return []
        if not isinstance(node, yaml.SequenceNode):
            raise _fail(node.start_mark.line + 1, "expected a list of cases")
        return [(item.start_mark.line + 1, loader.construct_object(item, deep=True))
                for item in node.value]
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise _fail(mark.line + 1 if mark else 1, f"not YAML ({e.problem})") from None
    finally:
        loader.dispose()


def load_cases(path: Path, *, live: bool = False) -> list[Case]:
    """The cases of a .jsonl / .json-lines or .yaml / .yml file, checked."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValidationError(f"cannot read case file {path} ({e})") from None
    rows = _yaml(text) if path.suffix.lower() in (".yaml", ".yml") else _jsonl(text)
    cases = [parse_case(raw, line, live=live) for line, raw in rows]
    if not cases:
        raise ValidationError(f"{path}: no cases")
    seen: dict[str, int] = {}
    for c in cases:
        if c.id in seen:
            raise _fail(c.line, f"case id {c.id!r} already used on line {seen[c.id]}")
        seen[c.id] = c.line
    return cases

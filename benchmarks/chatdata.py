"""Real chat vocabulary for benchmarks/load.py: LoCoMo and MADial-Bench texts as memories,
and their questions as queries (read with memvault.eval.datasets, as the eval reads them).

- `locomo(data)`: the eval's setup: one user per LoCoMo conversation, one memory per turn
  (kind turn, its session as the scope session), every question of the conversation.
- `dealt(data, memories, users, seed)`: LoCoMo sessions and MADial-Bench (en and zh)
  users' memories cut into units (a session; ten events), dealt out at random to
  `users` users until each holds memories // users. A unit is recycled with light
  variation per user, so texts are not all exact copies: the people it names get that
  user's names, and a LoCoMo date that user's year. A user's queries are (up to
  `queries`, at random) the questions whose gold memories lie in a unit the user holds,
  varied the same way.

Deterministic for a seed. Nothing here stores anything.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memvault.eval.datasets import Doc, load_dataset

TENANT = "bench"
# Names a user's texts get instead of the datasets' own (light variation, fixed order).
NAMES = ("Alex Bea Caro Dan Eli Fay Gus Hana Ivo Jade Kai Lena Milo Nora Omar Pia Quin Rosa "
         "Sami Tess Umar Vera Wes Xia Yuri Zoe Aiko Bram Cleo Dev Emil Flor Gil Hugo Iris "
         "Joel Kira Luca Maya Nico Olga Pete Rhea Sven Tara Ugo Vito Wren Yara Zeke").split()
_YEAR = re.compile(r"(, )(20\d\d)(\])")


@dataclass
class User:
    user: str
    items: list[dict[str, Any]] = field(default_factory=list)  # remember_many items
    queries: list[str] = field(default_factory=list)


def _items(docs: list[Doc], session_prefix: str, vary: Any) -> list[dict[str, Any]]:
    return [{"content": vary(d.content), "kind": d.kind,
             "session": session_prefix + d.session if d.session else "",
             "valid_from": d.valid_from, "source": "import", "source_ref": d.id,
             "metadata": d.metadata} for d in docs]


def locomo(data: Path) -> list[User]:
    ds = load_dataset("locomo", data)
    users: dict[str, User] = {}
    for d in ds.docs:
        users.setdefault(d.group, User(d.group)).items.extend(_items([d], "", str))
    for q in ds.queries:
        users[q.group].queries.append(q.text)
    return list(users.values())


def _names(sets: list[Any]) -> list[str]:
    """The people the datasets' texts name: LoCoMo speakers, MADial speakers (<Name>:)."""
    found: set[str] = set()
    for ds in sets:
        for d in ds.docs:
            if isinstance(d.metadata.get("speaker"), str):
                found.add(d.metadata["speaker"])
        for q in ds.queries:
            found.update(re.findall(r"<([A-Z][a-z]+)>", q.text))
    found.discard("Assistant")
    return sorted(found)


def dealt(data: Path, memories: int, users: int, seed: int, queries: int = 8) -> list[User]:
    sets = [load_dataset("locomo", data), load_dataset("madial", data, "en"),
            load_dataset("madial", data, "zh")]
    units: list[tuple[str, list[Doc], list[str]]] = []  # (dataset, docs, questions)
    for ds in sets:
        groups: dict[tuple[str, str], list[Doc]] = {}
        seen: dict[str, int] = {}
        for d in ds.docs:
            # LoCoMo: a session; MADial: ten events of one user, in file order.
            n = seen[d.group] = seen.get(d.group, -1) + 1
            groups.setdefault((d.group, d.session or str(n // 10)), []).append(d)
        by_group: dict[str, list[Any]] = {}
        for q in ds.queries:
            by_group.setdefault(q.group, []).append(q)
        for docs in groups.values():
            ids = {d.id for d in docs}
            asked = [q.text for q in by_group.get(docs[0].group, []) if q.gold & ids]
            units.append((ds.name, docs, asked))
    known = _names(sets)
    pattern = re.compile(r"(?<![A-Za-z])(" + "|".join(map(re.escape, known)) + r")(?![A-Za-z])")
    rng = random.Random(seed)
    per_user = memories // users
    out: list[User] = []
    for u in range(users):
        mapping = dict(zip(known, rng.sample(NAMES * (1 + len(known) // len(NAMES)),
                                             len(known)), strict=True))
        year = str(rng.randrange(2015, 2026))

        def vary(text: str, mapping: dict[str, str] = mapping, year: str = year) -> str:
            text = pattern.sub(lambda m: mapping[m.group(1)], text)
            return _YEAR.sub(lambda m: m.group(1) + year + m.group(3), text)

        user = User(f"u{u:04d}")
        n = 0
        while len(user.items) < per_user:
            name, docs, asked = units[rng.randrange(len(units))]
            user.items.extend(_items(docs, f"{name}-{n}-", vary)[:per_user - len(user.items)])
            user.queries.extend(vary(q) for q in asked)
            n += 1
        rng.shuffle(user.queries)
        del user.queries[queries:]
        out.append(user)
    return out


def texts(users: list[User]) -> list[str]:
    """Every distinct memory and query text, in a fixed order (what to embed once)."""
    seen = dict.fromkeys(t for u in users for t in [*(i["content"] for i in u.items),
                                                    *u.queries])
    return list(seen)

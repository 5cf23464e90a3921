"""Benchmark datasets as memories and queries: LoCoMo and MADial-Bench.

Both are turned into the same shape (evalset.py: `Doc`s, `Query`s, a `Dataset`); the
names are re-exported here. Nothing here touches a Vault.

Setups follow shared/BASELINES.md so the numbers are comparable with it:

- LoCoMo: one memory per dialogue turn, text ``[session date] speaker: text`` (image
  captions not appended), one user per conversation, one scope session per LoCoMo
  session; the session date is also the memory's ``valid_from``.
- MADial-Bench: one memory per event, text ``scene emotion event``, its ``time`` as
  ``valid_from`` (not in the text: dialogues almost never name dates); one user per
  ``user-id``; query = every utterance before the first test turn.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import ValidationError
from .evalset import EXCLUDED_FROM_OVERALL as EXCLUDED_FROM_OVERALL  # re-exported
from .evalset import Dataset, Doc, Lang, Query, Split
from .shapes import load_shapes

LOCOMO_CATEGORIES: dict[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain",
                                     4: "single-hop", 5: "adversarial"}
# LoCoMo conversations 1-5 (file order) are the tuning half, 6-10 the holdout.
LOCOMO_TUNE_CONVERSATIONS = 5
DEFAULT_DATA = Path("..") / "shared" / "datasets"


def default_data_path() -> Path | None:
    """``../shared/datasets`` relative to the current directory, if it exists."""
    return DEFAULT_DATA if DEFAULT_DATA.is_dir() else None


# --- LoCoMo --------------------------------------------------------------------------------

_DIA_ID = re.compile(r"^D:?(\d+):(\d+)$")
_SESSION_KEY = re.compile(r"session_(\d+)")


def normalise_evidence_ids(raw: Iterable[str]) -> list[str]:
    """LoCoMo evidence strings -> canonical ``D<session>:<turn>`` ids, in order.

    The quirks the dataset README lists: several ids in one string (``"D8:6; D9:17"``,
    space-separated lists), a stray colon (``"D:11:26"``), zero padding (``"D30:05"``)
    and a bare ``"D"`` (dropped). Well-formed ids that are not in the conversation
    (``D10:19`` in conv-42) are dropped by the loader, the only place that knows the turns.
    """
    out: list[str] = []
    for entry in raw:
        for piece in re.split(r"[;,\s]+", str(entry).strip()):
            m = _DIA_ID.match(piece)
            if m:
                # int() drops zero padding, so "D30:05" names the turn "D30:5".
                out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return out


def parse_locomo_date(text: str) -> int | None:
    """``"1:56 pm on 8 May, 2023"`` -> epoch ms (read as UTC); None if it does not parse."""
    try:
        dt = datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return None
    return int(dt.replace(tzinfo=UTC).timestamp() * 1000)


def resolve_locomo(path: Path) -> Path:
    """Accept the datasets folder, its ``locomo/`` folder or ``locomo10.json`` itself."""
    for candidate in (path, path / "locomo10.json", path / "locomo" / "locomo10.json"):
        if candidate.is_file():
            return candidate
    raise ValidationError(f"LoCoMo: no locomo10.json at {path} (give --data the datasets "
                          "folder, its locomo/ folder or the JSON file)")


def load_locomo(path: Path) -> Dataset:
    file = resolve_locomo(path)
    try:
        samples = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValidationError(f"LoCoMo: cannot read {file} ({e})") from None
    docs: list[Doc] = []
    queries: list[Query] = []
    dropped_ids = no_evidence = undated = 0
    for n, sample in enumerate(samples, start=1):
        group = str(sample["sample_id"])
        conv = sample["conversation"]
        turn_ids: set[str] = set()
        # Numeric session order: JSON key order is not a contract, and doc order decides
        # insertion order (and with it the last tie-break of equal scores).
        sessions = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.fullmatch(k)))
        for s in sessions:
            date_text = conv.get(f"session_{s}_date_time", "")
            valid_from = parse_locomo_date(date_text)
            for turn in conv[f"session_{s}"]:
                ids = normalise_evidence_ids([turn["dia_id"]])
                if len(ids) != 1:
                    raise ValidationError(f"LoCoMo {group}: bad turn id {turn['dia_id']!r}")
                undated += valid_from is None
                turn_ids.add(ids[0])
                docs.append(Doc(
                    id=f"{group}:{ids[0]}", group=group, session=f"session_{s}",
                    content=f"[{date_text}] {turn['speaker']}: {turn['text']}", kind="turn",
                    valid_from=valid_from,
                    metadata={"dia_id": ids[0], "speaker": turn["speaker"],
                              "date_time": date_text}))
        split = Split.TUNE if n <= LOCOMO_TUNE_CONVERSATIONS else Split.HOLDOUT
        for i, qa in enumerate(sample["qa"]):
            category = LOCOMO_CATEGORIES.get(qa.get("category"))  # type: ignore[arg-type]
            if category is None:
                raise ValidationError(f"LoCoMo {group}: unknown category {qa.get('category')}")
            ids = normalise_evidence_ids(qa.get("evidence", []))
            known = [i_ for i_ in ids if i_ in turn_ids]
            dropped_ids += len(ids) - len(known)
            if not known:
                no_evidence += 1  # nothing to retrieve: recall would be undefined
                continue
            queries.append(Query(id=f"{group}:q{i}", group=group, text=str(qa["question"]),
                                 gold=frozenset(f"{group}:{k}" for k in known),
                                 split=split.value, category=category))
    ds = Dataset("locomo", "en", str(file), docs, queries,
                 categories=[LOCOMO_CATEGORIES[k] for k in sorted(LOCOMO_CATEGORIES)])
    ds.notes.append(f"{len(samples)} conversations, {len(docs)} turns, {len(queries)} "
                    f"questions with evidence; {no_evidence} questions without usable "
                    f"evidence skipped, {dropped_ids} evidence ids not in their "
                    "conversation dropped")
    if undated:
        ds.notes.append(f"{undated} turns have no parseable session date (no valid_from)")
    return ds


# --- MADial-Bench ----------------------------------------------------------------------------

def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """MADial's files are JSON Lines despite the .json extension."""
    try:
        with path.open(encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValidationError(f"MADial: cannot read {path} ({e})") from None


def read_madial_memories(path: Path) -> dict[str, dict[str, Any]]:
    """Each line is a one-key object ``{"<id>": {fields}}``."""
    return {str(k): v for row in read_jsonl(path) for k, v in row.items()}


def madial_memory_text(fields: dict[str, Any]) -> str:
    return " ".join(str(fields[k]).strip() for k in ("scene", "emotion", "event"))


def madial_query_text(dialogue: Sequence[str], test_turns: Sequence[int]) -> str:
    """Every utterance before the earliest test turn (indexes the raw list, which starts
    with ``<BOD>``), markers dropped, speaker tags kept, one per line. The earliest turn,
    so the query never holds an assistant turn that already recalls a gold memory."""
    cut = min(test_turns)
    return "\n".join(u.strip() for u in dialogue[:cut] if u.strip() not in ("<BOD>", "<EOD>"))


def resolve_madial(path: Path) -> Path:
    """Accept the datasets folder or its ``madial-bench/`` folder."""
    for candidate in (path, path / "madial-bench"):
        if (candidate / "zh").is_dir() or (candidate / "en").is_dir():
            return candidate
    raise ValidationError(f"MADial: no zh/ or en/ folder at {path} (give --data the datasets "
                          "folder or its madial-bench/ folder)")


def _madial_date(text: Any) -> int | None:
    try:
        dt = datetime.fromisoformat(str(text).strip())
    except ValueError:
        return None
    return int((dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp() * 1000)


def load_madial(path: Path, lang: str | Lang) -> Dataset:
    lang = Lang(lang)
    root = resolve_madial(path)
    zh_file = root / "zh" / "MADial-Bench-zh-memory.json"
    own_file = root / lang.value / f"MADial-Bench-{lang.value}-memory.json"
    memories = read_madial_memories(own_file)
    # Only the Chinese file records owners; the English ids are a subset of its ids (the
    # same memories, translated), so an English memory's owner is looked up there.
    owners_src = memories if lang == Lang.ZH or not zh_file.is_file() else (
        read_madial_memories(zh_file))
    owner = {k: str(f["user-id"]) for k, f in owners_src.items() if "user-id" in f}
    docs: list[Doc] = []
    user_of: dict[str, str] = {}
    undated = 0
    for mem_id in sorted(memories, key=lambda k: (len(k), k)):  # numeric order
        fields = memories[mem_id]
        user = str(fields.get("user-id", owner.get(mem_id, "")))
        if not user:
            raise ValidationError(f"MADial {lang}: cannot find the owner of memory {mem_id} "
                                  f"(the English file has no user-id; {zh_file} is needed)")
        user_of[mem_id] = user
        valid_from = _madial_date(fields.get("time"))
        undated += valid_from is None
        docs.append(Doc(id=mem_id, group=f"user-{user}", content=madial_memory_text(fields),
                        kind="episode", valid_from=valid_from,
                        metadata={"madial_id": mem_id, "scene": fields.get("scene"),
                                  "emotion": fields.get("emotion"),
                                  "time": fields.get("time")}))
    dialogues = read_jsonl(root / lang.value / f"MADial-Bench-{lang.value}-dialogue.json")
    queries: list[Query] = []
    for line_no, dlg in enumerate(dialogues):
        # The dialogue number: the zh file's "id" (equal to the line number); the en file
        # has none and lists the same dialogues in the same order.
        number = int(dlg.get("id", line_no))
        user = str(dlg["user-id"])
        gold = [str(g) for g in dlg["relevant-id"]]
        foreign = [g for g in gold if user_of.get(g) != user]
        if foreign:
            # Gold outside the user's memories is unreachable and would silently lower
            # every retriever's score; refuse instead.
            raise ValidationError(f"MADial {lang} dialogue {number}: gold {foreign} are not "
                                  f"among user {user}'s memories")
        queries.append(Query(id=f"d{number}", group=f"user-{user}",
                             text=madial_query_text(dlg["dialogue"], dlg["test-turn"]),
                             gold=frozenset(gold),
                             split=(Split.TUNE if number % 2 == 0 else Split.HOLDOUT).value))
    ds = Dataset(f"madial-{lang.value}", lang.value, str(root), docs, queries)
    users = sorted({d.group for d in docs})
    ds.notes.append(f"{len(queries)} dialogues, {len(docs)} memories of {len(users)} users "
                    f"({', '.join(f'{u}: {sum(d.group == u for d in docs)}' for u in users)})")
    if undated:
        ds.notes.append(f"{undated} memories have no parseable time (no valid_from)")
    return ds


def load_dataset(name: str, path: Path | None, lang: str | None = None) -> Dataset:
    """`name` is "locomo", "madial" (with `lang`) or "shapes" (memvault's own set,
    eval/shapes.py); `path` None means the default."""
    if name == "shapes":
        return load_shapes(path)
    if path is None:
        path = default_data_path()
        if path is None:
            raise ValidationError(f"no --data given and {DEFAULT_DATA} does not exist here")
    if name == "locomo":
        return load_locomo(path)
    if name == "madial":
        if lang is None:
            raise ValidationError("MADial: --lang zh or en is required")
        return load_madial(path, lang)
    raise ValidationError(f"unknown dataset {name!r} (locomo, madial or shapes)")

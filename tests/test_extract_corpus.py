"""A corpus of chat lines, Chinese and English, with the slot changes each must make (or
not make): standing wishes and changes of mind, one-offs, questions, what-ifs, other
people's wishes and habits, quotes, complaints, memory commands, and innocent lines that
hold the words the rules key on. tests/data/extract_corpus.tsv says how it was written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memvault.extract import CandidateMemory
from memvault.extract.rules import RuleExtractor

CORPUS = Path(__file__).parent / "data" / "extract_corpus.tsv"
ROWS = [tuple(line.split("\t", 1)) for line in CORPUS.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")]


def slot_changes(cands: list[CandidateMemory]) -> str:
    out = set()
    for c in cands:
        if c.slot is None:
            continue
        cmd = "[cmd]" if "command_like" in c.flags else ""
        if c.value is None:
            gone = c.replaces if isinstance(c.replaces, list) else [c.replaces]
            out.update(f"{c.slot}!={v}{cmd}" for v in gone)
        else:
            for v in c.value if isinstance(c.value, list) else [c.value]:
                shown = json.dumps(v, ensure_ascii=False, sort_keys=True) \
                    if isinstance(v, dict) else v
                out.add(f"{c.slot}={shown}{cmd}")
    return ";".join(sorted(out)) or "-"


def test_the_corpus_is_large_and_mixed() -> None:
    assert len(ROWS) >= 250
    assert sum(1 for want, _ in ROWS if want == "-") >= 100  # lines that must touch nothing
    assert sum(1 for _, line in ROWS if any("\u4e00" <= ch <= "\u9fff" for ch in line)) >= 100


@pytest.mark.parametrize(("want", "line"), ROWS, ids=[r[1][:40] for r in ROWS])
def test_corpus_line(want: str, line: str) -> None:
    assert slot_changes(RuleExtractor().extract([{"role": "user", "content": line}])) == want

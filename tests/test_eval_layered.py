"""`eval locomo --mode layered`: evidence in the context section, turn-only vs layered, on
a small LoCoMo-shaped file (real Vault, real embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_eval import cli, conv_caroline, conv_jon, write_locomo

from memvault import ValidationError
from memvault.eval.datasets import load_locomo
from memvault.eval.layered import run_context_eval


def test_both_modes_measure_evidence_in_context(tmp_path: Path) -> None:
    ds = load_locomo(write_locomo(tmp_path, [conv_caroline(), conv_jon()]))
    res = run_context_eval(ds, budget=300)
    turns, layered = res["modes"]["turns"], res["modes"]["layered"]
    for m in (turns, layered):
        assert m["questions"] == 6  # the adversarial question is left out of the means
        assert 0 <= m["strict_recall"] <= m["evidence_recall"] <= 1
        assert 0 < m["tokens_mean"] <= 300 and m["tokens_p95"] <= 300
    assert turns["memories"] == 10  # one per turn
    assert layered["memories"] > turns["memories"]  # + extracted, summaries, graph
    # A budget the whole tiny store fits in: both find every evidence turn.
    big = run_context_eval(ds, budget=4000)["modes"]
    assert big["turns"]["evidence_recall"] == big["layered"]["evidence_recall"] == 1.0
    assert res["conversations"] == ["conv-1", "conv-2"]
    one = run_context_eval(ds, budget=300, groups=1, modes=("turns",))
    assert list(one["modes"]) == ["turns"] and one["conversations"] == ["conv-1"]
    with pytest.raises(ValidationError):
        run_context_eval(ds, modes=("magic",))


def test_cli_layered_mode(tmp_path: Path) -> None:
    write_locomo(tmp_path, [conv_caroline()])
    out = tmp_path / "runs"
    proc = cli("eval", "locomo", "--data", str(tmp_path), "--mode", "layered", "--budget",
               "250", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "evidence recall" in proc.stdout and "layered" in proc.stdout
    snap = json.loads((out / "locomo-layered-all-b250.json").read_text(encoding="utf-8"))
    assert set(snap["modes"]) == {"turns", "layered"} and snap["budget"] == 250
    bad = cli("eval", "locomo", "--data", str(tmp_path), "--mode", "fancy")
    assert bad.returncode == 1 and "invalid_input" in bad.stderr

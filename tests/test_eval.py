"""`memvault eval`: metrics by hand, dataset quirks, splits, snapshots, compare, CLI.

Everything runs on tiny hand-made datasets written in the real schemas (LoCoMo's JSON,
MADial's JSON Lines); the real benchmarks are far too slow for a test.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memvault.config import Strategy
from memvault.errors import ValidationError
from memvault.eval import metrics as M
from memvault.eval.datasets import (
    default_data_path,
    load_dataset,
    load_locomo,
    load_madial,
    madial_query_text,
    normalise_evidence_ids,
    parse_locomo_date,
)
from memvault.eval.report import build_snapshot, compare, load_snapshot, write_snapshot
from memvault.eval.runner import DAY_MS, RunResult, group_times, run_eval

# --- tiny datasets ---------------------------------------------------------------------------

DATE_1 = "1:56 pm on 8 May, 2023"
DATE_2 = "10:04 am on 19 June, 2023"


def _session(n: int, turns: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"speaker": who, "dia_id": f"D{n}:{i}", "text": text}
            for i, (who, text) in enumerate(turns, start=1)]


def conv_caroline(sample_id: str = "conv-1") -> dict[str, Any]:
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Caroline", "speaker_b": "Melanie",
            "session_1_date_time": DATE_1,
            "session_1": _session(1, [
                ("Caroline", "Hey Mel! I went to an LGBTQ support group yesterday."),
                ("Melanie", "Lately I have been painting a lake sunrise."),
                ("Caroline", "I am researching adoption agencies for my future family."),
                ("Melanie", "I play the clarinet in a community band."),
            ]),
            "session_2_date_time": DATE_2,
            "session_2": _session(2, [
                ("Caroline", "I started pottery classes last week."),
                ("Melanie", "We went camping in the mountains with the kids."),
                ("Caroline", "My counseling course begins in September."),
            ]),
            # A date without a session, as conv-26 has: must not create anything.
            "session_3_date_time": "9:00 am on 1 July, 2023",
        },
        "qa": [
            {"question": "Which instrument, the clarinet or the flute, does Melanie play?",
             "answer": "clarinet", "evidence": ["D1:4"], "category": 4},
            {"question": "What did Caroline research, and which classes did she start?",
             "answer": "adoption agencies; pottery", "evidence": ["D1:3; D2:1"],
             "category": 1},
            {"question": "When does the counseling course begin?", "answer": "September",
             "evidence": ["D2:03"], "category": 2},
            {"question": "Where did Melanie go camping?", "answer": "mountains",
             "evidence": ["D:2:2"], "category": 3},
            {"question": "What sport does Caroline coach?", "adversarial_answer": "tennis",
             "evidence": ["D1:1"], "category": 5},
            {"question": "A question citing a bare D", "answer": "x", "evidence": ["D"],
             "category": 4},
            {"question": "A question citing a turn that does not exist", "answer": "x",
             "evidence": ["D9:9"], "category": 4},
        ],
    }


def conv_jon(sample_id: str = "conv-2") -> dict[str, Any]:
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Jon", "speaker_b": "Gina",
            "session_1_date_time": "3:00 pm on 2 January, 2023",
            "session_1": _session(1, [
                ("Jon", "I lost my job as a banker."),
                ("Gina", "I opened an online clothing store."),
                ("Jon", "I want to open a dance studio."),
            ]),
        },
        "qa": [
            {"question": "Why does Jon, the former banker, want a dance studio?",
             "answer": "lost job", "evidence": ["D1:3 D1:1"], "category": 1},
            {"question": "What did Gina open online?", "answer": "a clothing store",
             "evidence": ["D1:2"], "category": 4},
        ],
    }


def write_locomo(root: Path, samples: list[dict[str, Any]]) -> Path:
    (root / "locomo").mkdir(parents=True, exist_ok=True)
    path = root / "locomo" / "locomo10.json"
    path.write_text(json.dumps(samples), encoding="utf-8")
    return path


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")


ZH_MEMORIES = [
    {"1": {"time": "2023-12-25", "scene": "活动类", "emotion": "开心",
           "event": "Bart在圣诞节晚会上跳舞，感觉非常开心。", "user-id": 1, "id": "1"}},
    {"2": {"time": "2023-03-07", "scene": "活动类", "emotion": "自豪",
           "event": "Bart在学校的体育节上获得男子一百米第一名。", "user-id": 1, "id": "2"}},
    {"3": {"time": "2023-05-15", "scene": "喜好类", "emotion": "开心",
           "event": "Lisa在新开的冰淇淋店尝试了芒果口味的冰淇淋。", "user-id": 2, "id": "3"}},
    {"4": {"time": "2023-06-01", "scene": "学习类", "emotion": "自豪",
           "event": "Lisa的画在学校绘画比赛中得了奖。", "user-id": 2, "id": "4"}},
]


def _dialogue(user: int, lines: list[str], test_turn: list[int], gold: list[int],
              number: int | None) -> dict[str, Any]:
    d: dict[str, Any] = {"dialogue": ["<BOD>\n", *(f"{u}\n" for u in lines), "<EOD>\n"],
                         "test-turn": test_turn, "relevant-id": gold, "user-id": user}
    if number is not None:
        d["id"] = number
    return d


def zh_dialogues() -> list[dict[str, Any]]:
    return [
        _dialogue(1, ['<Bart>:"元旦晚会我要表演跳舞！"', '<Assistant>:"太棒了！"',
                      '<Bart>:"我有点紧张，想起了圣诞节晚会。"',
                      '<Assistant>:"你记得圣诞节晚会上你跳舞吗？"'], [4], [1], 0),
        _dialogue(1, ['<Bart>:"体育节又要到了，我想跑一百米。"',
                      '<Assistant>:"你去年得了第一名呢！"'], [2, 4], [2], 1),
        _dialogue(2, ['<Lisa>:"我想吃冰淇淋，芒果口味的。"', '<Assistant>:"好主意！"'],
                  [2], [3], 2),
        _dialogue(2, ['<Lisa>:"我又画了一幅画，想参加绘画比赛。"',
                      '<Assistant>:"你的画得过奖！"'], [2], [4, 3], 3),
    ]


EN_MEMORIES = [
    {"1": {"time": "2023-12-25", "scene": "Activity", "emotion": "Happy",
           "event": "Bart danced at the Christmas party and felt very happy."}},
    {"3": {"time": "2023-05-15", "scene": "Preferences", "emotion": "Happy",
           "event": "Lisa tried mango ice cream at the new ice cream shop."}},
]


def write_madial(root: Path) -> Path:
    base = root / "madial-bench"
    _jsonl(base / "zh" / "MADial-Bench-zh-memory.json", ZH_MEMORIES)
    _jsonl(base / "zh" / "MADial-Bench-zh-dialogue.json", zh_dialogues())
    _jsonl(base / "en" / "MADial-Bench-en-memory.json", EN_MEMORIES)
    _jsonl(base / "en" / "MADial-Bench-en-dialogue.json", [
        _dialogue(1, ['<Bart>: "I will dance at the New Year party!"'], [2], [1], None),
        _dialogue(2, ['<Lisa>: "I want mango ice cream."'], [2], [3], None),
    ])
    return base


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("datasets")
    write_locomo(root, [conv_caroline(), conv_jon()])
    write_madial(root)
    return root


@pytest.fixture(scope="module")
def locomo_run(data_root: Path) -> RunResult:
    return run_eval(load_locomo(data_root), "all")


# --- metrics, by hand ------------------------------------------------------------------------

RANKED = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]
GOLD = frozenset({"b", "e", "z"})  # "z" is never returned


def test_metrics_of_a_known_ranking() -> None:
    m = M.query_metrics(RANKED, GOLD)
    assert m["R@1"] == 0.0
    assert m["R@5"] == pytest.approx(2 / 3)
    assert m["R@10"] == pytest.approx(2 / 3)
    assert (m["hit@1"], m["hit@5"], m["hit@10"]) == (0.0, 1.0, 1.0)
    assert m["P@1"] == 0.0
    assert m["P@5"] == pytest.approx(2 / 5)
    assert m["P@10"] == pytest.approx(2 / 10)
    assert m["MRR"] == pytest.approx(1 / 2)
    dcg = 1 / math.log2(3) + 1 / math.log2(6)  # gold at ranks 2 and 5
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)  # three gold at ranks 1-3
    assert m["nDCG@10"] == pytest.approx(dcg / ideal)
    assert m["pool"] == pytest.approx(2 / 3)


def test_short_and_empty_rankings() -> None:
    short = M.query_metrics(["x"], frozenset({"x"}))
    # P@k divides by k, not by what was returned: a one-item list is not "precise at 5".
    assert short["P@5"] == pytest.approx(0.2) and short["P@10"] == pytest.approx(0.1)
    assert short["R@1"] == short["MRR"] == short["nDCG@10"] == 1.0
    empty = M.query_metrics([], frozenset({"x"}))
    assert all(v == 0.0 for v in empty.values())
    late = M.query_metrics([*"abcdefghijkl", "x"], frozenset({"x"}))
    assert late["R@10"] == 0.0 and late["nDCG@10"] == 0.0
    assert late["MRR"] == pytest.approx(1 / 13) and late["pool"] == 1.0


def test_metrics_refuse_bad_input() -> None:
    with pytest.raises(ValueError, match="gold"):
        M.query_metrics(["a"], frozenset())
    with pytest.raises(ValueError, match="repeat"):
        M.query_metrics(["a", "a"], frozenset({"a"}))


def test_summarise_means_per_split_and_category() -> None:
    def scored(split: str, cat: str, r1: float) -> M.Scored:
        m = dict.fromkeys(M.METRICS, 0.0) | {"R@1": r1}
        return M.Scored(split, cat, cat != "adversarial", m)

    rows = [scored("tune", "single-hop", 1.0), scored("tune", "multi-hop", 0.0),
            scored("holdout", "single-hop", 0.5), scored("tune", "adversarial", 1.0)]
    table = M.summarise(rows, ["tune", "holdout", "all"],
                        ["multi-hop", "single-hop", "adversarial"])
    # Adversarial gets its own row but stays out of "overall".
    assert table["tune"]["overall"]["n"] == 2 and table["tune"]["overall"]["R@1"] == 0.5
    assert table["tune"]["adversarial"]["R@1"] == 1.0
    assert table["all"]["overall"]["n"] == 3
    assert table["all"]["overall"]["R@1"] == pytest.approx(0.5)
    assert table["all"]["single-hop"]["R@1"] == pytest.approx(0.75)
    assert "multi-hop" not in table["holdout"]  # no queries: no row, not a NaN row


def test_score_samples_split_hits_from_misses() -> None:
    s = M.score_samples([M.Ranked([0.9, 0.5, 0.1], [True, False, True]),
                         M.Ranked([0.7, 0.6], [False, True]), M.Ranked([], [])], k=2)
    assert s["top1_hit"] == [0.9] and s["top1_miss"] == [0.7]
    assert sorted(s["gold_topk"]) == [0.6, 0.9]  # 0.1 is gold but outside the top 2
    assert sorted(s["nongold_topk"]) == [0.5, 0.7]


# --- datasets --------------------------------------------------------------------------------

@pytest.mark.parametrize(("raw", "expected"), [
    (["D8:6; D9:17"], ["D8:6", "D9:17"]),  # two ids in one string
    (["D:11:26"], ["D11:26"]),  # stray colon
    (["D30:05"], ["D30:5"]),  # zero padding
    (["D"], []),  # bare D
    (["D9:1 D4:4 D4:6"], ["D9:1", "D4:4", "D4:6"]),  # space-separated list (conv-49)
    (["D1:3", " D2:7 "], ["D1:3", "D2:7"]),
])
def test_evidence_id_normalisation(raw: list[str], expected: list[str]) -> None:
    assert normalise_evidence_ids(raw) == expected


def test_locomo_loader(data_root: Path) -> None:
    ds = load_locomo(data_root)  # the datasets folder; the file itself works too
    assert load_locomo(data_root / "locomo" / "locomo10.json").queries == ds.queries
    assert len(ds.docs) == 10 and ds.docs[0].content == (
        f"[{DATE_1}] Caroline: Hey Mel! I went to an LGBTQ support group yesterday.")
    d = next(d for d in ds.docs if d.id == "conv-1:D2:3")
    assert (d.group, d.session, d.kind) == ("conv-1", "session_2", "turn")
    assert d.valid_from == 1687169040000  # the session date, 2023-06-19T10:04Z
    assert d.metadata["dia_id"] == "D2:3"
    by_text = {q.text: q for q in ds.queries}
    assert by_text["What did Caroline research, and which classes did she start?"].gold == {
        "conv-1:D1:3", "conv-1:D2:1"}
    assert by_text["When does the counseling course begin?"].gold == {"conv-1:D2:3"}
    assert by_text["Where did Melanie go camping?"].gold == {"conv-1:D2:2"}
    assert by_text["Why does Jon, the former banker, want a dance studio?"].gold == {
        "conv-2:D1:3", "conv-2:D1:1"}
    assert by_text["What sport does Caroline coach?"].category == "adversarial"
    assert not by_text["What sport does Caroline coach?"].in_overall
    # Bare "D" and a turn that does not exist leave nothing to retrieve: skipped.
    assert len(ds.queries) == 7
    assert "2 questions without usable evidence skipped, 1 evidence ids" in ds.notes[0]


def test_locomo_dates_are_utc_epoch_ms() -> None:
    assert parse_locomo_date(DATE_1) == 1683554160000  # 2023-05-08T13:56Z
    assert parse_locomo_date("not a date") is None


def test_locomo_split_is_by_conversation(tmp_path: Path) -> None:
    samples = [conv_jon(f"conv-{n}") for n in range(1, 7)]
    ds = load_locomo(write_locomo(tmp_path, samples))
    assert {q.group for q in ds.queries if q.split == "tune"} == {f"conv-{n}" for n in
                                                                   range(1, 6)}
    assert {q.group for q in ds.queries if q.split == "holdout"} == {"conv-6"}
    held = ds.select("holdout")
    assert {d.group for d in held.docs} == {"conv-6"} and len(held.queries) == 2
    assert ds.select("all") is ds


def test_madial_loader_and_split(data_root: Path) -> None:
    ds = load_madial(data_root, "zh")
    assert [d.id for d in ds.docs] == ["1", "2", "3", "4"]
    assert ds.docs[2].group == "user-2" and ds.docs[2].kind == "episode"
    assert ds.docs[0].content == "活动类 开心 Bart在圣诞节晚会上跳舞，感觉非常开心。"
    assert ds.docs[0].valid_from == 1703462400000  # 2023-12-25T00:00Z
    assert [(q.id, q.split) for q in ds.queries] == [
        ("d0", "tune"), ("d1", "holdout"), ("d2", "tune"), ("d3", "holdout")]
    assert ds.queries[3].gold == {"4", "3"} and ds.queries[3].group == "user-2"
    # The earliest test turn cuts the context; <BOD> is dropped, speaker tags are kept.
    assert ds.queries[1].text == '<Bart>:"体育节又要到了，我想跑一百米。"'
    assert ds.queries[0].text.count("\n") == 2 and "<BOD>" not in ds.queries[0].text


def test_madial_english_owners_come_from_the_chinese_file(data_root: Path) -> None:
    ds = load_madial(data_root / "madial-bench", "en")
    assert {d.id: d.group for d in ds.docs} == {"1": "user-1", "3": "user-2"}
    # No "id" field in the English dialogues: the line number is the dialogue number.
    assert [(q.id, q.split) for q in ds.queries] == [("d0", "tune"), ("d1", "holdout")]


def test_madial_gold_of_another_user_is_refused(tmp_path: Path) -> None:
    write_madial(tmp_path)
    bad = zh_dialogues()
    bad[2]["relevant-id"] = [1]  # user 1's memory in a dialogue of user 2
    _jsonl(tmp_path / "madial-bench" / "zh" / "MADial-Bench-zh-dialogue.json", bad)
    with pytest.raises(ValidationError, match="not among user 2"):
        load_madial(tmp_path, "zh")


def test_madial_query_text_uses_the_earliest_test_turn() -> None:
    dialogue = ["<BOD>\n", "a\n", "b\n", "c\n", "<EOD>\n"]
    assert madial_query_text(dialogue, [3, 2]) == "a"
    assert madial_query_text(dialogue, [4]) == "a\nb\nc"


def test_default_data_path_is_relative_to_cwd(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "proj").mkdir()
    monkeypatch.chdir(tmp_path / "proj")
    assert default_data_path() is None
    with pytest.raises(ValidationError, match="no --data"):
        load_dataset("locomo", None)
    write_locomo(tmp_path / "shared" / "datasets", [conv_jon()])
    assert default_data_path() is not None
    assert len(load_dataset("locomo", None).queries) == 2


# --- runner ----------------------------------------------------------------------------------

def test_group_time_is_the_midnight_after_the_last_memory(data_root: Path) -> None:
    times = group_times(load_locomo(data_root).docs)
    assert times["conv-1"] == (parse_locomo_date(DATE_2) // DAY_MS + 1) * DAY_MS
    assert times["conv-1"] - parse_locomo_date(DATE_2) < DAY_MS  # type: ignore[operator]


def test_run_ranks_each_conversations_own_turns(locomo_run: RunResult) -> None:
    assert locomo_run.n_memories == 10 and locomo_run.duplicates == 0
    assert len(locomo_run.results) == 7
    for r in locomo_run.results:
        # Scoped per conversation: no turn of the other conversation is ever returned.
        assert all(d.startswith(r.query.group + ":") for d in r.ranked)
        # Only a question nothing in the conversation answers may get no hit at all (the
        # relevance floor).
        assert r.ranked or r.query.category == "adversarial"
        assert r.scores == sorted(r.scores, reverse=True)
    easy = {r.query.text: r for r in locomo_run.results}
    # A word only the gold turn has puts it first: checks the hit -> turn id mapping.
    assert easy["Which instrument, the clarinet or the flute, does Melanie play?"].ranked[0] \
        == "conv-1:D1:4"
    assert easy["What did Gina open online?"].ranked[0] == "conv-2:D1:2"


def test_identical_texts_become_one_memory(tmp_path: Path) -> None:
    conv = conv_jon()
    turns = conv["conversation"]["session_1"]
    turns.append({"speaker": "Jon", "dia_id": "D1:4", "text": turns[0]["text"]})
    conv["qa"] = [{"question": "What was Jon's job as a banker?", "answer": "banker",
                   "evidence": ["D1:4"], "category": 4}]
    run = run_eval(load_locomo(write_locomo(tmp_path, [conv])))
    assert run.n_memories == 3 and run.duplicates == 1
    # Gold D1:4 is the same memory as D1:1, so a hit on it counts.
    assert run.results[0].gold == {"conv-2:D1:1"}
    assert run.results[0].ranked[0] == "conv-2:D1:1"


# --- snapshot, histogram, compare ------------------------------------------------------------

REQUIRED = ("dataset", "split", "metrics", "strategy", "strategy_hash", "embedding_model",
            "memvault_version", "created_at", "n_queries", "wall_time_s")


def test_snapshot_has_the_required_fields(locomo_run: RunResult, tmp_path: Path) -> None:
    snap = build_snapshot(locomo_run)
    assert all(k in snap for k in REQUIRED)
    assert (snap["dataset"], snap["split"], snap["n_queries"]) == ("locomo", "all", 7)
    assert snap["embedding_model"] == "use-m3"
    config = snap["strategy"]["config"]
    weights = config["retrieval"]["weights"]
    assert isinstance(weights, dict) and "text" in weights and "dense" in weights
    # The hash is the strategy's own: the same config always gives the same hash.
    assert snap["strategy_hash"] == Strategy.model_validate(config).hash
    # All conversations here are tune (1-5): holdout is empty and left out.
    assert set(snap["metrics"]) == {"tune", "all"}
    cats = snap["metrics"]["all"]
    assert set(cats) == {"overall", "multi-hop", "temporal", "open-domain", "single-hop",
                         "adversarial"}
    assert cats["overall"]["n"] == 6 and cats["adversarial"]["n"] == 1
    assert all(0.0 <= cats["overall"][k] <= 1.0 for k in M.METRICS)
    dist = snap["score_distribution"]
    assert sum(dist["counts"]["top1_hit"]) + sum(dist["counts"]["top1_miss"]) == 6
    assert len(dist["bin_edges"]) == len(dist["counts"]["gold_topk"]) + 1

    path, png = write_snapshot(snap, tmp_path)
    saved = load_snapshot(path)
    assert saved["metrics"] == json.loads(json.dumps(snap["metrics"]))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert png is None and "note" in saved["score_distribution"]
    else:
        assert png is not None and png.parent == path.parent
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert saved["score_distribution"]["png"] == png.name


def test_without_matplotlib_the_histogram_goes_into_the_json(
        locomo_run: RunResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import now raises ImportError
    path, png = write_snapshot(build_snapshot(locomo_run), tmp_path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert png is None and not list(tmp_path.glob("*.png"))
    assert saved["score_distribution"]["png"] is None
    assert "matplotlib is not installed" in saved["score_distribution"]["note"]
    assert sum(saved["score_distribution"]["counts"]["gold_topk"]) > 0


def test_compare_reports_b_minus_a(locomo_run: RunResult) -> None:
    a = build_snapshot(locomo_run)
    b = json.loads(json.dumps(a))
    b["metrics"]["all"]["overall"]["R@5"] = a["metrics"]["all"]["overall"]["R@5"] - 0.25
    b["strategy_hash"] = "other"
    del b["metrics"]["tune"]
    cmp = compare(a, b)
    row = next(r for r in cmp["rows"] if (r["split"], r["category"]) == ("all", "overall"))
    assert row["diff"]["R@5"] == pytest.approx(-0.25)
    assert row["diff"]["MRR"] == 0.0
    assert "split tune only in A" in cmp["warnings"]
    assert any(w.startswith("strategy_hash:") for w in cmp["warnings"])


# --- CLI -------------------------------------------------------------------------------------

def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "memvault.cli", *args], capture_output=True,
                          text=True, env=env, timeout=300, cwd=cwd)


def test_cli_eval_locomo_and_compare(data_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    proc = cli("eval", "locomo", "--data", str(data_root), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "multi-hop" in proc.stdout and "adversarial" in proc.stdout
    assert "nDCG@10" in proc.stdout and "snapshot" in proc.stderr
    (snap_path,) = out.glob("locomo-all-*.json")
    snap = json.loads(snap_path.read_text(encoding="utf-8"))
    assert snap["n_queries"] == 7

    changed = dict(snap, metrics=json.loads(json.dumps(snap["metrics"])))
    changed["metrics"]["all"]["overall"]["MRR"] -= 0.125
    other = tmp_path / "b.json"
    other.write_text(json.dumps(changed), encoding="utf-8")
    shown = cli("eval", "compare", str(snap_path), str(other))
    assert shown.returncode == 0, shown.stderr
    assert "-0.125" in shown.stdout
    as_json = json.loads(cli("--json", "eval", "compare", str(snap_path), str(other)).stdout)
    row = next(r for r in as_json["rows"] if (r["split"], r["category"]) == ("all", "overall"))
    assert row["diff"]["MRR"] == pytest.approx(-0.125)


def test_cli_eval_madial_split_with_a_strategy(data_root: Path, tmp_path: Path) -> None:
    config = tmp_path / "strategy.yaml"
    config.write_text("retrieval:\n  weights:\n    text: 0.9\n", encoding="utf-8")
    proc = cli("--json", "--config", str(config), "eval", "madial", "--lang", "zh",
               "--data", str(data_root), "--split", "holdout", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    snap = json.loads(proc.stdout)
    assert (snap["dataset"], snap["split"], snap["n_queries"]) == ("madial-zh", "holdout", 2)
    assert set(snap["metrics"]) == {"holdout"}
    # the --config strategy was measured
    assert snap["strategy"]["config"]["retrieval"]["weights"]["text"] == 0.9
    assert list(tmp_path.glob("madial-zh-holdout-*.json"))


def test_cli_eval_errors_exit_non_zero(tmp_path: Path) -> None:
    missing = cli("eval", "locomo", "--data", str(tmp_path), "--out", str(tmp_path / "o"))
    assert missing.returncode == 1 and "no locomo10.json" in missing.stderr
    bad_split = cli("eval", "locomo", "--data", str(tmp_path), "--split", "half")
    assert bad_split.returncode != 0
    not_snapshot = tmp_path / "x.json"
    not_snapshot.write_text("{}", encoding="utf-8")
    cmp = cli("eval", "compare", str(not_snapshot), str(not_snapshot))
    assert cmp.returncode == 1 and "not a memvault eval snapshot" in cmp.stderr

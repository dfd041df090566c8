"""TimeBlind's loader and task functions (``benchmarks/timeblind/tasks.py``): docs from the fixture, every bad row
named, and the metrics against the official scorer transcription in both readings."""

from __future__ import annotations

import itertools
import random
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.data.sources import DataError
from temporal_tasks.scoring.aggregations import functions
from tests.helpers.benchmarks.timeblind import (
    TRICKY,
    data_rows,
    official_get_scores,
    official_labels,
    official_predictions,
    official_scores_of_predictions,
    rewrite_data_rows,
)

timeblind_agg = SimpleNamespace(**functions("timeblind"))


# ----------------------------------------------------------------------------- loader


def test_loader_builds_docs(offline_env):
    docs = timeblind.load_docs()
    assert len(docs) == 16
    assert [d["question_id"] for d in docs] == [str(i) for i in range(16)]
    first = docs[0]
    assert first["prompt"].endswith("? Please output Yes or No.")
    assert docs[8]["prompt"].endswith("moves down. Please output A or B.") is False  # q0 of instance 2 is 'appears'
    assert docs[8]["prompt"].endswith(" Please output A or B.")
    assert [d["gold"] for d in docs[:8]] == ["yes", "no", "no", "yes"] * 2
    assert [d["gold"] for d in docs[8:]] == ["A", "B", "B", "A"] * 2
    assert first["videos"][0].endswith("timeblind/videos/vid_00000_0.mp4") and Path(first["videos"][0]).is_file()
    assert docs[1]["videos"][0].endswith("vid_00000_1.mp4")
    assert "Direction" in first["categories"] and "yes_no" in first["categories"]
    assert {d["group_id"] for d in docs} == {f"timeblind/{k}" for k in range(4)}


@pytest.fixture
def broken_copy(fixture_root, tmp_path, monkeypatch):
    """A private copy of the TimeBlind fixture that a test may damage."""
    shutil.copytree(fixture_root / "timeblind", tmp_path / "timeblind")
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(tmp_path))
    return tmp_path / "timeblind"


def test_missing_video_names_the_file(broken_copy):
    (broken_copy / "videos" / "mcq_vid_00001_1.mp4").unlink()
    with pytest.raises(DataError, match=r"missing:\n.*mcq_vid_00001_1\.mp4"):
        timeblind.load_docs()


def test_empty_video_is_reported(broken_copy):
    (broken_copy / "videos" / "vid_00001_0.mp4").write_bytes(b"")
    with pytest.raises(DataError, match=r"(?s)empty \(0 bytes\).*vid_00001_0\.mp4"):
        timeblind.load_docs()


def test_missing_annotation(broken_copy):
    (broken_copy / "data.jsonl").unlink()
    with pytest.raises(DataError, match=r"missing .*timeblind/data\.jsonl.*BaiqiL/TimeBlind"):
        timeblind.load_docs()


def test_missing_field(broken_copy):
    rewrite_data_rows(broken_copy, lambda rows: [{k: v for k, v in r.items() if k != "type"} for r in rows])
    with pytest.raises(DataError, match=r"data\.jsonl row 1: missing field\(s\) \['type'\]"):
        timeblind.load_docs()


def _swap_answers(rows):
    rows[1]["answer"], rows[2]["answer"] = "yes", "yes"
    return rows


def test_gold_disagreeing_with_answer_warns_and_scores_positionally(broken_copy, monkeypatch, warnings_seen):
    monkeypatch.delenv("TEMPORAL_TASKS_STRICT", raising=False)
    rewrite_data_rows(broken_copy, _swap_answers)
    docs = timeblind.load_docs()
    assert len(docs) == 16
    assert [d["gold"] for d in docs[:4]] == ["yes", "no", "no", "yes"]  # the position wins, as officially
    text = "".join(warnings_seen)
    assert re.search(r"(?s)disagrees with the positional gold.*2 row\(s\).*index 1 .*index 2 ", text), text
    assert "TEMPORAL_TASKS_STRICT=1" in text
    timeblind.load_docs()  # a second load does not repeat the warning
    assert "".join(warnings_seen).count("disagrees with the positional gold") == 1


def test_gold_disagreeing_with_answer_stops_when_strict(broken_copy, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_STRICT", "1")
    rewrite_data_rows(broken_copy, _swap_answers)
    with pytest.raises(DataError, match=r"(?s)disagrees with the positional gold.*2 row\(s\).*index 1 .*index 2 "):
        timeblind.load_docs()


def test_mixed_types_still_stop(broken_copy):
    def mix(rows):
        rows[1]["type"], rows[1]["answer"] = "multiple_choice", "B"
        return rows

    rewrite_data_rows(broken_copy, mix)
    with pytest.raises(DataError, match=r"instance 0 mixes question types"):
        timeblind.load_docs()


def test_duplicate_index(broken_copy):
    rewrite_data_rows(broken_copy, lambda rows: [*rows, rows[3]])
    with pytest.raises(DataError, match=r"duplicate question ids \['3'\]"):
        timeblind.load_docs()


def test_incomplete_instance_in_data(broken_copy):
    rewrite_data_rows(broken_copy, lambda rows: rows[:-1])
    with pytest.raises(DataError, match=r"instance 3 has trials \[0, 1, 2\]"):
        timeblind.load_docs()


def test_bad_json_line(broken_copy):
    with open(broken_copy / "data.jsonl", "a") as fh:
        fh.write("{not json\n")
    with pytest.raises(DataError, match=r"data\.jsonl:17: not valid JSON"):
        timeblind.load_docs()


def test_data_dir_without_benchmark(tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(tmp_path))
    with pytest.raises(DataError, match=r"timeblind.*does not exist.*temporal-tasks fixtures"):
        timeblind.load_docs()


def test_tags_are_optional(broken_copy):
    (broken_copy / "tags.json").unlink()
    docs = timeblind.load_docs()
    assert docs[0]["categories"] == ["yes_no"]


# ----------------------------------------------------------------------------- aggregation in-process


@pytest.mark.parametrize("mode", ["robust", "official"])
def test_aggregations_match_official_rule(offline_env, monkeypatch, mode):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    docs = timeblind.load_docs()
    items = [timeblind.process_results(d, [TRICKY[d["question_id"]]])["instance_acc"] for d in docs]
    random.Random(3).shuffle(items)  # lmms-eval hands payloads in rank order, not doc order
    expected = official_get_scores(official_labels(data_rows(offline_env), TRICKY, mode))
    for metric, value in expected.items():
        assert getattr(timeblind_agg, metric)(items) == pytest.approx(value), metric


# ----------------------------------------------------------------------------- every answer kind in every position

KINDS = ("right", "wrong", "empty", "blank", "garbage", "null", "article")


def _answer_of(kind: str, gold: str) -> str | None:
    spoken = {"yes": "Yes", "no": "No"}.get(gold, gold)
    other = {"yes": "No", "no": "Yes", "A": "B", "B": "A"}[gold]
    return {"right": spoken, "wrong": other, "empty": "", "blank": " \n ", "garbage": "maybe later",
            "null": None, "article": "I would say a"}[kind]  # fmt: skip


def _ours_and_official(offline_env, patterns: list[tuple[str, ...]], drop: frozenset[int] = frozenset()):
    """Our official reading and the official build_answers + get_scores of instance i answered with kinds
    ``patterns[i]`` (one per position q0_v0, q0_v1, q1_v0, q1_v1); rows in ``drop`` have no answer."""
    docs = timeblind.load_docs()
    rows = data_rows(offline_env)
    outputs = {}
    for d in docs:
        index = int(d["index"])
        outputs[index] = _answer_of(patterns[index // 4][index % 4], d["gold"])
    items = [
        timeblind.process_results(d, [] if int(d["index"]) in drop else [outputs[int(d["index"])]])["instance_acc"]
        for d in docs
    ]
    random.Random(len(patterns)).shuffle(items)
    ours = {m: getattr(timeblind_agg, m)(items) for m in ("trial_acc", "question_acc", "video_acc", "instance_acc")}
    kept = {i: v for i, v in outputs.items() if i not in drop}
    return ours, official_scores_of_predictions(official_predictions(rows, kept), rows)


def test_every_answer_kind_in_every_position_matches_the_transcription(offline_env, monkeypatch):
    """Empty, blank, null, unreadable and free-form answers in every position of an instance, every combination:
    the official reading equals build_answers + get_scores (extract_answer transcribed on its own)."""
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    patterns = list(itertools.product(KINDS, repeat=4))
    random.Random(50).shuffle(patterns)
    instances = len(timeblind.load_docs()) // 4
    for start in range(0, len(patterns), instances):
        chunk = patterns[start : start + instances]
        chunk += [("right",) * 4] * (instances - len(chunk))
        ours, official = _ours_and_official(offline_env, chunk)
        for metric, value in official.items():
            assert ours[metric] == pytest.approx(value), (chunk, metric)


def test_a_missing_answer_makes_the_instance_all_wrong_as_build_answers(offline_env, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    ours, official = _ours_and_official(offline_env, [("right",) * 4] * 4, drop=frozenset({0}))
    assert official["trial_acc"] == 75.0  # instance 0 all -1: 0 of its 4 trials
    assert ours == pytest.approx(official)


def test_missing_answers_in_every_position_match_build_answers(offline_env, monkeypatch):
    """Every set of missing trials of an instance (none to all four), the others answered with every kind: an
    instance with one missing is all -1 and counted; one with all four missing is not in N."""
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "official")
    instances = len(timeblind.load_docs()) // 4
    rng = random.Random(51)
    cases = [(mask, tuple(rng.choice(KINDS) for _ in range(4)))
             for mask in itertools.product((False, True), repeat=4) for _ in range(3)]  # fmt: skip
    rng.shuffle(cases)
    cases.append(((True,) * 4, ("right",) * 4))
    for start in range(0, len(cases), instances):
        chunk = cases[start : start + instances]
        chunk += [((False,) * 4, ("right",) * 4)] * (instances - len(chunk))
        if all(all(mask) for mask, _kinds in chunk):
            continue  # nothing answered: the official get_scores divides by zero
        drop = frozenset(4 * i + r for i, (mask, _k) in enumerate(chunk) for r in range(4) if mask[r])
        ours, official = _ours_and_official(offline_env, [kinds for _mask, kinds in chunk], drop)
        for metric, value in official.items():
            assert ours[metric] == pytest.approx(value), (chunk, metric)


def test_robust_reading_reads_a_missing_answer_as_an_empty_one(offline_env, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", "robust")
    answered = [("right", "right", "right", "wrong"), ("right",) * 4, ("right",) * 4, ("wrong",) * 4]
    missing, _ = _ours_and_official(offline_env, answered, frozenset({1, 8, 9, 10, 11}))
    patterns = [("right", "empty", "right", "wrong"), ("right",) * 4, ("empty",) * 4, ("wrong",) * 4]
    empty, _ = _ours_and_official(offline_env, patterns)
    assert missing == empty and missing["trial_acc"] == 37.5  # 2 + 4 + 0 + 0 of 16 trials

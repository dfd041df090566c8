"""TimeBlind: loader validation, metrics, and the real lmms-eval CLI against the official scorer rule."""

from __future__ import annotations

import json
import random
import re
import shutil
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

from temporal_tasks.answers.parsing import get_parser
from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.data.sources import DataError
from temporal_tasks.scoring.aggregations import functions

timeblind_agg = SimpleNamespace(**functions("timeblind"))

# ----------------------------------------------------------------------------- official oracle


def official_get_scores(labels: dict[int, int]) -> dict[str, float]:
    """Independent transcription of TimeBlind's official ``build_answers`` + ``get_scores``.

    ``labels`` maps row index -> 1 (yes/A), 0 (no/B) or -1 (unreadable). Gold is positional
    (1,0,0,1); an incomplete group is all -1 and still counts in N. Returned as percentages.
    """
    groups: dict[int, dict[int, int]] = defaultdict(dict)
    for index, value in labels.items():
        groups[index // 4][index % 4] = value
    n = len(groups)
    q = v = b = i = 0
    for g in groups.values():
        if len(g) != 4:
            g = {0: -1, 1: -1, 2: -1, 3: -1}
        q0i0, q0i1, q1i0, q1i1 = g[0], g[1], g[2], g[3]
        video = (q0i0 == 1 and q1i0 == 0) + (q1i1 == 1 and q0i1 == 0)
        question = (q0i0 == 1 and q0i1 == 0) + (q1i1 == 1 and q1i0 == 0)
        v += video
        q += question
        b += (q0i0 == 1) + (q0i1 == 0) + (q1i0 == 0) + (q1i1 == 1)
        i += question == 2 and video == 2
    return {
        "trial_acc": 100 * b / (4 * n),
        "question_acc": 100 * q / (2 * n),
        "video_acc": 100 * v / (2 * n),
        "instance_acc": 100 * i / n,
    }


def official_labels(rows: list[dict], answers: dict[str, str], mode: str) -> dict[int, int]:
    """Parse each answer as the given mode would, mapped to the official 1/0/-1 convention."""
    out = {}
    for row in rows:
        kind = "timeblind_yes_no" if row["type"] == "yes_no" else "timeblind_mc"
        label = get_parser(kind).parse(answers.get(str(row["index"]), ""), mode)
        out[row["index"]] = {"yes": 1, "A": 1, "no": 0, "B": 0}.get(label, -1)
    return out


# Fixture: instances 0,1 yes/no (gold yes,no,no,yes), 2,3 MC (gold A,B,B,A).
CLEAN = {
    "0": "Yes", "1": "No.", "2": "no", "3": "yes",  # instance 0 all right
    "4": "Yes", "5": "Yes", "6": "No", "7": "Yes",  # instance 1: trial q0_v1 wrong
    "8": "A", "9": "(B)", "10": "The answer is B.", "11": "",  # instance 2: q1_v1 empty
    "12": "B", "13": "A", "14": "A", "15": "B",  # instance 3 all wrong
}  # fmt: skip
# By hand: trials 4+3+3+0 = 10/16; question units 2+1+1+0 = 4/8; video units 2+1+1+0 = 4/8;
# instances 1/4; invalid 1/16. Categories (fixture tags.json): direction = instances {0,3} -> 1/2, ...
CLEAN_EXPECTED = {
    "trial_acc": 62.5, "question_acc": 50.0, "video_acc": 50.0, "instance_acc": 25.0, "invalid_rate": 6.25,
    "instance_acc_direction": 50.0, "instance_acc_event_attribute": 50.0, "instance_acc_state_transition": 0.0,
    "instance_acc_event": 0.0, "instance_acc_temporal_relation": 0.0, "instance_acc_structural_event_logic": 0.0,
    "instance_acc_yes_no": 50.0, "instance_acc_multiple_choice": 0.0,
}  # fmt: skip

# Answers on which the two modes disagree (each noted with both readings).
TRICKY = dict(
    CLEAN,
    **{
        "0": "There is no doubt, so yes",  # official: first word "no" -> wrong; robust: "no doubt" is no answer -> yes
        "8": "<think>Option B is wrong</think> A",  # official: 'Option B' -> wrong; robust: A -> right
        "12": "I would say a",  # official: article 'a' -> A -> right; robust: invalid
        "13": "<|begin_of_box|>B<|end_of_box|>",  # both: B -> right
    },
)


def _rows(root: Path) -> list[dict]:
    return [json.loads(x) for x in (root / "timeblind" / "data.jsonl").read_text().splitlines()]


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


def _rewrite(root: Path, edit) -> None:
    rows = [json.loads(x) for x in (root / "data.jsonl").read_text().splitlines()]
    rows = edit(rows)
    (root / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


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
    _rewrite(broken_copy, lambda rows: [{k: v for k, v in r.items() if k != "type"} for r in rows])
    with pytest.raises(DataError, match=r"data\.jsonl row 1: missing field\(s\) \['type'\]"):
        timeblind.load_docs()


def _swap_answers(rows):
    rows[1]["answer"], rows[2]["answer"] = "yes", "yes"
    return rows


def test_gold_disagreeing_with_answer_warns_and_scores_positionally(broken_copy, monkeypatch, warnings_seen):
    monkeypatch.delenv("TEMPORAL_TASKS_STRICT", raising=False)
    _rewrite(broken_copy, _swap_answers)
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
    _rewrite(broken_copy, _swap_answers)
    with pytest.raises(DataError, match=r"(?s)disagrees with the positional gold.*2 row\(s\).*index 1 .*index 2 "):
        timeblind.load_docs()


def test_mixed_types_still_stop(broken_copy):
    def mix(rows):
        rows[1]["type"], rows[1]["answer"] = "multiple_choice", "B"
        return rows

    _rewrite(broken_copy, mix)
    with pytest.raises(DataError, match=r"instance 0 mixes question types"):
        timeblind.load_docs()


def test_duplicate_index(broken_copy):
    _rewrite(broken_copy, lambda rows: [*rows, rows[3]])
    with pytest.raises(DataError, match=r"duplicate question ids \['3'\]"):
        timeblind.load_docs()


def test_incomplete_instance_in_data(broken_copy):
    _rewrite(broken_copy, lambda rows: rows[:-1])
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
    expected = official_get_scores(official_labels(_rows(offline_env), TRICKY, mode))
    for metric, value in expected.items():
        assert getattr(timeblind_agg, metric)(items) == pytest.approx(value), metric


# ----------------------------------------------------------------------------- real CLI


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["robust", "official"])
def test_cli_replay_equals_official_scorer(shared_lmms_eval, fixture_root, mode):
    run = shared_lmms_eval("timeblind_iacc", responses=TRICKY, env={"TEMPORAL_TASKS_PARSER": mode})
    got = run.metrics("timeblind_iacc")
    expected = official_get_scores(official_labels(_rows(fixture_root), TRICKY, mode))
    for metric, value in expected.items():
        assert got[metric] == pytest.approx(value), metric
    assert f"answer parser mode = {mode}" in run.output
    sample = run.samples["timeblind_iacc"][0]["instance_acc"]
    assert {"question_id", "group_id", "role", "answer", "gold", "pred", "parser_mode"} <= set(sample)


@pytest.mark.slow
def test_cli_clean_answers_hand_computed(lmms_eval):
    run = lmms_eval("timeblind_iacc", responses=CLEAN, env={"TEMPORAL_TASKS_PARSER": "official"})
    got = run.metrics("timeblind_iacc")
    for metric, value in CLEAN_EXPECTED.items():
        assert got[metric] == pytest.approx(value), metric
    for metric in ("trial_acc", "question_acc", "video_acc", "instance_acc"):
        assert got[f"{metric}_ci_low"] <= got[metric] <= got[f"{metric}_ci_high"], metric
    # the official scorer agrees on these answers too
    assert official_get_scores(official_labels(_rows_from_samples(run), CLEAN, "official"))["instance_acc"] == 25.0


def _rows_from_samples(run) -> list[dict]:
    return [
        {"index": int(s["instance_acc"]["question_id"]), "type": "yes_no" if s["target"] in ("yes", "no") else "mc"}
        for s in run.samples["timeblind_iacc"]
    ]


@pytest.mark.slow
def test_cli_flipped_answer_runs_and_equals_official_scorer(lmms_eval, fixture_root, tmp_path):
    # One row's `answer` disagrees with its position (as with a real instance whose two questions
    # are identical): the official scorer never reads it, so neither do we; the run ends with exit 0.
    shutil.copytree(fixture_root / "timeblind", tmp_path / "data" / "timeblind")

    def flip(rows):
        rows[6]["answer"] = "yes"  # position 6 % 4 = 2 (q1_v0): gold 'no'
        return rows

    _rewrite(tmp_path / "data" / "timeblind", flip)
    run = lmms_eval("timeblind_iacc", responses=CLEAN, data_dir=tmp_path / "data",
                    env={"TEMPORAL_TASKS_PARSER": "official", "TEMPORAL_TASKS_STRICT": "0"})  # fmt: skip
    assert run.returncode == 0
    got = run.metrics("timeblind_iacc")
    rows = _rows(tmp_path / "data")
    expected = official_get_scores(official_labels(rows, CLEAN, "official"))
    for metric, value in expected.items():
        assert got[metric] == pytest.approx(value), metric
    assert got["instance_acc"] == CLEAN_EXPECTED["instance_acc"]  # the flipped field changes nothing
    assert "disagrees with the positional gold" in run.output and "index 6 (yes_no, trial q1_v0)" in run.output


@pytest.mark.slow
def test_cli_limit_scores_complete_instances_only(lmms_eval):
    # --limit 6 evaluates rows 0-5: instance 0 is complete (all right), instance 1 is cut.
    run = lmms_eval("timeblind_iacc", responses=CLEAN, args=["--limit", "6"])
    got = run.metrics("timeblind_iacc")
    assert got["instance_acc"] == 100.0 and got["trial_acc"] == 100.0
    assert "scored 1 complete groups; left out 1 incomplete group" in run.output


@pytest.mark.slow
def test_cli_missing_answers_and_missing_video(lmms_eval, fixture_root, tmp_path):
    shutil.copytree(fixture_root / "timeblind", tmp_path / "data" / "timeblind")
    (tmp_path / "data" / "timeblind" / "videos" / "vid_00001_1.mp4").unlink()
    run = lmms_eval("timeblind_iacc", responses={"0": "yes"}, data_dir=tmp_path / "data", expect_ok=False)
    assert run.returncode != 0
    assert "vid_00001_1.mp4" in run.output and "Model Responding" not in run.output


@pytest.mark.slow
def test_cli_dummy_model_decodes_every_video(lmms_eval):
    # The official smoke test: "Yes" everywhere gives Acc 25 (yes/no rows half right, MC rows invalid).
    run = lmms_eval("timeblind_iacc", model="dummy", model_args="response=Yes,decode_num_frames=4")
    got = run.metrics("timeblind_iacc")
    assert (got["trial_acc"], got["question_acc"], got["video_acc"], got["instance_acc"]) == (25.0, 0.0, 0.0, 0.0)
    assert got["invalid_rate"] == 50.0
    assert "resolved: 16 | local: 16 | remote: 0 | missing: 0" in run.output

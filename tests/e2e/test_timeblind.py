"""TimeBlind through the real lmms-eval CLI against the official scorer transcription: both readings, by hand,
a flipped answer field, ``--limit``, missing answers and videos, the dummy model, and thinking cut off."""

from __future__ import annotations

import shutil

import pytest

from tests.helpers.benchmarks.timeblind import (
    CLEAN,
    CLEAN_EXPECTED,
    TRICKY,
    data_rows,
    official_get_scores,
    official_labels,
    rewrite_data_rows,
)

# ----------------------------------------------------------------------------- real CLI


@pytest.mark.parametrize("mode", ["robust", "official"])
def test_cli_replay_equals_official_scorer(shared_lmms_eval, fixture_root, mode):
    run = shared_lmms_eval("timeblind_iacc", responses=TRICKY, env={"TEMPORAL_TASKS_PARSER": mode})
    got = run.metrics("timeblind_iacc")
    expected = official_get_scores(official_labels(data_rows(fixture_root), TRICKY, mode))
    for metric, value in expected.items():
        assert got[metric] == pytest.approx(value), metric
    assert f"answer reading = {mode}" in run.output
    sample = run.samples["timeblind_iacc"][0]["instance_acc"]
    assert {"question_id", "group_id", "role", "answer", "gold", "pred", "parser_mode"} <= set(sample)


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


def test_cli_flipped_answer_runs_and_equals_official_scorer(lmms_eval, fixture_root, tmp_path):
    # One row's `answer` disagrees with its position (as with a real instance whose two questions
    # are identical): the official scorer never reads it, so neither do we; the run ends with exit 0.
    shutil.copytree(fixture_root / "timeblind", tmp_path / "data" / "timeblind")

    def flip(rows):
        rows[6]["answer"] = "yes"  # position 6 % 4 = 2 (q1_v0): gold 'no'
        return rows

    rewrite_data_rows(tmp_path / "data" / "timeblind", flip)
    run = lmms_eval("timeblind_iacc", responses=CLEAN, data_dir=tmp_path / "data",
                    env={"TEMPORAL_TASKS_PARSER": "official", "TEMPORAL_TASKS_STRICT": "0"})  # fmt: skip
    assert run.returncode == 0
    got = run.metrics("timeblind_iacc")
    rows = data_rows(tmp_path / "data")
    expected = official_get_scores(official_labels(rows, CLEAN, "official"))
    for metric, value in expected.items():
        assert got[metric] == pytest.approx(value), metric
    assert got["instance_acc"] == CLEAN_EXPECTED["instance_acc"]  # the flipped field changes nothing
    assert "disagrees with the positional gold" in run.output and "index 6 (yes_no, trial q1_v0)" in run.output


def test_cli_limit_scores_complete_instances_only(lmms_eval):
    # --limit 6 evaluates rows 0-5: instance 0 is complete (all right), instance 1 is cut.
    run = lmms_eval("timeblind_iacc", responses=CLEAN, args=["--limit", "6"])
    got = run.metrics("timeblind_iacc")
    assert got["instance_acc"] == 100.0 and got["trial_acc"] == 100.0
    assert "scored 1 complete groups; left out 1 incomplete group" in run.output


def test_cli_missing_answers_and_missing_video(lmms_eval, fixture_root, tmp_path):
    shutil.copytree(fixture_root / "timeblind", tmp_path / "data" / "timeblind")
    (tmp_path / "data" / "timeblind" / "videos" / "vid_00001_1.mp4").unlink()
    run = lmms_eval("timeblind_iacc", responses={"0": "yes"}, data_dir=tmp_path / "data", expect_ok=False)
    assert run.returncode != 0
    assert "vid_00001_1.mp4" in run.output and "Model Responding" not in run.output


def test_cli_dummy_model_decodes_every_video(lmms_eval):
    # The official smoke test: "Yes" everywhere gives Acc 25 (yes/no rows half right, MC rows invalid).
    run = lmms_eval("timeblind_iacc", model="dummy", model_args="response=Yes,decode_num_frames=4")
    got = run.metrics("timeblind_iacc")
    assert (got["trial_acc"], got["question_acc"], got["video_acc"], got["instance_acc"]) == (25.0, 0.0, 0.0, 0.0)
    assert got["invalid_rate"] == 50.0
    assert "resolved: 16 | local: 16 | remote: 0 | missing: 0" in run.output


def test_cli_timeblind_cut_off_thinking_reports_and_warns(lmms_eval):
    # 16 fixture questions (gold by trial position: yes/no rows yes,no,no,yes; MC rows A,B,B,A), answered right
    # after a closed think block, except instance 1 (questions 4-7), cut off while thinking.
    answers = {}
    for i in range(16):
        gold = ("Yes", "No", "No", "Yes")[i % 4] if i < 8 else ("A", "B", "B", "A")[i % 4]
        answers[str(i)] = f"<think>Looking at the frames.</think><answer>{gold}</answer>"
    for i in (4, 5, 6, 7):
        answers[str(i)] = "<think>The object moves, then it stops. Is the second motion slower? Looking again at"
    run = lmms_eval("timeblind_iacc", responses=answers, args=["--gen_kwargs", "max_new_tokens=64"])
    got = run.metrics("timeblind_iacc")
    assert got["truncated_rate"] == 25.0
    assert got["invalid_rate"] == 25.0 and got["instance_acc"] == 75.0
    assert "timeblind_iacc: 25.0% of the scored answers were cut off inside <think>" in run.output
    assert "--gen_kwargs max_new_tokens=" in run.output
    sample = run.samples["timeblind_iacc"][4]
    assert sample["truncated_rate"]["truncated"] is True

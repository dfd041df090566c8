"""Vinoground through the real lmms-eval CLI against the official scorer transcription: both readings,
``--limit``, the dummy model decoding the paired videos, N from the model's frame argument, a missing clip."""

from __future__ import annotations

import shutil

import pytest

from tests.helpers.benchmarks.vinoground import (
    ANSWERS,
    EXPECTED,
    official_scores,
)

# ----------------------------------------------------------------------------- real CLI

ALL_TASKS = "vinoground_group,vinoground_group_official,vinoground_text,vinoground_video,vinoground_text_blind"


def _check(got: dict[str, float], expected: dict[str, float], prefixes: tuple[str, ...]) -> None:
    for key, value in expected.items():
        if key.startswith(prefixes):
            assert got[key] == pytest.approx(value), key


def test_cli_official_mode_every_task(lmms_eval, fixture_root):
    run = lmms_eval(ALL_TASKS, responses=ANSWERS, env={"TEMPORAL_TASKS_PARSER": "official"})
    oracle = official_scores(fixture_root, "official")
    expected = EXPECTED["official"]
    for task in ("vinoground_group", "vinoground_group_official"):
        got = run.metrics(task)
        _check(got, expected, ("text", "video", "group", "invalid"))
        for key, value in oracle.items():  # parity with get_score_all.py on the same answers
            assert got[key] == pytest.approx(value), (task, key)
        for m in ("text_score", "video_score", "group_score"):
            assert got[f"{m}_ci_low"] <= got[m] <= got[f"{m}_ci_high"]
    for task in ("vinoground_text", "vinoground_text_blind"):
        got = run.metrics(task)
        _check(got, expected, ("text",))
        assert got["invalid_rate"] == 12.5  # "(B)" among the 8 text answers
        assert not {"video_score", "group_score", "video_score_action"} & set(got)
    got = run.metrics("vinoground_video")
    _check(got, expected, ("video",))
    assert got["invalid_rate"] == 12.5  # "" among the 8 video answers
    assert not {"text_score", "group_score", "group_score_action"} & set(got)
    assert "answer reading = official" in run.output
    sample = run.samples["vinoground_group"][0]["group_score"]
    assert {"question_id", "group_id", "role", "answer", "gold", "pred", "parser_mode"} <= set(sample)
    prompt = run.samples["vinoground_group"][0]["input"]
    assert prompt.endswith("directly.\nPlease only output one English character.")


# Empty and missing answers in several positions. Gold: text 0:B,B 1:A,B 2:A,A 3:B,A; video 0:A,A 1:B,A 2:B,B 3:A,B.
EMPTY_ANSWERS = {
    "0_pos_text": "", "0_neg_text": "B", "0_pos_video": "A", "0_neg_video": "A",  # "" read first: video lost
    "1_pos_text": "A", "1_pos_video": "B", "1_neg_video": "A",  # neg_text missing, read after a right one: lost
    "2_pos_text": "B", "2_neg_text": "", "2_pos_video": "B", "2_neg_video": "B",  # "" never read (pos wrong): kept
    "3_pos_text": "B", "3_neg_text": "A", "3_pos_video": "A", "3_neg_video": "",  # text right, video wrong
}  # fmt: skip


def test_cli_empty_and_missing_answers_official_reading(lmms_eval, fixture_root):
    """The official reading of a run with empty (and one missing) answers in several positions gives the numbers
    of get_score_all.py's control flow: an empty text answer it reaches costs the pair its video credit."""
    tasks = "vinoground_group,vinoground_group_official"
    run = lmms_eval(tasks, responses=EMPTY_ANSWERS, env={"TEMPORAL_TASKS_PARSER": "official"})
    oracle = official_scores(fixture_root, "official", EMPTY_ANSWERS)
    # by hand: text pair 3 -> 25; video pair 2 only (0 and 1 skipped, 3 wrong) -> 25; group none
    assert (oracle["text_score"], oracle["video_score"], oracle["group_score"]) == (25.0, 25.0, 0.0)
    for task in tasks.split(","):
        got = run.metrics(task)
        for key, value in oracle.items():
            assert got[key] == pytest.approx(value), (task, key)
        assert got["invalid_rate"] == 25.0  # the three empty answers and the missing one, of 16
    robust = lmms_eval("vinoground_group", responses=EMPTY_ANSWERS).metrics("vinoground_group")
    assert (robust["text_score"], robust["video_score"], robust["group_score"]) == (25.0, 75.0, 0.0)


def test_cli_robust_mode(lmms_eval, fixture_root, cache_root, tmp_path):
    from tests.conftest import write_responses

    # a stand-in for a GPU model: fetches every visual, takes 1 ms, answers longest prompt first
    # (as lmms-eval's Collator orders the Qwen models' requests); N comes from its frame argument
    responses = write_responses(tmp_path / "answers.jsonl", ANSWERS)
    model_args = f"responses={responses},latency_ms=1,order=length,max_num_frames=7"
    run = lmms_eval("vinoground_group,vinoground_text", model_args=model_args, env={"TEMPORAL_TASKS_NUM_FRAMES": ""})
    # temporal_replay keeps max_num_frames as an instance attribute, as the video models do (issue 24)
    assert "paired videos have N=7 frames (model instance attribute max_num_frames=7)" in run.output
    assert len(list((cache_root / "paired_videos" / "n7").glob("*.mp4"))) == 6
    got = run.metrics("vinoground_group")
    _check(got, EXPECTED["robust"], ("text", "video", "group", "invalid"))
    for key, value in official_scores(fixture_root, "robust").items():
        assert got[key] == pytest.approx(value), key
    assert run.metrics("vinoground_text")["text_score"] == 75.0
    assert "answer reading = robust" in run.output


def test_cli_limit_7(lmms_eval):
    # --limit 7: pair 0 (4 questions, all right) is whole, pair 1 is cut after 3 and left out
    run = lmms_eval("vinoground_group,vinoground_text", responses=ANSWERS, args=["--limit", "7"])
    got = run.metrics("vinoground_group")
    assert (got["text_score"], got["video_score"], got["group_score"]) == (100.0, 100.0, 100.0)
    assert got["group_score_action"] == 100.0 and got["invalid_rate"] == 0.0
    assert "scored 1 complete groups; left out 1 incomplete group" in run.output
    # vinoground_text: pairs 0-2 whole (6 questions), the 7th starts pair 3 -> left out
    text = run.metrics("vinoground_text")
    assert text["text_score"] == pytest.approx(200 / 3)  # pairs 0 and 1 right, pair 2 wrong


def test_cli_dummy_model_builds_and_decodes_paired_videos(lmms_eval, cache_root):
    env = {"TEMPORAL_TASKS_NUM_FRAMES": "9"}
    run = lmms_eval(
        "vinoground_group,vinoground_group_official",
        model="dummy",
        model_args="response=A,decode_num_frames=4",
        env=env,
    )
    # "A" everywhere: text right only where both text golds are A (pair 2), video where both are A (pair 0)
    for task in ("vinoground_group", "vinoground_group_official"):
        got = run.metrics(task)
        assert (got["text_score"], got["video_score"], got["group_score"]) == (25.0, 25.0, 0.0), task
    # one visual per question (the paired video, not its two clips), all decoded
    assert "resolved: 32 | local: 32 | remote: 0 | missing: 0" in run.output
    built = sorted((cache_root / "paired_videos" / "n9").glob("*.mp4"))
    assert len(built) == 6  # 8 video questions; in pairs 1 and 3 both questions use the same order (one file)


def test_cli_paired_videos_follow_the_models_frame_arg(lmms_eval, tmp_path):
    # the acceptance: dummy with max_num_frames=9 and TEMPORAL_TASKS_NUM_FRAMES unset builds 9-frame
    # videos (dummy takes unknown model args; read_bytes=1 makes it open every visual, so each must exist)
    decord = pytest.importorskip("decord")
    cache = tmp_path / "cache"
    env = {"TEMPORAL_TASKS_NUM_FRAMES": "", "TEMPORAL_TASKS_CACHE_DIR": str(cache)}
    run = lmms_eval("vinoground_video", model="dummy", model_args="response=A,max_num_frames=9,read_bytes=1", env=env)
    assert "paired videos have N=9 frames (--model_args max_num_frames=9)" in run.output
    assert "resolved: 8 | local: 8 | remote: 0 | missing: 0" in run.output
    assert [p.name for p in (cache / "paired_videos").iterdir()] == ["n9"]
    built = sorted((cache / "paired_videos" / "n9").iterdir())
    assert len(built) == 6 and all(len(decord.VideoReader(str(p))) == 9 for p in built)  # no lock/temp file left


def test_cli_missing_clip_stops_before_any_model_call(lmms_eval, fixture_root, tmp_path):
    import zipfile

    root = tmp_path / "data" / "vinoground"
    shutil.copytree(fixture_root / "vinoground", root)
    with zipfile.ZipFile(root / "vinoground_videos.zip") as zf:
        zf.extractall(root)
    (root / "vinoground_videos.zip").unlink()
    (root / "vinoground_videos" / "3_pos.mp4").unlink()
    # default verbosity on purpose: lmms-eval alone would exit 0 after a task fails to load
    run = lmms_eval("vinoground_group", responses={}, data_dir=tmp_path / "data", expect_ok=False, verbosity="INFO")
    assert run.returncode != 0
    assert "3_pos.mp4" in run.output and "Model Responding" not in run.output and not run.results

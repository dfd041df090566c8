"""TemporalBench through the real lmms-eval CLI against the official scorer transcription, ``--limit``, and the
caption similarity offline on CPU."""

from __future__ import annotations

import math
import shutil

import pytest

from temporal_tasks.base import settings
from temporal_tasks.benchmarks.temporalbench import CAPTION_CATEGORIES
from temporal_tasks.benchmarks.temporalbench import tasks as tb
from tests.helpers.benchmarks.temporalbench import (
    ANSWERS,
    OFFICIAL_LONG,
    OFFICIAL_SHORT,
    ROBUST_LONG,
    ROBUST_SHORT,
    check_metrics,
    data_rows,
    drop_caption_sources,
    needs_caption_model,
    official_get_qa_acc,
)

# ----------------------------------------------------------------------------- real CLI

TASKS = "temporalbench_mba"


@pytest.mark.parametrize("mode", ["official", "robust"])
def test_cli_replay_equals_official_scorer(lmms_eval, fixture_root, mode):
    run = lmms_eval(TASKS, responses=ANSWERS, env={"TEMPORAL_TASKS_PARSER": mode})
    short, long = run.metrics("temporalbench_short_mba"), run.metrics("temporalbench_long_mba")
    exp_short = official_get_qa_acc(data_rows(fixture_root, "short_qa"), ANSWERS, mode, short=True)
    exp_long = official_get_qa_acc(data_rows(fixture_root, "long_qa"), ANSWERS, mode, short=False)
    check_metrics(short, exp_short, "short vs official")
    check_metrics(long, exp_long, "long vs official")
    check_metrics(short, OFFICIAL_SHORT if mode == "official" else ROBUST_SHORT, "short by hand")
    check_metrics(long, OFFICIAL_LONG if mode == "official" else ROBUST_LONG, "long by hand")
    # no per-category rows for long QA; no Movie/Oops rows where the data has none
    assert not any(k.startswith(("mba_action", "mba_event", "mba_oops")) for k in long)
    ci_keys = {f"{m}_ci_{b}" for m in ("binary_acc", "mba") for b in ("low", "high")}
    for m in ("binary_acc", "mba"):
        assert short[f"{m}_ci_low"] <= short[m] <= short[f"{m}_ci_high"]
    # robust and official readings differ on "(B)", "The answer is A.", "Both captions fit, but A" (short)
    # and "I think A" (long), whatever the mode in force
    assert short["parse_disagreement"] == pytest.approx(100 * 3 / 12)
    assert long["parse_disagreement"] == pytest.approx(100 / 11)
    assert short["truncated_rate"] == 0.0 and long["truncated_rate"] == 0.0
    assert set(short) == {"binary_acc", "mba", "invalid_rate", "parse_disagreement", "truncated_rate"} | ci_keys | {
        f"{m}_{s}" for m in ("binary_acc", "mba") for s in (*CAPTION_CATEGORIES, "charades", "coin", "finegym")
    } | {"binary_acc_movie_description", "mba_movie_description"}
    # the group: plain mean of short and long (the paper's "Overall"), only for binary_acc and mba
    group = run.metrics("temporalbench_mba")
    assert set(group) == {"binary_acc", "mba"}
    for key in ("binary_acc", "mba"):
        assert group[key] == pytest.approx((exp_short[key] + exp_long[key]) / 2)
    if mode == "official":  # (66.67 + 81.82) / 2 and (25 + 33.33) / 2, not the pooled 17/23 and 2/7
        assert group["binary_acc"] == pytest.approx((800 / 12 + 900 / 11) / 2)
        assert group["mba"] == pytest.approx((25 + 100 / 3) / 2)
    assert f"answer reading = {mode}" in run.output
    sample = run.samples["temporalbench_short_mba"][0]["mba"]
    assert {"question_id", "group_id", "answer", "gold", "pred", "source", "category"} <= set(sample)


def test_cli_limit_cuts_groups(lmms_eval):
    # --limit 5: short = V1 (3 questions) + the first 2 of V2 (cut); long = L1 (4) + the first of L2 (cut).
    run = lmms_eval(
        "temporalbench_short_mba,temporalbench_long_mba",
        responses=ANSWERS, env={"TEMPORAL_TASKS_PARSER": "official"}, args=["--limit", "5"],
    )  # fmt: skip
    short, long = run.metrics("temporalbench_short_mba"), run.metrics("temporalbench_long_mba")
    # V1 alone: right 2/3 (q1 '(B)' unreadable), not all right; categories of V1 only.
    check_metrics(short, {"binary_acc": 100 * 2 / 3, "mba": 0.0, "invalid_rate": 100 / 3,
                          "binary_acc_charades": 100 * 2 / 3, "mba_motion_direction_orientation": 100.0,
                          "mba_event_order": 0.0, "mba_action_type": 100.0},
                  "short --limit")  # fmt: skip
    for key in ("binary_acc_coin", "mba_coin", "mba_action_order", "binary_acc_action_frequency"):
        assert math.isnan(short[key]), key  # V2 was cut: left out everywhere
    check_metrics(long, {"binary_acc": 100.0, "mba": 100.0, "mba_coin": 100.0}, "long --limit")
    assert math.isnan(long["mba_charades"])
    for task in ("temporalbench_short_mba", "temporalbench_long_mba"):  # each task's warning names it, once
        assert run.output.count(f"{task}: scored 1 complete groups; left out 1 incomplete") == 1


@needs_caption_model
def test_cli_caption_sim_offline_on_cpu(lmms_eval, fixture_root):
    rows = data_rows(fixture_root, "short_caption")
    unrelated = "The quarterly budget report was approved by the committee."
    answers = {rows[0]["idx"]: rows[0]["GT"], rows[1]["idx"]: unrelated, rows[2]["idx"]: ""}
    run = lmms_eval(
        "temporalbench_caption_sim", responses=answers,
        env={"CUDA_VISIBLE_DEVICES": "", settings.ENV_CAPTION_DEVICE: "cpu", "HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    got = run.metrics("temporalbench_caption_sim")["caption_sim"]
    sims = tb.caption_similarities([a for a in answers.values()], [r["GT"] for r in rows], device="cpu")
    assert sims[0] == pytest.approx(100.0, abs=1e-3)
    assert got == pytest.approx(sum(sims) / 3, abs=1e-3)
    assert 100 / 3 < got < 80.0
    config = run.results["configs"]["temporalbench_caption_sim"]["generation_kwargs"]
    assert config["max_new_tokens"] >= 512


@needs_caption_model
def test_cli_caption_sim_runs_without_source_field(lmms_eval, fixture_root, tmp_path, monkeypatch):
    shutil.copytree(fixture_root / "temporalbench", tmp_path / "data" / "temporalbench")
    drop_caption_sources(tmp_path / "data" / "temporalbench")
    rows = data_rows(tmp_path / "data", "short_caption")
    assert all(set(r) == {"idx", "video_name", "question", "GT"} for r in rows)
    answers = {r["idx"]: r["GT"] for r in rows}
    run = lmms_eval(
        "temporalbench_caption_sim", responses=answers, data_dir=tmp_path / "data",
        env={"CUDA_VISIBLE_DEVICES": "", settings.ENV_CAPTION_DEVICE: "cpu", "HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    assert run.metrics("temporalbench_caption_sim")["caption_sim"] == pytest.approx(100.0, abs=1e-3)

"""Vinoground through a real model code path: a tiny random Qwen2.5-VL (chat) on the fixture.

The answers are noise, so this asserts structure: the paired videos (N = the model's frame count) and the
single clips are decoded by the model, the blind control runs with no video at all, and every metric is
present and within 0-100 (or NaN).
"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("decord")
pytest.importorskip("torchvision")

from tests.helpers.tiny_qwen import build  # noqa: E402

CHECKS = ("invalid_rate", "parse_disagreement", "truncated_rate")


def test_tiny_qwen_chat_runs_vinoground(lmms_eval, tmp_path, cache_root):
    ckpt = build(tmp_path / "tiny-qwen2_5_vl", "2.5")
    run = lmms_eval(
        "vinoground_group,vinoground_text_blind",
        model="qwen2_5_vl",
        model_args=f"pretrained={ckpt},device=cpu,device_map=cpu,max_num_frames=6,min_pixels=3136,max_pixels=12544",
        env={"TEMPORAL_TASKS_NUM_FRAMES": "6"},  # the same N as the model samples: 2 + 2 black + 2
        timeout=1200,
    )
    for task, n, keys in (
        ("vinoground_group", 16, ("text_score", "video_score", "group_score", *CHECKS, "group_score_action")),
        ("vinoground_text_blind", 8, ("text_score", *CHECKS, "text_score_viewpoint")),
    ):
        got = run.metrics(task)
        for key in keys:
            assert math.isnan(got[key]) or 0.0 <= got[key] <= 100.0, (task, key, got[key])
        assert len(run.samples[task]) == n
    assert len(list((cache_root / "paired_videos" / "n6").glob("*.mp4"))) == 6

"""Real model code paths: a tiny random Qwen2-VL (simple) and Qwen2.5-VL (chat) on the fixture videos.

The answers are noise, so these assert structure: every metric present, within 0-100 (or NaN
where nothing is scorable), one sample per question, and the model decoded every video
(a missing or unreadable one fails the run).
"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("decord")
pytest.importorskip("torchvision")

from tests.helpers.tiny_qwen import build  # noqa: E402

HEADLINE = (
    "trial_acc", "question_acc", "video_acc", "instance_acc", "invalid_rate", "parse_disagreement", "truncated_rate",
)  # fmt: skip


def _check(run, task: str, n_questions: int) -> None:
    got = run.metrics(task)
    for key in HEADLINE:
        assert key in got
        assert math.isnan(got[key]) or 0.0 <= got[key] <= 100.0, (key, got[key])
    assert len(run.samples[task]) == n_questions
    assert run.results["n-samples"][task]["effective"] == n_questions


@pytest.mark.parametrize(
    ("model", "version", "extra", "backend"),
    [
        ("qwen2_vl", "2", "", "simple"),
        ("qwen2_5_vl", "2.5", ",min_pixels=3136,max_pixels=12544", "chat"),
    ],
)
def test_tiny_qwen_runs_timeblind(lmms_eval, tmp_path, model, version, extra, backend):
    ckpt = build(tmp_path / f"tiny-{model}", version)
    run = lmms_eval(
        "timeblind_iacc",
        model=model,
        model_args=f"pretrained={ckpt},device=cpu,device_map=cpu,max_num_frames=4{extra}",
        timeout=1200,
    )
    _check(run, "timeblind_iacc", 16)
    assert f"({backend})" in run.results["config"]["model_backend"] or backend == "simple"

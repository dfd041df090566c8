"""TemporalBench through real model code: a tiny random Qwen2.5-VL (chat) and Qwen2-VL (simple) on the fixture.

The answers are noise, so this asserts structure: every headline metric present and in range,
one sample per question, every video decoded (a missing or unreadable one fails the run).
"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("decord")
pytest.importorskip("torchvision")

from tests.helpers.tiny_qwen import build  # noqa: E402


@pytest.mark.parametrize(
    ("model", "version", "extra"),
    [("qwen2_vl", "2", ""), ("qwen2_5_vl", "2.5", ",min_pixels=3136,max_pixels=12544")],
)
def test_tiny_qwen_runs_temporalbench(lmms_eval, tmp_path, model, version, extra):
    ckpt = build(tmp_path / f"tiny-{model}", version)
    run = lmms_eval(
        "temporalbench_mba",
        model=model,
        model_args=f"pretrained={ckpt},device=cpu,device_map=cpu,max_num_frames=4{extra}",
        timeout=1200,
    )
    for task, n in (("temporalbench_short_mba", 12), ("temporalbench_long_mba", 11)):
        got = run.metrics(task)
        for key in ("binary_acc", "mba", "invalid_rate", "parse_disagreement", "truncated_rate"):
            assert math.isnan(got[key]) or 0.0 <= got[key] <= 100.0, (task, key, got[key])
        assert len(run.samples[task]) == n
    assert set(run.metrics("temporalbench_mba")) == {"binary_acc", "mba"}

"""Reading results files (``tools/report/results.py``): task metrics with their CIs, and the model's label."""

from __future__ import annotations

import math

from temporal_tasks.tools import report
from temporal_tasks.tools.report import (
    model_label,
    parse_task_metrics,
)

# ---------------------------------------------------------------- parsing


def test_parse_task_metrics_attaches_cis_and_skips_stderr():
    entry = {
        "alias": "x",
        "m,none": 50.0,
        "m_stderr,none": "N/A",
        "m_stderr_clustered,none": "N/A",
        "m_ci_low,none": 40.0,
        "m_ci_high,none": 60.0,
        "m_cat,none": 10.0,
        "orphan_ci_low,none": 1.0,
        "n,flex": 3.0,
        "u,none": None,
    }
    got = parse_task_metrics(entry)
    assert got["m"] == report.Value(50.0, 40.0, 60.0)
    assert got["m_cat"] == report.Value(10.0, None, None)
    assert "m_ci_low" not in got and "m_ci_high" not in got
    assert not any("stderr" in k for k in got)
    # A CI bound without its metric and a non-default filter stay visible.
    assert got["orphan_ci_low"].value == 1.0
    assert got["n [flex]"].value == 3.0
    assert math.isnan(got["u"].value)


def test_model_label_sources(tmp_path):
    p = tmp_path / "20261122_000000_results.json"
    assert model_label({"model_name": "Qwen/Qwen2-VL-7B-Instruct"}, p) == "Qwen2-VL-7B-Instruct"
    cfg = {"config": {"model": "llava", "model_args": "device=cuda,pretrained=/ckpt/my-model/"}}
    assert model_label({"model_name": "", **cfg}, p) == "my-model"
    assert model_label({"config": {"model": "temporal_replay", "model_args": "responses=x.jsonl"}}, p) == (
        "temporal_replay"
    )
    assert model_label({"config": {}}, p) == "20261122_000000_results"

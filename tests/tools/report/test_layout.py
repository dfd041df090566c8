"""The report's layout of a benchmark (``tools/report/layout.py``): each metric classified against the registry."""

from __future__ import annotations

from temporal_tasks.tools import report
from temporal_tasks.tools.report import (
    BENCHMARKS,
    classify,
)


def test_classify_against_registry():
    tb = next(s for s in BENCHMARKS if s.name == "TimeBlind")
    velociti = next(s for s in BENCHMARKS if s.name == "VELOCITI")
    assert classify(tb, "instance_acc") == ("headline", None, None)
    assert classify(tb, "instance_acc_speed") == ("category", "instance_acc", "speed")
    assert classify(tb, "weird_metric") == ("other", None, None)
    # mc_b is a family, but mc_both / mc_bias are headline metrics and families of their own.
    assert classify(velociti, "mc_both") == ("headline", None, None)
    assert classify(velociti, "mc_both_chrono") == ("category", "mc_both", "chrono")
    assert classify(velociti, "mc_bias_control") == ("category", "mc_bias", "control")
    assert classify(velociti, "mc_b_coref") == ("category", "mc_b", "coref")
    assert report.benchmark_of("temporalbench_mba").name == "TemporalBench"
    assert report.benchmark_of("mystery_task") is None

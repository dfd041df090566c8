"""``temporal-tasks compare`` (``tools/compare.py``): the paired test, and each compared metric as a function over
groups."""

from __future__ import annotations

import numpy as np
import pytest

from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.compare import compare_runs, paired_test


def test_paired_test_identical_runs_give_zero_and_p_one():
    rng = np.random.default_rng(0)
    right = rng.integers(0, 3, size=50)
    counts = np.stack([right, np.full(50, 2)], axis=1)
    vb, vn, diff, low, high, p = paired_test(counts, counts.copy())
    assert vb == vn == pytest.approx(100 * right.sum() / 100) and diff == 0.0
    assert low == high == 0.0 and p == 1.0


def test_paired_test_hand_case_and_strata():
    base = np.array([[1, 1]] * 20)
    new = np.array([[1, 1]] * 10 + [[0, 1]] * 10)
    vb, vn, diff, low, high, p = paired_test(base, new, iters=4000)
    assert (vb, vn, diff) == (100.0, 50.0, -50.0)
    assert low <= diff <= high and high < 0
    # 10 discordant groups, all one way: the exact two-sided sign-flip p-value is 2 / 2**10
    assert p == pytest.approx(2 / 2**10, abs=0.004)
    # strata: the statistic is the mean over strata of the percentages
    strata = ["a"] * 10 + ["b"] * 10
    vb, vn, diff, *_ = paired_test(base, np.array([[0, 1]] * 10 + [[1, 1]] * 10), strata)
    assert (vb, vn, diff) == (100.0, 50.0, -50.0)
    vb, vn, diff, *_ = paired_test(base[:12], np.array([[0, 1]] * 2 + [[1, 1]] * 10), strata[:2] + ["b"] * 10)
    assert diff == pytest.approx((0 + 100) / 2 - 100)


def test_compare_needs_shared_tasks(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    with pytest.raises(DataError, match="compare needs each run's --log_samples"):
        compare_runs(a, b)


@pytest.mark.parametrize(
    "task",
    ["timeblind_iacc", "vinoground_group", "temporalbench_short_mba", "velociti_strictvle", "velociti_mc",
     "velociti_strictvle_prob"],
)  # fmt: skip
@pytest.mark.parametrize("mode", ["robust", "official"])
def test_group_outcomes_give_every_metric(task, mode, offline_env, monkeypatch):
    """Each compared metric, as a function over groups, is exactly the number the task reports."""
    import random

    from temporal_tasks.harness.task_configs import resolve_function, task_config
    from temporal_tasks.tools.compare import comparable_metrics
    from temporal_tasks.tools.samples import docs_of_task

    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    docs = docs_of_task(task)
    process_results = resolve_function(task_config(task)["process_results"])
    rng = random.Random(7)
    items: dict[str, list] = {}
    for doc in docs:
        if task.endswith("_prob"):
            results = [(rng.uniform(0, 3), False), (rng.uniform(0, 3), False)]
        else:
            results = [rng.choice(["A", "B", "Yes", "No", "", "maybe"])]
        for key, payload in process_results(doc, results).items():
            items.setdefault(key, []).append(payload)
    for payloads in items.values():
        rng.shuffle(payloads)  # aggregations get ranks' payloads in any order
    metrics = comparable_metrics(task, categories=True)
    assert len(metrics) >= 3
    for key, aggregate, outcomes in metrics:
        if key in items:
            found = outcomes(items[key])
            expected = aggregate(items[key])
            assert found.value() == pytest.approx(expected, nan_ok=True), key
            assert len(found.ids) == len(found.counts)

"""What ``timeorder`` makes of group outcomes (``tools/timeorder/outcomes.py``): the flip table and labels by hand,
the relative gain's paired CI, and why pairing matters (a paired CI narrower than an unpaired one)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from temporal_tasks.scoring.bootstrap import GroupOutcomes
from temporal_tasks.tools.compare import compare_outcomes
from temporal_tasks.tools.timeorder import (
    flip_table,
    label_groups,
    paired_ratio,
)


def test_paired_ci_is_narrower_than_unpaired_on_correlated_groups():
    rng = np.random.default_rng(3)
    ability = rng.random(300)
    control = (ability > 0.55).astype(np.int64)
    main = np.where(rng.random(300) < 0.1, 1, control)  # the same groups right, a few more
    counts = [np.stack([x, np.ones_like(x)], axis=1) for x in (control, main)]
    ids = [str(i) for i in range(300)]
    row = compare_outcomes("t", "k", GroupOutcomes(ids, counts[0]), GroupOutcomes(ids, counts[1]))
    assert row is not None and row.ci_low > 0
    # unpaired: each run's groups resampled on their own
    draws = [rng.integers(0, 300, size=(2000, 300)) for _ in range(2)]
    diff = 100 * main[draws[1]].mean(1) - 100 * control[draws[0]].mean(1)
    low, high = np.percentile(diff, [2.5, 97.5])
    assert row.ci_high - row.ci_low < 0.6 * (high - low)


def test_flip_table_and_labels_by_hand():
    def o(right: dict[str, int]) -> GroupOutcomes:
        return GroupOutcomes(list(right), np.array([[r, 1] for r in right.values()]))

    main = o({"a": 1, "b": 1, "c": 0, "d": 0, "e": 1})
    ctrl = o({"a": 1, "b": 0, "c": 1, "d": 0})
    assert flip_table(main, ctrl) == {"both": 1, "main_only": 1, "control_only": 1, "neither": 1}
    zero = o(dict.fromkeys("abcde", 0))
    labels = label_groups(main, {"blind": zero, "single_frame": zero, "shuffled": ctrl})
    assert labels == {"a": "answerable without the order", "b": "needs the order",
                      "c": "answerable without the order", "d": "never right"}  # fmt: skip
    # a group of several units is right only when all are
    partial = GroupOutcomes(["a"], np.array([[1, 2]]))
    assert flip_table(partial, partial) == {"both": 0, "main_only": 0, "control_only": 0, "neither": 1}


def test_paired_ratio_by_hand_and_undefined_at_zero():
    base = np.array([[1, 1]] * 4 + [[0, 1]] * 6)
    new = np.array([[1, 1]] * 6 + [[0, 1]] * 4)
    value, low, high = paired_ratio(base, new, iters=500)
    assert value == pytest.approx(0.5) and low <= value <= high
    value, low, high = paired_ratio(np.array([[0, 1]] * 3), np.array([[1, 1]] * 3))
    assert math.isnan(value) and math.isnan(low) and math.isnan(high)

"""The bootstrap (``scoring/bootstrap.py``) against textbook resampling: plain, stratified, over repeats."""

from __future__ import annotations

import math

import numpy as np
import pytest

from temporal_tasks.scoring.bootstrap import bootstrap_ci, bootstrap_ci_repeats


def test_repeat_bootstrap_with_one_repeat_matches_the_plain_bootstrap():
    rng = np.random.default_rng(0)
    counts = np.stack([rng.integers(0, 3, 50), np.full(50, 2)], axis=1)
    counts[:, 0] = np.minimum(counts[:, 0], counts[:, 1])
    strata = [str(i % 3) for i in range(50)]
    assert bootstrap_ci_repeats(counts[:, None, :], strata) == bootstrap_ci(counts, strata)
    assert bootstrap_ci_repeats(counts[:, None, :]) == bootstrap_ci(counts)


@pytest.mark.parametrize("same_units", [True, False])
def test_repeat_bootstrap_matches_resampling_groups_by_hand(same_units):
    """The repeat CI against the definition: resample groups with their k outcomes, take the mean over repeats
    of each repeat's percentage; whether every group has the same units in each repeat (drawn over the summed
    outcomes) or not (over the joint ones). Two Monte Carlo estimates: equal within their noise."""
    rng = np.random.default_rng(7)
    groups, k, iters = 200, 3, 4000
    units = np.repeat(rng.integers(1, 5, groups)[:, None], k, axis=1)
    if not same_units:
        units[::3, 1] = 0  # some groups hold no unit in one repeat (e.g. dropped for an unreadable answer)
    right = rng.binomial(units, 0.6)
    counts = np.stack([right, units], axis=2)
    draw = np.random.default_rng(11).integers(0, groups, size=(iters, groups))
    per_repeat = 100.0 * right[draw].sum(axis=1) / units[draw].sum(axis=1)  # (iters, k)
    low, high = np.percentile(per_repeat.mean(axis=1), [2.5, 97.5])
    got = bootstrap_ci_repeats(counts, iters=iters)
    assert got[0] == pytest.approx(low, abs=0.6) and got[1] == pytest.approx(high, abs=0.6)
    assert 3.0 < high - low < 20.0


def _naive_bootstrap(counts, iters, seed, strata=None):
    """Textbook bootstrap: resample group indices with replacement (the reference for the fast one)."""
    rng = np.random.default_rng(seed)
    counts = np.asarray(counts)
    labels = np.zeros(len(counts)) if strata is None else np.asarray(strata)
    stats = []
    for _ in range(iters):
        per = []
        for s in sorted(set(labels.tolist())):
            sub = counts[labels == s]
            pick = sub[rng.integers(0, len(sub), len(sub))]
            per.append(100 * pick[:, 0].sum() / pick[:, 1].sum())
        stats.append(np.mean(per))
    return np.percentile(stats, [2.5, 97.5])


def test_bootstrap_matches_textbook_resampling():
    rng = np.random.default_rng(0)
    right = rng.integers(0, 3, 300)
    counts = np.stack([right, np.full(300, 2)], axis=1)  # e.g. question_acc: 2 units per group
    fast = bootstrap_ci(counts, iters=4000, seed=1)
    slow = _naive_bootstrap(counts, 4000, seed=2)
    assert fast == pytest.approx(tuple(slow), abs=1.0)  # same distribution; Monte-Carlo error < 1 point
    value = 100 * right.sum() / 600
    assert fast[0] < value < fast[1]


def test_bootstrap_with_strata_matches_textbook():
    rng = np.random.default_rng(5)
    counts = np.stack([rng.integers(0, 2, 240), np.ones(240, dtype=int)], axis=1)
    strata = [f"t{i % 3}" for i in range(240)]
    fast = bootstrap_ci(counts, strata, iters=3000)
    slow = _naive_bootstrap(counts, 3000, seed=9, strata=strata)
    assert fast == pytest.approx(tuple(slow), abs=1.5)


def test_bootstrap_edge_cases():
    assert bootstrap_ci(np.array([[1, 1]] * 50)) == (100.0, 100.0)
    assert all(math.isnan(x) for x in bootstrap_ci(np.zeros((0, 2))))
    assert all(math.isnan(x) for x in bootstrap_ci(np.array([[0, 0]] * 3)))  # nothing scorable

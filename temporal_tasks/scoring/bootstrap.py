"""Group-bootstrap CIs and metric values over per-group ``[right units, units]`` counts (pure numpy): the counts
alone, so ``compare`` resamples the very outcomes a value and its CI come from, with the same
:func:`stratified_percent`."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

BOOTSTRAP_ITERS = 1000
BOOTSTRAP_SEED = 20261122


def percent(numerator: int, denominator: int) -> float:
    """``100 * numerator / denominator``, or NaN when there is nothing to score."""
    return 100.0 * numerator / denominator if denominator else math.nan


@dataclass(frozen=True)
class GroupOutcomes:
    """A metric as a function over groups: per group ``[right units, units]`` and, optionally, its stratum (and the
    metric's strata ``order``). :func:`bootstrap_ci` resamples these groups; ``compare`` pairs them between runs."""

    ids: list[str]
    counts: np.ndarray
    strata: list[str] | None = None
    order: tuple[str, ...] = ()

    def value(self) -> float:
        """The metric value these outcomes give (the same function as the run's value)."""
        return stratified_percent(self.counts, self.strata, self.order)


def stratified_percent(counts: np.ndarray, strata: Sequence[str] | None = None, order: Sequence[str] = ()) -> float:
    """``100 * sum(right) / sum(units)``; with ``strata``, the mean over strata with units of that percentage,
    summed in ``order`` and then the other strata sorted (a float sum's last bit depends on its order: the metric's
    order is the paper's)."""
    counts = np.asarray(counts, dtype=np.int64).reshape(-1, 2)
    if strata is None:
        return percent(int(counts[:, 0].sum()), int(counts[:, 1].sum()))
    per = stratum_percentages(counts, np.asarray(strata))
    ranked = [s for s in order if s in per] + [s for s in per if s not in order]
    values = [per[s] for s in ranked if not math.isnan(per[s])]
    return sum(values) / len(values) if values else math.nan


def stratum_percentages(counts: np.ndarray, strata: np.ndarray) -> dict[str, float]:
    """Per stratum (sorted), the pooled percentage of its groups' counts: the package's one per-stratum percentage."""
    out = {}
    for s in sorted(set(strata.tolist())):
        sel = counts[strata == s]
        out[s] = percent(int(sel[:, 0].sum()), int(sel[:, 1].sum()))
    return out


def _resampled(counts: np.ndarray, strata: Sequence[str] | None, iters: int, seed: int) -> list[np.ndarray]:
    """Per stratum (sorted), the (iters, k) percentages of each reading over ``iters`` resamples of its groups.

    ``counts``: (groups, k, 2). Resampling G groups with replacement only matters through how many draws land on
    each distinct outcome (a group's k ``[right, units]``), which is multinomial: drawing those counts directly
    gives the same distribution in O(distinct outcomes) per resample instead of O(G). Seeded, and independent of
    payload order (outcomes are sorted).
    """
    rng = np.random.default_rng(seed)
    labels = np.asarray(strata) if strata is not None else np.zeros(len(counts), dtype=np.int64)
    out = []
    for stratum in sorted(set(labels.tolist())):
        flat = counts[labels == stratum].reshape(-1, 2 * counts.shape[1])
        classes, weight = np.unique(flat, axis=0, return_counts=True)
        draws = rng.multinomial(int(weight.sum()), weight / weight.sum(), size=iters)  # (iters, classes)
        num, den = draws @ classes[:, 0::2], draws @ classes[:, 1::2]  # (iters, k)
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.where(den > 0, 100.0 * num / np.maximum(den, 1), np.nan))
    return out


def _interval(stats: np.ndarray, level: float) -> tuple[float, float]:
    stats = stats[~np.isnan(stats)]
    if stats.size == 0:
        return math.nan, math.nan
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(stats, [tail, 100.0 - tail])
    return float(low), float(high)


def bootstrap_ci(
    counts: np.ndarray,
    strata: Sequence[str] | None = None,
    *,
    iters: int = BOOTSTRAP_ITERS,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap CI, resampling *groups*, of ``100 * sum(right) / sum(units)`` over per-group
    ``[right, units]``. With ``strata`` (one label per group) groups are resampled within each stratum and the
    statistic is the mean of the per-stratum percentages (e.g. a mean over tests)."""
    counts = np.asarray(counts, dtype=np.int64).reshape(-1, 1, 2)
    if len(counts) == 0:
        return math.nan, math.nan
    per_stratum = [p[:, 0] for p in _resampled(counts, strata, iters, seed)]
    with np.errstate(invalid="ignore"):
        stats = np.nanmean(np.vstack(per_stratum), axis=0) if len(per_stratum) > 1 else per_stratum[0]
    return _interval(stats, level)


def bootstrap_ci_repeats(
    counts: np.ndarray,
    strata: Sequence[str] | None = None,
    *,
    iters: int = BOOTSTRAP_ITERS,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean over repeats, resampling groups with their k outcomes together.

    ``counts``: (groups, k, 2) ``[right, units]`` per group and repeat. The statistic of a resample is the mean
    over repeats of each repeat's percentage; with ``strata``, groups are resampled within strata and each
    repeat's value is the mean of its strata's percentages.
    """
    counts = np.asarray(counts, dtype=np.int64)
    if len(counts) == 0:
        return math.nan, math.nan
    k = counts.shape[1]
    if (counts[:, :, 1] == counts[:, :1, 1]).all():
        # Each group scores the same units in every repeat (the repeats answer the same questions), so a
        # resample's mean over repeats of sum(right_r) / sum(units) is sum(right over repeats) / (k x sum(units)):
        # it depends on each group's (right summed over its repeats, units) alone, the same distribution as over
        # the joint outcomes, with far fewer distinct outcomes to draw.
        collapsed = np.stack([counts[:, :, 0].sum(axis=1), k * counts[:, 0, 1]], axis=1)
        return bootstrap_ci(collapsed, strata, iters=iters, seed=seed, level=level)
    per_stratum = _resampled(counts, strata, iters, seed)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice is a NaN statistic, dropped below
        per_repeat = np.nanmean(np.stack(per_stratum), axis=0) if len(per_stratum) > 1 else per_stratum[0]
        stats = np.nanmean(per_repeat, axis=1)  # over the repeats with a value, as the metric itself
    return _interval(stats, level)

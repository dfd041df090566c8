"""Group-bootstrap CIs and metric values over per-group ``[right units, units]`` counts (pure numpy).

The scoring core (:mod:`temporal_tasks.scoring.metrics`) reduces payloads to these counts; everything here
works on the counts alone, so ``compare`` resamples the very outcomes a value and its CI come from, and computes
its values with the same :func:`stratified_percent`.
"""

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
    """A metric as a function over groups: per group ``[right units, units]`` and, optionally, its stratum.

    The value is ``100 * sum(right) / sum(units)``, or with ``strata`` the mean over strata of that
    percentage (VELOCITI's mean over tests), summed in ``order`` (the metric's). :func:`bootstrap_ci` resamples
    these groups; ``compare`` resamples them paired between two runs.
    """

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


def _outcome_classes(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``(right, units)`` rows (sorted) and how many groups have each; a 1-D count, not a 2-D sort."""
    base = int(counts[:, 1].max()) + 1
    codes = counts[:, 0] * base + counts[:, 1]
    if codes.max() < 1_000_000:
        weight = np.bincount(codes)
        uniq = np.flatnonzero(weight)
        weight = weight[uniq]
    else:
        uniq, weight = np.unique(codes, return_counts=True)
    return np.stack([uniq // base, uniq % base], axis=1), weight


def bootstrap_ci(
    counts: np.ndarray,
    strata: Sequence[str] | None = None,
    *,
    iters: int = BOOTSTRAP_ITERS,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap CI, resampling *groups*, of ``100 * sum(right) / sum(units)``.

    With ``strata`` (one label per group) groups are resampled within each stratum and the
    statistic is the mean of the per-stratum percentages (e.g. VELOCITI's mean over tests).

    Resampling G groups with replacement only matters through how many draws land on each
    distinct ``(right, units)`` pair, which is multinomial: drawing those counts directly gives
    the same distribution in O(distinct pairs) per resample instead of O(G). Seeded, and
    independent of payload order (classes are sorted).
    """
    counts = np.asarray(counts, dtype=np.int64).reshape(-1, 2)
    if len(counts) == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    labels = np.asarray(strata) if strata is not None else np.zeros(len(counts), dtype=np.int64)
    per_stratum = []
    for stratum in sorted(set(labels.tolist())):
        classes, weight = _outcome_classes(counts[labels == stratum])
        draws = rng.multinomial(int(weight.sum()), weight / weight.sum(), size=iters)  # (iters, K)
        num = draws @ classes[:, 0]
        den = draws @ classes[:, 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            per_stratum.append(np.where(den > 0, 100.0 * num / np.maximum(den, 1), np.nan))
    with np.errstate(invalid="ignore"):
        stats = np.nanmean(np.vstack(per_stratum), axis=0) if len(per_stratum) > 1 else per_stratum[0]
    stats = stats[~np.isnan(stats)]
    if stats.size == 0:
        return math.nan, math.nan
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(stats, [tail, 100.0 - tail])
    return float(low), float(high)


def bootstrap_ci_repeats(
    counts: np.ndarray,
    strata: Sequence[str] | None = None,
    *,
    iters: int = BOOTSTRAP_ITERS,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean over repeats, resampling groups with their k outcomes together.

    ``counts``: (groups, k, 2) ``[right, units]`` per group and repeat. The statistic of a resample is the
    mean over repeats of each repeat's percentage; with ``strata``, groups are resampled within strata and
    each repeat's value is the mean of its strata's percentages. As in :func:`bootstrap_ci`, a resample only
    depends on how many draws land on each distinct joint outcome, which is multinomial; when every group has the
    same units in each repeat (the usual case), only on its summed outcome (see below).
    """
    counts = np.asarray(counts, dtype=np.int64)
    if len(counts) == 0:
        return math.nan, math.nan
    k = counts.shape[1]
    if (counts[:, :, 1] == counts[:, :1, 1]).all():
        # Each group scores the same units in every repeat (the repeats answer the same questions), so a
        # resample's mean over repeats of sum(right_r) / sum(units) is sum(right over repeats) / (k x sum(units)):
        # it depends on each group's (right summed over its repeats, units) alone, a few outcomes where the joint
        # ones are ~k-fold more. Drawing over those is the same distribution at the plain bootstrap's cost.
        collapsed = np.stack([counts[:, :, 0].sum(axis=1), k * counts[:, 0, 1]], axis=1)
        return bootstrap_ci(collapsed, strata, iters=iters, seed=seed, level=level)
    rng = np.random.default_rng(seed)
    labels = np.asarray(strata) if strata is not None else np.zeros(len(counts), dtype=np.int64)
    per_stratum = []
    for stratum in sorted(set(labels.tolist())):
        flat = counts[labels == stratum].reshape(-1, 2 * k)
        classes, weight = np.unique(flat, axis=0, return_counts=True)
        draws = rng.multinomial(int(weight.sum()), weight / weight.sum(), size=iters)  # (iters, K)
        num = draws @ classes[:, 0::2]  # (iters, k)
        den = draws @ classes[:, 1::2]
        with np.errstate(invalid="ignore", divide="ignore"):
            per_stratum.append(np.where(den > 0, 100.0 * num / np.maximum(den, 1), np.nan))
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN slice is a NaN statistic, dropped below
        per_repeat = np.nanmean(np.stack(per_stratum), axis=0) if len(per_stratum) > 1 else per_stratum[0]
        stats = np.nanmean(per_repeat, axis=1)  # over the repeats with a value, as the metric itself
    stats = stats[~np.isnan(stats)]
    if stats.size == 0:
        return math.nan, math.nan
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(stats, [tail, 100.0 - tail])
    return float(low), float(high)

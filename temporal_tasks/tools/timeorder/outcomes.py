"""The group outcomes ``timeorder`` pairs (``compare``'s), and what it makes of them: the headline key, the flip
table, the labels, the relative gain with its paired bootstrap CI."""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from temporal_tasks.api.registry import of_task
from temporal_tasks.base.errors import DataError
from temporal_tasks.scoring.bootstrap import GroupOutcomes, stratified_percent
from temporal_tasks.tools.compare import (
    ITERATIONS,
    SEED,
    comparable_metrics,
    key_outcomes,
)
from temporal_tasks.tools.timeorder.runs import TaskRun
from temporal_tasks.video.shortcut_files import SHORTCUT_VARIANTS

VARIANT_NAMES = {"blind": "blind (no visual)", "single_frame": "single frame", "shuffled": "shuffled frames"}
RATIO_NAMES = {"single_frame": "κ", "shuffled": "τ", "blind": "relative to blind"}
LABELS = (
    "answerable blind",
    "answerable from one frame",
    "answerable without the order",
    "needs the order",
    "never right",
)
# Fields a variant changes by design: the visual input. The blind variant sees no frame at all, so N and the paired
# layout do not apply to it.
IGNORED = {"blind": ("shortcut", "frames.n", "paired_layout"), "single_frame": ("shortcut",), "shuffled": ("shortcut",)}
DATA_FIELDS = ("data.annotations_sha256", "data.videos_sha256")
FRAME_FIELDS = ("frames.n", "paired_layout")  # what a frame sweep varies (the paired layout follows N)


@functools.lru_cache(maxsize=256)
def group_metrics(task: str, categories: bool = False) -> tuple[tuple[str, Callable, Callable], ...]:
    """``compare``'s :func:`~temporal_tasks.tools.compare.comparable_metrics` of ``task``, read once per task: each
    call parses the task's YAMLs, and a time-order table asks for them dozens of times. A cache of a pure function
    of the installed task files, not run state."""
    return tuple(comparable_metrics(task, categories))


def key_order(task: str) -> list[str]:
    """The group keys of ``task`` that ``compare`` tests, headline first: the spec's ``primary`` then ``headline``
    keys, then the others."""
    keys = [k for k, _, _ in group_metrics(task)]
    spec = of_task(task)
    preferred = [*(spec.primary if spec else ()), *(spec.headline if spec else ())]
    return [k for k in dict.fromkeys(preferred) if k in keys] + [k for k in keys if k not in preferred]


def category_keys(task: str, key: str) -> list[str]:
    """The per-category group keys of ``key`` (``<key>_<category>``) that ``task`` reports, as ``compare --categories``
    tests them."""
    headline = set(key_order(task))
    return [k for k, _, _ in group_metrics(task, True) if k.startswith(f"{key}_") and k not in headline]


def shared_key(tasks: Sequence[str]) -> str | None:
    """The first key (in the first task's :func:`key_order`) every task reports, or None."""
    others = [set(key_order(t)) for t in tasks[1:]]
    return next((k for k in key_order(tasks[0]) if all(k in o for o in others)), None)


def outcomes_of(tr: TaskRun, key: str, which: str, repeat: int | None = None) -> GroupOutcomes:
    """The group outcomes of ``key`` in ``tr`` (of a ``--repeats k`` run: one repeat's), exactly as ``compare``
    reads them (checked against the value the task's aggregation gives for the same payloads)."""
    for k, aggregate, outcomes in group_metrics(tr.task, True):
        if k == key:
            return key_outcomes(tr.task, key, which, aggregate, outcomes, tr.key_items(key, repeat))
    raise DataError(f"{tr.task}: {key} is not one of its group metrics.")


def right_groups(o: GroupOutcomes) -> dict[str, bool]:
    """Per group: right (every unit of it right) or not."""
    return {gid: bool(c[1] > 0 and c[0] == c[1]) for gid, c in zip(o.ids, o.counts, strict=True)}


def flip_table(main: GroupOutcomes, control: GroupOutcomes) -> dict[str, int]:
    """Groups both scored: right in both, in main only, in the control only, in neither."""
    m, c = right_groups(main), right_groups(control)
    table = {"both": 0, "main_only": 0, "control_only": 0, "neither": 0}
    for gid in m.keys() & c.keys():
        key = ("both" if c[gid] else "main_only") if m[gid] else ("control_only" if c[gid] else "neither")
        table[key] += 1
    return table


def label_groups(main: GroupOutcomes, controls: dict[str, GroupOutcomes]) -> dict[str, str]:
    """Each group all four scored (main's order), labelled by the first of :data:`LABELS` that holds."""
    right = {v: right_groups(o) for v, o in controls.items()}
    m = right_groups(main)
    out = {}
    for gid in main.ids:
        if not all(gid in right[v] for v in SHORTCUT_VARIANTS):
            continue
        found = [right["blind"][gid], right["single_frame"][gid], right["shuffled"][gid], m[gid], True]
        out[gid] = LABELS[found.index(True)]
    return out


def paired_ratio(
    base: np.ndarray,
    new: np.ndarray,
    strata: Sequence[str] | None = None,
    *,
    order: Sequence[str] = (),
    iters: int = ITERATIONS,
    seed: int = SEED,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """``(A_new - A_base) / A_base`` of aligned per-group ``[right, units]`` rows, with a paired group-bootstrap CI
    (the same resampled groups for both, within strata); NaN where ``A_base`` is 0."""
    base = np.asarray(base, dtype=np.int64).reshape(-1, 2)
    new = np.asarray(new, dtype=np.int64).reshape(-1, 2)
    vb, vn = stratified_percent(base, strata, order), stratified_percent(new, strata, order)
    value = (vn - vb) / vb if vb and not math.isnan(vb) else math.nan
    if len(base) == 0 or math.isnan(value):
        return value, math.nan, math.nan
    labels = np.asarray(strata) if strata is not None else np.zeros(len(base), dtype=np.int64)
    rng = np.random.default_rng(seed)
    per_b: list[np.ndarray] = []
    per_n: list[np.ndarray] = []
    for stratum in sorted(set(labels.tolist())):
        rows = np.flatnonzero(labels == stratum)
        idx = rng.integers(0, len(rows), size=(iters, len(rows)))
        for counts, out in ((base[rows], per_b), (new[rows], per_n)):
            den = counts[idx, 1].sum(1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out.append(np.where(den > 0, 100.0 * counts[idx, 0].sum(1) / np.maximum(den, 1), np.nan))
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample whose strata all lack units: NaN, dropped below
        b, n = np.nanmean(np.stack(per_b), axis=0), np.nanmean(np.stack(per_n), axis=0)
        stats = (n - b) / b
    stats = stats[np.isfinite(stats)]
    if stats.size == 0:
        return value, math.nan, math.nan
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(stats, [tail, 100.0 - tail])
    return value, float(low), float(high)


def aligned(control: GroupOutcomes, main: GroupOutcomes) -> tuple[np.ndarray, np.ndarray, list[str] | None]:
    """The two outcomes' counts on the groups both scored, in the control's order (as ``compare`` pairs them)."""
    at = {gid: i for i, gid in enumerate(main.ids)}
    common = [(i, at[g]) for i, g in enumerate(control.ids) if g in at]
    ci = np.asarray([i for i, _ in common], dtype=np.int64)
    mi = np.asarray([j for _, j in common], dtype=np.int64)
    strata = [control.strata[i] for i in ci] if control.strata is not None else None
    return control.counts[ci], main.counts[mi], strata

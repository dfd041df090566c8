"""The scoring core: every metric and CI of every benchmark comes from :func:`score` over a payload table.

A *payload* is the per-question dict our ``process_results`` returns (see
:func:`temporal_tasks.payloads.make_payload`). It carries ``question_id``, ``group_id``,
``role``, ``group_size``, the raw ``answer``, the ``gold`` label, the parsed ``pred``
(``None`` = unreadable) and ``correct``.

One path, torchmetrics-style: the payloads become a :class:`PayloadTable` once (``_update``),
then a :class:`Metric` says how the table reduces to per-group ``[right units, units]`` counts
(``_reduce``): which role tuples are units, what makes a unit right, what an unreadable answer
does, and whether the value is pooled or the mean of strata (VELOCITI's tests). The value and its
group-bootstrap CI come from those counts alone.

One policy for every benchmark: aggregations receive payloads in any order (lmms-eval gathers
ranks in rank order), so everything groups by ``group_id``/``role`` and never by position; a group
with members that were never evaluated (``--limit``/``--offset`` cut it) is left out of every
denominator, and one warning gives the count; a repeated answer to the same question counts once.
All metrics are percentages in 0-100; a metric with nothing to score is NaN, never a made-up 0.

Caches live for one aggregation pass: the table of the payload set being aggregated (a task's
headline list; its category keys are subsets found by identity) and the metrics computed from it.
A different payload set starts a new pass and frees the old one.
"""

from __future__ import annotations

import contextvars
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import partial
from typing import Literal

import numpy as np

from temporal_tasks.bootstrap import (
    BOOTSTRAP_ITERS,
    BOOTSTRAP_SEED,
    GroupOutcomes,
    bootstrap_ci,
    bootstrap_ci_repeats,
    percent,
    stratified_percent,
    stratum_percentages,
)
from temporal_tasks.log import warn_once
from temporal_tasks.parsing import parser_mode
from temporal_tasks.reduction import row_counts, unit_counts
from temporal_tasks.rows import Payload, slug
from temporal_tasks.scoring_pass import memo, payload_table, reset_pass
from temporal_tasks.table import PayloadTable

__all__ = [
    "BOOTSTRAP_ITERS", "BOOTSTRAP_SEED", "STABILITY", "GroupOutcomes", "InvalidPolicy", "Metric", "MetricResult",
    "Payload", "PayloadTable", "Units", "aggregators", "bootstrap_ci", "bootstrap_ci_repeats", "group_counts",
    "group_outcomes", "outcome_functions", "payload_table", "percent", "reset_pass",
    "score", "slug", "stability_aggregations", "stratified_percent", "stratum_percentages",
]  # fmt: skip

Units = Sequence[Sequence[str]] | Literal["each", "all"]
# "wrong": an unreadable answer is a wrong answer; "drop": a unit holding one leaves the denominator;
# "drop_group": every unit of a group holding one leaves it (VELOCITI's official closed-model rule).
InvalidPolicy = Literal["wrong", "drop", "drop_group"]


# --------------------------------------------------------------------------- metric specs


@dataclass(frozen=True)
class Metric:
    """How a metric reduces a payload table to per-group ``[right units, units]`` counts.

    ``units``: ``"each"`` (every question), ``"all"`` (the whole group) or role tuples. A unit is
    right when all its members are correct (``rule="correct"``), or, with ``rule="score_gt"``, when
    its first role's ``score_field`` is above its second's (VELOCITI's ClassicVLE). ``invalid_official``:
    the invalid policy in the ``official`` parser mode (VELOCITI's closed-model rule; None: ``invalid``). ``strata``: a
    payload field; the value is then the mean of the strata's percentages (``exclude_strata``
    left out, a warning when fewer than ``expect_strata`` have a value; summed in ``strata_order``, the
    paper's column order, so that the value is the same to the last bit), and the bootstrap resamples
    within strata. ``one_stratum``: a per-stratum key; several strata in it are an error (:meth:`one_category`
    gives a stratified metric's per-stratum form).
    ``row_field``: only questions whose slugged field equals the key's ``row_value`` are units
    (TemporalBench's per-category keys, which receive whole videos).
    """

    units: Units = "each"
    invalid: InvalidPolicy = "wrong"
    invalid_official: InvalidPolicy | None = None
    rule: Literal["correct", "score_gt"] = "correct"
    score_field: str = ""
    strata: str | None = None
    exclude_strata: tuple[str, ...] = ()
    strata_order: tuple[str, ...] = ()
    expect_strata: int = 0
    one_stratum: bool = False
    row_field: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.units, str):  # role tuples, hashable (a metric keys the pass's memo)
            object.__setattr__(self, "units", tuple(tuple(unit) for unit in self.units))

    def policy(self) -> InvalidPolicy:
        """The invalid-answer policy in force (it may follow the parser mode)."""
        if self.invalid_official is not None and parser_mode() == "official":
            return self.invalid_official
        return self.invalid

    def one_category(self) -> Metric:
        """The metric on one category's payloads (the ``<metric>_<category>`` keys).

        The metric itself, except for a mean over strata: a category key of those receives one stratum (VELOCITI's
        per-test keys), so it is that stratum's pooled percentage, with every stratum allowed and no CI.
        """
        if self.strata is None:
            return self
        return replace(self, exclude_strata=(), expect_strata=0, one_stratum=True)


@dataclass(frozen=True)
class MetricResult:
    """A metric value with its bootstrap CI; with ``--repeats k`` (k > 1) also its stability over the repeats.

    ``value``: the mean over the repeats of the metric on repeat r alone; ``consensus_accuracy``: the metric
    on each question's majority reading; ``consistency_rate``: percent of groups whose outcome is the same in
    every repeat; ``repeat_sd``: sample SD of the per-repeat values. NaN with one answer per question.
    """

    value: float
    ci_low: float
    ci_high: float
    consensus_accuracy: float = math.nan
    consistency_rate: float = math.nan
    repeat_sd: float = math.nan


class _LazyCI(MetricResult):
    """A :class:`MetricResult` whose CI is bootstrapped on its first read: most metric keys (categories, sources,
    stability views) only report the value, and under ``--repeats`` the joint-outcome bootstrap is the costly step.
    The CI is the same function of the same counts, so it is the same to the last bit whenever it is read."""

    def __init__(self, ci: Callable[[], tuple[float, float]], value: float, **stability: float) -> None:
        object.__setattr__(self, "_ci", ci)
        object.__setattr__(self, "value", value)
        for name, v in stability.items():
            object.__setattr__(self, name, v)

    def __getattr__(self, name: str) -> float:  # only called for an attribute not set yet
        if name not in ("ci_low", "ci_high"):
            raise AttributeError(name)
        low, high = self._ci()
        object.__setattr__(self, "ci_low", low)
        object.__setattr__(self, "ci_high", high)
        object.__setattr__(self, "_ci", None)  # read once: the counts it holds are no longer needed
        return low if name == "ci_low" else high

    def plain(self) -> MetricResult:
        """The same numbers as a plain :class:`MetricResult`."""
        return MetricResult(*(getattr(self, f.name) for f in fields(MetricResult)))

    def __eq__(self, other: object) -> bool:
        return self.plain() == (other.plain() if isinstance(other, _LazyCI) else other)

    def __hash__(self) -> int:
        return hash(self.plain())

    def __repr__(self) -> str:
        return repr(self.plain())

    def __reduce__(self):  # noqa: ANN204 - pickles (and copies) as the plain result, CI computed
        return (MetricResult, tuple(getattr(self, f.name) for f in fields(MetricResult)))


# The stability keys ``<metric>_<suffix>`` of a sampled run (``--repeats k``, k > 1).
STABILITY = ("consensus_accuracy", "consistency_rate", "repeat_sd")
_view: contextvars.ContextVar[str | None] = contextvars.ContextVar("temporal_tasks_stability_view", default=None)


def stability_aggregations(namespace: Mapping[str, Callable], names: Sequence[str]) -> dict[str, Callable]:
    """For each aggregation ``namespace[name]``, the functions ``<name>_<suffix>`` of :data:`STABILITY`.

    Each runs the aggregation with :func:`score` answering that stability field as the value, so any
    aggregation built on :func:`score` (headline, category, per-test) gets its stability keys without a
    second implementation.
    """
    out: dict[str, Callable] = {}
    for name in names:
        for suffix in STABILITY:

            def fn(items: list, _f: Callable = namespace[name], _s: str = suffix) -> float:
                token = _view.set(_s)
                try:
                    return _f(items)
                finally:
                    _view.reset(token)

            fn.__name__ = fn.__qualname__ = f"{name}_{suffix}"
            fn.__doc__ = f"{name}: {suffix.replace('_', ' ')} over the --repeats answers (percent / points)."
            out[fn.__name__] = fn
    return out


# --------------------------------------------------------------------------- reduce: counts per group


def group_counts(table: PayloadTable, metric: Metric, row_value: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, complete)``: per complete group ``[right units, units]``; ``complete`` over the groups seen."""
    complete = table.groups()[2]
    policy = metric.policy()
    mine = _mine(table, metric, row_value)
    if isinstance(metric.units, str):
        right, total = row_counts(table, metric.units, policy, mine)
    else:
        right, total = unit_counts(
            table, metric.units, policy, mine, metric.score_field if metric.rule == "score_gt" else None
        )
    if policy == "drop_group":  # every unit of a group holding an unreadable answer leaves
        usable = table.count_per_group(table.invalid) == 0
        right, total = right * usable, total * usable
    # (groups, 2); (groups, k + 1, 2) over every reading at once (PayloadTable.for_readings)
    right, total = np.broadcast_arrays(right, total)
    counts = np.empty((*right.shape, 2), np.int64)  # one fresh array (at a million rows, its pages are the cost)
    counts[..., 0], counts[..., 1] = right, total
    return counts, complete


def _mine(table: PayloadTable, metric: Metric, row_value: str | None) -> np.ndarray | None:
    """Per row, whether it is one of this key's questions (``row_field``); None when every row is."""
    if metric.row_field is None:
        return None
    field = metric.row_field  # the same rows in every repeat's view: computed once for them all
    return table.shared(("mine", field, row_value), lambda: np.asarray(table.field_slugs(field, slug) == row_value))


def group_strata(table: PayloadTable, field_name: str) -> np.ndarray:
    """Per complete group, the stratum its first member names (an object array of strings)."""
    seen, rows, complete = table.groups()
    first = np.full(len(seen), -1, dtype=np.int64)
    order = np.arange(len(rows))[::-1]
    first[rows[order]] = order  # the first row of each group wins
    values = table.values(field_name)
    return values[first][complete]


# --------------------------------------------------------------------------- values and CIs


def score(
    items: Sequence[Payload],
    metric: Metric,
    *,
    label: str,
    key: str,
    report: bool = False,
    row_value: str | None = None,
) -> MetricResult:
    """A metric's value and its group-bootstrap 95% CI (memoised within the aggregation pass)."""

    def compute() -> MetricResult:
        if not items:
            return MetricResult(math.nan, math.nan, math.nan)
        table = payload_table(items, label)
        if table.repeats > 1:
            return _score_repeats(table, metric, label=label, key=key, report=report, row_value=row_value)
        counts, complete = group_counts(table, metric, row_value)
        if report:
            _warn_left_out(label, complete, table.duplicates)
        if metric.strata is None:
            scored = _compact(counts[counts[:, 1] > 0])
            return _LazyCI(lambda: bootstrap_ci(scored), _one_value(counts, None, metric, label, key))
        strata = group_strata(table, metric.strata)
        value = _one_value(counts, strata, metric, label, key)
        if metric.one_stratum:
            return MetricResult(value, math.nan, math.nan)
        keep = (counts[:, 1] > 0) & ~np.isin(strata, list(metric.exclude_strata))
        kept, kept_strata = _compact(counts[keep]), strata[keep]
        return _LazyCI(lambda: bootstrap_ci(kept, kept_strata.tolist()), value)

    result = memo(("score", label, key, metric, metric.policy(), row_value), items, compute)
    view = _view.get()
    if view is None:
        return result
    return MetricResult(getattr(result, view), math.nan, math.nan)


def _compact(counts: np.ndarray) -> np.ndarray:
    """``counts`` (non-negative) in the smallest integer type that holds them: the pass keeps each key's counts
    until its CI is read (many keys never read it), and at a million rows their memory is what costs."""
    if not counts.size:
        return counts
    return counts.astype(np.min_scalar_type(int(counts.max())), copy=False)


def _one_value(counts: np.ndarray, strata: np.ndarray | None, metric: Metric, label: str, key: str) -> float:
    """The metric's value from per-group counts: pooled, or the mean of the strata's pooled percentages."""
    if strata is None:
        return percent(int(counts[:, 0].sum()), int(counts[:, 1].sum()))
    per = stratum_percentages(counts, strata)
    if metric.one_stratum:
        if len(per) > 1:
            raise ValueError(f"{label}: a per-stratum key {key} received several strata {sorted(per)}")
        return next(iter(per.values())) if per else math.nan
    return _strata_mean(per, metric, label, key)


def _score_repeats(
    table: PayloadTable, metric: Metric, *, label: str, key: str, report: bool, row_value: str | None
) -> MetricResult:
    """:func:`score` of a sampled run (k > 1 answers per question): every repeat scored on its own.

    Stability is per group, not per question: the headline metrics are all-or-nothing over a group, so a
    group's outcome (its ``[right, units]`` counts) is what must be stable. The CI resamples groups with
    their k outcomes together.
    """
    k = table.repeats
    # One reduction for every reading: per group, the k repeats' counts and then the majority reading's.
    readings, complete = group_counts(table.for_readings(), metric, row_value)
    if report:
        _warn_left_out(label, complete, table.duplicates)
    counts, consensus_counts = readings[:, :k], readings[:, k]  # (groups, k, 2), (groups, 2)
    strata = group_strata(table, metric.strata) if metric.strata is not None else None
    values = np.array([_one_value(counts[:, r], strata, metric, label, key) for r in range(k)], dtype=float)
    consensus = _one_value(consensus_counts, strata, metric, label, key)
    keep = (counts[:, :, 1] > 0).any(axis=1)
    if strata is not None and not metric.one_stratum:
        keep &= ~np.isin(strata, list(metric.exclude_strata))
    same = (counts == counts[:, :1]).all(axis=(1, 2))
    consistency = percent(int((same & keep).sum()), int(keep.sum()))
    # A repeat with nothing to score for this key (e.g. VELOCITI's official rule dropped all its pairs) has no
    # value: the mean and SD are over the repeats that have one (NaN when none, SD NaN below two).
    scored = values[~np.isnan(values)]
    value = float(scored.sum() / len(scored)) if len(scored) else math.nan
    sd = float(np.std(scored, ddof=1)) if len(scored) > 1 else math.nan

    def ci() -> tuple[float, float]:
        if metric.one_stratum:
            return math.nan, math.nan
        return bootstrap_ci_repeats(counts[keep], None if strata is None else strata[keep].tolist())

    return _LazyCI(ci, value, consensus_accuracy=consensus, consistency_rate=consistency, repeat_sd=sd)


def _strata_mean(per: Mapping[str, float], metric: Metric, label: str, key: str) -> float:
    order = [s for s in metric.strata_order if s in per] + [s for s in per if s not in metric.strata_order]
    values = [per[s] for s in order if s not in metric.exclude_strata and not math.isnan(per[s])]
    if not values:
        return math.nan
    if metric.expect_strata and len(values) < metric.expect_strata:
        warn_once(
            f"{label}: {key} averages only {len(values)} of the {metric.expect_strata} tests (the others had nothing "
            "to score)."
        )
    return sum(values) / len(values)


def _warn_left_out(label: str, complete: np.ndarray, duplicates: int) -> None:
    left_out = int((~complete).sum())
    if left_out or duplicates:
        msg = (
            f"{label}: scored {int(complete.sum())} complete groups; left out {left_out} incomplete "
            f"group(s) whose other questions were not evaluated (--limit/--offset)"
        )
        if duplicates:
            msg += f"; ignored {duplicates} repeated answer(s) to the same question"
        warn_once(msg)


# --------------------------------------------------------------------------- metrics as functions over groups


def group_outcomes(
    items: Sequence[Payload], metric: Metric, *, label: str = "", row_value: str | None = None
) -> GroupOutcomes:
    """The per-group counts behind :func:`score` (complete groups that hold a unit, excluded strata left out),
    with their group ids: the same reduction the value and its CI come from."""
    if not items:
        return GroupOutcomes([], np.zeros((0, 2), dtype=np.int64))
    table = payload_table(items, label)
    counts, complete = group_counts(table, metric, row_value)
    seen = table.groups()[0]
    ids = np.asarray([str(g) for g in table.group_names[seen[complete]].tolist()], dtype=object)
    keep = counts[:, 1] > 0
    strata = None
    if metric.strata is not None:
        labels = group_strata(table, metric.strata)
        keep &= ~np.isin(labels, list(metric.exclude_strata))
        strata = [str(x) for x in labels[keep].tolist()]
    return GroupOutcomes(ids[keep].tolist(), counts[keep], strata)


def outcome_functions(
    label: str, metrics: Mapping[str, Metric], *, prefix: str = "", category: str = "category"
) -> dict[str, Callable[[list], GroupOutcomes]]:
    """``{aggregation name: items -> GroupOutcomes}`` of the value and per-category aggregations that
    :func:`aggregators` builds with the same ``prefix`` and ``category``."""
    pairs = [(prefix + n, m) for n, m in metrics.items()]
    pairs += [(f"{prefix}{n}_{category}", m.one_category()) for n, m in metrics.items()]
    return {agg: partial(group_outcomes, metric=m, label=label) for agg, m in pairs}


# --------------------------------------------------------------------------- lmms-eval aggregations


def _variants(
    metrics: Mapping[str, Metric], prefix: str, category: str, row_field: str | None, row_values: Sequence[str]
) -> list[tuple[str, str, Metric, str | None, bool]]:
    """``(aggregation name, metric name, metric, row value, is the headline)`` of every aggregation built."""
    out = []
    for name, metric in metrics.items():
        out.append((prefix + name, name, metric, None, True))
        out.append((f"{prefix}{name}_{category}", name, metric.one_category(), None, False))
        out += [(f"{prefix}{name}_{v}", name, replace(metric, row_field=row_field), v, False) for v in row_values]
    if len({v[0] for v in out}) < len(out):
        raise ValueError(f"{prefix}{list(metrics)}: aggregation names collide (a row value named {category!r}?)")
    return out


def aggregators(
    label: str | Callable[[Sequence[Payload]], str],
    metrics: Mapping[str, Metric],
    *,
    report: str | Sequence[str] = (),
    prefix: str = "",
    category: str = "category",
    row_field: str | None = None,
    row_values: Sequence[str] = (),
) -> dict[str, Callable[[list], float]]:
    """lmms-eval aggregation functions of each metric ``m``, with their ``--repeats`` stability functions.

    ``<m>``, ``<m>_ci_low``, ``<m>_ci_high``; ``<m>_<category>``: the metric on one category's payloads
    (:meth:`Metric.one_category`), silent; with ``row_field``, ``<m>_<v>`` for each of ``row_values``: only
    questions whose slugged ``row_field`` is ``v`` are units (the key receives whole groups), silent.
    ``prefix`` goes before the functions' names, not into the metric's key. ``label`` names the payloads in
    warnings (or is a function of them). ``report``: the metric(s) whose value warns once about cut groups.
    """
    reporting = {report} if isinstance(report, str) else set(report)
    title = label if isinstance(label, str) else label([])
    out: dict[str, Callable[[list], float]] = {}
    for agg, name, metric, row, headline in _variants(metrics, prefix, category, row_field, row_values):

        def result(items: list, _k=name, _m=metric, _row=row, _rep=headline and name in reporting) -> MetricResult:
            where = label if isinstance(label, str) else label(items)
            return score(items, _m, label=where, key=_k, report=_rep, row_value=_row)

        for suffix, field in (("", "value"), ("_ci_low", "ci_low"), ("_ci_high", "ci_high"))[: 3 if headline else 1]:

            def fn(items: list, _r: Callable = result, _f: str = field) -> float:
                return getattr(_r(items), _f)

            fn.__name__ = fn.__qualname__ = f"{agg}{suffix}"
            fn.__doc__ = f"{title} {agg}: {field.replace('_', ' ')} (percent; groups bootstrapped for the CI)."
            out[fn.__name__] = fn
        out.update(stability_aggregations(out, (agg,)))
    return out

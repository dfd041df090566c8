"""The lmms-eval aggregation of every metric key, made from its one declaration in the benchmark's spec.

A task YAML names each key's aggregation ``!function temporal_tasks.scoring.aggregations.<benchmark>__<name>``
(``<name>``: the list's ``prefix`` + the key), which this module resolves through the registry. An aggregation first
checks that the answers cover the questions the run selected, then computes: a ``Metric``'s value (with
``--repeats``, the mean over repeats), CI bounds, per-category value and ``--repeats`` stability keys; a
``Difference``; a ``Custom`` function; or a diagnostic every generate task shares (``invalid_rate``,
``parse_disagreement``, ``truncated_rate``). A group metric's aggregation also gives its group outcomes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from temporal_tasks.api.registry import get, names
from temporal_tasks.api.spec import STABILITY, Benchmark, Custom, Difference, Metric, MetricList
from temporal_tasks.base.errors import DataError, exit_run
from temporal_tasks.base.log import first_time, logger
from temporal_tasks.compat import aggregating_task, aggregation_selection
from temporal_tasks.scoring.bootstrap import GroupOutcomes, percent
from temporal_tasks.scoring.metrics import Within, ci, outcomes, question_rate, score, scored
from temporal_tasks.scoring.table import DISAGREE, INVALID, TRUNCATED

TRUNCATED_WARN_PERCENT = 5.0


class Aggregation:
    """One metric key's lmms-eval aggregation: ``aggregation(items) -> float`` over the key's payloads (all ranks).

    ``label`` names the payloads in warnings and errors outside lmms-eval (inside: the task's name);
    ``group_outcomes``: a group metric's per-group counts (its value or a category key), else None.
    """

    __slots__ = ("category", "compute", "group_outcomes", "label", "name", "path")

    def __init__(
        self,
        path: str,
        label: str,
        compute: Callable[[list, str], float],
        group_outcomes: Callable[[list, str], GroupOutcomes] | None = None,
        category: bool = False,
    ) -> None:
        self.path, self.label, self.compute = path, label, compute
        self.name = path.rpartition("__")[2]  # prefix + key
        self.group_outcomes, self.category = group_outcomes, category

    def __call__(self, items: list) -> float:
        task, _ = aggregating_task()
        label = self.label if task is None else task
        check_scored_selected(label)
        return self.compute(items, label)

    def outcomes(self, items: list) -> GroupOutcomes | None:
        """The group outcomes behind the value (None: the key has none)."""
        return None if self.group_outcomes is None else self.group_outcomes(items, self.label)

    def __repr__(self) -> str:  # what lmms-eval writes for the function in a results file's task config
        return f"<aggregation {self.path}>"

    def __deepcopy__(self, memo: dict) -> Aggregation:  # immutable: lmms-eval's config dump copies it as is
        return self


def check_scored_selected(label: str = "") -> None:
    """Inside an lmms-eval aggregation: stop unless the answers cover every question the run selected.

    lmms-eval's ``--cache_requests true`` keys its request cache by task name, shot count, rank and world
    size only, so a cache written for a smaller data folder replays a stale subset of requests: the
    scores would be over that subset while ``n-samples`` names the whole set. Outside an aggregation
    (``rescore``, tests) this does nothing (see :func:`temporal_tasks.compat.aggregation_selection`).
    """
    found = aggregation_selection()
    if found is None:
        return
    task, selected, answered = found
    if answered and answered < selected:
        exit_run(
            DataError(
                f"{task or label}: the run selected {selected} questions (the data after --limit/--offset, all "
                f"ranks) but only {answered} were answered. The likely cause is a stale lmms-eval request cache: "
                "--cache_requests true reuses the requests built by an earlier run of this task (the cache is keyed "
                "by task name, shots, rank and world size only, not by the data). Rerun with --cache_requests "
                "refresh (or without --cache_requests). No score is reported over a silent subset."
            )
        )


# --------------------------------------------------------------------------- the diagnostics every task shares


def invalid_rate(items: list, label: str = "") -> float:
    """Percent of scored answers (complete groups) that could not be read (or whose score is undefined)."""
    return question_rate(items, INVALID, label)


def parse_disagreement(items: list, label: str = "parse_disagreement") -> float:
    """Percent of scored answers (complete groups) whose robust and official readings differ (both modes alike)."""
    return question_rate(items, DISAGREE, label)


def truncated_rate(items: list, label: str = "truncated_rate") -> float:
    """Percent of scored answers (complete groups) cut off inside their reasoning (an opened ``<think>`` never
    closed: ``max_new_tokens`` ran out). Such answers are unreadable, so they are part of ``invalid_rate`` too.
    Above 5% it warns once per task with the flag to raise; it also reports parser exceptions (bugs in this
    package), which are counted apart from unreadable answers."""
    if items and "pred" not in items[0]:  # free-text answers (captions): groups of one, nothing parsed
        unique = {p["question_id"]: bool(p.get("truncated")) for p in items}
        value, errors = percent(sum(unique.values()), len(unique)), 0
    else:
        value = question_rate(items, TRUNCATED, label)
        errors = scored(items, label).table.parser_errors if items else 0
    task, max_new_tokens = aggregating_task()
    task = task or "this task"
    if value == value and value > TRUNCATED_WARN_PERCENT and first_time(f"truncated_rate:{task}"):
        now = f" (now {max_new_tokens})" if max_new_tokens else ""
        logger.warning(
            f"{task}: {value:.1f}% of the scored answers were cut off inside <think> before any final answer, so "
            f"they count as unreadable and wrong. The model is still thinking when max_new_tokens runs out{now}: "
            f"rerun with --gen_kwargs max_new_tokens=4096 (or more) for a thinking model."
        )
    if errors:
        logger.warning(
            f"{task}: {errors} reading(s) of answers raised inside the temporal-tasks parser and were counted as "
            "unreadable. That is a bug in temporal-tasks, not the model's fault: report it with the first traceback "
            "in this log."
        )
    return value


DIAGNOSTICS = {"invalid_rate": invalid_rate, "parse_disagreement": parse_disagreement, "truncated_rate": truncated_rate}


# --------------------------------------------------------------------------- a benchmark's aggregations


def _metric(metric: Metric, key: str, part: str, *, report: bool = False, within: Within = None,
            one_stratum: bool = False) -> Callable[[list, str], float]:  # fmt: skip
    if part in ("ci_low", "ci_high"):
        side = 0 if part == "ci_low" else 1
        return lambda items, label: ci(items, metric, label=label)[side]
    return lambda items, label: getattr(
        score(items, metric, label=label, key=key, report=report, within=within, one_stratum=one_stratum), part
    )


def list_aggregations(spec: Benchmark, ml: MetricList) -> dict[str, Aggregation]:
    """The aggregations of one metric list, by function name (``prefix`` + key)."""
    label = ml.label or spec.name
    out: dict[str, Aggregation] = {}

    def add(
        key: str,
        compute: Callable[[list, str], float],
        *,
        category: bool = False,
        group_outcomes: Callable[[list, str], GroupOutcomes] | None = None,
    ) -> None:
        path = f"{__name__}.{function_name(spec.name, ml.prefix + key)}"
        out[ml.prefix + key] = Aggregation(path, label, compute, group_outcomes=group_outcomes, category=category)

    def value(key: str, family: str, within: Within = None, category: bool = False) -> None:
        declared = ml.values[family]
        if isinstance(declared, Metric):
            one = category and declared.strata is not None

            def groups(items: list, label: str) -> GroupOutcomes:
                return outcomes(items, declared, label=label, one_stratum=one)

            for part in ("value", *(STABILITY if ml.stability else ())):
                add(
                    key if part == "value" else f"{key}_{part}",
                    _metric(declared, key, part, report=not category, within=within, one_stratum=one),
                    category=category,
                    group_outcomes=groups if part == "value" and within is None else None,
                )
        elif isinstance(declared, Difference):
            suffix = key.removeprefix(family)  # "" or "_<category>": the operands' keys of the same category
            first, second = (ml.prefix + name + suffix for name in (declared.minuend, declared.subtrahend))
            add(key, lambda items, label: out[first].compute(items, label) - out[second].compute(items, label),
                category=category)  # fmt: skip
        else:
            assert isinstance(declared, Custom)
            add(key, lambda items, _label: spec.resolve(declared.function)(items), category=category)

    for key in ml.values:
        value(key, key)
    for name in ml.diagnostics:
        add(name, DIAGNOSTICS[name])
    for key in ml.ci:
        declared = ml.values[key]
        assert isinstance(declared, Metric)
        for part in ("ci_low", "ci_high"):
            add(f"{key}_{part}", _metric(declared, key, part))
    for block in ml.per_category:
        for family, category in block.pairs():
            within = None if block.within is None else (block.within, category)
            value(f"{family}_{category}", family, within, category=True)
    return out


@functools.cache
def functions(benchmark: str) -> dict[str, Aggregation]:
    """Every aggregation of a registered benchmark's metric lists, by function name. Two lists may declare the same
    key (tasks of one benchmark that share metrics) only with the same declaration."""
    spec = get(benchmark)
    out: dict[str, Aggregation] = {}
    declared: dict[str, object] = {}
    for ml in spec.metric_lists:
        for key, value in ml.values.items():
            if declared.setdefault(ml.prefix + key, value) != value:
                raise ValueError(f"{benchmark}: two metric lists declare {key} differently; give one a prefix.")
        for name, fn in list_aggregations(spec, ml).items():
            out.setdefault(name, fn)
    return out


def function_name(benchmark: str, name: str) -> str:
    """The attribute of this module that is ``benchmark``'s aggregation ``name``."""
    return f"{benchmark}__{name}"


def __getattr__(name: str) -> Aggregation:
    """lmms-eval's ``!function temporal_tasks.scoring.aggregations.<benchmark>__<name>`` (see :func:`functions`)."""
    benchmark, sep, function = name.partition("__")
    found = functions(benchmark).get(function) if sep and benchmark in names() else None
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return found

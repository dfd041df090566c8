"""How the report lays a benchmark out: :class:`BenchmarkLayout`, read from the registered specs.

Every benchmark-specific fact (title, headline metrics, category families and order, task order,
shortcut variants, chart labels) comes from its :class:`~temporal_tasks.api.spec.Benchmark`;
tasks and metrics no spec knows are still reported, generically.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from temporal_tasks.api.registry import Benchmark, of_task, registered
from temporal_tasks.api.spec import STABILITY

SHORTCUT_LABELS = ("video (main task)", "blind (no visual)", "single frame", "shuffled frames")

# Chart labels of the diagnostics every benchmark reports; a spec's ``metric_labels`` name its own metrics.
# Tables keep the result keys so they match the CSV and the JSON.
GENERIC_LABELS = {
    "invalid_rate": "invalid answers",
    "parse_disagreement": "robust vs official reading differ",
    "truncated_rate": "cut off while thinking",
}
# Diagnostics, not scores: in the tables, left out of the score charts.
NOT_CHARTED = frozenset({"invalid_rate", "parse_disagreement", "truncated_rate"})


@dataclass(frozen=True)
class BenchmarkLayout:
    """One report section: its title and how its metric keys are laid out."""

    name: str  # the section title: the spec's ``title``, or the task name of an unknown task
    headline: tuple[str, ...]  # headline metric keys, in display order
    families: tuple[str, ...] = ()  # category metrics are ``<family>_<category>``
    categories: tuple[str, ...] = ()  # preferred category order; unknown categories follow, sorted
    tasks: tuple[str, ...] = ()  # preferred task order in the report; unknown tasks follow, sorted
    primary: tuple[str, ...] = ()  # the headline number of `summary`: the first of these a task reports
    # Shortcut analyses (temporal_tasks.harness.shortcuts): (main task, blind, single frame, shuffled)
    shortcuts: tuple[str, ...] = ()

    @classmethod
    def of(cls, spec: Benchmark) -> BenchmarkLayout:
        """The layout a benchmark spec declares."""
        return cls(
            name=spec.title,
            headline=tuple(spec.headline),
            families=tuple(spec.families),
            categories=tuple(spec.categories),
            tasks=tuple(spec.tasks),
            primary=tuple(spec.primary),
            shortcuts=tuple(spec.shortcut_tasks),
        )


class _Same:
    """A key equal only to itself: the registry's specs dict, by identity (a dict is not hashable)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Mapping[str, Benchmark]) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj


def _layouts() -> dict[str, BenchmarkLayout]:
    return _layouts_of(_Same(registered()))


@functools.lru_cache(maxsize=1)
def _layouts_of(specs: _Same) -> dict[str, BenchmarkLayout]:
    # Rebuilt when the registry is (its cache cleared), and otherwise the same objects, so
    # ``benchmark_of(task) is layout`` holds. A cache of a pure function of the specs, not run state.
    return {name: BenchmarkLayout.of(spec) for name, spec in specs.obj.items()}


def benchmarks() -> tuple[BenchmarkLayout, ...]:
    """The layout of every registered benchmark, in registry (display) order."""
    return tuple(_layouts().values())


def benchmark_of(task: str) -> BenchmarkLayout | None:
    """The layout of the benchmark owning ``task`` (:func:`temporal_tasks.api.registry.of_task`), or None."""
    spec = of_task(task)
    return None if spec is None else _layouts()[spec.name]


def metric_labels() -> Mapping[str, str]:
    """Short chart labels by metric key: every spec's ``metric_labels``, then the generic diagnostics."""
    labels: dict[str, str] = {}
    for spec in registered().values():
        labels.update(spec.metric_labels)
    return labels | GENERIC_LABELS


def metric_label(metric: str) -> str:
    """The short label of ``metric`` for charts and the summary (the key itself when none is declared)."""
    return metric_labels().get(metric, metric)


def classify(spec: BenchmarkLayout, metric: str) -> tuple[str, str | None, str | None]:
    """``("headline", None, None)``, ``("category", family, category)`` or ``("other", None, None)``."""
    if metric in spec.headline:
        return "headline", None, None
    found = category_of(spec, metric)
    return ("other", None, None) if found is None else ("category", *found)


def category_of(spec: BenchmarkLayout, metric: str) -> tuple[str, str] | None:
    """``(family, category)`` when ``metric`` is a per-category key of ``spec`` (not a headline metric), else None."""
    if metric in spec.headline or metric.endswith(tuple(f"_{suffix}" for suffix in STABILITY)):
        return None  # --repeats stability keys (instance_acc_repeat_sd) are not categories
    for family in sorted(spec.families, key=len, reverse=True):
        if metric.startswith(family + "_") and len(metric) > len(family) + 1:
            return family, metric[len(family) + 1 :]
    return None


def ordered(items: Iterable[str], preferred: Sequence[str]) -> list[str]:
    """``items`` in the ``preferred`` order, the rest after them, sorted."""
    items = set(items)
    return [x for x in preferred if x in items] + sorted(items - set(preferred))

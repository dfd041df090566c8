"""The report's arrangement of runs and reference numbers: a :class:`BenchmarkView` per benchmark section,
a :class:`TaskView` per task, a :class:`Series` per run or paper row."""

from __future__ import annotations

from dataclasses import dataclass

from temporal_tasks.tools.report.layout import BenchmarkLayout, benchmark_of, benchmarks, category_of, ordered
from temporal_tasks.tools.report.references import Reference
from temporal_tasks.tools.report.results import RunResults, Value


@dataclass
class Series:
    """One row of a task's tables (a bar colour in its charts): a run, or a paper's numbers."""

    label: str  # unique within a benchmark section
    source: str
    is_reference: bool
    values: dict[str, Value]
    legend: str
    ref: Reference | None = None


@dataclass
class TaskView:
    """One task's tables: its headline metrics, category families, other metrics and rows."""

    task: str
    headline: list[str]
    families: dict[str, list[str]]  # family -> categories present in the runs
    other: list[str]  # metrics that fit neither: still shown
    series: list[Series]


@dataclass
class BenchmarkView:
    """One benchmark section of the report and the reference entries it shows."""

    spec: BenchmarkLayout
    tasks: list[TaskView]
    references: list[Reference]


def build_views(runs: list[RunResults], references: list[Reference]) -> list[BenchmarkView]:
    """The report's sections: registered benchmarks in registry order, then unknown tasks, sorted."""
    by_bench: dict[str, tuple[BenchmarkLayout, dict[str, list[RunResults]]]] = {}
    for run in runs:
        for task in run.results:
            spec = benchmark_of(task)
            if spec is None:
                # Unknown task: its own section, every metric treated as a headline metric.
                known = sorted({m for r in runs for m in r.results.get(task, {})})
                spec = BenchmarkLayout(task, tuple(known))
            bench = by_bench.setdefault(spec.name, (spec, {}))
            bench[1].setdefault(task, [])
            if run not in bench[1][task]:
                bench[1][task].append(run)

    order = {s.name: i for i, s in enumerate(benchmarks())}
    views = []
    for name in sorted(by_bench, key=lambda n: (order.get(n, len(order)), n)):
        spec, tasks = by_bench[name]
        refs = [r for r in references if r.benchmark == spec.name]
        task_views = []
        used_refs: list[Reference] = []
        for task in ordered(tasks, spec.tasks):
            task_runs = tasks[task]
            metrics = {m for r in task_runs for m in r.results[task]}
            headline = [m for m in spec.headline if m in metrics]
            fams: dict[str, set[str]] = {}
            other = []
            for m in metrics:
                found = category_of(spec, m)
                if found is not None:
                    family, category = found
                    fams.setdefault(family, set()).add(category)
                elif m not in spec.headline:
                    other.append(m)
            families = {f: ordered(fams[f], spec.categories) for f in spec.families if f in fams}
            series = [
                Series(r.label, str(r.path), False, r.results[task], r.label + (" (partial)" if r.partial else ""))
                for r in task_runs
            ]
            for ref in refs:
                if task not in ref.tasks:
                    continue
                shown = {m: v for m, v in ref.metrics.items() if m in metrics}
                if shown:
                    series.append(Series(f"{ref.label} (paper)", "paper", True, shown, f"paper: {ref.label}", ref))
                    if ref not in used_refs:
                        used_refs.append(ref)
            task_views.append(TaskView(task, headline, families, sorted(other), series))
        views.append(BenchmarkView(spec, task_views, used_refs))
    _unique_reference_labels(views)
    return views


def _unique_reference_labels(views: list[BenchmarkView]) -> None:
    # Two paper rows with the same label in one table (one model in two settings): add the setting.
    for view in views:
        for tv in view.tasks:
            labels = [s.ref.label for s in tv.series if s.ref is not None]
            for s in tv.series:
                if s.ref is not None and labels.count(s.ref.label) > 1:
                    s.label = f"{s.ref.label}, {s.ref.setting} (paper)"
                    s.legend = f"paper: {s.ref.label}, {s.ref.setting}"

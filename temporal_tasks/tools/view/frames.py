"""The viewer's frames view: ``timeorder``'s frame-count series (:func:`~temporal_tasks.tools.timeorder.frame_series`)
of the runs under the paths viewed, each as the score against N with its CI and the paired successive-N steps, the
same numbers ``timeorder`` writes to ``frames.csv``, plus an inline SVG chart of them."""

from __future__ import annotations

from pathlib import Path

from temporal_tasks.base.errors import DataError
from temporal_tasks.tools.report.layout import metric_label
from temporal_tasks.tools.timeorder import FrameSeries, TaskRun, collect
from temporal_tasks.tools.view.charts import series_chart
from temporal_tasks.tools.view.extract import number


def sweep_runs(paths: list[str | Path], notes: list[str]) -> list[TaskRun]:
    """Every task of every run under ``paths`` (``timeorder``'s :func:`~temporal_tasks.tools.timeorder.collect`),
    where the frames view looks for runs that differ only in N; a folder it cannot read is a note, not an error."""
    try:
        return collect(paths)
    except DataError as exc:
        notes.append(f"frames view: {exc}")
        return []


def frames_data(series: list[FrameSeries]) -> list[dict]:
    """One entry per series: ``{task, benchmark, model, key, label, points, steps, notes, chart}``; a point is
    ``{n, run, value, ci_low, ci_high, groups}``, a step ``compare``'s row between two successive N (``step``:
    ``"N=a -> N=b"``, ``base``, ``new``, ``diff``, ``ci_low``, ``ci_high``, ``p_value``, ``groups``)."""
    out = []
    for s in series:
        points = [
            {"n": p.n, "run": p.run, "value": number(p.value), "ci_low": number(p.ci_low),
             "ci_high": number(p.ci_high), "groups": p.groups}
            for p in s.points
        ]  # fmt: skip
        steps = [
            {"step": c.task, "base": number(c.base), "new": number(c.new), "diff": number(c.diff),
             "ci_low": number(c.ci_low), "ci_high": number(c.ci_high), "p_value": number(c.p_value),
             "groups": c.groups}
            for c in s.steps
        ]  # fmt: skip
        out.append({
            "task": s.task, "benchmark": s.benchmark, "model": s.model, "key": s.key, "label": metric_label(s.key),
            "points": points, "steps": steps, "notes": list(s.notes), "chart": series_chart(s.task, s.key, points),
        })  # fmt: skip
    return out

"""The report's time-order and frame-count tables (:mod:`temporal_tasks.tools.timeorder`), from the ``--log_samples``
files beside the reported results, with the papers' published controls beside ours."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from temporal_tasks.api.registry import of_task
from temporal_tasks.base.errors import DataError
from temporal_tasks.tools.report.references import Reference
from temporal_tasks.tools.report.results import RunResults
from temporal_tasks.tools.report.tables import md_table
from temporal_tasks.tools.timeorder import RATIO_NAMES, VARIANT_NAMES, TimeOrder, collect, frame_series, time_order
from temporal_tasks.tools.timeorder.tables import (
    HEADER,
    INTRO,
    chart_name,
    frames_chart,
    frames_markdown,
    label_lines,
    repeat_text,
    write_frames_csv,
    write_labels_csv,
    write_rows_csv,
)
from temporal_tasks.tools.timeorder.tables import control_rows as run_rows


@dataclass
class TimeOrderParts:
    """What the report shows: per benchmark title its time-order Markdown lines, the frame-count Markdown, the files
    written and notes (refusals, runs without samples)."""

    by_benchmark: dict[str, list[str]] = field(default_factory=dict)
    frames: str = ""
    written: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _fmt(x: float | None, sign: bool = False) -> str:
    if x is None or math.isnan(x):
        return "–"
    return f"{x:+.2f}" if sign else f"{x:.2f}"


def paper_rows(t: TimeOrder, references: list[Reference]) -> list[list[str]]:
    """The papers' published controls of ``t``'s benchmark, as rows of its table: the control's value, and the
    same model's main-task value and difference where the paper gives it (no CI: the papers publish none)."""
    rows = []
    for r in t.rows:
        key = r.comparison.metric
        for ref in references:
            if ref.benchmark != t.benchmark or r.task not in ref.tasks or key not in ref.metrics:
                continue
            main = next((m for m in references if m.benchmark == ref.benchmark and m.model == ref.model
                         and t.main.task in m.tasks and key in m.metrics), None)  # fmt: skip
            control = ref.metrics[key].value
            value = main.metrics[key].value if main is not None else None
            diff = value - control if value is not None else None
            rel = diff / control if diff is not None and control else None
            rel_text = f"{RATIO_NAMES[r.variant]} {_fmt(rel, sign=True)}" if rel is not None else "–"
            rows.append([f"{ref.label} (paper)", VARIANT_NAMES[r.variant], key, _fmt(control), _fmt(value),
                         _fmt(diff, sign=True), "–", "–", "–", rel_text, "–", "–", "–", "–"])  # fmt: skip
    return rows


def time_order_parts(
    runs: list[RunResults], references: list[Reference], out: Path, charts: bool = True
) -> TimeOrderParts:
    """The time-order tables of the runs (each run's main tasks against its controls), the frame-count tables and
    charts (runs differing only in N), and their CSVs in ``out``. Runs without ``--log_samples`` files give none."""
    parts = TimeOrderParts()
    try:
        taskruns = collect([run.path for run in runs])
    except DataError:
        return parts  # results without samples: nothing to pair
    results = time_order(taskruns, refused=parts.notes)
    series = frame_series(taskruns)
    labels = {str(run.path.parent / run.path.name.removesuffix("_results.json")): run.label for run in runs}
    shown: set[str] = set()  # the papers' rows: once per benchmark, under its first table
    for t in results:
        who = labels.get(t.main.run, t.main.model)
        n = f"N={t.main.n}" if t.main.n is not None else "N unknown"
        md = [f"#### Time order: {who}, `{t.main.task}` ({n}{repeat_text(t)})", ""]
        papers = [] if t.benchmark in shown else paper_rows(t, references)
        shown.add(t.benchmark)
        md += md_table(HEADER, run_rows(t) + papers) + [""]
        lines = label_lines(t)
        md += lines + ([""] if lines else [])
        md += [f"- {note}" for note in t.notes] + ([""] if t.notes else [])
        parts.by_benchmark.setdefault(t.benchmark, [INTRO, ""]).extend(md)
    chart_paths = {i: frames_chart(s, out / chart_name(s, i)) for i, s in enumerate(series)} if charts else {}
    if series:
        parts.frames = frames_markdown(series, chart_paths)
        parts.written.append(write_frames_csv(series, out / "frames.csv"))
    if results:
        parts.written += [write_rows_csv(results, out / "timeorder.csv"),
                          write_labels_csv(results, out / "timeorder_groups.csv")]  # fmt: skip
    parts.written += list(chart_paths.values())
    for note in parts.notes:  # a refused pair: said under its benchmark
        spec = of_task(note.split(" ", 1)[0])
        if spec is not None:
            parts.by_benchmark.setdefault(spec.title, [INTRO, ""]).extend([f"- not paired: {note}", ""])
    return parts

"""The report's text: Markdown tables (``report.md``) and the long-format CSV (``report.csv``)."""

from __future__ import annotations

import csv
import math
from pathlib import Path

from temporal_tasks.tools.provenance import describe
from temporal_tasks.tools.report.layout import SHORTCUT_LABELS
from temporal_tasks.tools.report.references import Reference
from temporal_tasks.tools.report.results import RunResults, Value, finite
from temporal_tasks.tools.report.sections import BenchmarkView


def fmt_value(v: Value | None) -> str:
    """``31.2 [27.6, 35.0]`` with a CI, ``31.2`` without, ``NaN`` for NaN, ``–`` when missing."""
    if v is None:
        return "–"
    if not finite(v.value):
        return "NaN"
    text = f"{v.value:.1f}"
    if v.has_ci():
        text += f" [{v.ci_low:.1f}, {v.ci_high:.1f}]"
    return text


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """The lines of a Markdown table (``|`` in cells escaped)."""
    lines = ["| " + " | ".join(_md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return lines


def _run_line(run: RunResults) -> list[str]:
    counts = []
    for task, c in sorted(run.n_samples.items()):
        if isinstance(c, dict):
            counts.append(f"{task} {c.get('effective', '?')}/{c.get('original', '?')}")
    line = (
        f"- **{run.label}**: model `{run.model or '?'}`, model_args `{run.model_args or '-'}`, "
        f"date {run.date or '?'}, limit {run.limit if run.limit is not None else 'none'}, "
        f"n-samples (scored/total) {', '.join(counts) or '?'}; file `{run.path}`"
    )
    lines = [line]

    for task, record in sorted(run.provenance.items()):
        lines.append(f"  - provenance of `{task}`: {describe(record)}")
    if run.partial:
        lines.append(
            f"  - ⚠ **partial run** (`--limit {run.limit}`): numbers cover a subset of each benchmark and are "
            "not comparable with full runs or the papers."
            if run.limit is not None
            else "  - ⚠ **partial run**: fewer samples scored than the task has; numbers are not comparable."
        )
    return lines


def _reference_notes(refs: list[Reference]) -> list[str]:
    papers = list(dict.fromkeys(p for r in refs for p in r.papers))
    md = ["Paper numbers shown above" + (f" are from *{papers[0]}*:" if len(papers) == 1 else ":"), ""]
    for ref in refs:
        where = "; ".join(ref.tables) if len(papers) == 1 else "; ".join(dict.fromkeys(ref.sources.values()))
        md.append(f"- **{ref.label}** ({ref.setting}; our tasks {', '.join(ref.tasks)}): {where}.")
    # One line per distinct note, naming the models it applies to, so shared caveats are not repeated.
    notes: dict[str, list[str]] = {}
    for ref in refs:
        for note in ref.notes:
            notes.setdefault(note, [])
            if ref.label not in notes[note]:
                notes[note].append(ref.label)
    if notes:
        md += ["", "Notes on the paper numbers:", ""]
        md += [f"- {', '.join(models)}: {note}" for note, models in notes.items()]
    return md


def _shortcut_table(view: BenchmarkView) -> list[str]:
    """The "Shortcut analyses" table: each model's main row beside its blind/single-frame/shuffled rows."""
    by_task = {tv.task: tv for tv in view.tasks}
    tasks = [t for t in view.spec.shortcuts if t in by_task]
    if not any(t != view.spec.shortcuts[0] for t in tasks):
        return []  # no variant was run: nothing to compare
    metrics = {m for t in tasks for m in by_task[t].headline}
    cols = [m for m in view.spec.headline if m in metrics]
    labels = dict(zip(view.spec.shortcuts, SHORTCUT_LABELS, strict=True))
    rows: list[list[str]] = []
    models = list(dict.fromkeys(s.label for t in tasks for s in by_task[t].series if not s.is_reference))
    for model in models:
        for t in tasks:
            for s in by_task[t].series:
                if s.label == model and not s.is_reference:
                    rows.append([model, f"{labels[t]} (`{t}`)"] + [fmt_value(s.values.get(m)) for m in cols])
    for t in tasks:
        for s in by_task[t].series:
            if s.is_reference and any(m in s.values for m in cols):
                rows.append([s.label, f"{labels[t]} (`{t}`)"] + [fmt_value(s.values.get(m)) for m in cols])
    md = ["### Shortcut analyses", "",
          "The same questions with no visual input, one frame, or shuffled frames (README \"Shortcut analyses\"). "
          "Near-chance variants mean the benchmark needs the video's temporal order.", ""]  # fmt: skip
    return md + md_table(["Model", "Input", *cols], rows) + [""]


def render_markdown(
    runs: list[RunResults],
    views: list[BenchmarkView],
    charts: dict[tuple, Path],
    timeorder: dict[str, list[str]] | None = None,
    frames: str = "",
) -> str:
    """``report.md``: the runs, then per benchmark its chart, shortcut table, time-order tables and per-task tables,
    then the frame-count tables.

    ``charts``: the PNG of each ``(section, "headline")`` and ``(section, task, family)`` that has one;
    ``timeorder``: per section, its time-order Markdown lines; ``frames``: the frame-count Markdown.
    """
    md = [
        "# Temporal reasoning report",
        "",
        "Values are percentages. `v [low, high]` is the 95% confidence interval where the run reports one "
        "(`<metric>_ci_low` / `<metric>_ci_high`); `NaN` means the metric is undefined for the run, `–` that it "
        "was not reported. Rows marked *(paper)* are published numbers from each benchmark's `references.json` "
        "(`temporal_tasks/benchmarks/<name>/`); their protocols can differ from ours (see the notes under each "
        "benchmark).",
        "",
        "## Runs",
        "",
    ]
    for run in runs:
        md += _run_line(run)
    partial = [r.label for r in runs if r.partial]
    if partial:
        md += ["", f"> ⚠ Partial runs (`--limit`): {', '.join(partial)}. Their numbers are partial."]
    for view in views:
        md += ["", f"## {view.spec.name}", ""]
        chart = charts.get((view.spec.name, "headline"))
        if chart:
            md += [f"![{view.spec.name} headline metrics]({chart.name})", ""]
        md += _shortcut_table(view)
        md += (timeorder or {}).get(view.spec.name, [])
        for tv in view.tasks:
            md += [f"### {tv.task}", ""]
            if tv.headline:
                rows = [[s.label] + [fmt_value(s.values.get(m)) for m in tv.headline] for s in tv.series]
                rows = [
                    r
                    for r, s in zip(rows, tv.series, strict=True)
                    if not s.is_reference or any(c != "–" for c in r[1:])
                ]
                md += md_table(["Model", *tv.headline], rows) + [""]
            for family, cats in tv.families.items():
                cols = [s for s in tv.series if any(f"{family}_{c}" in s.values for c in cats)]
                md += [f"#### {family} by category", ""]
                chart = charts.get((view.spec.name, tv.task, family))
                if chart:
                    md += [f"![{tv.task} {family} by category]({chart.name})", ""]
                rows = [[c] + [fmt_value(s.values.get(f"{family}_{c}")) for s in cols] for c in cats]
                md += md_table(["Category", *(s.label for s in cols)], rows) + [""]
            if tv.other:
                runs_only = [s for s in tv.series if not s.is_reference]
                md += ["#### Other metrics", ""]
                rows = [[m] + [fmt_value(s.values.get(m)) for s in runs_only] for m in tv.other]
                md += md_table(["Metric", *(s.label for s in runs_only)], rows) + [""]
        if view.references:
            md += _reference_notes(view.references)
    if frames:
        md += ["", "## Frame count", "", "Runs of one task and model that differ only in N (each run's provenance "
               "`frames.n`): the score with its group-bootstrap 95% CI, and the paired difference between successive "
               "N (docs/time-order.md).", "", frames]  # fmt: skip
    return "\n".join(md).rstrip() + "\n"


def _csv_num(x: float | None) -> str:
    if x is None:
        return ""
    if isinstance(x, float) and math.isnan(x):
        return "NaN"
    return repr(float(x))


def write_csv(views: list[BenchmarkView], path: Path) -> None:
    """``report.csv``: one row per benchmark, task, row (run or paper) and metric."""
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["benchmark", "task", "model", "metric", "value", "ci_low", "ci_high", "source"])
        for view in views:
            for tv in view.tasks:
                for s in tv.series:
                    for metric, v in s.values.items():
                        source = f"paper: {s.ref.sources[metric]}" if s.ref is not None else s.source
                        w.writerow(
                            [view.spec.name, tv.task, s.label, metric, _csv_num(v.value), _csv_num(v.ci_low),
                             _csv_num(v.ci_high), source]
                        )  # fmt: skip

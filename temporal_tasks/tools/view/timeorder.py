"""The viewer's time-order data (``temporal-tasks timeorder`` on the viewed run): per main task, its rows against each
control and every group's label, for the time-order view (the groups' answers come from the tasks' own data)."""

from __future__ import annotations

from pathlib import Path

from temporal_tasks.base.errors import DataError
from temporal_tasks.tools.timeorder import LABELS, VARIANT_NAMES, TaskRun, collect, time_order
from temporal_tasks.tools.view.extract import number


def run_tasks(path: Path) -> dict[str, TaskRun]:
    """The tasks of the run at ``path`` (``timeorder``'s reading of a run; payloads read once, on use), by name."""
    try:
        return {tr.task: tr for tr in collect([path])}
    except DataError:
        return {}


def timeorder_data(taskruns: list[TaskRun], notes: list[str]) -> list[dict]:
    """One entry per main task of the run's tasks that has controls (a ``--repeats`` run: its first repeat):
    ``{main, benchmark, n, key, value, label_key, tasks, rows, labels, counts}``. A refused pair goes to ``notes``."""
    refused: list[str] = []
    results = [t for t in time_order(taskruns, refused=refused) if not t.repeat]
    notes += [f"time order: {note}" for note in refused]
    out = []
    for t in results:
        rows = []
        for r in t.rows:
            c = r.comparison
            rows.append({
                "variant": r.variant, "input": VARIANT_NAMES[r.variant], "task": r.task, "metric": c.metric,
                "control": number(c.base), "main": number(c.new), "diff": number(c.diff),
                "ci_low": number(c.ci_low), "ci_high": number(c.ci_high), "p_value": number(c.p_value),
                "groups": c.groups, "relative": number(r.relative), "relative_ci_low": number(r.relative_ci[0]),
                "relative_ci_high": number(r.relative_ci[1]), "flips": r.flips,
            })  # fmt: skip
        out.append({
            "main": t.main.task, "benchmark": t.benchmark, "n": t.main.n, "key": t.key, "value": number(t.main_value),
            "label_key": t.label_key, "tasks": {"main": t.main.task, **{r.variant: r.task for r in t.rows}},
            "rows": rows, "labels": t.labels, "counts": t.label_counts() if t.labels else {}, "order": list(LABELS),
            "notes": t.notes,
        })  # fmt: skip
    return out

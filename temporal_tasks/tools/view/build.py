"""Assemble the viewer's data for one run or two: per task, each run's numbers and groups, and the comparison.

Run selection is ``rescore``'s (:func:`~temporal_tasks.tools.rescore.select_samples`: one run per argument, the
newest complete one or ``--run``); the comparison is ``compare``'s own
:func:`~temporal_tasks.tools.compare.compare_runs`, so the
differences, CIs and p-values are the same numbers, and a task whose provenance ``compare`` would refuse is shown
with that reason instead of numbers. The two runs' headline rows are shown side by side (:func:`headline_pairs`), each
with ``compare``'s row for its key.

The frames view is ``timeorder``'s: every run under the paths given is read
(:func:`~temporal_tasks.tools.timeorder.collect`, as ``temporal-tasks timeorder PATHS`` reads them), and each set of
runs of one task and model that differ only in N (:func:`~temporal_tasks.tools.timeorder.frame_series`) is shown on
that task's page, whichever run the rest of the page shows (``view logs/frames``: the newest run's groups, and the
score against every N of the sweep).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from temporal_tasks.data.sources import DataError
from temporal_tasks.harness.task_configs import our_tasks
from temporal_tasks.tools.compare import Comparison, compare_runs, read_task
from temporal_tasks.tools.provenance import describe, differences
from temporal_tasks.tools.report.layout import benchmark_of, benchmarks, ordered
from temporal_tasks.tools.report.results import RunResults, load_run
from temporal_tasks.tools.rescore import select_samples
from temporal_tasks.tools.runs import Run
from temporal_tasks.tools.timeorder import frame_series
from temporal_tasks.tools.view.category_ci import category_cis
from temporal_tasks.tools.view.extract import number, results_part, task_groups
from temporal_tasks.tools.view.frames import frames_data, sweep_runs
from temporal_tasks.tools.view.timeorder import run_tasks, timeorder_data


def _select(path: str | Path, wanted: str | None) -> tuple[Run, dict[str, Path], RunResults | None, str]:
    files, chosen, note = select_samples([path], wanted)
    results = load_run(chosen.results) if chosen.results is not None else None
    return chosen, files, results, note


def _pin(run: Run) -> Path:
    # A file of the chosen run: compare reads that run (and only it) from it.
    return run.results if run.results is not None else next(iter(run.samples.values()))


def _flips(groups: list[dict]) -> dict[str, int]:
    out = {"better": 0, "worse": 0}
    for g in groups:
        a, b = g["r"]
        if a is not None and b is not None:
            if a["o"] == "failed" and b["o"] == "right":
                out["better"] += 1
            elif a["o"] == "right" and b["o"] == "failed":
                out["worse"] += 1
    return out


def _merge(per_run: list[dict | None]) -> list[dict]:
    """Groups aligned by id across runs: ``{"id", "c", "r": [that run's outcome and members, or None]}``."""
    order: dict[str, dict] = {}
    for i, part in enumerate(per_run):
        for g in part["groups"] if part else ():
            entry = order.setdefault(g["id"], {"id": g["id"], "c": [], "r": [None] * len(per_run)})
            entry["c"] = sorted(set(entry["c"]) | set(g["c"]))
            entry["r"][i] = {k: g[k] for k in ("o", "s", "f", "m")}
    return list(order.values())


def _shapes(groups: list[dict], i: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for g in groups:
        r = g["r"][i]
        if r is not None and r["o"] == "failed":
            counts[r["s"]] = counts.get(r["s"], 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _comparison(task: str, recs: list[dict | None], rows: list, refusal: str | None) -> dict:
    if refusal:
        return {"refused": refusal, "rows": []}
    a, b = recs
    if a is None or b is None:
        note = "a results JSON with provenance is missing beside the samples; not checked"
    else:
        note = ""
        reasons = differences(a, b)
        if reasons:
            return {
                "refused": f"the runs are not comparable, their provenance differs: {'; '.join(reasons)}",
                "rows": [],
            }
    shown = [
        {k: (number(v) if isinstance(v, float) else v) for k, v in asdict(r).items()} for r in rows if r.task == task
    ]
    return {"refused": None, "rows": shown, "note": note}


def headline_pairs(runs: list[dict | None], compare: dict) -> list[dict]:
    """Two runs' headline rows side by side, one per key either run reports: ``{metric, label, runs: [[value,
    ci_low, ci_high] or None per run], compared}``; ``compared`` is ``compare``'s row of that key (NEW - BASE,
    paired CI, p-value), or None with ``reason`` when the task was refused or ``compare`` tests no such key."""
    rows = {r["metric"]: r for r in compare["rows"]}
    keys: dict[str, str] = {}
    for run in runs:
        for key, label, *_rest in run["headline"] if run else ():
            keys.setdefault(key, label)
    out = []
    for key, label in keys.items():
        values = []
        for run in runs:
            found = [row[2:] for row in (run["headline"] if run else ()) if row[0] == key]
            values.append(found[0] if found else None)
        row = rows.get(key)
        reason = compare["refused"] or (None if row else "compare tests no such key (not a group metric)")
        out.append({"metric": key, "label": label, "runs": values, "compared": None if reason else row,
                    "reason": reason})  # fmt: skip
    return out


def view_data(paths: list[str | Path], wanted: list[str | None] | None = None) -> dict:
    """The viewer's data: ``{"runs": [...], "tasks": [...], "notes": [...], "samples_bytes": n, "timeorder": [...],
    "frame_series": [...]}``.

    ``paths`` holds one entry per run (one or two); ``wanted`` the ``--run`` of each (None: the newest complete).
    """
    if not 1 <= len(paths) <= 2:
        raise DataError(f"view takes one run or two (BASE NEW); got {len(paths)} paths.")
    wanted = list(wanted or []) + [None] * (len(paths) - len(wanted or []))
    chosen = [_select(p, w) for p, w in zip(paths, wanted, strict=True)]
    known = our_tasks()
    notes: list[str] = [note for _run, _files, _res, note in chosen if note]
    all_tasks = {t for _run, files, _res, _note in chosen for t in files}
    skipped = sorted(t for t in all_tasks if t not in known)
    if skipped:
        notes.append(f"{len(skipped)} task(s) are not ours and are not shown: {', '.join(skipped)}")
    tasks = ordered([t for t in all_tasks if t in known], [t for spec in benchmarks() for t in spec.tasks])
    rows: list[Comparison] = []
    refusal_all: str | None = None
    if len(chosen) == 2:
        try:
            rows, _notes = compare_runs(_pin(chosen[0][0]), _pin(chosen[1][0]), categories=True, force=True)
        except DataError as exc:
            refusal_all = str(exc)
    # every run under the paths, for the frames view; one run: its tasks among them, read once, for the
    # per-category CIs and the time-order view
    sweep = sweep_runs(list(paths), notes)
    taskruns: dict = {}
    if len(chosen) == 1:
        taskruns = {tr.task: tr for tr in sweep if tr.run == chosen[0][0].name} or run_tasks(_pin(chosen[0][0]))
    out_tasks = []
    samples_bytes = 0
    for task in tasks:
        prompts: dict[str, int] = {}
        per_run: list[dict | None] = []
        parts: list[dict | None] = []
        for _run, files, results, _note in chosen:
            if task not in files:
                per_run.append(None)
                parts.append(None)
                continue
            samples_bytes += files[task].stat().st_size
            per_run.append(task_groups(task, files[task], prompts))
            read = taskruns.get(task) if len(chosen) == 1 else None
            cis = category_cis(task, read.items() if read is not None else read_task(task, files[task])[0])
            parts.append(results_part(task, results, cis))
        groups = _merge(per_run)
        spec = benchmark_of(task)
        runs_part: list[dict | None] = []
        for i, (part, grp) in enumerate(zip(parts, per_run, strict=True)):
            if part is None or grp is None:  # the run has no samples of this task (both are None then)
                runs_part.append(None)
                continue
            counts = {o: sum(1 for g in groups if g["r"][i] and g["r"][i]["o"] == o) for o in ("right", "failed")}
            counts["unscored"] = sum(1 for g in groups if g["r"][i] and g["r"][i]["o"] == "unscored")
            prov = part["provenance"]
            runs_part.append(
                {
                    **part,
                    "provenance_line": describe(prov) if prov else "no provenance record (no results JSON beside it)",
                    "metric": grp["metric"],
                    "metric_label": grp["metric_label"],
                    "reading": grp["reading"],
                    "questions": grp["questions"],
                    "counts": counts,
                    "shapes": _shapes(groups, i),
                }
            )
        entry: dict[str, Any] = {
            "task": task,
            "benchmark": spec.name if spec else task,
            "prompts": list(prompts),
            "runs": runs_part,
            "groups": groups,
            "categories": sorted({c for g in groups for c in g["c"]}),
        }
        if len(chosen) == 2:
            if None in per_run:
                which = "BASE" if per_run[0] is None else "NEW"
                entry["compare"] = {"refused": f"only one run has this task ({which} has none)", "rows": []}
            else:
                recs = [p["provenance"] for p in parts if p is not None]  # every run has the task here
                entry["compare"] = _comparison(task, recs, rows, refusal_all)
                if not entry["compare"]["refused"]:
                    entry["compare"]["flips"] = _flips(groups)
            entry["headline_pairs"] = headline_pairs(runs_part, entry["compare"])
        out_tasks.append(entry)
    if not out_tasks:
        raise DataError(f"no task of ours in {[str(p) for p in paths]}: nothing to view.")
    runs = [
        {
            "name": run.name,
            "label": results.label if results is not None else run.stamp,
            "results": str(run.results) if run.results else None,
            "note": note,
        }
        for run, _files, results, note in chosen
    ]
    # one run: its main tasks against their shortcut variants (temporal-tasks timeorder), for the time-order view
    timeorder = timeorder_data(list(taskruns.values()), notes) if len(chosen) == 1 else []
    series = frames_data(frame_series(sweep))
    shown = {t["task"] for t in out_tasks}
    hidden = sorted({s["task"] for s in series} - shown)
    if hidden:
        notes.append(f"frames view: the sweep of {', '.join(hidden)} is not shown (the run viewed lacks the task)")
    return {"runs": runs, "tasks": out_tasks, "notes": notes, "samples_bytes": samples_bytes, "timeorder": timeorder,
            "frame_series": [s for s in series if s["task"] in shown]}  # fmt: skip

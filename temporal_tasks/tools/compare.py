"""``temporal-tasks compare BASE NEW``: is NEW really better than BASE? A paired test over groups.

Every headline metric of our benchmarks is a function over groups (a Vinoground pair, a TimeBlind
instance, a TemporalBench video, a VELOCITI row): per group, right units out of units (see
:class:`temporal_tasks.scoring.bootstrap.GroupOutcomes`, given by the metric's own aggregation: the counts its value
and CI come from). Two runs of the same questions are compared on the groups both scored completely:

* ``diff`` = NEW - BASE on those groups, exactly;
* its 95% CI from a paired bootstrap: the same resampled groups (within strata, e.g. VELOCITI's tests) for
  both runs;
* a two-sided p-value from a paired permutation test: each group's two outcomes are swapped with probability
  1/2 (sign-flips of the per-group differences), ``p = (1 + #{|d*| >= |d|}) / (1 + iterations)``; identical
  runs give ``d = 0`` and ``p = 1``.

Questions within a group are not independent and the metrics are all-or-nothing over groups, so the group is
the unit of resampling; lmms-eval's ``--baseline`` (a per-question paired t-test) does not apply.

Runs whose provenance differs in a way that changes the numbers (N, reading, data, shortcut seed, cut) are
refused unless ``force``, naming the difference.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from temporal_tasks.base.errors import DataError
from temporal_tasks.harness.task_configs import resolve_function, task_config
from temporal_tasks.scoring.aggregations import Aggregation
from temporal_tasks.scoring.bootstrap import GroupOutcomes, stratified_percent
from temporal_tasks.tools.provenance import differences
from temporal_tasks.tools.rescore import select_samples, task_items
from temporal_tasks.tools.samples import scorable_lines

ITERATIONS = 2000
SEED = 20261125


@dataclass
class Comparison:
    """One row of ``compare``: a task's metric in both runs, NEW - BASE with its CI and p-value."""

    task: str
    metric: str
    base: float
    new: float
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    groups: int


def comparable_metrics(task: str, categories: bool = False) -> list[tuple[str, Callable, Callable]]:
    """``(metric key, aggregation, outcomes function)`` for the metrics of ``task`` that ``compare`` tests: the group
    metrics whose aggregation gives its group outcomes (per-category keys with ``categories``)."""
    out: list[tuple[str, Callable, Callable]] = []
    for m in task_config(task)["metric_list"]:
        ref = m["aggregation"]
        fn = resolve_function(ref) if isinstance(ref, tuple) and ref[0] == "!function" else None
        if isinstance(fn, Aggregation) and fn.group_outcomes is not None and (categories or not fn.category):
            out.append((m["metric"], fn, fn.outcomes))
    return out


def paired_test(
    base: np.ndarray,
    new: np.ndarray,
    strata: list[str] | None = None,
    *,
    order: tuple[str, ...] = (),
    iters: int = ITERATIONS,
    seed: int = SEED,
) -> tuple[float, float, float, float, float, float]:
    """``(base value, new value, diff, ci_low, ci_high, p_value)`` of per-group ``[right, units]`` rows, paired.

    Rows are aligned (row i is the same group in both). The statistic is :func:`stratified_percent`, summed in
    ``order`` (the metric's strata order, as the run's value is).
    """
    base = np.asarray(base, dtype=np.int64).reshape(-1, 2)
    new = np.asarray(new, dtype=np.int64).reshape(-1, 2)
    vb, vn = stratified_percent(base, strata, order), stratified_percent(new, strata, order)
    diff = vn - vb
    if len(base) == 0 or math.isnan(diff):
        return vb, vn, diff, math.nan, math.nan, math.nan
    labels = np.asarray(strata) if strata is not None else np.zeros(len(base), dtype=np.int64)
    rng = np.random.default_rng(seed)
    boot = np.zeros(iters)
    perm = np.zeros(iters)
    used = 0
    for stratum in sorted(set(labels.tolist())):
        rows = np.flatnonzero(labels == stratum)
        b, n = base[rows], new[rows]
        if b[:, 1].sum() == 0 and n[:, 1].sum() == 0:
            continue
        used += 1
        # paired bootstrap: the same resampled groups for both runs
        idx = rng.integers(0, len(rows), size=(iters, len(rows)))
        with np.errstate(invalid="ignore", divide="ignore"):
            boot += 100.0 * n[idx, 0].sum(1) / n[idx, 1].sum(1) - 100.0 * b[idx, 0].sum(1) / b[idx, 1].sum(1)
        # paired permutation: swap each group's two outcomes with probability 1/2
        flip = rng.random((iters, len(rows))) < 0.5
        d_right, d_units = b[:, 0] - n[:, 0], b[:, 1] - n[:, 1]
        new_right = n[:, 0].sum() + flip @ d_right
        new_units = n[:, 1].sum() + flip @ d_units
        base_right = b[:, 0].sum() - flip @ d_right
        base_units = b[:, 1].sum() - flip @ d_units
        with np.errstate(invalid="ignore", divide="ignore"):
            perm += 100.0 * new_right / new_units - 100.0 * base_right / base_units
    boot, perm = boot / max(used, 1), perm / max(used, 1)
    boot = boot[np.isfinite(boot)]
    low, high = (float(x) for x in np.percentile(boot, [2.5, 97.5])) if boot.size else (math.nan, math.nan)
    # a tolerance so that equal statistics computed in a different order still count as "as extreme"
    extreme = int((np.abs(perm[np.isfinite(perm)]) >= abs(diff) - 1e-9).sum())
    p_value = (1 + extreme) / (1 + iters)
    return vb, vn, diff, low, high, min(1.0, p_value)


def _run_files(path: str | Path, run: str | None = None) -> tuple[dict[str, Path], str]:
    # One run of the folder (the newest complete one, or --run), and the note naming that choice (or "").
    try:
        files, _run, note = select_samples([path], run)
    except DataError as exc:
        raise DataError(f"{path}: {exc} compare needs each run's --log_samples files.") from None
    return files, note


def compare_runs(
    base: str | Path,
    new: str | Path,
    *,
    categories: bool = False,
    force: bool = False,
    iters: int = ITERATIONS,
    seed: int = SEED,
    runs: tuple[str | None, str | None] = (None, None),
) -> tuple[list[Comparison], list[str]]:
    """Compare every task both runs have; returns ``(rows, notes)`` (notes: which run of a folder was read, what
    was forced or left out). ``runs``: the ``--run`` of BASE and of NEW (None: the folder's newest complete run)."""
    (files_b, note_b), (files_n, note_n) = _run_files(base, runs[0]), _run_files(new, runs[1])
    shared = sorted(set(files_b) & set(files_n))
    if not shared:
        raise DataError(
            f"the runs share no task (BASE has {sorted(files_b)}, NEW has {sorted(files_n)}); compare runs of the "
            "same tasks."
        )
    rows: list[Comparison] = []
    notes: list[str] = []
    for which, note in (("BASE", note_b), ("NEW", note_n)):
        if note:
            notes.append(f"{which}: {note}")
    for task in shared:
        items_b, rec_b = read_task(task, files_b[task])
        items_n, rec_n = read_task(task, files_n[task])
        notes += check_comparable(task, rec_b, rec_n, force)
        for key, aggregate, outcomes in comparable_metrics(task, categories):
            if not items_b[key] or not items_n[key]:
                continue
            # each run's payloads carry the reading they were read in: the aggregations follow it
            ob = key_outcomes(task, key, "BASE", aggregate, outcomes, items_b[key])
            on = key_outcomes(task, key, "NEW", aggregate, outcomes, items_n[key])
            row = compare_outcomes(task, key, ob, on, iters=iters, seed=seed)
            if row is None:
                notes.append(f"{task} {key}: no group scored completely in both runs")
                continue
            rows.append(row)
            if row.groups < max(len(ob.ids), len(on.ids)):
                notes.append(
                    f"{task} {key}: {row.groups} groups scored completely in both runs "
                    f"(BASE {len(ob.ids)}, NEW {len(on.ids)}); values are on the common groups"
                )
    return rows, list(dict.fromkeys(notes))


def read_task(task: str, file: Path) -> tuple[dict[str, list], dict | None]:
    """``({metric key: payloads}, provenance record or None)`` of one task's samples file, read as recorded."""
    lines, record, _ = scorable_lines(task, file)
    items, _mode = task_items(task, lines)
    return items, record


def check_comparable(
    label: str, rec_b: dict | None, rec_n: dict | None, force: bool, ignore: Collection[str] = ()
) -> list[str]:
    """Refuse (``DataError``) two runs whose provenance differs (:func:`differences`, less ``ignore``) unless
    ``force``; returns the notes to print (what was forced, or that a record was missing)."""
    if rec_b is None or rec_n is None:
        return [f"{label}: a results JSON with provenance is missing beside the samples; not checked"]
    diffs = differences(rec_b, rec_n, ignore)
    if diffs and not force:
        raise DataError(
            f"{label}: the runs are not comparable, their provenance differs: {'; '.join(diffs)}. "
            "Compare runs of the same setting, or pass --force to compare anyway."
        )
    return [f"{label}: compared with --force although {'; '.join(diffs)}"] if diffs else []


def key_outcomes(
    task: str, key: str, which: str, aggregate: Callable, outcomes: Callable, items: list
) -> GroupOutcomes:
    """The group outcomes of ``key`` over ``items``, checked to give the very value the task's aggregation does."""
    found = outcomes(items)
    _check(task, key, which, found.value(), aggregate(items))
    return found


def compare_outcomes(
    task: str, key: str, ob: GroupOutcomes, on: GroupOutcomes, *, iters: int = ITERATIONS, seed: int = SEED
) -> Comparison | None:
    """NEW - BASE of one key over the groups both outcomes scored (BASE's group order), or None when none."""
    row_n = {gid: i for i, gid in enumerate(on.ids)}
    common = [(i, row_n[g]) for i, g in enumerate(ob.ids) if g in row_n]
    if not common:
        return None
    bi = np.asarray([i for i, _ in common], dtype=np.int64)
    ni = np.asarray([j for _, j in common], dtype=np.int64)
    strata = [ob.strata[i] for i in bi] if ob.strata is not None else None
    vb, vn, diff, low, high, p = paired_test(
        ob.counts[bi], on.counts[ni], strata, order=ob.order, iters=iters, seed=seed
    )
    return Comparison(task, key, vb, vn, diff, low, high, p, len(common))


def _check(task: str, key: str, which: str, from_groups: float, from_metric: Any) -> None:
    # The group outcomes must give the very number the task reports; a mismatch is a bug, never a silent result.
    value = float(from_metric)
    if not (math.isnan(value) and math.isnan(from_groups)) and abs(value - from_groups) > 1e-9:
        raise RuntimeError(
            f"{task} {key} ({which}): the group outcomes give {from_groups} but the metric is {value}; please report."
        )


# --------------------------------------------------------------------------- output


def _fmt(x: float, digits: int = 2) -> str:
    return "nan" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def _p(x: float) -> str:
    return "nan" if math.isnan(x) else (f"{x:.4f}" if x >= 0.0001 else "<0.0001")


def markdown(rows: list[Comparison], notes: Sequence[str] = ()) -> str:
    """The Markdown table of ``compare``."""
    md = [
        "| Task | Metric | BASE | NEW | NEW − BASE | 95% CI | p-value | groups |",
        "|---|---|---:|---:|---:|---|---:|---:|",
    ]
    for r in rows:
        md.append(
            f"| {r.task} | {r.metric} | {_fmt(r.base)} | {_fmt(r.new)} | {r.diff:+.2f} | "
            f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}] | {_p(r.p_value)} | {r.groups} |"
        )
    if notes:
        md += ["", *[f"- {n}" for n in notes]]
    return "\n".join(md)


def write_outputs(rows: list[Comparison], notes: list[str], out: str | Path) -> list[Path]:
    """``compare.md``, ``compare.csv`` and the forest plot ``compare.png`` in ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    md = out / "compare.md"
    md.write_text(
        "# NEW − BASE, paired over groups\n\nDifferences in percentage points; 95% CI from a paired bootstrap over "
        "the groups both runs scored completely; two-sided p-value from a paired permutation test.\n\n"
        + markdown(rows, notes)
        + "\n",
        encoding="utf-8",
    )
    path_csv = out / "compare.csv"
    with open(path_csv, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(Comparison.__dataclass_fields__))
        writer.writeheader()
        for r in rows:
            writer.writerow(asdict(r))
    written = [md, path_csv]
    if rows:
        written.append(forest_plot(rows, out / "compare.png"))
    return written


def forest_plot(rows: list[Comparison], path: Path) -> Path:
    """A forest plot: one line per task and metric, the difference with its 95% CI, zero marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r.task} · {r.metric}" for r in rows]
    y = np.arange(len(rows))[::-1]
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1.2))
    for yi, r in zip(y, rows, strict=True):
        color = "tab:green" if r.ci_low > 0 else "tab:red" if r.ci_high < 0 else "tab:gray"
        ax.plot([r.ci_low, r.ci_high], [yi, yi], color=color, lw=2)
        ax.plot([r.diff], [yi], "o", color=color)
    ax.axvline(0, color="black", lw=0.8, ls="--")
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel("NEW − BASE (percentage points, 95% CI)")
    ax.set_title("Paired comparison over groups")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def as_json(rows: list[Comparison]) -> str:
    """The ``--json`` output: a list of ``{task, metric, base, new, diff, ci_low, ci_high, p_value, groups}``."""
    return json.dumps([asdict(r) for r in rows], indent=2)


def add_compare_parser(subparsers: Any) -> Any:
    """Add the ``compare`` subcommand (sets ``func``)."""
    p = subparsers.add_parser(
        "compare", help="NEW - BASE per task and metric: paired bootstrap CI and permutation p-value over groups"
    )
    p.add_argument("base", help="folder (or samples file) of the BASE run: its --log_samples files and results JSON")
    p.add_argument("new", help="folder (or samples file) of the NEW run")
    p.add_argument("--json", action="store_true", help="print a JSON list instead of the table")
    p.add_argument("--out", help="also write compare.md, compare.csv and the forest plot compare.png here")
    p.add_argument("--categories", action="store_true", help="also the per-category (per-test, per-source) keys")
    p.add_argument("--force", action="store_true", help="compare even if the runs' provenance differs")
    p.add_argument("--iterations", type=int, default=ITERATIONS, help=f"resamples (default {ITERATIONS})")
    p.add_argument(
        "--run", action="append",
        help="which run, when a folder holds several: its stamp or file (give it once per run, in order: BASE, NEW)",
    )  # fmt: skip
    p.set_defaults(func=_cmd_compare)
    return p


def _cmd_compare(args: Any) -> int:
    wanted = list(args.run or []) + [None] * (2 - len(args.run or []))
    if len(wanted) != 2:
        raise DataError(f"--run given {len(wanted)} times; give it at most twice, once per run (BASE, NEW).")
    rows, notes = compare_runs(
        args.base, args.new, categories=args.categories, force=args.force, iters=args.iterations, runs=tuple(wanted)
    )
    if args.json:
        print(as_json(rows))
    else:
        print(markdown(rows, notes))
    if args.out:
        for path in write_outputs(rows, notes, args.out):
            if not args.json:
                print(f"wrote {path}")
    return 0

"""Time order: each main task against the controls that differ from it in the visual input only."""

from __future__ import annotations

from dataclasses import dataclass, field

from temporal_tasks.api.registry import Benchmark, registered
from temporal_tasks.base.errors import DataError
from temporal_tasks.scoring.bootstrap import GroupOutcomes
from temporal_tasks.tools.compare import (
    ITERATIONS,
    SEED,
    Comparison,
    check_comparable,
    compare_outcomes,
)
from temporal_tasks.tools.provenance import differences
from temporal_tasks.tools.timeorder.outcomes import (
    DATA_FIELDS,
    IGNORED,
    LABELS,
    SHORTCUT_VARIANTS,
    aligned,
    category_keys,
    flip_table,
    key_order,
    label_groups,
    outcomes_of,
    paired_ratio,
    shared_key,
)
from temporal_tasks.tools.timeorder.runs import TaskRun


@dataclass
class ControlRow:
    """Main against one control: ``compare``'s row (BASE = control, NEW = main), the relative gain and flips."""

    variant: str
    task: str
    run: str
    comparison: Comparison  # base: the control's value, new: main's, diff: main - control
    relative: float  # (A_main - A_control) / A_control
    relative_ci: tuple[float, float]
    flips: dict[str, int]


@dataclass
class TimeOrder:
    """One main task of one run against its controls: rows, labels and their counts."""

    benchmark: str
    main: TaskRun
    key: str
    main_value: float
    rows: list[ControlRow]
    label_key: str | None = None
    repeat: int | None = None  # of a --repeats k run: which repeat's reading (0-based), else None
    repeats: int = 1
    category_rows: list[ControlRow] = field(default_factory=list)  # with --categories: per category key
    labels: dict[str, str] = field(default_factory=dict)  # group id -> label
    categories: dict[str, list[str]] = field(default_factory=dict)  # group id -> its categories
    notes: list[str] = field(default_factory=list)

    def label_counts(self) -> dict[str, int]:
        """Groups per label, in :data:`LABELS` order."""
        return {label: sum(1 for v in self.labels.values() if v == label) for label in LABELS}

    def category_counts(self) -> dict[str, dict[str, int]]:
        """Per category (sorted), groups per label; a group counts in each of its categories."""
        out: dict[str, dict[str, int]] = {}
        for gid, label in self.labels.items():
            for cat in self.categories.get(gid, []):
                out.setdefault(cat, dict.fromkeys(LABELS, 0))[label] += 1
        return dict(sorted(out.items()))


def _comparable(main: TaskRun, control: TaskRun, variant: str) -> list[str]:
    """What differs between the two beyond the visual input (model first), as ``"field: a != b"``."""
    ignore = list(IGNORED[variant])
    if control.task != f"{main.task}_{variant}":
        ignore += DATA_FIELDS  # a variant with questions of its own (vinoground_text_blind): other fingerprints
    diffs = [] if main.model == control.model else [f"model: {control.model} != {main.model}"]
    if main.record is not None and control.record is not None:
        diffs += differences(control.record, main.record, ignore)
    return diffs


def _pick_control(main: TaskRun, candidates: list[TaskRun], variant: str, force: bool) -> TaskRun:
    """The control run to pair with ``main``: one that differs in its visual input only, the same run preferred;
    with none, a ``DataError`` naming what differs (``force``: the same run's, else the newest)."""
    fit = [c for c in candidates if not _comparable(main, c, variant)]
    same = [c for c in (fit or candidates) if c.run == main.run]
    if fit:
        return (same or fit)[-1]
    nearest = (same or candidates)[-1]
    if not force:
        diffs = _comparable(main, nearest, variant)
        raise DataError(
            f"{main.task} vs {nearest.task}: the runs are not comparable, they differ beyond the visual input: "
            f"{'; '.join(diffs)} ({main.run} vs {nearest.run}). Run the controls with the main task's setting "
            "(one lmms-eval run of the *_shortcuts group), or pass --force to compare anyway."
        )
    return nearest


def group_categories(items: list) -> dict[str, list[str]]:
    """Per group id, its members' categories (their union, in order met)."""
    out: dict[str, dict[str, None]] = {}
    for p in items:
        cats = out.setdefault(str(p.get("group_id")), {})
        for c in p.get("categories") or []:
            cats.setdefault(str(c), None)
    return {g: list(c) for g, c in out.items()}


def time_order(
    taskruns: list[TaskRun],
    *,
    force: bool = False,
    iters: int = ITERATIONS,
    seed: int = SEED,
    refused: list[str] | None = None,
    categories: bool = False,
) -> list[TimeOrder]:
    """Each main task found (per run) against the controls found: see the module docstring. A control that differs
    beyond its visual input is a ``DataError`` (``force``: paired anyway, with a note); given a ``refused`` list, its
    message is added there and the control left out instead (``report``). ``categories``: also a row per category
    key of the headline key (``TimeOrder.category_rows``)."""
    by_task: dict[str, list[TaskRun]] = {}
    for tr in taskruns:
        by_task.setdefault(tr.task, []).append(tr)
    out = []
    for spec in registered().values():
        tasks = spec.shortcut_tasks
        if not tasks:
            continue
        for main in by_task.get(tasks[0], []):
            controls = {}
            for variant, task in zip(SHORTCUT_VARIANTS, tasks[1:], strict=True):
                if not by_task.get(task):
                    continue
                try:
                    controls[variant] = _pick_control(main, by_task[task], variant, force)
                except DataError as exc:
                    if refused is None:
                        raise
                    refused.append(str(exc))
            if not controls:
                continue
            k = main.repeats
            if k == 1:
                out.append(_one(spec, main, controls, force, iters, seed, categories=categories))
                continue
            # --repeats k: one reading per repeat, repeat r of main against repeat r of each control
            for variant, control in list(controls.items()):
                if control.repeats != k:
                    problem = f"{main.task} has {k} repeats but {control.task} has {control.repeats}"
                    if refused is None:
                        raise DataError(f"{problem}; run the main task and its controls with the same --repeats.")
                    refused.append(problem)
                    del controls[variant]
            out += [_one(spec, main, controls, force, iters, seed, r, categories) for r in range(k)]
    return out


def _one(
    spec: Benchmark,
    main: TaskRun,
    controls: dict[str, TaskRun],
    force: bool,
    iters: int,
    seed: int,
    repeat: int | None = None,
    categories: bool = False,
) -> TimeOrder:
    notes: list[str] = []
    rows, category_rows = [], []
    head = key_order(main.task)[0]
    main_outcomes: dict[str, GroupOutcomes] = {}
    for variant, control in controls.items():
        label = f"{main.task} vs {control.task}"
        diffs = _comparable(main, control, variant)
        if diffs:  # only with force (else _pick_control refused)
            notes.append(f"{label}: compared with --force although {'; '.join(diffs)}")
        if main.record is None or control.record is None:
            notes += check_comparable(label, control.record, main.record, force)
        key = shared_key([main.task, control.task])
        if key is None:
            notes.append(f"{label}: no group key in common; left out")
            continue
        if key not in main_outcomes:
            main_outcomes[key] = outcomes_of(main, key, "main", repeat)
        mo, co = main_outcomes[key], outcomes_of(control, key, "control", repeat)
        row = _row(variant, control, key, mo, co, iters, seed)
        if row is None:
            notes.append(f"{label} {key}: no group scored completely in both runs")
            continue
        if row.comparison.groups < max(len(mo.ids), len(co.ids)):
            notes.append(
                f"{label} {key}: {row.comparison.groups} groups scored completely in both (main {len(mo.ids)}, "
                f"control {len(co.ids)}); values are on the common groups"
            )
        rows.append(row)
        if categories:
            both = set(category_keys(control.task, key))
            for cat_key in (k for k in category_keys(main.task, key) if k in both):
                mo_k = outcomes_of(main, cat_key, "main", repeat)
                found = _row(variant, control, cat_key, mo_k, outcomes_of(control, cat_key, "control", repeat),
                             iters, seed)  # fmt: skip
                if found is not None:
                    category_rows.append(found)
    if head not in main_outcomes:
        main_outcomes[head] = outcomes_of(main, head, "main", repeat)
    result = TimeOrder(spec.title, main, head, main_outcomes[head].value(), rows, repeat=repeat,
                       repeats=main.repeats, category_rows=category_rows, notes=notes)  # fmt: skip
    if set(controls) == set(SHORTCUT_VARIANTS):
        key = shared_key([main.task, *(controls[v].task for v in SHORTCUT_VARIANTS)])
        if key is not None:
            mo = main_outcomes.get(key) or outcomes_of(main, key, "main", repeat)
            cos = {v: outcomes_of(controls[v], key, "control", repeat) for v in SHORTCUT_VARIANTS}
            result.label_key, result.labels = key, label_groups(mo, cos)
            cats = group_categories(main.key_items(key, repeat))
            result.categories = {g: cats.get(g, []) for g in result.labels}
    return result


def _row(
    variant: str, control: TaskRun, key: str, mo: GroupOutcomes, co: GroupOutcomes, iters: int, seed: int
) -> ControlRow | None:
    """Main against one control on one key: ``compare``'s row (BASE = control), the relative gain, the flips."""
    row = compare_outcomes(control.task, key, co, mo, iters=iters, seed=seed)
    if row is None:
        return None
    b, n, strata = aligned(co, mo)
    rel, low, high = paired_ratio(b, n, strata, order=co.order, iters=iters, seed=seed)
    return ControlRow(variant, control.task, control.run, row, rel, (low, high), flip_table(mo, co))

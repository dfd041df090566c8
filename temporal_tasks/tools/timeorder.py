"""How much of a score needs time: a main task against its shortcut variants, and a task against its frame count.

**Time order** (``temporal-tasks timeorder``). Per benchmark with shortcut analyses, the main task (e.g.
``timeblind_iacc``) is paired with each variant the runs hold (``_blind``, ``_single_frame``, ``_shuffled``): the
same questions with another visual input. Each row is ``compare``'s row for the two tasks, on the headline key
they share (the first of the spec's ``primary`` then ``headline`` keys both report): ``main - control`` over the
groups both scored, a paired group bootstrap 95% CI and the paired sign-flip permutation p-value, computed by
:func:`temporal_tasks.tools.compare.compare_outcomes` from the outcomes ``compare`` reads
(:func:`temporal_tasks.tools.compare.key_outcomes`). Beside it: the relative gain ``(A_main - A_c) / A_c`` (TOMATO's
tau for the shuffled control, kappa for the single frame) with a paired bootstrap CI, and the flip table (groups
right in both, in main only, in the control only, in neither; a group is right when every unit of it is).

Every group all four tasks scored gets one label, the first that holds: answerable blind (right in the blind
variant), answerable from one frame, answerable without the order (right when shuffled), needs the order (right in
main only), never right. The labels use the first key all four tasks report (Vinoground: ``text_score``, as its
blind variant ``vinoground_text_blind`` asks the text-score questions only).

The two tasks must differ in their visual input only: their provenance records are compared as ``compare`` does
(:func:`temporal_tasks.tools.compare.check_comparable`), less the fields a variant changes by design (``shortcut``;
for the blind variant, which sees no frame, also ``frames.n`` and ``paired_layout``; for a blind variant with
questions of its own, the data fingerprints), and the model must be the same.

**Frame count.** Runs of one task and model that differ only in N (``frames.n`` of their provenance, never a
folder name) give the score against N with its group-bootstrap CI, and the paired difference between successive N.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from temporal_tasks.api.registry import Benchmark, of_task, registered
from temporal_tasks.base.errors import DataError
from temporal_tasks.scoring.bootstrap import GroupOutcomes, bootstrap_ci, stratified_percent
from temporal_tasks.tools.compare import (
    ITERATIONS,
    SEED,
    Comparison,
    check_comparable,
    comparable_metrics,
    compare_outcomes,
    key_outcomes,
    read_task,
)
from temporal_tasks.tools.provenance import differences, from_results
from temporal_tasks.tools.runs import find_runs

VARIANTS = ("blind", "single_frame", "shuffled")
VARIANT_NAMES = {"blind": "blind (no visual)", "single_frame": "single frame", "shuffled": "shuffled frames"}
RATIO_NAMES = {"single_frame": "κ", "shuffled": "τ", "blind": "relative to blind"}
LABELS = (
    "answerable blind",
    "answerable from one frame",
    "answerable without the order",
    "needs the order",
    "never right",
)
# Fields a variant changes by design: the visual input. The blind variant sees no frame at all, so N and the paired
# layout do not apply to it.
IGNORED = {"blind": ("shortcut", "frames.n", "paired_layout"), "single_frame": ("shortcut",), "shuffled": ("shortcut",)}
DATA_FIELDS = ("data.annotations_sha256", "data.videos_sha256")
FRAME_FIELDS = ("frames.n", "paired_layout")  # what a frame sweep varies (the paired layout follows N)


# --------------------------------------------------------------------------- reading the runs


@dataclass
class TaskRun:
    """One task of one run: its samples file, provenance record and model; payloads read on first use."""

    task: str
    run: str  # the run's name, <folder>/<stamp>
    file: Path
    record: dict | None
    model: str
    _items: dict[str, list] | None = field(default=None, repr=False)

    @property
    def n(self) -> int | None:
        """N of the run (its provenance ``frames.n``), or None when unknown."""
        n = ((self.record or {}).get("frames") or {}).get("n")
        return n if isinstance(n, int) else None

    def items(self) -> dict[str, list]:
        """``{metric key: payloads}`` of the task, read once (as ``compare`` reads them)."""
        if self._items is None:
            self._items, record = read_task(self.task, self.file)
            self.record = self.record if self.record is not None else record
        return self._items

    @property
    def repeats(self) -> int:
        """k of a ``--repeats k`` run (1 otherwise), from its payloads."""
        for payloads in self.items().values():
            for p in payloads:
                return len(p.get("repeats") or ()) or 1
        return 1

    def key_items(self, key: str, repeat: int | None = None) -> list:
        """The payloads of ``key``; of a ``--repeats k`` run, one repeat's reading (``repeat``, default the first)."""
        items = self.items().get(key) or []
        return items if self.repeats == 1 else repeat_items(items, repeat or 0)


def repeat_items(items: list, repeat: int) -> list:
    """The payloads of a ``--repeats k`` run as a run of repeat ``repeat`` alone: its reading in place of the
    top-level one (repeat 0's), no ``repeats`` list, so the aggregations score that repeat as a run of its own."""
    out = []
    for p in items:
        readings = p.get("repeats")
        if not readings:
            out.append(p)
            continue
        one = {k: v for k, v in p.items() if k != "repeats"}
        one.update(readings[repeat])
        out.append(one)
    return out


def model_of(results: dict) -> str:
    """The model of a results file as a comparable identity: lmms-eval's model type, and the model it loaded
    (``model_name``, else ``pretrained=`` of ``--model_args``) when named."""
    cfg = results.get("config") or {}
    name = results.get("model_name") or ""
    for part in str(cfg.get("model_args") or "").split(","):
        key, sep, value = part.partition("=")
        if sep and key.strip() == "pretrained" and not name:
            name = value.strip()
    return f"{cfg.get('model') or '?'}" + (f" ({name})" if name else "")


def collect(paths: Iterable[str | Path]) -> list[TaskRun]:
    """Every task of every run (with ``--log_samples`` files) found under ``paths``, oldest run first."""
    paths = list(paths)
    for raw in paths:
        if not Path(raw).exists():
            raise DataError(
                f"{raw}: no such file or folder (pass run folders holding lmms-eval's --log_samples files)."
            )
    out = []
    for run in find_runs(paths):
        if not run.samples:
            continue
        results: dict = {}
        if run.results is not None:
            try:
                results = json.loads(run.results.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise DataError(f"{run.results}: not a readable results JSON ({exc}).") from None
        records = from_results(results)
        for task, file in sorted(run.samples.items()):
            out.append(TaskRun(task, run.name, file, records.get(task), model_of(results)))
    if not out:
        raise DataError(f"no *_samples_<task>.jsonl file under {[str(p) for p in paths]}; run lmms-eval --log_samples.")
    return out


# --------------------------------------------------------------------------- keys and outcomes


def key_order(task: str) -> list[str]:
    """The group keys of ``task`` that ``compare`` tests, headline first: the spec's ``primary`` then ``headline``
    keys, then the others."""
    keys = [k for k, _, _ in comparable_metrics(task)]
    spec = of_task(task)
    preferred = [*(spec.primary if spec else ()), *(spec.headline if spec else ())]
    return [k for k in dict.fromkeys(preferred) if k in keys] + [k for k in keys if k not in preferred]


def shared_key(tasks: Sequence[str]) -> str | None:
    """The first key (in the first task's :func:`key_order`) every task reports, or None."""
    others = [set(key_order(t)) for t in tasks[1:]]
    return next((k for k in key_order(tasks[0]) if all(k in o for o in others)), None)


def outcomes_of(tr: TaskRun, key: str, which: str, repeat: int | None = None) -> GroupOutcomes:
    """The group outcomes of ``key`` in ``tr`` (of a ``--repeats k`` run: one repeat's), exactly as ``compare``
    reads them (checked against the value the task's aggregation gives for the same payloads)."""
    for k, aggregate, outcomes in comparable_metrics(tr.task, categories=False):
        if k == key:
            return key_outcomes(tr.task, key, which, aggregate, outcomes, tr.key_items(key, repeat))
    raise DataError(f"{tr.task}: {key} is not one of its group metrics.")


def right_groups(o: GroupOutcomes) -> dict[str, bool]:
    """Per group: right (every unit of it right) or not."""
    return {gid: bool(c[1] > 0 and c[0] == c[1]) for gid, c in zip(o.ids, o.counts, strict=True)}


def flip_table(main: GroupOutcomes, control: GroupOutcomes) -> dict[str, int]:
    """Groups both scored: right in both, in main only, in the control only, in neither."""
    m, c = right_groups(main), right_groups(control)
    table = {"both": 0, "main_only": 0, "control_only": 0, "neither": 0}
    for gid in m.keys() & c.keys():
        key = ("both" if c[gid] else "main_only") if m[gid] else ("control_only" if c[gid] else "neither")
        table[key] += 1
    return table


def label_groups(main: GroupOutcomes, controls: dict[str, GroupOutcomes]) -> dict[str, str]:
    """Each group all four scored (main's order), labelled by the first of :data:`LABELS` that holds."""
    right = {v: right_groups(o) for v, o in controls.items()}
    m = right_groups(main)
    out = {}
    for gid in main.ids:
        if not all(gid in right[v] for v in VARIANTS):
            continue
        found = [right["blind"][gid], right["single_frame"][gid], right["shuffled"][gid], m[gid], True]
        out[gid] = LABELS[found.index(True)]
    return out


def paired_ratio(
    base: np.ndarray,
    new: np.ndarray,
    strata: Sequence[str] | None = None,
    *,
    order: Sequence[str] = (),
    iters: int = ITERATIONS,
    seed: int = SEED,
    level: float = 0.95,
) -> tuple[float, float, float]:
    """``(A_new - A_base) / A_base`` of aligned per-group ``[right, units]`` rows, with a paired group-bootstrap CI
    (the same resampled groups for both, within strata); NaN where ``A_base`` is 0."""
    base = np.asarray(base, dtype=np.int64).reshape(-1, 2)
    new = np.asarray(new, dtype=np.int64).reshape(-1, 2)
    vb, vn = stratified_percent(base, strata, order), stratified_percent(new, strata, order)
    value = (vn - vb) / vb if vb and not math.isnan(vb) else math.nan
    if len(base) == 0 or math.isnan(value):
        return value, math.nan, math.nan
    labels = np.asarray(strata) if strata is not None else np.zeros(len(base), dtype=np.int64)
    rng = np.random.default_rng(seed)
    per_b: list[np.ndarray] = []
    per_n: list[np.ndarray] = []
    for stratum in sorted(set(labels.tolist())):
        rows = np.flatnonzero(labels == stratum)
        idx = rng.integers(0, len(rows), size=(iters, len(rows)))
        for counts, out in ((base[rows], per_b), (new[rows], per_n)):
            den = counts[idx, 1].sum(1)
            with np.errstate(invalid="ignore", divide="ignore"):
                out.append(np.where(den > 0, 100.0 * counts[idx, 0].sum(1) / np.maximum(den, 1), np.nan))
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample whose strata all lack units: NaN, dropped below
        b, n = np.nanmean(np.stack(per_b), axis=0), np.nanmean(np.stack(per_n), axis=0)
        stats = (n - b) / b
    stats = stats[np.isfinite(stats)]
    if stats.size == 0:
        return value, math.nan, math.nan
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(stats, [tail, 100.0 - tail])
    return value, float(low), float(high)


def aligned(control: GroupOutcomes, main: GroupOutcomes) -> tuple[np.ndarray, np.ndarray, list[str] | None]:
    """The two outcomes' counts on the groups both scored, in the control's order (as ``compare`` pairs them)."""
    at = {gid: i for i, gid in enumerate(main.ids)}
    common = [(i, at[g]) for i, g in enumerate(control.ids) if g in at]
    ci = np.asarray([i for i, _ in common], dtype=np.int64)
    mi = np.asarray([j for _, j in common], dtype=np.int64)
    strata = [control.strata[i] for i in ci] if control.strata is not None else None
    return control.counts[ci], main.counts[mi], strata


# --------------------------------------------------------------------------- time order


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
) -> list[TimeOrder]:
    """Each main task found (per run) against the controls found: see the module docstring. A control that differs
    beyond its visual input is a ``DataError`` (``force``: paired anyway, with a note); given a ``refused`` list, its
    message is added there and the control left out instead (``report``)."""
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
            for variant, task in zip(VARIANTS, tasks[1:], strict=True):
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
                out.append(_one(spec, main, controls, force, iters, seed))
                continue
            # --repeats k: one reading per repeat, repeat r of main against repeat r of each control
            for variant, control in list(controls.items()):
                if control.repeats != k:
                    problem = f"{main.task} has {k} repeats but {control.task} has {control.repeats}"
                    if refused is None:
                        raise DataError(f"{problem}; run the main task and its controls with the same --repeats.")
                    refused.append(problem)
                    del controls[variant]
            out += [_one(spec, main, controls, force, iters, seed, repeat=r) for r in range(k)]
    return out


def _one(
    spec: Benchmark,
    main: TaskRun,
    controls: dict[str, TaskRun],
    force: bool,
    iters: int,
    seed: int,
    repeat: int | None = None,
) -> TimeOrder:
    notes: list[str] = []
    rows = []
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
        row = compare_outcomes(control.task, key, co, mo, iters=iters, seed=seed)
        if row is None:
            notes.append(f"{label} {key}: no group scored completely in both runs")
            continue
        if row.groups < max(len(mo.ids), len(co.ids)):
            notes.append(
                f"{label} {key}: {row.groups} groups scored completely in both (main {len(mo.ids)}, control "
                f"{len(co.ids)}); values are on the common groups"
            )
        b, n, strata = aligned(co, mo)
        rel, low, high = paired_ratio(b, n, strata, order=co.order, iters=iters, seed=seed)
        rows.append(ControlRow(variant, control.task, control.run, row, rel, (low, high), flip_table(mo, co)))
    if head not in main_outcomes:
        main_outcomes[head] = outcomes_of(main, head, "main", repeat)
    result = TimeOrder(spec.title, main, head, main_outcomes[head].value(), rows, repeat=repeat,
                       repeats=main.repeats, notes=notes)  # fmt: skip
    if set(controls) == set(VARIANTS):
        key = shared_key([main.task, *(controls[v].task for v in VARIANTS)])
        if key is not None:
            mo = main_outcomes.get(key) or outcomes_of(main, key, "main", repeat)
            cos = {v: outcomes_of(controls[v], key, "control", repeat) for v in VARIANTS}
            result.label_key, result.labels = key, label_groups(mo, cos)
            cats = group_categories(main.key_items(key, repeat))
            result.categories = {g: cats.get(g, []) for g in result.labels}
    return result


# --------------------------------------------------------------------------- frame count


@dataclass
class FramePoint:
    """One N of a sweep: the run, the value and its group-bootstrap 95% CI."""

    n: int
    run: str
    value: float
    ci_low: float
    ci_high: float
    groups: int


@dataclass
class FrameSeries:
    """One task and model over several N: the points (N ascending) and each successive paired difference."""

    benchmark: str
    task: str
    model: str
    key: str
    points: list[FramePoint]
    steps: list[Comparison]  # base: the smaller N, new: the next; task field: "N=a -> N=b"
    notes: list[str] = field(default_factory=list)


def frame_series(taskruns: list[TaskRun], *, iters: int = ITERATIONS, seed: int = SEED) -> list[FrameSeries]:
    """Per task and model, the runs that differ only in N (provenance ``frames.n``; the paired layout follows it),
    when they hold at least two values of N."""
    sets: list[list[TaskRun]] = []
    for tr in taskruns:
        if tr.record is None or not comparable_metrics(tr.task):
            continue
        for members in sets:
            first = members[0]
            if (first.task, first.model) == (tr.task, tr.model) and not differences(first.record or {}, tr.record,
                                                                                    FRAME_FIELDS):  # fmt: skip
                members.append(tr)
                break
        else:
            sets.append([tr])
    out = []
    for members in sets:
        notes: list[str] = []
        by_n: dict[int, TaskRun] = {}
        for tr in members:  # oldest first: a later run of the same N replaces an earlier one
            if tr.n is None:
                notes.append(f"{tr.task} ({tr.run}): N unknown in its provenance; left out")
            else:
                if tr.n in by_n:
                    notes.append(f"{tr.task} N={tr.n}: {tr.run} used, not the older {by_n[tr.n].run}")
                by_n[tr.n] = tr
        if len(by_n) < 2:
            continue
        if any(tr.repeats > 1 for tr in by_n.values()):
            notes.append("--repeats runs: each N's first repeat (one reading per repeat; `timeorder` pairs the rest)")
        task = members[0].task
        key = key_order(task)[0]
        spec = of_task(task)
        ns = sorted(by_n)
        outs = [outcomes_of(by_n[n], key, f"N={n}") for n in ns]
        points = []
        for n, o in zip(ns, outs, strict=True):
            low, high = bootstrap_ci(o.counts, o.strata)
            points.append(FramePoint(n, by_n[n].run, o.value(), low, high, len(o.ids)))
        steps = []
        for (a, oa), (b, ob) in zip(zip(ns, outs, strict=True), zip(ns[1:], outs[1:], strict=True), strict=False):
            row = compare_outcomes(f"N={a} -> N={b}", key, oa, ob, iters=iters, seed=seed)
            if row is None:
                notes.append(f"{task}: N={a} and N={b} share no complete group")
            else:
                steps.append(row)
        title = spec.title if spec else task
        out.append(FrameSeries(title, task, members[0].model, key, points, steps, notes))
    return out

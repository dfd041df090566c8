"""Frame count: runs of one task and model that differ only in N, the score against N and the paired steps."""

from __future__ import annotations

from dataclasses import dataclass, field

from temporal_tasks.api.registry import of_task
from temporal_tasks.scoring.bootstrap import bootstrap_ci
from temporal_tasks.tools.compare import (
    ITERATIONS,
    SEED,
    Comparison,
    compare_outcomes,
)
from temporal_tasks.tools.provenance import differences
from temporal_tasks.tools.timeorder.outcomes import FRAME_FIELDS, group_metrics, key_order, outcomes_of
from temporal_tasks.tools.timeorder.runs import TaskRun


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
        if tr.record is None or not group_metrics(tr.task):
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

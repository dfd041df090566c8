"""Frame count (``tools/timeorder/frames.py``): runs differing only in N, read from provenance, scored against N."""

from __future__ import annotations

import numpy as np

from temporal_tasks.scoring.bootstrap import bootstrap_ci
from temporal_tasks.tools.timeorder import (
    collect,
    frame_series,
    time_order,
)
from tests.helpers.timeorder_runs import MAIN, record, write_run
from tests.helpers.timeorder_runs import answers as _answers
from tests.helpers.timeorder_runs import docs as _docs

ITERS = 400


def test_score_against_n_from_provenance_not_folder_names(offline_env, tmp_path):
    docs = _docs()
    # folder names lie on purpose: N is each run's provenance frames.n
    for folder, n, right, stamp in (("n16", 4, {0}, "20261201_101010"), ("n4", 8, {0, 1}, "20261201_111111"),
                                    ("n8", 16, {0, 1, 2}, "20261201_121212")):  # fmt: skip
        write_run(tmp_path / folder, {MAIN: _answers(docs, right)}, stamp=stamp, records={MAIN: record(MAIN, n=n)})
    (series,) = frame_series(collect([tmp_path]), iters=ITERS)
    assert (series.task, series.key) == (MAIN, "instance_acc")
    assert [(p.n, p.value, p.groups) for p in series.points] == [(4, 25.0, 4), (8, 50.0, 4), (16, 75.0, 4)]
    for p, right in zip(series.points, ({0}, {0, 1}, {0, 1, 2}), strict=True):
        counts = np.array([[int(g in right), 1] for g in range(4)])
        assert (p.ci_low, p.ci_high) == bootstrap_ci(counts)
    assert [(s.task, s.diff, s.groups) for s in series.steps] == [("N=4 -> N=8", 25.0, 4), ("N=8 -> N=16", 25.0, 4)]
    assert not time_order(collect([tmp_path]))  # no control: no time-order result


def test_runs_differing_in_more_than_n_are_no_sweep(offline_env, tmp_path):
    docs = _docs()
    write_run(tmp_path / "a", {MAIN: _answers(docs, {0})}, records={MAIN: record(MAIN, n=4)})
    write_run(tmp_path / "b", {MAIN: _answers(docs, {0})}, stamp="20261201_111111",
              records={MAIN: record(MAIN, n=8, reading="official")})  # fmt: skip
    assert frame_series(collect([tmp_path])) == []

"""The viewer's frames view (``tools/view/frames.py`` and its place in ``view_data``): ``timeorder``'s frame-count
series of the runs under the paths viewed, the same numbers as ``frames.csv``, with an inline SVG chart."""

from __future__ import annotations

import csv
import re

from temporal_tasks.tools.timeorder import collect, frame_series
from temporal_tasks.tools.timeorder.tables import write_frames_csv
from temporal_tasks.tools.view.build import view_data
from temporal_tasks.tools.view.frames import frames_data, sweep_runs
from tests.helpers.timeorder_runs import MAIN, answers, docs, record, write_run

SWEEP = {4: {0}, 8: {0, 1}, 16: {0, 1, 3}}  # N -> the TimeBlind instances answered right


def _sweep(root, ns=SWEEP):
    questions = docs()
    for i, (n, right) in enumerate(ns.items()):
        write_run(root / f"n{n}", {MAIN: answers(questions, right)}, stamp=f"2026120{i + 1}_101010",
                  records={MAIN: record(MAIN, n=n)})  # fmt: skip
    return root


def _f(x: str) -> float | None:
    return float(x) if x not in ("", "nan") else None


def test_frames_data_is_frame_series_and_frames_csv(offline_env, tmp_path):
    root = _sweep(tmp_path / "frames")
    series = frame_series(collect([root]))
    (entry,) = frames_data(series)
    (s,) = series
    assert (entry["task"], entry["key"], entry["model"]) == (MAIN, s.key, s.model)
    assert [(p["n"], p["value"], p["ci_low"], p["ci_high"], p["groups"]) for p in entry["points"]] == [
        (p.n, p.value, p.ci_low, p.ci_high, p.groups) for p in s.points
    ]
    assert [p["value"] for p in entry["points"]] == [25.0, 50.0, 75.0]  # 1, 2, 3 of the 4 instances right
    assert [(c["step"], c["diff"], c["ci_low"], c["ci_high"], c["p_value"], c["groups"]) for c in entry["steps"]] == [
        (c.task, c.diff, c.ci_low, c.ci_high, c.p_value, c.groups) for c in s.steps
    ]
    assert [c["step"] for c in entry["steps"]] == ["N=4 -> N=8", "N=8 -> N=16"]
    # what `timeorder --out` writes to frames.csv, row for row
    with open(write_frames_csv(series, tmp_path / "frames.csv")) as fh:
        rows = list(csv.DictReader(fh))
    points = [r for r in rows if r["n"]]
    assert [(int(r["n"]), _f(r["value"]), _f(r["ci_low"]), _f(r["ci_high"])) for r in points] == [
        (p["n"], p["value"], p["ci_low"], p["ci_high"]) for p in entry["points"]
    ]
    steps = [r for r in rows if not r["n"]]
    assert [(_f(r["diff"]), _f(r["diff_ci_low"]), _f(r["diff_ci_high"]), _f(r["p_value"])) for r in steps] == [
        (c["diff"], c["ci_low"], c["ci_high"], c["p_value"]) for c in entry["steps"]
    ]
    # the chart: one point per N with its value and CI
    got = re.findall(r'<g class="point" data-n="(\d+)" data-value="([^"]+)" data-ci-low="([^"]+)" '
                     r'data-ci-high="([^"]+)">', entry["chart"])  # fmt: skip
    assert got == [(str(p.n), f"{p.value:.2f}", f"{p.ci_low:.2f}", f"{p.ci_high:.2f}") for p in s.points]


def test_view_of_a_sweep_folder_shows_the_newest_run_and_every_n(offline_env, tmp_path):
    root = _sweep(tmp_path / "frames")
    data = view_data([root])
    assert "the newest complete run of 3 found" in data["notes"][0]
    (task,) = data["tasks"]
    assert task["task"] == MAIN and task["runs"][0]["counts"]["right"] == 3  # the N=16 run's groups
    (entry,) = data["frame_series"]
    assert entry == frames_data(frame_series(collect([root])))[0]
    # one run folder alone holds one N: no frames view
    assert view_data([root / "n8"])["frame_series"] == []


def test_two_runs_of_a_sweep_and_a_folder_that_cannot_be_read(offline_env, tmp_path):
    root = _sweep(tmp_path / "frames", {4: {0}, 8: {0, 1}})
    data = view_data([root / "n4", root / "n8"])
    (entry,) = data["frame_series"]
    assert [p["n"] for p in entry["points"]] == [4, 8] and entry["steps"][0]["diff"] == 25.0
    notes: list[str] = []
    assert sweep_runs([tmp_path / "missing"], notes) == [] and "frames view: " in notes[0]

"""The report's time-order and frame-count tables (``tools/report/timeorder.py``): our rows as ``timeorder`` gives
them, the papers' published controls beside them, the CSVs and the frame chart, from hand-written runs."""

from __future__ import annotations

import csv

import pytest

from temporal_tasks.tools.report import main_report
from temporal_tasks.tools.timeorder import collect, time_order
from tests.helpers.timeorder_runs import MAIN, TASKS, answers, docs, record, write_run

RIGHT = {"main": {0, 1, 2}, "blind": {0}, "single_frame": {0, 1}, "shuffled": {0, 3}}


@pytest.fixture
def run(offline_env, tmp_path):
    questions = docs()
    given = {TASKS[k]: answers(questions, right) for k, right in RIGHT.items()}
    values = {TASKS[k]: {"instance_acc": 25.0 * len(right)} for k, right in RIGHT.items()}
    return write_run(tmp_path / "run", given, values=values)


def test_report_shows_the_time_order_beside_the_papers(run, tmp_path):
    written = main_report([str(run)], str(tmp_path / "report"))
    md = (tmp_path / "report" / "report.md").read_text()
    (result,) = time_order(collect([run]))
    section = md[md.index("## TimeBlind") :]
    assert "#### Time order: temporal_replay, `timeblind_iacc` (N=8)" in section
    for row in result.rows:
        c = row.comparison
        assert (
            f"| instance_acc | {c.base:.2f} | {c.new:.2f} | {c.diff:+.2f} | [{c.ci_low:.2f}, {c.ci_high:.2f}] |"
            in section
        )
    # TimeBlind's paper (GPT-5) published the three controls and the main task: its rows, without a CI
    assert "| GPT-5 (shuffled frames) (paper) | shuffled frames | instance_acc | 3.00 | 46.30 | +43.30 | – |" in section
    assert "| GPT-5 (single frame) (paper) | single frame | instance_acc | 4.50 | 46.30 | +41.80 | – |" in section
    assert "| needs the order | 1 | 25.0 |" in section
    with open(tmp_path / "report" / "timeorder.csv") as fh:
        rows = {r["variant"]: r for r in csv.DictReader(fh)}
    assert float(rows["shuffled"]["diff"]) == 25.0 and float(rows["shuffled"]["relative"]) == 0.5
    assert tmp_path / "report" / "timeorder_groups.csv" in written
    assert "## Frame count" not in md  # one N only


def test_report_charts_the_score_against_n(offline_env, tmp_path):
    questions = docs()
    for n, right, stamp in ((4, {0}, "20261201_101010"), (8, {0, 1}, "20261201_111111")):
        write_run(tmp_path / f"r{n}", {MAIN: answers(questions, right)}, stamp=stamp,
                  records={MAIN: record(MAIN, n=n)}, values={MAIN: {"instance_acc": 25.0 * len(right)}})  # fmt: skip
    written = main_report([str(tmp_path / "r4"), str(tmp_path / "r8")], str(tmp_path / "report"))
    md = (tmp_path / "report" / "report.md").read_text()
    assert "## Frame count" in md and "| N=4 -> N=8 | +25.00 |" in md
    charts = [p for p in written if p.name.startswith("frames_")]
    assert len(charts) == 1 and charts[0].stat().st_size > 1000 and f"]({charts[0].name})" in md
    assert "Time order:" not in md  # no control: no time-order table


def test_a_refused_pair_is_said_not_raised(offline_env, tmp_path):
    questions = docs()
    shuffled = TASKS["shuffled"]
    write_run(tmp_path / "a", {MAIN: answers(questions, {0})}, values={MAIN: {"instance_acc": 25.0}})
    write_run(tmp_path / "b", {shuffled: answers(questions, {0})}, stamp="20261201_111111",
              records={shuffled: record(shuffled, n=16)}, values={shuffled: {"instance_acc": 25.0}})  # fmt: skip
    main_report([str(tmp_path / "a"), str(tmp_path / "b")], str(tmp_path / "report"))
    md = (tmp_path / "report" / "report.md").read_text()
    assert "- not paired: timeblind_iacc vs timeblind_iacc_shuffled: " in md and "frames.n: 16 != 8" in md

"""The viewer's time-order data (``tools/view/timeorder.py``): ``timeorder``'s rows and labels of the viewed run,
a refused pair said in the notes."""

from __future__ import annotations

from temporal_tasks.tools.timeorder import collect, time_order
from temporal_tasks.tools.view.timeorder import run_tasks, timeorder_data
from tests.helpers.timeorder_runs import MAIN, TASKS, answers, docs, record, write_run


def test_rows_and_labels_are_timeorders(offline_env, tmp_path):
    questions = docs()
    right = {"main": {0, 1, 2}, "blind": {0}, "single_frame": {0, 1}, "shuffled": {0, 3}}
    run = write_run(tmp_path / "run", {TASKS[k]: answers(questions, r) for k, r in right.items()})
    notes: list[str] = []
    (entry,) = timeorder_data(list(run_tasks(run).values()), notes)
    (result,) = time_order(collect([run]))
    assert not notes and entry["main"] == MAIN and entry["tasks"] == {"main": MAIN, **{k: TASKS[k] for k in right if
                                                                                      k != "main"}}  # fmt: skip
    assert [(r["variant"], r["diff"], r["ci_low"], r["ci_high"], r["p_value"], r["flips"]) for r in entry["rows"]] == [
        (r.variant, r.comparison.diff, r.comparison.ci_low, r.comparison.ci_high, r.comparison.p_value, r.flips)
        for r in result.rows
    ]
    assert entry["labels"] == result.labels and entry["counts"]["needs the order"] == 1


def test_a_refused_pair_is_a_note(offline_env, tmp_path):
    questions = docs()
    shuffled = TASKS["shuffled"]
    run = write_run(tmp_path / "run", {MAIN: answers(questions, {0}), shuffled: answers(questions, {0})},
                    records={shuffled: record(shuffled, n=16)})  # fmt: skip
    notes: list[str] = []
    assert timeorder_data(list(run_tasks(run).values()), notes) == []
    assert len(notes) == 1 and "frames.n: 16 != 8" in notes[0]
    assert run_tasks(tmp_path / "nothing-here") == {}

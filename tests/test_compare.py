"""``temporal-tasks compare``: paired group-level differences between two runs."""

from __future__ import annotations

import csv
import json
import shutil

import numpy as np
import pytest

from temporal_tasks import cli
from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.compare import compare_runs, paired_test

FLIP = {"yes": "No", "no": "Yes", "A": "B", "B": "A"}


def test_paired_test_identical_runs_give_zero_and_p_one():
    rng = np.random.default_rng(0)
    right = rng.integers(0, 3, size=50)
    counts = np.stack([right, np.full(50, 2)], axis=1)
    vb, vn, diff, low, high, p = paired_test(counts, counts.copy())
    assert vb == vn == pytest.approx(100 * right.sum() / 100) and diff == 0.0
    assert low == high == 0.0 and p == 1.0


def test_paired_test_hand_case_and_strata():
    base = np.array([[1, 1]] * 20)
    new = np.array([[1, 1]] * 10 + [[0, 1]] * 10)
    vb, vn, diff, low, high, p = paired_test(base, new, iters=4000)
    assert (vb, vn, diff) == (100.0, 50.0, -50.0)
    assert low <= diff <= high and high < 0
    # 10 discordant groups, all one way: the exact two-sided sign-flip p-value is 2 / 2**10
    assert p == pytest.approx(2 / 2**10, abs=0.004)
    # strata: the statistic is the mean over strata of the percentages
    strata = ["a"] * 10 + ["b"] * 10
    vb, vn, diff, *_ = paired_test(base, np.array([[0, 1]] * 10 + [[1, 1]] * 10), strata)
    assert (vb, vn, diff) == (100.0, 50.0, -50.0)
    vb, vn, diff, *_ = paired_test(base[:12], np.array([[0, 1]] * 2 + [[1, 1]] * 10), strata[:2] + ["b"] * 10)
    assert diff == pytest.approx((0 + 100) / 2 - 100)


def expected_diffs(rows: list) -> dict[tuple[str, str], float]:
    return {(r.task, r.metric): r.diff for r in rows}


def _answers(docs: list[dict], wrong: set[str]) -> dict[str, str]:
    return {d["question_id"]: FLIP[d["gold"]] if d["question_id"] in wrong else d["gold"] for d in docs}


@pytest.mark.slow
def test_compare_two_replay_runs(lmms_eval, fixture_root, tmp_path, monkeypatch, capsys):
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind
    from temporal_tasks.benchmarks.vinoground import tasks as vinoground

    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(fixture_root))
    tb, vg = timeblind.load_docs(), vinoground.load_docs(variant="group")
    # Every answer right in BASE. NEW: one trial of instance 0 and all of instance 1 wrong (TimeBlind);
    # pair 0's pos_text and pair 1's pos_video wrong (Vinoground).
    base = {**_answers(tb, set()), **_answers(vg, set())}
    wrong = {"0", "4", "5", "6", "7", "0_pos_text", "1_pos_video"}
    new = {**_answers(tb, wrong), **_answers(vg, wrong)}
    tasks = "timeblind_iacc,vinoground_group"
    lmms_eval(tasks, responses=base)
    lmms_eval(tasks, responses=new)
    # an N set through the model's arguments: not comparable
    from tests.conftest import write_responses

    other = write_responses(tmp_path / "new.jsonl", new)
    lmms_eval(tasks, model_args=f"responses={other},max_num_frames=16")
    runs = [tmp_path / f"run{i}" / "results" for i in (1, 2, 3)]

    rows, notes = compare_runs(runs[0], runs[1])
    got = {(r.task, r.metric): r for r in rows}
    expected = {
        ("timeblind_iacc", "trial_acc"): -100 * 5 / 16,
        ("timeblind_iacc", "question_acc"): -100 * 3 / 8,
        ("timeblind_iacc", "video_acc"): -100 * 3 / 8,
        ("timeblind_iacc", "instance_acc"): -50.0,
        ("vinoground_group", "text_score"): -25.0,
        ("vinoground_group", "video_score"): -25.0,
        ("vinoground_group", "group_score"): -50.0,
    }
    assert set(got) == set(expected) and not notes
    for key, diff in expected.items():
        r = got[key]
        assert r.base == 100.0 and r.diff == pytest.approx(diff) and r.new == pytest.approx(100 + diff), key
        assert r.ci_low <= r.diff <= r.ci_high and r.groups == 4 and 0 < r.p_value <= 1, key

    same, _ = compare_runs(runs[1], runs[1])
    assert all(r.diff == 0 and r.p_value == 1.0 for r in same)

    # a folder holding both runs: its newest complete run (NEW's), named in the notes, or --run chooses
    both = tmp_path / "both"
    both.mkdir()
    (results0,) = runs[0].rglob("*_results.json")
    stamp0 = results0.name.removesuffix("_results.json")
    for file in runs[0].rglob("*.json*"):
        shutil.copy2(file, both / file.name.replace(stamp0, "20000101_000000"))
    for file in runs[1].rglob("*.json*"):
        shutil.copy2(file, both / file.name)
    newest, notes = compare_runs(both, runs[1])
    assert all(r.diff == 0 for r in newest) and "the newest complete run of 2" in notes[0]
    chosen, notes = compare_runs(both, runs[1], runs=("20000101_000000", None))
    assert expected_diffs(chosen) == expected_diffs(rows)
    assert notes == [f"BASE: run {both}/20000101_000000 (chosen with --run)"]
    assert cli.main(["compare", str(both), str(runs[1]), "--run", "20000101_000000", "--json"]) == 0
    assert {(r["task"], r["metric"]): r["diff"] for r in json.loads(capsys.readouterr().out)} == expected_diffs(rows)
    assert cli.main(["compare", str(both), str(runs[1]), "--run", "a", "--run", "b", "--run", "c"]) == 2
    assert "give it at most twice" in capsys.readouterr().err

    # --json: one object per task and metric with the documented keys
    assert cli.main(["compare", str(runs[0]), str(runs[1]), "--json", "--out", str(tmp_path / "cmp")]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert set(listed[0]) == {"task", "metric", "base", "new", "diff", "ci_low", "ci_high", "p_value", "groups"}
    assert len(listed) == len(expected)
    assert (tmp_path / "cmp" / "compare.png").stat().st_size > 1000
    with open(tmp_path / "cmp" / "compare.csv") as fh:
        assert len(list(csv.DictReader(fh))) == len(expected)
    table = (tmp_path / "cmp" / "compare.md").read_text()
    assert "| vinoground_group | group_score | 100.00 | 50.00 | -50.00 |" in table

    # different N: refused, naming it; --force compares and says so
    with pytest.raises(DataError, match="timeblind_iacc: .*frames.n: null != 16"):
        compare_runs(runs[1], runs[2])
    assert cli.main(["compare", str(runs[1]), str(runs[2])]) == 2
    assert "frames.n" in capsys.readouterr().err
    forced, notes = compare_runs(runs[1], runs[2], force=True)
    assert all(r.diff == 0 for r in forced) and any("--force" in n for n in notes)

    # lmms-eval's --baseline: one warning naming compare
    (base_samples,) = runs[0].rglob("*_samples_timeblind_iacc.jsonl")
    run = lmms_eval(tasks, responses=new, args=["--baseline", str(base_samples)])
    assert run.output.count("does not apply to our tasks") == 1 and "temporal-tasks compare" in run.output


def test_compare_needs_shared_tasks(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    with pytest.raises(DataError, match="compare needs each run's --log_samples"):
        compare_runs(a, b)


@pytest.mark.parametrize(
    "task",
    ["timeblind_iacc", "vinoground_group", "temporalbench_short_mba", "velociti_strictvle", "velociti_mc",
     "velociti_strictvle_prob"],
)  # fmt: skip
@pytest.mark.parametrize("mode", ["robust", "official"])
def test_group_outcomes_give_every_metric(task, mode, offline_env, monkeypatch):
    """Each compared metric, as a function over groups, is exactly the number the task reports."""
    import random

    from temporal_tasks.harness.task_configs import resolve_function, task_config
    from temporal_tasks.tools.compare import comparable_metrics
    from temporal_tasks.tools.samples import docs_of_task

    monkeypatch.setenv("TEMPORAL_TASKS_PARSER", mode)
    docs = docs_of_task(task)
    process_results = resolve_function(task_config(task)["process_results"])
    rng = random.Random(7)
    items: dict[str, list] = {}
    for doc in docs:
        if task.endswith("_prob"):
            results = [(rng.uniform(0, 3), False), (rng.uniform(0, 3), False)]
        else:
            results = [rng.choice(["A", "B", "Yes", "No", "", "maybe"])]
        for key, payload in process_results(doc, results).items():
            items.setdefault(key, []).append(payload)
    for payloads in items.values():
        rng.shuffle(payloads)  # aggregations get ranks' payloads in any order
    metrics = comparable_metrics(task, categories=True)
    assert len(metrics) >= 3
    for key, aggregate, outcomes in metrics:
        if key in items:
            found = outcomes(items[key])
            expected = aggregate(items[key])
            assert found.value() == pytest.approx(expected, nan_ok=True), key
            assert len(found.ids) == len(found.counts)

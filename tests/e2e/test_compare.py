"""``temporal-tasks compare`` on two replay runs of the real lmms-eval CLI, and lmms-eval's ``--baseline``."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from temporal_tasks import cli
from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.compare import compare_runs

FLIP = {"yes": "No", "no": "Yes", "A": "B", "B": "A"}


def expected_diffs(rows: list) -> dict[tuple[str, str], float]:
    return {(r.task, r.metric): r.diff for r in rows}


def _answers(docs: list[dict], wrong: set[str]) -> dict[str, str]:
    return {d["question_id"]: FLIP[d["gold"]] if d["question_id"] in wrong else d["gold"] for d in docs}


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

"""The viewer's data (``tools/view/build.py``): one run's groups, counts and failure shapes, two runs aligned with
``compare``'s numbers (the headline rows side by side) and the groups that flipped, and the errors (no browser:
tests/e2e/test_view.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.bench.scoring import timeblind_payloads
from temporal_tasks.tools.compare import compare_runs
from temporal_tasks.tools.view.build import view_data
from tests.helpers.timeorder_runs import MAIN, answers, docs, record, write_run

GOLD = ["yes", "no", "no", "yes"]


def _samples(folder: Path, answers: list[str], task: str = "timeblind_iacc") -> Path:
    """A samples file of two TimeBlind instances (rows 0-3, 4-7) answering ``answers``."""
    folder.mkdir()
    path = folder / f"20260101_samples_{task}.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for i, (per_key, answer) in enumerate(zip(timeblind_payloads(8), answers, strict=True)):
            line = {"doc_id": i, "doc": {}, "input": "Q?", "resps": [[answer]], "filtered_resps": [answer], **per_key}
            fh.write(json.dumps(line) + "\n")
    return path


def test_one_run_groups_counts_and_shapes(tmp_path):
    # instance 0 right; instance 1 answers "yes" to all four (each question alike on both videos)
    data = view_data([_samples(tmp_path / "a", GOLD + ["yes"] * 4)])
    (task,) = data["tasks"]
    assert (task["task"], task["benchmark"], task["prompts"]) == ("timeblind_iacc", "TimeBlind", ["Q?"])
    (run,) = task["runs"]
    assert run["questions"] == 8 and run["metric"] == "instance_acc"
    assert run["counts"] == {"right": 1, "failed": 1, "unscored": 0}
    assert run["shapes"] == {"same answer on both videos": 1}
    assert [(g["id"], g["r"][0]["o"]) for g in task["groups"]] == [("timeblind/0", "right"), ("timeblind/1", "failed")]
    assert [m["a"] for m in task["groups"][1]["r"][0]["m"]] == ["yes"] * 4
    assert "compare" not in task and data["notes"] == []
    assert data["runs"][0]["results"] is None and data["samples_bytes"] > 0


def test_two_runs_compare_and_count_flips(tmp_path):
    base = _samples(tmp_path / "base", GOLD + ["yes"] * 4)
    new = _samples(tmp_path / "new", GOLD + GOLD)
    (task,) = view_data([base, new])["tasks"]
    compare = task["compare"]
    assert compare["refused"] is None and compare["flips"] == {"better": 1, "worse": 0}
    rows = {r["metric"]: r for r in compare["rows"]}
    # base: 6 of 8 answers and 1 of 2 instances right; new: all
    assert (rows["trial_acc"]["base"], rows["trial_acc"]["new"]) == (75.0, 100.0)
    assert (rows["instance_acc"]["base"], rows["instance_acc"]["diff"], rows["instance_acc"]["groups"]) == (
        50.0, 50.0, 2,
    )  # fmt: skip
    assert "results JSON with provenance is missing" in compare["note"]  # samples only: not checked
    assert [len(g["r"]) for g in task["groups"]] == [2, 2]


def test_one_run_or_two_and_only_our_tasks(tmp_path):
    one = _samples(tmp_path / "a", GOLD * 2)
    with pytest.raises(DataError, match="one run or two"):
        view_data([])
    with pytest.raises(DataError, match="one run or two"):
        view_data([one, one, one])
    other = _samples(tmp_path / "b", GOLD * 2, task="someone_elses_task")
    with pytest.raises(DataError, match="no task of ours in"):
        view_data([other])


def test_two_runs_headline_rows_side_by_side_with_compares_numbers(offline_env, tmp_path):
    questions = docs()
    reported = {"a": {"instance_acc": 25.0, "instance_acc_ci_low": 0.0, "instance_acc_ci_high": 75.0},
                "b": {"instance_acc": 75.0, "instance_acc_ci_low": 25.0, "instance_acc_ci_high": 100.0}}  # fmt: skip
    base = write_run(tmp_path / "a", {MAIN: answers(questions, {0})}, values={MAIN: reported["a"]})
    new = write_run(tmp_path / "b", {MAIN: answers(questions, {0, 1, 2})}, values={MAIN: reported["b"]})
    (task,) = view_data([base, new])["tasks"]
    rows, _notes = compare_runs(base, new, categories=True, force=True)
    (pair,) = task["headline_pairs"]  # the runs report one headline key
    assert pair["metric"] == "instance_acc" and pair["reason"] is None
    assert pair["runs"] == [[25.0, 0.0, 75.0], [75.0, 25.0, 100.0]]
    (want,) = [r for r in rows if r.metric == "instance_acc"]
    got = pair["compared"]
    assert (got["base"], got["new"], got["diff"], got["ci_low"], got["ci_high"], got["p_value"], got["groups"]) == (
        want.base, want.new, want.diff, want.ci_low, want.ci_high, want.p_value, want.groups,
    )  # fmt: skip
    assert got["diff"] == 50.0
    # provenance that differs (N): the reason, no numbers
    other = write_run(tmp_path / "c", {MAIN: answers(questions, {0})}, values={MAIN: reported["b"]},
                      records={MAIN: record(MAIN, n=16)})  # fmt: skip
    (task,) = view_data([base, other])["tasks"]
    (pair,) = task["headline_pairs"]
    assert pair["compared"] is None and "frames.n: 8 != 16" in pair["reason"]
    assert pair["runs"][1] == [75.0, 25.0, 100.0]

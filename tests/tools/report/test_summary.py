"""``temporal-tasks summary`` (``tools/report/summary.py``): one row per task, and each task's provenance."""

from __future__ import annotations

import json

import pytest

from temporal_tasks.tools import report
from tests.helpers.results_files import write_results


def test_summary_and_report_print_provenance(tmp_path):
    from temporal_tasks.tools import report

    rec = {
        "version": 1, "temporal_tasks": "0.1.0", "task": "vinoground_group", "reading": "robust",
        "frames": {"n": 8, "source": "--model_args max_num_frames=8", "applies_to": "paired videos"},
        "paired_layout": {"frames_per_clip": 3, "black_frames": 2},
        "data": {"kind": "local", "path": "/data/vinoground", "questions": 2000, "videos": 1000,
                 "annotations_sha256": "ab" * 32, "videos_sha256": "cd" * 32},
        "shortcut": None, "cut": {"limit": None, "offset": 0},
    }  # fmt: skip
    path = tmp_path / "run" / "20261122_101010_results.json"
    path.parent.mkdir()
    path.write_text(json.dumps({
        "results": {"vinoground_group": {"alias": "vinoground_group", "group_score,none": 12.5}},
        "configs": {"vinoground_group": {"metadata": {"version": 1.0, "provenance": rec}}},
        "config": {"model": "m", "model_args": "max_num_frames=8"},
    }))  # fmt: skip
    text = report.summary_table([path.parent])
    assert "Provenance:" in text
    line = text.splitlines()[-1]
    assert "reading robust" in line and "N=8 (--model_args max_num_frames=8; paired videos)" in line
    assert "paired 3+2+3" in line and "annotations ababababab" in line and "/data/vinoground" in line
    report.main_report([str(path)], str(tmp_path / "rep"), references=False)
    assert "provenance of `vinoground_group`: reading robust; N=8" in (tmp_path / "rep" / "report.md").read_text()


def test_summary_one_row_per_task_with_ci_invalid_and_groups(tmp_path):
    run = write_results(
        tmp_path / "run" / "20261122_101010_results.json",
        {
            "timeblind_iacc": {"instance_acc": 31.25, "instance_acc_ci_low": 27.5, "instance_acc_ci_high": 35.0,
                               "question_acc": 40.0, "trial_acc": 70.0, "invalid_rate": 2.5,
                               "instance_acc_speed": 10.0},
            "vinoground_text": {"text_score": 50.0, "invalid_rate": 0.0},
            "some_other_task": {"acc": 12.0},
        },
        n_samples={"timeblind_iacc": {"original": 16, "effective": 15}},
    )  # fmt: skip
    # Groups come from the --log_samples file beside the results: instance 0 complete, instance 1 cut (3 of 4).
    samples = run.with_name("20261122_101010_samples_timeblind_iacc.jsonl")
    lines = [
        {"instance_acc": {"question_id": str(i), "group_id": f"timeblind/{i // 4}", "role": f"r{i % 4}",
                          "group_size": 4}}
        for i in range(7)
    ]  # fmt: skip
    samples.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    table = report.summary_table([run.parent]).splitlines()
    header = "| Task | headline | value [95% CI] | other headline metrics | invalid_rate | questions | groups |"
    assert table[0] == header
    assert table[-1].startswith("(partial runs")  # 15 of 16 questions scored
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.split("|")[2:-1]] for r in table[2:-1]}
    assert list(rows) == ["timeblind_iacc", "vinoground_text", "some_other_task"]
    assert rows["timeblind_iacc"] == ["I-Acc", "31.2 [27.5, 35.0]", "Q-Acc 40.0, Acc 70.0", "2.5", "15", "1"]
    assert rows["vinoground_text"] == ["text score", "50.0", "–", "0.0", "–", "–"]  # no counts, no samples file
    assert rows["some_other_task"][:2] == ["acc", "12.0"]
    # two runs: a Model column; a --limit run is flagged
    write_results(tmp_path / "b" / "x_results.json", {"timeblind_iacc": {"instance_acc": 1.0}}, model_name="m2",
                   limit=8.0)  # fmt: skip
    two = report.summary_table([run, tmp_path / "b"]).splitlines()
    assert two[0].startswith("| Model | Task |") and "partial runs" in two[-1]
    with pytest.raises(ValueError, match="no task"):
        report.summary_table([write_results(tmp_path / "c" / "y_results.json", {"t": {}})])

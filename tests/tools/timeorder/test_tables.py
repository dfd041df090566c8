"""``timeorder``'s output and the ``sweep-frames`` command (``tools/timeorder/tables.py``): the lmms-eval ``--config``
list of a frame sweep, and the printed tables."""

from __future__ import annotations

import pytest
import yaml

from temporal_tasks import cli
from temporal_tasks.tools.timeorder import collect, time_order
from temporal_tasks.tools.timeorder.tables import document, sweep_config
from tests.helpers.timeorder_runs import TASKS, answers, docs, write_run


def test_sweep_config_is_one_lmms_eval_run_per_n_in_its_own_folder():
    text = sweep_config("openai", "model_version=gpt-4o,", "timeblind_shortcuts", [8, 16], "max_frames_num", "logs/")
    entries = yaml.safe_load(text)
    assert entries == [
        {"model": "openai", "model_args": f"model_version=gpt-4o,max_frames_num={n}", "tasks": "timeblind_shortcuts",
         "batch_size": 1, "log_samples": True, "output_path": f"logs/n{n}"}
        for n in (8, 16)
    ]  # fmt: skip


@pytest.mark.parametrize("frames", ["8", "8,x", "0,8"])
def test_sweep_frames_needs_two_positive_values(frames, capsys):
    assert cli.main(["sweep-frames", "--model", "m", "--tasks", "t", "--frames", frames]) == 2
    assert "--frames" in capsys.readouterr().err


def test_document_prints_every_row_and_label(offline_env, tmp_path):
    questions = docs()
    right = {"main": {0, 1, 2}, "blind": {0}, "single_frame": {0, 1}, "shuffled": {0, 3}}
    run = write_run(tmp_path / "run", {TASKS[k]: answers(questions, r) for k, r in right.items()})
    results = time_order(collect([run]), iters=200)
    text = document(results, [])
    for row in results[0].rows:
        c = row.comparison
        assert f"| `{row.task}` | instance_acc | {c.base:.2f} | 75.00 | {c.diff:+.2f} |" in text
    assert "| τ +0.50 [" in text and "| κ +0.50 [" in text
    assert "| needs the order | 1 | 25.0 |" in text and "## Frame count" not in text

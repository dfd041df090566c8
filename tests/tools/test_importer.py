"""``temporal-tasks import`` (``tools/importer.py``): the ``--score`` run it builds and starts, and the counts it
prints."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from temporal_tasks import cli
from temporal_tasks.data.sources import DataError
from temporal_tasks.tools import importer
from temporal_tasks.tools.importer import RECORD, RESPONSES, score, score_command
from tests.helpers.benchmarks.timeblind import data_rows, official_predictions


def test_score_runs_the_command_it_builds(tmp_path, monkeypatch):
    out = tmp_path / "imported"
    out.mkdir()
    (out / RESPONSES).write_text("")
    (out / RECORD).write_text(json.dumps({"tasks": {"timeblind_iacc": {}, "vinoground_group": {}}}))
    calls = []

    def fake_run(cmd, env):
        calls.append((cmd, env))
        if len(calls) == 1:  # the first run writes its results; the second fails
            (out / "results" / "m").mkdir(parents=True)
            (out / "results" / "m" / "x_results.json").write_text("{}")
            return subprocess.CompletedProcess(cmd, 0)
        return subprocess.CompletedProcess(cmd, 2)

    monkeypatch.setattr(importer.subprocess, "run", fake_run)
    assert score(out, parser="official", extra_args=["--limit", "4"]) == out.resolve() / "results"
    cmd, env, results = score_command(out, parser="official", extra_args=["--limit", "4"])
    assert calls[0] == (cmd, env) and results == out.resolve() / "results"
    assert cmd[1:3] == ["-m", "lmms_eval"] and cmd[cmd.index("--tasks") + 1] == "timeblind_iacc,vinoground_group"
    assert cmd[-2:] == ["--limit", "4"] and env["TEMPORAL_TASKS_PARSER"] == "official"
    shutil.rmtree(out / "results")
    with pytest.raises(DataError, match="exit code 2"):
        score(out)
    assert "TEMPORAL_TASKS_PARSER" not in calls[1][1] or calls[1][1]["TEMPORAL_TASKS_PARSER"] == os.environ.get(
        "TEMPORAL_TASKS_PARSER"
    )


def test_cli_import_prints_the_counts_and_stops_cleanly_on_a_wrong_file(offline_env, tmp_path, capsys):
    rows = data_rows(offline_env)
    src = tmp_path / "predictions.json"
    src.write_text(json.dumps(official_predictions(rows, {r["index"]: "Yes" for r in rows[:-1]})), encoding="utf-8")
    assert cli.main(["import", "--benchmark", "timeblind", str(src), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "timeblind_iacc: 15 of 16 questions answered" in out
    assert "1 without an answer (1 of 4 groups incomplete)" in out
    wrong = tmp_path / "scores.json"
    wrong.write_text(json.dumps({"Q_Acc": 0.5, "V_Acc": 0.5, "Acc": 0.5, "I_Acc": 0.1}), encoding="utf-8")
    assert cli.main(["import", "--benchmark", "timeblind", str(wrong), "--out", str(tmp_path / "out2")]) == 2
    err = capsys.readouterr().err
    assert "scores.json: not a timeblind answer file" in err and "'index' and 'model_output'" in err

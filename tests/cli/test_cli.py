"""The command line (``temporal_tasks/cli.py``): ``tasks-dir``, ``tasks``, ``fixtures``, ``python -m temporal_tasks``
(the same command)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import temporal_tasks
from temporal_tasks import cli
from temporal_tasks.cli import build_parser

pytest.importorskip("lm_eval")


def test_cli_tasks_dir_harness(capsys):
    assert cli.main(["tasks-dir", "--harness", "lm-eval"]) == 0
    assert capsys.readouterr().out.strip() == temporal_tasks.lm_eval_tasks_dir()
    assert cli.main(["tasks-dir", "--harness", "lmms-eval"]) == 0
    assert capsys.readouterr().out.strip() == temporal_tasks.tasks_dir()


def test_cli_tasks_dir_and_fixtures(tmp_path, capsys):
    assert cli.main(["tasks-dir"]) == 0
    assert capsys.readouterr().out.strip() == temporal_tasks.tasks_dir()
    assert cli.main(["tasks"]) == 0
    assert "timeblind_iacc" in capsys.readouterr().out.split()
    assert cli.main(["fixtures", "--out", str(tmp_path), "--benchmark", "timeblind"]) == 0
    assert (tmp_path / "timeblind" / "data.jsonl").is_file()
    assert len(list((tmp_path / "timeblind" / "videos").glob("*.mp4"))) == 8
    assert cli.main(["fixtures", "--out", str(tmp_path), "--benchmark", "nope"]) == 2


def test_python_dash_m_is_the_same_command():
    out = subprocess.run([sys.executable, "-m", "temporal_tasks", "tasks"], capture_output=True, text=True, check=True)
    assert "timeblind_iacc" in out.stdout.split()


# Found by the type check (mypy): prebuild offers only benchmarks that declare the hook.
def test_the_prebuild_command_offers_only_benchmarks_with_a_prebuild_hook(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["prebuild", "--benchmark", "timeblind"])
    assert "invalid choice: 'timeblind'" in capsys.readouterr().err

"""Packaging and discovery: no name clashes, a lazy idempotent hook, the CLI, the replay file format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import temporal_tasks
from temporal_tasks import cli
from temporal_tasks.data.sources import DataError
from temporal_tasks.harness import hook as _hook
from temporal_tasks.harness.replay import read_responses
from temporal_tasks.harness.task_configs import our_tasks


def _names_in(task_manager, directory: str) -> set[str]:
    index = task_manager._get_task_and_group(directory)
    return set(index)


def test_no_name_collides_with_lmms_eval_builtins():
    import lmms_eval.tasks as lt

    tm = lt.TaskManager.__new__(lt.TaskManager)  # only the directory indexer is needed
    tm.verbosity, tm.include_path, tm.model_name = "ERROR", None, None
    tm.logger = lt.eval_logger
    builtin = _names_in(tm, os.path.dirname(os.path.abspath(lt.__file__)) + "/")
    ours = _names_in(tm, temporal_tasks.tasks_dir())
    assert "vinoground" in builtin and "temporalbench" in builtin  # the index really holds the built-ins
    assert ours >= set(our_tasks())  # tags included
    assert not ours & builtin, f"task/group/tag names taken by lmms-eval: {sorted(ours & builtin)}"


def test_our_task_list():
    names = our_tasks()
    assert names["timeblind_iacc"][0] == "task"
    assert all(Path(path).is_file() for _kind, path in names.values())


def test_register_is_idempotent():
    import lmms_eval.tasks as lt

    _hook.register()
    patched = lt.TaskManager.initialize_tasks
    _hook.register()
    _hook.install()
    assert lt.TaskManager.initialize_tasks is patched
    assert getattr(lt.TaskManager, "_temporal_tasks_patched", False)


def test_startup_stays_light():
    code = (
        "import sys, json; print(json.dumps({m: m in sys.modules for m in ('lmms_eval', 'numpy', 'torch')}));"
        "print(any(type(f).__name__ == '_Finder' for f in sys.meta_path))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert json.loads(out[0]) == {"lmms_eval": False, "numpy": False, "torch": False}
    hook_installed = out[1] == "True"
    pth = [p for p in map(Path, sys.path) if (p / "temporal_tasks_hook.pth").is_file()]
    assert hook_installed == bool(pth)


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


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"question_id": "1", "response": "A"}\n{oops\n', r"responses\.jsonl:2: not valid JSON"),
        ('{"question_id": "1", "response": "A"}\n{"question_id": "1", "response": "B"}\n', r":2: .*appears twice"),
        ('["A"]\n', r":1: each line must be an object"),
        ('{"question_id": "1"}\n', r':1: no "response"'),
        ('{"question_id": "1", "response": 3}\n', r':1: "response" must be a string'),
        ('{"question_id": "1", "loglikelihood": {"Yes": "high"}}\n', r':1: "loglikelihood" must map'),
    ],
)
def test_replay_file_errors_name_the_line(tmp_path, content, message):
    path = tmp_path / "responses.jsonl"
    path.write_text(content)
    with pytest.raises(DataError, match=message):
        read_responses(path)


def test_replay_file_reads(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"question_id": 7, "response": "Yes"}\n\n{"question_id": "8", "loglikelihood": {"Yes": -0.1}}\n'
        '{"question_id": 7, "task": "other_task", "response": "No"}\n'
    )
    assert set(read_responses(path)) == {(None, "7"), (None, "8"), ("other_task", "7")}
    with pytest.raises(DataError, match="does not exist"):
        read_responses(tmp_path / "missing.jsonl")


@pytest.mark.slow
def test_lmms_eval_tasks_list_shows_our_tasks(lmms_tasks_list):
    """Only the .pth import hook can make the `tasks` subcommand see us (it never imports lmms_eval.models)."""
    if not any((Path(p) / "temporal_tasks_hook.pth").is_file() for p in sys.path):
        pytest.skip("the package is not installed from a wheel here (no temporal_tasks_hook.pth)")
    out = lmms_tasks_list
    assert out.returncode == 0, out.stderr[-3000:]
    assert "timeblind_iacc" in out.stdout


@pytest.mark.slow
def test_include_path_also_works(lmms_eval):
    run = lmms_eval(
        "timeblind_iacc", responses={"0": "yes"}, args=["--include_path", temporal_tasks.tasks_dir(), "--limit", "4"]
    )
    assert run.metrics("timeblind_iacc")["trial_acc"] == 25.0  # one right answer out of four, the rest empty
    assert "have no response" in run.output


@pytest.mark.slow
def test_demo_runs_offline(tmp_path):
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    out = subprocess.run(
        [sys.executable, "-m", "temporal_tasks", "demo", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=900, env=env,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    # The run ends with the one-screen summary: a header, a rule, one row per demo task, each naming its
    # benchmark's headline metric, then each task's provenance.
    lines = out.stdout.rstrip().splitlines()
    from temporal_tasks.data.fixtures import demo_tasks

    head = max(i for i, line in enumerate(lines) if line.startswith("| Task | headline | value [95% CI]"))
    rows = lines[head + 2 : head + 2 + len(demo_tasks())]
    assert "Provenance:" in lines[head:] and all(any(f"- {t}: " in x for x in lines[head:]) for t in demo_tasks())
    assert [r.split("|")[1].strip() for r in rows] == demo_tasks()
    headline = {r.split("|")[1].strip(): r.split("|")[2].strip() for r in rows}
    assert headline["timeblind_iacc"] == "I-Acc" and headline["vinoground_group"] == "group score"
    assert headline["temporalbench_short_mba"] == "MBA" and headline["velociti_strictvle"] == "StrictVLE"
    assert list((tmp_path / "results").rglob("*_results.json"))


def test_nothing_but_main_imports_the_cli():
    """The CLI sits on top: no module of the package imports temporal_tasks.cli, so no import circle runs through it."""
    import ast

    package = Path(temporal_tasks.__file__).parent
    offenders = []
    for path in package.rglob("*.py"):
        if path.name == "__main__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = {f"{node.module}.{a.name}" for a in node.names} | {node.module}
            elif isinstance(node, ast.Import):
                names = {a.name for a in node.names}
            else:
                continue
            if "temporal_tasks.cli" in names:
                offenders.append(str(path.relative_to(package)))
    assert offenders == []

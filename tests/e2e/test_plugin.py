"""The plugin as lmms-eval finds it: ``lmms-eval tasks list`` shows our tasks (the ``.pth`` hook), ``--include_path``
works too, and ``temporal-tasks demo`` runs offline."""

from __future__ import annotations

import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

import temporal_tasks


def test_lmms_eval_tasks_list_shows_our_tasks(lmms_tasks_list):
    """Only the .pth import hook can make the `tasks` subcommand see us (it never imports lmms_eval.models)."""
    if not any((Path(p) / "temporal_tasks_hook.pth").is_file() for p in site.getsitepackages()):
        pytest.skip("the package is not installed from a wheel here (no temporal_tasks_hook.pth)")
    out = lmms_tasks_list
    assert out.returncode == 0, out.stderr[-3000:]
    assert "timeblind_iacc" in out.stdout


def test_include_path_also_works(lmms_eval):
    run = lmms_eval(
        "timeblind_iacc", responses={"0": "yes"}, args=["--include_path", temporal_tasks.tasks_dir(), "--limit", "4"]
    )
    assert run.metrics("timeblind_iacc")["trial_acc"] == 25.0  # one right answer out of four, the rest empty
    assert "have no response" in run.output


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

"""The import hook (``harness/hook.py``): idempotent, light at interpreter start, and wrapping lmms-eval's evaluation
entry points."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from temporal_tasks.harness import hook as _hook


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


@pytest.mark.parametrize("entry", ["simple_evaluate", "evaluate"])
def test_lmms_eval_entry_points_reset_the_state(entry):
    import lmms_eval.evaluator as evaluator

    assert getattr(getattr(evaluator, entry), "_temporal_tasks_entry", False)  # wrapped by our import hook

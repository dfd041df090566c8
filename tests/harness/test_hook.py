"""The import hook (``temporal_tasks_hook.pth``, the top-level ``temporal_tasks_hook`` and ``harness/hook.py``):
idempotent, light at interpreter start, and wrapping lmms-eval's evaluation entry points."""

from __future__ import annotations

import json
import site
import subprocess
import sys
from pathlib import Path

import pytest

from temporal_tasks.harness import hook as _hook
from tests.helpers.paths import ROOT


def _installed_pth() -> list[Path]:
    """Our .pth file where site.py runs it: in a site-packages folder (the checkout's copy, on the path, is not)."""
    return [
        p / "temporal_tasks_hook.pth"
        for p in map(Path, site.getsitepackages())
        if (p / "temporal_tasks_hook.pth").is_file()
    ]


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
    assert hook_installed == bool(_installed_pth())


# What the .pth file runs at start-up, in a bare interpreter (-S -I: the standard library only) that processes the
# checkout's .pth files as site.py processes site-packages; the modules it imported, and whether the finder is in.
_STARTUP = """
import json, site, sys, tempfile
with tempfile.TemporaryDirectory() as empty:
    site.addsitedir(empty)  # whatever processing a site folder imports by itself is not the hook's
before = set(sys.modules)
site.addsitedir(sys.argv[1])
print(json.dumps(sorted(set(sys.modules) - before)))
print(any(type(f).__name__ == "_Finder" for f in sys.meta_path))
"""


def test_startup_hook_imports_nothing_but_itself():
    """The .pth runs in every Python process of the environment: it may cost no more than its own small module."""
    out = subprocess.run(
        [sys.executable, "-S", "-I", "-c", _STARTUP, str(ROOT)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert json.loads(out[0]) == ["temporal_tasks_hook"]  # no pathlib, no importlib.abc, no module of the package
    assert out[1] == "True"


def test_installed_startup_hook_is_the_top_level_module():
    """In an environment with the wheel installed, a plain interpreter imports our top-level hook module and no module
    of the package (the finder alone is in; the package loads when lmms-eval does)."""
    pth = _installed_pth()
    if not pth:
        pytest.skip("the package is not installed from a wheel here (no temporal_tasks_hook.pth)")
    if pth[0].read_text() != (ROOT / "temporal_tasks_hook.pth").read_text():
        pytest.skip(f"{pth[0]} is an older version's: reinstall the package (`pip install .`)")
    code = "import sys, json; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert "temporal_tasks_hook" in loaded
    assert [m for m in loaded if m.split(".")[0] == "temporal_tasks"] == []


@pytest.mark.parametrize("entry", ["simple_evaluate", "evaluate"])
def test_lmms_eval_entry_points_reset_the_state(entry):
    import lmms_eval.evaluator as evaluator

    assert getattr(getattr(evaluator, entry), "_temporal_tasks_entry", False)  # wrapped by our import hook
